//! Reading candidate rows through a secondary index: the looked-up value becomes an entry
//! prefix, the entries become point ranges over the base table. Candidates are re-checked by
//! the SELECT's filters (the index restriction stays among them), so entries left behind by
//! range deletions or expired cells never reach the result.

use std::ops::Bound;

use bytes::Bytes;
use cql::types::ColumnType;
use storage::{ColumnKind, IndexTargetKind, TableDef};
use uuid::Uuid;

use crate::error::{CqlError, CqlResult};
use crate::executor::source::{within, KeyRange, RowSource};
use crate::planner::select::{PartitionSelection, SelectPlan};
use crate::values::{evaluate, EvalContext, Evaluated, Receiver};

/// An index lookup with its value evaluated.
pub(crate) struct BoundIndex {
    /// The index id.
    id: Uuid,
    /// The entry prefix of the looked-up value.
    prefix: Vec<u8>,
    /// Whether entries point at static rows (whole partitions are candidates).
    static_column: bool,
}

/// The element types a collection restriction compares against: (key, value) of a map,
/// (element, element) of a list or set, the type itself otherwise.
pub(crate) fn element_types(ty: &ColumnType) -> (&ColumnType, &ColumnType) {
    match ty {
        ColumnType::List { element, .. } | ColumnType::Set { element, .. } => (element, element),
        ColumnType::Map { key, value, .. } => (key, value),
        other => (other, other),
    }
}

/// Evaluates the operand of a filtering or index expression on a non-key column against
/// `ty`; null and unset are refused as Cassandra's `RowFilter` expressions refuse them.
pub(crate) fn operand(
    term: &cql::statement::ast::Term,
    name: &str,
    ty: &ColumnType,
    ctx: &EvalContext<'_>,
) -> CqlResult<Bytes> {
    match evaluate(term, Receiver { name, ty }, ctx)? {
        Evaluated::Value(b) => Ok(b),
        Evaluated::Null => Err(CqlError::invalid(format!(
            "Unsupported null value for column {name}"
        ))),
        Evaluated::Unset => Err(CqlError::invalid(format!(
            "Unsupported unset value for column {name}"
        ))),
    }
}

/// Evaluates the key or value (`part`) of a map-entry expression `m[key] = value`; null and
/// unset are refused with `SingleColumnRestriction`'s map-entry messages.
pub(crate) fn element_operand(
    term: &cql::statement::ast::Term,
    name: &str,
    part: &str,
    ty: &ColumnType,
    ctx: &EvalContext<'_>,
) -> CqlResult<Bytes> {
    match evaluate(term, Receiver { name, ty }, ctx)? {
        Evaluated::Value(b) => Ok(b),
        Evaluated::Null => Err(CqlError::invalid(format!(
            "Unsupported null map {part} for column {name}"
        ))),
        Evaluated::Unset => Err(CqlError::invalid(format!(
            "Unsupported unset map {part} for column {name}"
        ))),
    }
}

/// The longest value an index lookup takes: index entries are keyed by it, with an unsigned
/// short length in Cassandra.
const MAX_INDEX_VALUE: usize = 0xFFFF;

/// The lookup `plan` does, if it reads an index's entries. A query that names its
/// partitions reads them directly and filters instead.
pub(crate) fn bind(
    def: &TableDef,
    plan: &SelectPlan,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<BoundIndex>> {
    let Some(index) = &plan.index else {
        return Ok(None);
    };
    if !index.has_entries || matches!(plan.partitions, PartitionSelection::Keys(_)) {
        return Ok(None);
    }
    let col = &def.columns[index.column];
    let (key_ty, value_ty) = element_types(&col.ty);
    let name = col.name.as_str();
    let parts = match index.target {
        IndexTargetKind::Simple | IndexTargetKind::Full => {
            vec![operand(&index.value, name, &col.ty, ctx)?]
        }
        IndexTargetKind::Values => vec![operand(&index.value, name, value_ty, ctx)?],
        IndexTargetKind::Keys => vec![operand(&index.value, name, key_ty, ctx)?],
        IndexTargetKind::Entries => {
            let key = operand(&index.value, name, key_ty, ctx)?;
            let value = match &index.entry_value {
                Some(term) => operand(term, name, value_ty, ctx)?,
                None => return Ok(None),
            };
            vec![key, value]
        }
    };
    if parts.iter().any(|part| part.len() > MAX_INDEX_VALUE) {
        return Err(CqlError::invalid(
            "Index expression values may not be larger than 64K",
        ));
    }
    let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_ref()).collect();
    Ok(Some(BoundIndex {
        id: index.id,
        prefix: storage::index::lookup_prefix(&refs)?,
        static_column: col.kind == ColumnKind::Static,
    }))
}

/// The base-table ranges of the index's candidates that fall in `ranges`: one point range
/// per row, or the whole partition for a static column, in entry (token) order.
pub(crate) fn candidate_ranges(
    source: &RowSource,
    index: &BoundIndex,
    ranges: &[KeyRange],
) -> CqlResult<Vec<KeyRange>> {
    let RowSource::Stored(snapshot, _) = source else {
        return Ok(ranges.to_vec());
    };
    let keys = snapshot.index_entries(index.id, &index.prefix)?;
    Ok(keys
        .into_iter()
        .filter(|key| ranges.iter().any(|r| within(key, r)))
        .map(|key| {
            if index.static_column {
                let end = storage::encoding::key::prefix_end(&key)
                    .map_or(Bound::Unbounded, Bound::Excluded);
                (Bound::Included(key), end)
            } else {
                (Bound::Included(key.clone()), Bound::Included(key))
            }
        })
        .collect())
}
