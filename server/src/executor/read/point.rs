//! The one-row range of a SELECT that names exactly one row by equalities on every
//! primary-key column (`WHERE k = ? AND c1 = ? AND c2 = ?`, or `WHERE k = ?` on a table
//! without clustering columns): the most common read, built straight from its values instead
//! of through the products and ranges that IN lists and slices need.
//!
//! The values go through the same evaluation and encoding as the general path
//! ([`keys::key_values`], [`keys::partition_key`], [`ClusteringPrefix::encode`]), so errors
//! and keys are the same.

use bytes::Bytes;
use storage::{ClusteringPrefix, KeyRange, TableDef};

use crate::error::CqlResult;
use crate::eval::values::EvalContext;
use crate::executor::keys;
use crate::planner::common::clustering::PrefixPart;
use crate::planner::common::restrictions::ValueSet;
use crate::planner::select::{PartitionSelection, SelectPlan};

/// The range of the one row `plan` names (read with a point lookup), or `None` when it may
/// name several (IN, a slice, a token restriction, a clustering prefix).
pub(crate) fn single_row(
    plan: &SelectPlan,
    def: &TableDef,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<KeyRange>> {
    let PartitionSelection::Keys(sets) = &plan.partitions else {
        return Ok(None);
    };
    if !names_one_row(plan, def) {
        return Ok(None);
    }
    let clustering_sets = plan.clustering.prefix.iter().filter_map(|part| match part {
        PrefixPart::Single(set) => Some(set),
        PrefixPart::Multi { .. } => None,
    });
    let partition = values(sets.iter(), &def.partition_key, def, ctx)?;
    let partition = keys::partition_key(def, &partition)?;
    let row = values(clustering_sets, &def.clustering_key, def, ctx)?;
    let clustering = ClusteringPrefix::encode(def, 0, &row)?;
    Ok(Some(KeyRange::row(&partition, &clustering)))
}

/// Whether `plan` names exactly one row by equalities on every primary-key column, whatever
/// values are bound: the shape [`single_row`] reads with one point lookup.
pub(crate) fn names_one_row(plan: &SelectPlan, def: &TableDef) -> bool {
    let PartitionSelection::Keys(sets) = &plan.partitions else {
        return false;
    };
    let clustering = &plan.clustering;
    plan.token_filter.is_none()
        && clustering.slice.is_none()
        && clustering.prefix.len() == def.clustering_key.len()
        && clustering
            .prefix
            .iter()
            .all(|part| matches!(part, PrefixPart::Single(ValueSet::Eq(_))))
        && sets.len() == def.partition_key.len()
        && sets.iter().all(|set| matches!(set, ValueSet::Eq(_)))
}

/// The value of each `= term` restriction, for the key columns `columns` in order.
fn values<'a>(
    sets: impl Iterator<Item = &'a ValueSet>,
    columns: &[usize],
    def: &TableDef,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Bytes>> {
    let mut out = Vec::with_capacity(columns.len());
    for (set, &column) in sets.zip(columns) {
        out.extend(keys::key_values(set, def, column, ctx)?);
    }
    Ok(out)
}
