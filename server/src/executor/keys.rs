//! Evaluating key restrictions into their values, and partition values into storage's
//! [`PartitionKey`] (the ranges over them are built by `storage::KeyRange`).

use bytes::Bytes;
use cql::statement::ast::{InValues, Term};
use cql::types::{codec, ordering, ColumnType, CqlValue};
use storage::{PartitionKey, TableDef};

use crate::error::{CqlResult, RestrictionError};
use crate::eval::values::{evaluate, EvalContext, Evaluated, Receiver};
use crate::planner::ValueSet;

/// Evaluates an `=`/`IN` set for key column `column` of a read into its distinct values.
/// As in Cassandra, only the partition key is held to the 64 KiB key limit, whole (in
/// [`partition_key`]): a longer clustering value is read (it matches no row, as no write can
/// store one).
pub(crate) fn key_values(
    set: &ValueSet,
    def: &TableDef,
    column: usize,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Bytes>> {
    evaluate_key_values(set, def, column, ctx, false)
}

/// As [`key_values`], for a write. The partition key and the clustering are held to the
/// 64 KiB limit whole, once combined ([`check_partition_key_length`],
/// [`check_clustering_length`]); a lone clustering column's values are checked here already,
/// which is the same check.
pub(crate) fn write_key_values(
    set: &ValueSet,
    def: &TableDef,
    column: usize,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Bytes>> {
    let lone_clustering = matches!(def.columns[column].kind, storage::ColumnKind::Clustering)
        && def.clustering_key.len() == 1;
    evaluate_key_values(set, def, column, ctx, lone_clustering)
}

/// The value of `term` for key column `receiver`: a null or unset value is refused, as a
/// key value cannot be either.
pub(crate) fn key_value(
    term: &Term,
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Bytes> {
    match evaluate(term, receiver, ctx)? {
        Evaluated::Value(b) => Ok(b),
        Evaluated::Null => Err(RestrictionError::NullKeyValue {
            column: receiver.name.to_string(),
        }
        .into()),
        Evaluated::Unset => Err(RestrictionError::UnsetKeyValue {
            column: receiver.name.to_string(),
        }
        .into()),
    }
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
    let one = |term: &Term| check_key_length(key_value(term, receiver, ctx)?);
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
    let one = |term: &Term| super::read::index_scan::operand(term, &col.name, &col.ty, ctx);
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

/// Cassandra's limit on a key (`FBUtilities.MAX_UNSIGNED_SHORT`): its length is written as
/// an unsigned short.
const MAX_KEY_LENGTH: usize = 65_535;

fn check_key_length(value: Bytes) -> CqlResult<Bytes> {
    check_length(value.len())?;
    Ok(value)
}

fn check_length(length: usize) -> CqlResult<()> {
    if length > MAX_KEY_LENGTH {
        return Err(RestrictionError::KeyTooLong {
            length,
            max: MAX_KEY_LENGTH,
        }
        .into());
    }
    Ok(())
}

/// Cassandra's `Validation.validateKey` on the serialized partition key: a single column's
/// value, or the `CompositeType` form of several (each value with a 2-byte length and an
/// end-of-component byte), within 64 KiB.
pub(crate) fn check_partition_key_length(def: &TableDef, values: &[Bytes]) -> CqlResult<()> {
    let length = match values {
        [single] if def.partition_key.len() == 1 => single.len(),
        values => values.iter().map(|value| value.len() + 3).sum(),
    };
    check_length(length)
}

/// Cassandra's `ClusteringPrefix.validate` on a written row's clustering: its values'
/// lengths summed within 64 KiB.
pub(crate) fn check_clustering_length(values: &[Bytes]) -> CqlResult<()> {
    check_length(values.iter().map(Bytes::len).sum())
}

/// The cartesian product of per-column value lists.
pub(crate) fn cartesian(columns: Vec<Vec<Bytes>>) -> Vec<Vec<Bytes>> {
    // The usual case, one value per column (every write without IN): one combination, its
    // values moved rather than cloned into lists grown one column at a time.
    if columns.iter().all(|values| values.len() == 1) {
        let mut combination = Vec::with_capacity(columns.len());
        for values in columns {
            combination.extend(values);
        }
        return vec![combination];
    }
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

/// Encoded partition keys (token + key components) for each combination of partition key
/// values, deduplicated and in the order Cassandra reads `IN` partitions: by key value,
/// component by component in each type's order (not by token). For writes, which store them.
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
        .map(|combo| partition_key(def, combo).map(PartitionKey::into_bytes))
        .collect()
}

/// The key of the partition whose key columns take `values` (token included), checked as
/// [`check_partition_key`] checks it.
pub(crate) fn partition_key(def: &TableDef, values: &[Bytes]) -> CqlResult<PartitionKey> {
    check_partition_key(def, values)?;
    Ok(PartitionKey::encode(def, values)?)
}

/// Cassandra's `Validation.validateKey`: the serialized partition key may be neither empty
/// nor longer than 64 KiB. Only a single-column key can be empty: a compound key's
/// `CompositeType` form frames every component, so empty components are allowed in it.
pub(crate) fn check_partition_key(def: &TableDef, values: &[Bytes]) -> CqlResult<()> {
    if is_empty_key(def, values.iter()) {
        return Err(RestrictionError::EmptyKey.into());
    }
    check_partition_key_length(def, values)
}

/// Whether partition-key `values` serialize to an empty key: one column, valued empty.
pub(crate) fn is_empty_key<'v>(
    def: &TableDef,
    mut values: impl Iterator<Item = &'v Bytes>,
) -> bool {
    def.partition_key.len() == 1 && values.any(Bytes::is_empty)
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
    fn one_value_per_column_is_one_combination_and_no_columns_one_empty_one() {
        let one = |v: &'static [u8]| vec![Bytes::from_static(v)];
        assert_eq!(
            cartesian(vec![one(b"a"), one(b"1")]),
            vec![vec![Bytes::from_static(b"a"), Bytes::from_static(b"1")]]
        );
        assert_eq!(cartesian(Vec::new()), vec![Vec::<Bytes>::new()]);
        assert!(cartesian(vec![one(b"a"), Vec::new()]).is_empty());
    }
}
