//! Reading candidate rows through a secondary index: the looked-up value becomes an entry
//! prefix, the entries become point ranges over the base table. Candidates are re-checked by
//! the SELECT's filters (the index restriction stays among them), so entries left behind by
//! range deletions or expired cells never reach the result.

use bytes::Bytes;
use cql::types::ColumnType;
use storage::index::{EntryRange, TermKeying};
use storage::{ColumnKind, IndexTargetKind, KeyRange, PartitionKey, TableDef};
use uuid::Uuid;

use crate::error::{CqlResult, InternalError, RestrictionError};
use crate::eval::values::{evaluate, EvalContext, Evaluated, Receiver};
use crate::executor::read::source::RowSource;
use crate::planner::common::restrictions::Bound as RangeBound;
use crate::planner::select::{PartitionSelection, SelectPlan};

/// Which entries an index lookup reads.
enum Lookup {
    /// Every entry of one value: the value's entry prefix.
    Value(Vec<u8>),
    /// Every entry whose value lies in a range (entry key bounds).
    Range(EntryRange),
}

/// An index lookup with its value evaluated.
pub(crate) struct BoundIndex {
    /// The index id.
    id: Uuid,
    /// The entries to read.
    lookup: Lookup,
    /// How the index keys its values.
    keying: TermKeying,
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
        Evaluated::Null => Err(RestrictionError::NullFilterValue {
            column: name.to_string(),
        }
        .into()),
        Evaluated::Unset => Err(RestrictionError::UnsetFilterValue {
            column: name.to_string(),
        }
        .into()),
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
        Evaluated::Null => Err(RestrictionError::NullMapEntryPart {
            part: part.to_string(),
            column: name.to_string(),
        }
        .into()),
        Evaluated::Unset => Err(RestrictionError::UnsetMapEntryPart {
            part: part.to_string(),
            column: name.to_string(),
        }
        .into()),
    }
}

/// The longest value an index lookup takes: index entries are keyed by it, with an unsigned
/// short length in Cassandra.
const MAX_INDEX_VALUE: usize = 0xFFFF;

/// Refuses an index expression value over 64 KiB, as Cassandra does.
fn check_index_value(value: &[u8]) -> CqlResult<()> {
    if value.len() > MAX_INDEX_VALUE {
        return Err(RestrictionError::IndexValueTooLarge {
            length: value.len(),
        }
        .into());
    }
    Ok(())
}

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
    if matches!(plan.partitions, PartitionSelection::Keys(_)) {
        return Ok(None);
    }
    let col = &def.columns[index.column];
    if !index.has_entries {
        // An index on a key column serves by filtering the base table, with the limit
        // Cassandra puts on every index expression.
        if index.range.is_none() {
            check_index_value(&operand(&index.value, &col.name, &col.ty, ctx)?)?;
        }
        return Ok(None);
    }
    if let Some((lower, upper)) = &index.range {
        return bind_range(def, plan, lower.as_ref(), upper.as_ref(), ctx).map(Some);
    }
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
    for part in &parts {
        check_index_value(part)?;
    }
    let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_ref()).collect();
    let prefix = match refs.as_slice() {
        [one] => index.keying.prefix(one)?,
        _ => storage::index::lookup_prefix(&refs)?,
    };
    Ok(Some(BoundIndex {
        id: index.id,
        lookup: Lookup::Value(prefix),
        keying: index.keying.clone(),
        static_column: col.kind == ColumnKind::Static,
    }))
}

/// The lookup of a range a storage-attached index answers (`plan.index` has one).
fn bind_range(
    def: &TableDef,
    plan: &SelectPlan,
    lower: Option<&RangeBound>,
    upper: Option<&RangeBound>,
    ctx: &EvalContext<'_>,
) -> CqlResult<BoundIndex> {
    let Some(index) = &plan.index else {
        return Err(InternalError::IndexRangeWithoutIndex.into());
    };
    let col = &def.columns[index.column];
    let value = |b: &RangeBound| -> CqlResult<(Bytes, bool)> {
        Ok((operand(&b.term, &col.name, &col.ty, ctx)?, b.inclusive))
    };
    let lower = lower.map(value).transpose()?;
    let upper = upper.map(value).transpose()?;
    let range = index.keying.range(borrowed(&lower), borrowed(&upper))?;
    Ok(BoundIndex {
        id: index.id,
        lookup: Lookup::Range(range),
        keying: index.keying.clone(),
        static_column: col.kind == ColumnKind::Static,
    })
}

/// A bound value, borrowed.
fn borrowed(bound: &Option<(Bytes, bool)>) -> Option<(&[u8], bool)> {
    bound
        .as_ref()
        .map(|(v, inclusive)| (v.as_ref(), *inclusive))
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
    let keys = match &index.lookup {
        Lookup::Value(prefix) => snapshot.index_entries(index.id, prefix)?,
        Lookup::Range(range) => snapshot.index_entries_in(index.id, &index.keying, range)?,
    };
    Ok(keys
        .into_iter()
        .filter(|key| ranges.iter().any(|r| r.contains(key)))
        .map(|key| {
            if index.static_column {
                KeyRange::partition(PartitionKey::from_static_row_key(key))
            } else {
                KeyRange::point(key)
            }
        })
        .collect())
}
