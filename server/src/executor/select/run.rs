//! Running a bound SELECT: walking its key ranges, applying liveness, tombstones and filters
//! to each stored row, and shaping the page ([`run`]).

use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::Arc;

use bytes::Bytes;
use cql::frame::response::{ResultBody, ResultMetadata, Rows};
use cql::statement::ast::Operator;
use cql::types::ordering;
use storage::{ColumnKind, RangeTombstone, TableDef};

use crate::error::CqlResult;
use crate::executor::ann_graph;
use crate::executor::ann_rank;
use crate::executor::collection_filter;
use crate::executor::index_scan;
use crate::executor::read_ranges::ReadRanges;
use crate::executor::read_stats::ReadStats;
use crate::executor::row::{LiveRow, Liveness};
use crate::executor::sai_filter;
use crate::executor::shaping::{Limits, Next, ResultRow, Shaper};
use crate::executor::source::{within, KeyRange, RowSource};
use crate::executor::statics::PartitionStatics;
use crate::node::Node;
use crate::planner::select::{PartitionSelection, SelectPlan};
use crate::planner::selection::reads_write_times;
use crate::schema::{Schema, TableKind};
use crate::session::Session;
use crate::trace;

use super::*;

/// The rows the vector graph proposes for an ANN query over many rows, as ranges to read;
/// `None` to read every row the restrictions select (see [`ann_graph`]).
pub(super) fn ann_candidates(
    node: &Node,
    bound: &BoundSelect,
    source: &RowSource,
    indexed: Option<&[KeyRange]>,
    liveness: &Liveness,
) -> CqlResult<Option<ReadRanges>> {
    let (Some(ann), Some(limit)) = (&bound.ann, bound.limit) else {
        return Ok(None);
    };
    if matches!(bound.plan.partitions, PartitionSelection::Keys(_)) {
        return Ok(None);
    }
    let def = &bound.plan.table.def;
    let ranges = bound.ranges.to_vec(def)?;
    let scope = ann_graph::AnnScope {
        def,
        source,
        ann,
        limit,
        ranges: &ranges,
        indexed,
        liveness,
    };
    let accept = |row: &LiveRow| {
        bound
            .filters
            .iter()
            .all(|f| passes(f, def, row.value(def, f.column)))
    };
    Ok(ann_graph::graph_ranges(node, &scope, &accept)?.map(ReadRanges::Listed))
}

pub(super) fn passes(filter: &BoundFilter, def: &TableDef, value: Option<&Bytes>) -> bool {
    let ty = &def.columns[filter.column].ty;
    let Some(value) = value else { return false };
    if filter.never {
        return false;
    }
    if !collection_filter::passes(ty, value, &filter.checks, &filter.elements) {
        return false;
    }
    let analyzed = |(key, analyzer, operand): &(bool, storage::index::Analyzer, Bytes)| {
        sai_filter::contains(ty, *key, value, analyzer, operand)
    };
    if !filter.analyzed_contains.iter().all(analyzed) {
        return false;
    }
    filter.checks.iter().all(|(op, operands)| {
        let cmp = |b: &Bytes| ordering::compare(ty, value, b);
        match op {
            Operator::In => match &filter.analyzer {
                Some(a) => operands.iter().any(|b| sai_filter::equals(a, value, b)),
                None => operands.iter().any(|b| cmp(b) == Ordering::Equal),
            },
            Operator::Gt => cmp(&operands[0]) == Ordering::Greater,
            Operator::Gte => cmp(&operands[0]) != Ordering::Less,
            Operator::Lt => cmp(&operands[0]) == Ordering::Less,
            Operator::Lte => cmp(&operands[0]) != Ordering::Greater,
            Operator::Neq => cmp(&operands[0]) != Ordering::Equal,
            Operator::NotIn => operands.iter().all(|b| cmp(b) != Ordering::Equal),
            Operator::Contains | Operator::ContainsKey => true,
            _ => false,
        }
    })
}

/// Reads and shapes the result, counting what it examined; `None` when it examined more than
/// `budget` stored rows (the caller then runs it again where it may take long). Past
/// `tombstone_failure_threshold` tombstones the read fails, as Cassandra's does.
pub(super) fn run(
    node: &Node,
    schema: &Schema,
    session: &Session,
    bound: &BoundSelect,
    budget: usize,
    consistency: u16,
) -> CqlResult<Option<(ResultBody, ReadStats)>> {
    let def = bound.plan.table.def.clone();
    let source = match bound.plan.table.kind {
        TableKind::User => RowSource::Stored(node.store.snapshot()?, def.id),
        TableKind::Virtual => {
            let keyspaces = bound.keyspaces.as_deref();
            RowSource::Virtual(crate::system::rows(node, schema, session, &def, keyspaces)?)
        }
    };
    // One moment for the whole read: liveness, `ttl()` and the time functions agree.
    let liveness = Liveness::at(bound.call.now_micros)
        .keeping_write_times(reads_write_times(&bound.plan.outputs));
    let reversed = bound.plan.reversed;
    let post_order = !bound.plan.post_order.is_empty() || bound.ann.is_some();
    let mut scores: Vec<f32> = Vec::new();
    let resume = match &bound.paging {
        Some(state) => {
            let decoded = storage::encoding::key::decode_row_key(&def, &state.last_key)?;
            let partition = state
                .last_key
                .get(..decoded.partition_len)
                .unwrap_or_default();
            Some((partition.to_vec(), state.partition_emitted))
        }
        None => None,
    };
    let resume_partition = resume.as_ref().map(|(partition, _)| partition.clone());
    let limits = Limits {
        // Rows sorted after the read are trimmed to the LIMIT after the sort.
        remaining: match &bound.paging {
            _ if post_order => None,
            Some(state) => state.remaining,
            None => bound.limit,
        },
        per_partition: bound.per_partition_limit,
        page_size: bound.page_size,
    };
    let plan = &bound.plan;
    let mut shaper = Shaper::new(
        &def,
        &plan.outputs,
        bound.call,
        plan.grouping,
        plan.distinct,
        limits,
        resume,
        post_order,
    );
    // Cassandra's `queriesFullPartitions`: restrictions on static and partition-key columns
    // still read whole partitions; a static restriction also fetches the static row.
    let whole_partitions = plan.clustering.prefix.is_empty()
        && plan.clustering.slice.is_none()
        && plan.filters.iter().all(|(i, _)| {
            matches!(
                def.columns[*i].kind,
                storage::ColumnKind::Static | storage::ColumnKind::PartitionKey
            )
        })
        && bound.tuple_check.is_none();
    let filters_static = plan
        .filters
        .iter()
        .any(|(i, _)| def.columns[*i].kind == storage::ColumnKind::Static);
    let static_only_rows = whole_partitions
        && def.has_static_columns()
        && (plan.distinct || filters_static || fetches_static_row(&def, plan));
    let mut statics = PartitionStatics::new(&def, static_only_rows);
    // Range tombstones of the partition being read, loaded once per partition.
    let mut partition_tombstones: (Vec<u8>, Vec<RangeTombstone>) = (Vec::new(), Vec::new());
    // A resumed read starts in the range holding the last key returned: ranges follow the
    // read order (IN partitions by key value), which is not the storage key order.
    let candidates;
    let ranges = match &bound.index {
        Some(index) => {
            let listed = bound.ranges.to_vec(&def)?;
            candidates = ReadRanges::Listed(index_scan::candidate_ranges(&source, index, &listed)?);
            &candidates
        }
        None => &bound.ranges,
    };
    let indexed = match (&bound.index, ranges) {
        (Some(_), ReadRanges::Listed(listed)) => Some(listed.as_slice()),
        _ => None,
    };
    let proposed = ann_candidates(node, bound, &source, indexed, &liveness)?;
    let ranges = proposed.as_ref().unwrap_or(ranges);
    let mut stats = ReadStats::default();
    let tombstones = node.config.read_thresholds.tombstone_guard(
        bound.plan.table.kind == TableKind::User,
        consistency,
        session.local.ip(),
    );
    let budget = u64::try_from(budget).unwrap_or(u64::MAX);
    let resume_key = bound.paging.as_ref().map(|state| state.last_key.as_slice());
    let mut stopped = false;
    'ranges: for range in ranges.walk(&def, resume_key, reversed) {
        let mut range = range?;
        loop {
            let mut skip_to = None;
            for item in source.scan(range.clone(), reversed)? {
                stats.rows_examined += 1;
                if stats.rows_examined > budget {
                    return Ok(None);
                }
                let (key, stored) = item?;
                let decoded = storage::encoding::key::decode_row_key(&def, &key)?;
                let partition_len = decoded.partition_len;
                let prefix = key.get(..partition_len).unwrap_or(&key);
                let is_static = decoded.clustering.len() < def.clustering_key.len();
                if partition_tombstones.0 != prefix {
                    // A partition's static-only row has no vector to rank by.
                    let leaving = statics.leave().filter(|_| bound.ann.is_none());
                    if let Some((static_key, row)) = leaving.filter(|(_, row)| {
                        bound
                            .filters
                            .iter()
                            .all(|f| passes(f, &def, row.value(&def, f.column)))
                    }) {
                        if let Next::Stop = shaper.accept(&static_key, static_key.len(), &row)? {
                            stopped = true;
                            break 'ranges;
                        }
                    }
                    partition_tombstones = (prefix.to_vec(), source.range_tombstones(prefix)?);
                    stats.enter_partition(prefix);
                    if !partition_tombstones.1.is_empty() {
                        let n = partition_tombstones.1.len() as u64;
                        tombstones.add(&mut stats, n, &def)?;
                    }
                    let resumed = resume_partition.as_deref() == Some(prefix);
                    statics.enter(
                        &source,
                        &def,
                        prefix,
                        &decoded,
                        is_static.then_some(&stored),
                        &partition_tombstones.1,
                        &liveness,
                        resumed,
                    )?;
                }
                if is_static {
                    continue;
                }
                let suffix = key.get(partition_len..).unwrap_or_default();
                let range_deleted_at = RangeTombstone::shadowing(&partition_tombstones.1, suffix);
                let Some(row) = LiveRow::new(&def, decoded, stored, &liveness, range_deleted_at)?
                else {
                    tombstones.add(&mut stats, 1, &def)?;
                    continue;
                };
                stats.live_rows += 1;
                if row.cells.dead > 0 {
                    tombstones.add(&mut stats, u64::from(row.cells.dead), &def)?;
                }
                let row = statics.row(row);
                if !bound
                    .filters
                    .iter()
                    .all(|f| passes(f, &def, row.value(&def, f.column)))
                {
                    continue;
                }
                if bound
                    .tuple_check
                    .as_ref()
                    .is_some_and(|c| !c.passes(&def, &row.clustering))
                {
                    continue;
                }
                if bound
                    .clustering_filter
                    .as_ref()
                    .is_some_and(|ranges| !ranges.iter().any(|r| within(suffix, r)))
                {
                    continue;
                }
                let score = match &bound.ann {
                    Some(ann) => match row.value(&def, ann.column).and_then(|v| ann.score(v)) {
                        Some(score) => Some(score),
                        None => continue,
                    },
                    None => None,
                };
                let built = shaper.len();
                let next = shaper.accept(&key, partition_len, &row)?;
                if let Some(score) = score.filter(|_| shaper.len() > built) {
                    scores.push(score);
                }
                match next {
                    Next::Continue => {}
                    Next::Stop => {
                        stopped = true;
                        break 'ranges;
                    }
                    Next::SkipPartition => {
                        skip_to = Some(skip_partition(&range, prefix, reversed));
                        break;
                    }
                }
            }
            match skip_to {
                Some(Some(rest)) => range = rest,
                Some(None) | None => break,
            }
        }
    }
    if !stopped && bound.ann.is_none() {
        if let Some((static_key, row)) = statics.leave().filter(|(_, row)| {
            bound
                .filters
                .iter()
                .all(|f| passes(f, &def, row.value(&def, f.column)))
        }) {
            shaper.accept(&static_key, static_key.len(), &row)?;
        }
    }
    let (mut rows, paging_state) = shaper.finish()?;
    if bound.ann.is_some() {
        rows = ann_rank::top(rows, &scores, bound.limit);
    } else if post_order {
        sort_rows(&def, &bound.plan.post_order, &mut rows);
        if let Some(limit) = bound.limit {
            rows.truncate(limit);
        }
    }
    let mut columns = bound.plan.columns.clone();
    let mut rows: Vec<_> = rows.into_iter().map(|r| r.values).collect();
    crate::values::json_functions::apply_to_json(&bound.plan.to_json, &mut rows)?;
    if bound.plan.json {
        let (spec, json_rows) = crate::json::select_json(&columns, rows)?;
        columns = Arc::from([spec]);
        rows = json_rows;
    }
    stats.rows_returned = rows.len() as u64;
    if let Some(tracer) = trace::current() {
        tracer.record(format!(
            "Read {} live rows and {} tombstone cells",
            stats.live_rows, stats.tombstones
        ));
        tracer.record(format!(
            "Examined {} stored rows in {} partitions, returning {} rows{}",
            stats.rows_examined,
            stats.partitions,
            rows.len(),
            if paging_state.is_some() {
                " (one page)"
            } else {
                ""
            }
        ));
    }
    let metadata = ResultMetadata {
        columns,
        paging_state: paging_state.map(|state| state.encode(&def)),
        no_metadata: bound.skip_metadata,
        new_metadata_id: None,
    };
    Ok(Some((ResultBody::Rows(Rows { metadata, rows }), stats)))
}

/// Whether the query fetches the partition's static row, so that a partition without rows
/// shows its static content: it reads a static column, or no column outside the primary key
/// (Cassandra then fetches every column). A query reading only regular columns does not.
pub(super) fn fetches_static_row(def: &TableDef, plan: &SelectPlan) -> bool {
    let mut non_key = crate::planner::selection::output_columns(&plan.outputs)
        .into_iter()
        .map(|i| def.columns[i].kind)
        .filter(|kind| matches!(kind, ColumnKind::Regular | ColumnKind::Static))
        .peekable();
    non_key.peek().is_none() || non_key.any(|kind| kind == ColumnKind::Static)
}

/// Sorts rows of several partitions by the ORDER BY columns, keeping the read order of ties
/// (Cassandra sorts the same way, stably, after the read).
pub(super) fn sort_rows(def: &TableDef, order: &[(usize, bool)], rows: &mut [ResultRow]) {
    rows.sort_by(|a, b| {
        for &(column, desc) in order {
            let col = &def.columns[column];
            let position = usize::try_from(col.position).unwrap_or(usize::MAX);
            let cmp = match (a.clustering.get(position), b.clustering.get(position)) {
                (Some(x), Some(y)) => ordering::compare(&col.ty, x, y),
                (x, y) => x.is_some().cmp(&y.is_some()),
            };
            let cmp = if desc { cmp.reverse() } else { cmp };
            if cmp != Ordering::Equal {
                return cmp;
            }
        }
        Ordering::Equal
    });
}

/// What is left of `range` after the partition with prefix `partition`, in scan direction;
/// `None` when nothing is.
pub(super) fn skip_partition(
    range: &KeyRange,
    partition: &[u8],
    reversed: bool,
) -> Option<KeyRange> {
    let (start, end) = range.clone();
    if reversed {
        let start_past = match &start {
            Bound::Included(s) | Bound::Excluded(s) => s.as_slice() >= partition,
            Bound::Unbounded => false,
        };
        (!start_past).then(|| (start, Bound::Excluded(partition.to_vec())))
    } else {
        let next = storage::encoding::key::prefix_end(partition)?;
        let end_past = match &end {
            Bound::Included(e) => e.as_slice() < next.as_slice(),
            Bound::Excluded(e) => e.as_slice() <= next.as_slice(),
            Bound::Unbounded => false,
        };
        (!end_past).then_some((Bound::Included(next), end))
    }
}
