//! The read vocabulary against CQL order: a range built from clustering bounds holds exactly
//! the rows whose values the bounds admit (compared with `cql::types::ordering`, each column
//! in its CQL value order whatever its clustering direction), token ranges hold exactly the
//! partitions of their tokens, and narrowing keeps exactly what lies past the key.

use std::cmp::Ordering;
use std::ops::Bound;

use bytes::Bytes;
use cql::types::{ordering, ColumnType};
use proptest::prelude::*;
use uuid::Uuid;

use super::*;
use crate::catalog::ClusteringOrder;
use crate::catalog::ColumnDef;
use crate::catalog::ColumnId;
use crate::catalog::ColumnKind;
use crate::catalog::TableDef;
use crate::catalog::TableParams;
use crate::encoding::key::row_key;

/// `CREATE TABLE t (p int, c1 int, c2 text, PRIMARY KEY (p, c1, c2))` with the clustering
/// orders given.
fn table(c1: ClusteringOrder, c2: ClusteringOrder) -> TableDef {
    let col = |id, name: &str, ty, kind, position, order| ColumnDef {
        id: ColumnId(id),
        name: name.into(),
        ty,
        kind,
        position,
        order,
    };
    TableDef::new(
        Uuid::from_u128(7),
        "ks",
        "t",
        vec![
            col(
                0,
                "p",
                ColumnType::Int,
                ColumnKind::PartitionKey,
                0,
                ClusteringOrder::None,
            ),
            col(1, "c1", ColumnType::Int, ColumnKind::Clustering, 0, c1),
            col(2, "c2", ColumnType::Text, ColumnKind::Clustering, 1, c2),
        ],
        TableParams::default(),
    )
}

fn int(v: i32) -> Bytes {
    Bytes::copy_from_slice(&v.to_be_bytes())
}

fn text(v: &str) -> Bytes {
    Bytes::copy_from_slice(v.as_bytes())
}

/// A row's clustering values.
type Row = (i32, String);

fn values((c1, c2): &Row) -> [Bytes; 2] {
    [int(*c1), text(c2)]
}

const TYPES: [ColumnType; 2] = [ColumnType::Int, ColumnType::Text];

/// CQL comparison of a row's values from column `first` on with a bound tuple (as long as the
/// bound): Cassandra's `Slice` compares a row with a shorter bound on the bound's columns.
fn compare(row: &Row, first: usize, bound: &[Bytes]) -> Ordering {
    let row = values(row);
    for (n, value) in bound.iter().enumerate() {
        let column = first + n;
        match ordering::compare(&TYPES[column], &row[column], value) {
            Ordering::Equal => continue,
            other => return other,
        }
    }
    Ordering::Equal
}

/// Whether CQL admits `row` under `c1 = prefix` (if any) and the slice bounds.
fn admitted(row: &Row, restriction: &Restriction) -> bool {
    let first = usize::from(restriction.prefix.is_some());
    if restriction.prefix.is_some_and(|c1| row.0 != c1) {
        return false;
    }
    let lower = restriction.lower.as_ref().is_none_or(|(bound, inclusive)| {
        let cmp = compare(row, first, bound);
        cmp.is_gt() || (*inclusive && cmp.is_eq())
    });
    let upper = restriction.upper.as_ref().is_none_or(|(bound, inclusive)| {
        let cmp = compare(row, first, bound);
        cmp.is_lt() || (*inclusive && cmp.is_eq())
    });
    lower && upper
}

/// `c1 = prefix` (or nothing), then a slice on the next columns (`(c1, c2)` or `c2`).
#[derive(Debug, Clone)]
struct Restriction {
    prefix: Option<i32>,
    lower: Option<(Vec<Bytes>, bool)>,
    upper: Option<(Vec<Bytes>, bool)>,
}

fn c1_value() -> impl Strategy<Value = i32> {
    prop_oneof![-3..3i32, Just(i32::MIN), Just(i32::MAX)]
}

fn c2_value() -> impl Strategy<Value = String> {
    proptest::sample::select(vec!["", "a", "a\0", "ab", "b", "\u{e9}"]).prop_map(String::from)
}

fn row() -> impl Strategy<Value = Row> {
    (c1_value(), c2_value())
}

/// A slice bound over the columns from `first` (one or, from c1, up to two values).
fn bound(first: usize) -> impl Strategy<Value = Option<(Vec<Bytes>, bool)>> {
    let tuple = (c1_value(), c2_value(), 1..=2usize).prop_map(move |(c1, c2, width)| {
        let all = values(&(c1, c2));
        all[first..(first + width).min(2)].to_vec()
    });
    proptest::option::of((tuple, any::<bool>()))
}

fn restriction() -> impl Strategy<Value = Restriction> {
    proptest::option::of(c1_value()).prop_flat_map(|prefix| {
        let first = usize::from(prefix.is_some());
        (Just(prefix), bound(first), bound(first)).prop_map(|(prefix, lower, upper)| Restriction {
            prefix,
            lower,
            upper,
        })
    })
}

fn order() -> impl Strategy<Value = ClusteringOrder> {
    prop_oneof![Just(ClusteringOrder::Asc), Just(ClusteringOrder::Desc)]
}

/// The clustering range of `restriction` as a reader builds it.
fn clustering_range(def: &TableDef, restriction: &Restriction) -> ClusteringRange {
    let first = usize::from(restriction.prefix.is_some());
    let prefix = match restriction.prefix {
        Some(c1) => ClusteringPrefix::encode(def, 0, &[int(c1)]).unwrap(),
        None => ClusteringPrefix::default(),
    };
    let encode = |bound: &Option<(Vec<Bytes>, bool)>| {
        bound.as_ref().map(|(values, inclusive)| {
            (
                ClusteringPrefix::encode(def, first, values).unwrap(),
                *inclusive,
            )
        })
    };
    let (lower, upper) = (encode(&restriction.lower), encode(&restriction.upper));
    let order = def.columns[def.clustering_key[first]].order;
    ClusteringRange::slice(&prefix, as_bound(&lower), as_bound(&upper), order)
}

fn as_bound(bound: &Option<(ClusteringPrefix, bool)>) -> Bound<&ClusteringPrefix> {
    match bound {
        Some((prefix, true)) => Bound::Included(prefix),
        Some((prefix, false)) => Bound::Excluded(prefix),
        None => Bound::Unbounded,
    }
}

fn partition(def: &TableDef, p: i32) -> PartitionKey {
    PartitionKey::encode(def, &[int(p)]).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn clustering_slices_hold_exactly_the_rows_cql_admits(
        (o1, o2) in (order(), order()),
        restriction in restriction(),
        rows in proptest::collection::vec(row(), 1..24),
    ) {
        let first = usize::from(restriction.prefix.is_some());
        let sliced_width = restriction
            .lower
            .iter()
            .chain(&restriction.upper)
            .map(|(b, _)| b.len())
            .max()
            .unwrap_or(1);
        // An exact slice spans columns of one direction.
        prop_assume!(first == 1 || sliced_width == 1 || o1 == o2);
        let def = table(o1, o2);
        let clustering = clustering_range(&def, &restriction);
        let range = KeyRange::slice(&partition(&def, 1), &clustering);
        for row in &rows {
            let expected = admitted(row, &restriction);
            let key = row_key(&def, &[int(1)], &values(row)).unwrap();
            let suffix = ClusteringPrefix::encode(&def, 0, &values(row)).unwrap();
            prop_assert_eq!(clustering.contains(suffix.as_bytes()), expected, "{:?}", row);
            prop_assert_eq!(range.contains(&key), expected, "{:?}", row);
            let elsewhere = row_key(&def, &[int(2)], &values(row)).unwrap();
            prop_assert!(!range.contains(&elsewhere));
        }
    }

    #[test]
    fn token_ranges_hold_the_partitions_of_their_tokens(
        first in any::<i64>(),
        end in proptest::option::of(any::<i64>()),
        keys in proptest::collection::vec(any::<i32>(), 1..16),
    ) {
        let def = table(ClusteringOrder::Asc, ClusteringOrder::Asc);
        let range = KeyRange::tokens(first, end);
        for p in keys {
            let token = crate::encoding::token::token_of(&[&p.to_be_bytes()]);
            let expected = token >= first && end.is_none_or(|end| token < end);
            let partition = partition(&def, p);
            prop_assert_eq!(range.contains_partition(&partition), expected);
            let key = row_key(&def, &[int(p)], &[int(0), text("x")]).unwrap();
            prop_assert_eq!(range.contains(&key), expected);
        }
    }

    #[test]
    fn a_narrowed_range_holds_what_lies_past_the_key(
        restriction in restriction(),
        rows in proptest::collection::vec(row(), 1..16),
        at in row(),
        reverse in any::<bool>(),
    ) {
        let def = table(ClusteringOrder::Asc, ClusteringOrder::Asc);
        let whole = KeyRange::slice(&partition(&def, 1), &clustering_range(&def, &restriction));
        let after = row_key(&def, &[int(1)], &values(&at)).unwrap();
        let order = Order::reversed_if(reverse);
        let narrowed = whole.clone().after(&after, order);
        let mut keys: Vec<Vec<u8>> = rows
            .iter()
            .map(|row| row_key(&def, &[int(1)], &values(row)).unwrap())
            .collect();
        keys.sort();
        for key in &keys {
            let past = if reverse { key < &after } else { key > &after };
            let expected = whole.contains(key) && past;
            let held = narrowed.as_ref().is_some_and(|r| r.contains(key));
            prop_assert_eq!(held, expected);
        }
        let selected: Vec<&Vec<u8>> = whole.select(&keys, |k| k.as_slice()).iter().collect();
        let filtered: Vec<&Vec<u8>> = keys.iter().filter(|k| whole.contains(k)).collect();
        prop_assert_eq!(selected, filtered);
    }
}

#[test]
fn exclusive_lower_bound_skips_the_whole_prefix() {
    let range = ClusteringRange::slice(
        &ClusteringPrefix(b"p".to_vec()),
        Bound::Excluded(&ClusteringPrefix(b"5".to_vec())),
        Bound::Unbounded,
        ClusteringOrder::Asc,
    );
    assert_eq!(range.bounds().0, &Bound::Included(b"p6".to_vec()));
    assert_eq!(range.bounds().1, &Bound::Excluded(b"q".to_vec()));
}

#[test]
fn a_one_key_range_is_a_point_lookup() {
    let key = |n: u8| vec![n];
    assert_eq!(
        KeyRange::between(Bound::Included(key(2)), Bound::Included(key(2))).exact_key(),
        Some(&[2u8][..])
    );
    assert_eq!(
        KeyRange::between(Bound::Included(key(2)), Bound::Included(key(3))).exact_key(),
        None
    );
    assert_eq!(
        KeyRange::between(Bound::Included(key(2)), Bound::Excluded(key(2))).exact_key(),
        None
    );
    assert_eq!(KeyRange::point(key(2)).exact_key(), Some(&[2u8][..]));
    assert_eq!(
        KeyRange::point(key(2)),
        KeyRange::between(Bound::Included(key(2)), Bound::Included(key(2)))
    );
}

#[test]
fn a_row_is_its_primary_key_and_a_partition_holds_its_rows() {
    let def = table(ClusteringOrder::Asc, ClusteringOrder::Desc);
    let clustering = ClusteringPrefix::encode(&def, 0, &[int(4), text("x")]).unwrap();
    let row = KeyRange::row(&partition(&def, 1), &clustering);
    let key = row_key(&def, &[int(1)], &[int(4), text("x")]).unwrap();
    assert_eq!(row.exact_key(), Some(key.as_slice()));
    let mut joined = ClusteringPrefix::encode(&def, 0, &[int(4)]).unwrap();
    joined.append(&ClusteringPrefix::encode(&def, 1, &[text("x")]).unwrap());
    assert_eq!(joined, clustering);
    assert!(ClusteringPrefix::encode(&def, 1, &[text("x"), int(1)]).is_err());

    let whole = KeyRange::partition(partition(&def, 1));
    let static_row = row_key(&def, &[int(1)], &[]).unwrap();
    assert!(whole.contains(&static_row) && whole.contains(&key));
    assert!(!whole.contains(&row_key(&def, &[int(2)], &[int(4), text("x")]).unwrap()));
    let from_static = PartitionKey::from_static_row_key(static_row);
    assert_eq!(KeyRange::partition(from_static), whole);
    // The empty prefix spans every row, from the static row's empty suffix on.
    let every = ClusteringRange::prefix(ClusteringPrefix::default());
    assert_eq!(
        every.bounds(),
        (&Bound::Included(Vec::new()), &Bound::Unbounded)
    );
    assert_eq!(KeyRange::slice(&partition(&def, 1), &every), whole);
}

#[test]
fn skipping_a_partition_leaves_the_partitions_after_it() {
    let def = table(ClusteringOrder::Asc, ClusteringOrder::Asc);
    let mut partitions: Vec<PartitionKey> = (0..8).map(|p| partition(&def, p)).collect();
    partitions.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let row = |p: &PartitionKey| {
        let clustering = ClusteringPrefix::encode(&def, 0, &[int(0), text("a")]).unwrap();
        KeyRange::row(p, &clustering).exact_key().unwrap().to_vec()
    };
    let skipped = &partitions[3];
    let forward = KeyRange::all().past_partition(skipped.as_bytes(), Order::Forward);
    let reverse = KeyRange::all().past_partition(skipped.as_bytes(), Order::Reverse);
    for (n, p) in partitions.iter().enumerate() {
        let held = |range: &Option<KeyRange>| range.as_ref().is_some_and(|r| r.contains(&row(p)));
        assert_eq!(held(&forward), n > 3, "partition {n}");
        assert_eq!(held(&reverse), n < 3, "partition {n}");
    }
    let point = KeyRange::point(row(skipped));
    assert_eq!(
        point.past_partition(skipped.as_bytes(), Order::Forward),
        None
    );
    assert_eq!(
        point.past_partition(skipped.as_bytes(), Order::Reverse),
        None
    );
    assert!(KeyRange::between(Bound::Included(vec![3]), Bound::Excluded(vec![2])).is_empty());
    assert!(!KeyRange::point(vec![3]).is_empty());
}
