//! Turning evaluated key restrictions into storage key prefixes and ranges.

use std::ops::Bound;

use bytes::Bytes;
use cql::statement::ast::{InValues, Term};
use cql::types::{codec, ordering, ColumnType, CqlValue};
use storage::{ClusteringOrder, TableDef};

use crate::error::{CqlResult, RestrictionError};
use crate::executor::source::KeyRange;
use crate::planner::ValueSet;
use crate::values::{evaluate, EvalContext, Evaluated, Receiver};

/// Evaluates an `=`/`IN` set for key column `column` of a read into its distinct values.
/// As in Cassandra, only partition key values are held to the 64 KiB key limit: a longer
/// clustering value is read (it matches no row, as no write can store one).
pub(crate) fn key_values(
    set: &ValueSet,
    def: &TableDef,
    column: usize,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Bytes>> {
    let partition = matches!(def.columns[column].kind, storage::ColumnKind::PartitionKey);
    evaluate_key_values(set, def, column, ctx, partition)
}

/// As [`key_values`], for a write: every key value is held to the 64 KiB limit.
pub(crate) fn write_key_values(
    set: &ValueSet,
    def: &TableDef,
    column: usize,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Bytes>> {
    evaluate_key_values(set, def, column, ctx, true)
}

fn evaluate_key_values(
    set: &ValueSet,
    def: &TableDef,
    column: usize,
    ctx: &EvalContext<'_>,
    limited: bool,
) -> CqlResult<Vec<Bytes>> {
    let check_key_length = |value: Bytes| {
        if limited {
            check_key_length(value)
        } else {
            Ok(value)
        }
    };
    let col = &def.columns[column];
    let receiver = Receiver {
        name: &col.name,
        ty: &col.ty,
    };
    let one = |term: &Term| -> CqlResult<Bytes> {
        match evaluate(term, receiver, ctx)? {
            Evaluated::Value(b) => check_key_length(b),
            Evaluated::Null => Err(RestrictionError::NullKeyValue {
                column: col.name.clone(),
            }
            .into()),
            Evaluated::Unset => Err(RestrictionError::UnsetKeyValue {
                column: col.name.clone(),
            }
            .into()),
        }
    };
    match set {
        ValueSet::Eq(term) => Ok(vec![one(term)?]),
        ValueSet::In(InValues::List(terms)) => terms.iter().map(one).collect(),
        ValueSet::In(InValues::Bind(marker)) => bound_list(marker, col, ctx, Operand::Key)?
            .into_iter()
            .map(check_key_length)
            .collect(),
    }
}

/// Evaluates an `=`/`IN` set filtering non-key column `col` into its values. Unlike a key
/// column's, the values may be of any length, and null and unset get the messages of
/// Cassandra's row-filter expressions.
pub(crate) fn filter_values(
    set: &ValueSet,
    col: &storage::ColumnDef,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Bytes>> {
    let one = |term: &Term| super::index_scan::operand(term, &col.name, &col.ty, ctx);
    match set {
        ValueSet::Eq(term) => Ok(vec![one(term)?]),
        ValueSet::In(InValues::List(terms)) => terms.iter().map(one).collect(),
        ValueSet::In(InValues::Bind(marker)) => bound_list(marker, col, ctx, Operand::Filter),
    }
}

/// The values `col NOT IN (...)` excludes, each serialized (`term` is the planner's tuple of
/// them or the bind marker of their list); `None` when one of them is null: `x != null` is
/// unknown, so no row passes, as in SQL. Unset values are refused.
pub(crate) fn excluded_values(
    term: &Term,
    col: &storage::ColumnDef,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<Vec<Bytes>>> {
    let items = match term {
        Term::Tuple(items) => items.as_slice(),
        Term::Bind(marker) => return bound_list(marker, col, ctx, Operand::Filter).map(Some),
        one => std::slice::from_ref(one),
    };
    let receiver = Receiver {
        name: &col.name,
        ty: &col.ty,
    };
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        match evaluate(item, receiver, ctx)? {
            Evaluated::Value(value) => values.push(value),
            Evaluated::Null => return Ok(None),
            Evaluated::Unset => {
                return Err(RestrictionError::UnsetFilterValue {
                    column: col.name.clone(),
                }
                .into())
            }
        }
    }
    Ok(Some(values))
}

/// Whose operand a bound `IN ?` list is: a key restriction's or a row filter's. Each refuses a
/// null or unset list in its own words (`Invalid ...` and `Unsupported ...`, as Cassandra's
/// restrictions and row filters do).
#[derive(Clone, Copy)]
enum Operand {
    Key,
    Filter,
}

impl Operand {
    fn null(self, column: &str) -> RestrictionError {
        let column = column.to_string();
        match self {
            Operand::Key => RestrictionError::NullKeyList { column },
            Operand::Filter => RestrictionError::NullFilterValue { column },
        }
    }

    fn unset(self, column: &str) -> RestrictionError {
        let column = column.to_string();
        match self {
            Operand::Key => RestrictionError::UnsetKeyValue { column },
            Operand::Filter => RestrictionError::UnsetFilterValue { column },
        }
    }
}

/// The elements of the list bound to `IN ?` on `col`, each serialized; a null or unset list
/// is refused in the words of `operand`.
fn bound_list(
    marker: &cql::statement::ast::BindMarker,
    col: &storage::ColumnDef,
    ctx: &EvalContext<'_>,
    operand: Operand,
) -> CqlResult<Vec<Bytes>> {
    let list_ty = ColumnType::List {
        element: Box::new(col.ty.clone()),
        frozen: false,
    };
    let name = format!("in({})", col.name);
    let receiver = Receiver {
        name: &name,
        ty: &list_ty,
    };
    let bytes = match evaluate(&Term::Bind(marker.clone()), receiver, ctx)? {
        Evaluated::Value(bytes) => bytes,
        Evaluated::Null => return Err(operand.null(&col.name).into()),
        Evaluated::Unset => return Err(operand.unset(&col.name).into()),
    };
    match codec::deserialize_value(&list_ty, &bytes) {
        Ok(CqlValue::List(items)) => Ok(items
            .iter()
            .map(|item| {
                let mut out = Vec::new();
                codec::serialize_value(item, &mut out);
                Bytes::from(out)
            })
            .collect()),
        Ok(_) => Ok(Vec::new()),
        Err(err) => Err(RestrictionError::MalformedValue(err).into()),
    }
}

/// Cassandra's limit on one key component: its length is written as an unsigned short.
const MAX_KEY_COMPONENT: usize = 65_535;

fn check_key_length(value: Bytes) -> CqlResult<Bytes> {
    if value.len() > MAX_KEY_COMPONENT {
        return Err(RestrictionError::KeyTooLong {
            length: value.len(),
            max: MAX_KEY_COMPONENT,
        }
        .into());
    }
    Ok(value)
}

/// The cartesian product of per-column value lists.
pub(crate) fn cartesian(columns: Vec<Vec<Bytes>>) -> Vec<Vec<Bytes>> {
    let mut out: Vec<Vec<Bytes>> = vec![Vec::new()];
    for values in columns {
        let mut next = Vec::with_capacity(out.len() * values.len());
        for prefix in &out {
            for v in &values {
                let mut combo = prefix.clone();
                combo.push(v.clone());
                next.push(combo);
            }
        }
        out = next;
    }
    out
}

/// Encoded partition prefixes (token + key) for each combination of partition key values,
/// deduplicated and in the order Cassandra reads `IN` partitions: by key value, component by
/// component in each type's order (not by token).
pub(crate) fn partition_prefixes(
    def: &TableDef,
    mut combos: Vec<Vec<Bytes>>,
) -> CqlResult<Vec<Vec<u8>>> {
    let compare = |a: &Vec<Bytes>, b: &Vec<Bytes>| {
        def.partition_key
            .iter()
            .zip(a.iter().zip(b))
            .map(|(&i, (x, y))| ordering::compare(&def.columns[i].ty, x, y))
            .find(|c| c.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    };
    combos.sort_by(compare);
    combos.dedup_by(|a, b| compare(a, b).is_eq());
    combos
        .iter()
        .map(|combo| partition_prefix(def, combo))
        .collect()
}

/// The storage prefix of the partition whose key columns take `values`: its token, then the
/// key components.
pub(crate) fn partition_prefix(def: &TableDef, values: &[Bytes]) -> CqlResult<Vec<u8>> {
    if values.iter().any(|value| value.is_empty()) {
        return Err(RestrictionError::EmptyKey.into());
    }
    let parts: Vec<&[u8]> = values.iter().map(|b| b.as_ref()).collect();
    let token = storage::encoding::token::token_of(&parts);
    let typed: Vec<(&ColumnType, &[u8])> = def
        .partition_key
        .iter()
        .zip(values)
        .map(|(&i, v)| (&def.columns[i].ty, v.as_ref()))
        .collect();
    let mut prefix = Vec::with_capacity(64);
    storage::encoding::key::encode_partition_prefix(token, &typed, &mut prefix)?;
    Ok(prefix)
}

/// Encodes the first `values.len()` clustering components.
pub(crate) fn clustering_bytes(def: &TableDef, values: &[Bytes]) -> CqlResult<Vec<u8>> {
    let typed: Vec<(&ColumnType, ClusteringOrder, &[u8])> = def
        .clustering_key
        .iter()
        .zip(values)
        .map(|(&i, v)| (&def.columns[i].ty, def.columns[i].order, v.as_ref()))
        .collect();
    let mut out = Vec::new();
    storage::encoding::key::encode_clustering(&typed, &mut out)?;
    Ok(out)
}

/// The range of every key starting with `prefix`.
pub(crate) fn prefix_range(prefix: Vec<u8>) -> KeyRange {
    let end = match storage::encoding::key::prefix_end(&prefix) {
        Some(end) => Bound::Excluded(end),
        None => Bound::Unbounded,
    };
    (Bound::Included(prefix), end)
}

/// One side of a clustering slice, already encoded after its prefix.
pub(crate) struct SliceBound {
    pub key: Vec<u8>,
    pub inclusive: bool,
}

/// The key range of rows under `prefix` whose next clustering component lies between `lower`
/// and `upper` (in CQL value order); `desc` when that component is stored descending.
pub(crate) fn slice_range(
    prefix: &[u8],
    lower: Option<SliceBound>,
    upper: Option<SliceBound>,
    desc: bool,
) -> KeyRange {
    let (byte_lo, byte_hi) = if desc { (upper, lower) } else { (lower, upper) };
    let start = match byte_lo {
        None => Bound::Included(prefix.to_vec()),
        Some(b) if b.inclusive => Bound::Included(b.key),
        Some(b) => match storage::encoding::key::prefix_end(&b.key) {
            Some(end) => Bound::Included(end),
            None => Bound::Excluded(b.key),
        },
    };
    let end = match byte_hi {
        None => {
            storage::encoding::key::prefix_end(prefix).map_or(Bound::Unbounded, Bound::Excluded)
        }
        Some(b) if b.inclusive => {
            storage::encoding::key::prefix_end(&b.key).map_or(Bound::Unbounded, Bound::Excluded)
        }
        Some(b) => Bound::Excluded(b.key),
    };
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cartesian_product_of_in_lists() {
        let a = vec![Bytes::from_static(b"a"), Bytes::from_static(b"b")];
        let c = vec![Bytes::from_static(b"1"), Bytes::from_static(b"2")];
        let combos = cartesian(vec![a, c]);
        assert_eq!(combos.len(), 4);
        assert_eq!(
            combos[1],
            vec![Bytes::from_static(b"a"), Bytes::from_static(b"2")]
        );
    }

    #[test]
    fn exclusive_lower_bound_skips_the_whole_prefix() {
        let range = slice_range(
            b"p",
            Some(SliceBound {
                key: b"p5".to_vec(),
                inclusive: false,
            }),
            None,
            false,
        );
        assert_eq!(range.0, Bound::Included(b"p6".to_vec()));
        assert_eq!(range.1, Bound::Excluded(b"q".to_vec()));
    }
}
