//! Running a bound SELECT: walking its key ranges, applying liveness, tombstones and filters
//! to each stored row, and shaping the page ([`run`]).

use std::cmp::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use cql::frame::response::{ResultBody, ResultMetadata, Rows};
use cql::statement::ast::Operator;
use cql::types::ordering;
use storage::{ColumnKind, KeyRange, Order, RangeTombstone, TableDef};

use crate::error::CqlResult;
use crate::executor::read::ranges::ReadRanges;
use crate::executor::read::row::{LiveRow, Liveness};
use crate::executor::read::shaping::{Limits, Next, ResultRow, Shaper};
use crate::executor::read::source::RowSource;
use crate::executor::read::statics::PartitionStatics;
use crate::executor::read::stats::ReadStats;
use crate::executor::read::{ann_graph, ann_rank, collection_filter, index_scan, sai_filter};
use crate::node::Node;
use crate::planner::select::selection::reads_write_times;
use crate::planner::select::{PartitionSelection, SelectPlan};
use crate::schema::{Schema, TableKind};
use crate::telemetry::trace;
use crate::transport::session::Session;

use super::*;
use crate::executor::read::paging::PagingState;
use crate::executor::read::thresholds::TombstoneGuard;
use storage::StoredRow;

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
    let def: &TableDef = &bound.plan.table.def;
    let source = match bound.plan.table.kind {
        TableKind::User => RowSource::Stored(node.store().snapshot()?, def.id),
        TableKind::Virtual => {
            let keyspaces = bound.keyspaces.as_deref();
            RowSource::Virtual(crate::system::rows(node, schema, session, def, keyspaces)?)
        }
    };
    // One moment for the whole read: liveness, `ttl()` and the time functions agree.
    let liveness = Liveness::at(bound.call.now_micros)
        .keeping_write_times(reads_write_times(&bound.plan.outputs));
    // A resumed read starts in the range holding the last key returned: ranges follow the
    // read order (IN partitions by key value), which is not the storage key order.
    let candidates;
    let ranges = match &bound.index {
        Some(index) => {
            let listed = bound.ranges.to_vec(def)?;
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
    let tombstones = node.config().read_thresholds.tombstone_guard(
        bound.plan.table.kind == TableKind::User,
        consistency,
        session.local.ip(),
    );
    let resume = resume_point(def, bound)?;
    let mut walk = Walk::new(bound, &source, liveness, tombstones, budget, resume);
    let Some(stopped) = walk.ranges(ranges)? else {
        return Ok(None);
    };
    if !stopped && bound.ann.is_none() {
        walk.leave_partition()?;
    }
    let (rows, paging_state, stats) = walk.finish()?;
    result(bound, rows, paging_state, stats).map(Some)
}

/// Where a resumed page starts: the partition prefix of the last key returned, and how many
/// rows of that partition were returned.
fn resume_point(def: &TableDef, bound: &BoundSelect) -> CqlResult<Option<(Vec<u8>, usize)>> {
    let Some(state) = &bound.paging else {
        return Ok(None);
    };
    let decoded = storage::decode_row_key(def, &state.last_key)?;
    let partition = state
        .last_key
        .get(..decoded.partition_len)
        .unwrap_or_default();
    Ok(Some((partition.to_vec(), state.partition_emitted)))
}

/// What the walk does after one stored row.
enum Step {
    /// Go on with the next row.
    Next,
    /// The page is full.
    Stop,
    /// Go on after the partition this row is in.
    SkipPartition,
}

/// One read's walk over its key ranges: the rows it examined, the page being shaped, and the
/// partition it is in (its range tombstones and static row).
struct Walk<'r> {
    def: &'r TableDef,
    bound: &'r BoundSelect,
    source: &'r RowSource,
    liveness: Liveness,
    shaper: Shaper<'r>,
    statics: PartitionStatics,
    /// The partition being read and its range tombstones, loaded once per partition.
    partition: (Vec<u8>, Vec<RangeTombstone>),
    /// The partition a resumed page starts in.
    resume_partition: Option<Vec<u8>>,
    tombstones: TombstoneGuard,
    stats: ReadStats,
    /// The ANN score of each row shaped, in order.
    scores: Vec<f32>,
    budget: u64,
}

impl<'r> Walk<'r> {
    /// Infallible, so the walk is built where it lives instead of being moved out of a
    /// `Result` (it holds the shaper: a few hundred bytes, copied at every read).
    fn new(
        bound: &'r BoundSelect,
        source: &'r RowSource,
        liveness: Liveness,
        tombstones: TombstoneGuard,
        budget: usize,
        resume: Option<(Vec<u8>, usize)>,
    ) -> Self {
        let def: &TableDef = &bound.plan.table.def;
        let plan = &bound.plan;
        let post_order = !plan.post_order.is_empty() || bound.ann.is_some();
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
        let shaper = Shaper::new(def, plan, bound.call, limits, resume, post_order);
        Walk {
            def,
            bound,
            source,
            liveness,
            shaper,
            statics: PartitionStatics::new(def, static_only_rows(bound)),
            partition: (Vec::new(), Vec::new()),
            resume_partition,
            tombstones,
            stats: ReadStats::default(),
            scores: Vec::new(),
            budget: u64::try_from(budget).unwrap_or(u64::MAX),
        }
    }

    /// Walks `ranges` in the read's order; whether the page filled (`Some(true)`), or `None`
    /// past the budget.
    fn ranges(&mut self, ranges: &ReadRanges) -> CqlResult<Option<bool>> {
        let (def, source, reversed) = (self.def, self.source, self.bound.plan.reversed);
        let order = Order::reversed_if(reversed);
        let resume_key = self.bound.paging.as_ref().map(|s| s.last_key.as_slice());
        for range in ranges.walk(def, resume_key, reversed) {
            let mut range = range?;
            if let Some(key) = range.exact_key() {
                // A point lookup: no iterator to box, no copy of the key. Past its one row,
                // the range has nothing more, whatever the step says.
                let Some(stored) = source.get(key)? else {
                    continue;
                };
                if !self.examined_within_budget() {
                    return Ok(None);
                }
                match self.step(key, stored)? {
                    Step::Stop => return Ok(Some(true)),
                    Step::Next | Step::SkipPartition => continue,
                }
            }
            'range: loop {
                for item in source.scan(&range, order)? {
                    if !self.examined_within_budget() {
                        return Ok(None);
                    }
                    let (key, stored) = item?;
                    match self.step(&key, stored)? {
                        Step::Next => {}
                        Step::Stop => return Ok(Some(true)),
                        Step::SkipPartition => {
                            match range.past_partition(&self.partition.0, order) {
                                Some(rest) => range = rest,
                                None => break 'range,
                            }
                            continue 'range;
                        }
                    }
                }
                break;
            }
        }
        Ok(Some(false))
    }

    /// Counts a stored row examined; whether the read is still within its budget.
    fn examined_within_budget(&mut self) -> bool {
        self.stats.rows_examined += 1;
        self.stats.rows_examined <= self.budget
    }

    /// One stored row: into its partition, then through liveness, the filters and the shaper.
    fn step(&mut self, key: &[u8], stored: StoredRow) -> CqlResult<Step> {
        let def = self.def;
        let decoded = storage::decode_row_key(def, key)?;
        let partition_len = decoded.partition_len;
        let (prefix, suffix) = decoded.split(key);
        let is_static = decoded.clustering.len() < def.clustering_key.len();
        if self.partition.0 != prefix {
            if let Next::Stop = self.leave_partition()? {
                return Ok(Step::Stop);
            }
            self.enter_partition(prefix, &decoded, is_static.then_some(&stored))?;
        }
        if is_static {
            return Ok(Step::Next);
        }
        let range_deleted_at = RangeTombstone::shadowing(&self.partition.1, suffix);
        let Some(row) = LiveRow::new(def, decoded, stored, &self.liveness, range_deleted_at)?
        else {
            self.tombstones.add(&mut self.stats, 1, def)?;
            return Ok(Step::Next);
        };
        self.stats.live_rows += 1;
        if row.cells.dead > 0 {
            self.tombstones
                .add(&mut self.stats, u64::from(row.cells.dead), def)?;
        }
        let row = self.statics.row(row);
        if !self.keeps(&row, suffix) {
            return Ok(Step::Next);
        }
        let score = match &self.bound.ann {
            Some(ann) => match row.value(def, ann.column).and_then(|v| ann.score(v)) {
                Some(score) => Some(score),
                None => return Ok(Step::Next),
            },
            None => None,
        };
        let built = self.shaper.len();
        let next = self.shaper.accept(key, partition_len, row)?;
        if let Some(score) = score.filter(|_| self.shaper.len() > built) {
            self.scores.push(score);
        }
        Ok(match next {
            Next::Continue => Step::Next,
            Next::Stop => Step::Stop,
            Next::SkipPartition => Step::SkipPartition,
        })
    }

    /// Whether a live row passes the read's filters, tuple bounds and clustering ranges.
    fn keeps(&self, row: &LiveRow, suffix: &[u8]) -> bool {
        let (def, bound) = (self.def, self.bound);
        bound
            .filters
            .iter()
            .all(|f| passes(f, def, row.value(def, f.column)))
            && bound
                .tuple_check
                .as_ref()
                .is_none_or(|c| c.passes(def, &row.clustering))
            && bound
                .clustering_filter
                .as_ref()
                .is_none_or(|ranges| ranges.iter().any(|r| r.contains(suffix)))
    }

    /// Leaves the partition being read: its static-only row (when it showed no other row and
    /// passes the filters) goes to the page. A partition's static-only row has no vector to
    /// rank by.
    fn leave_partition(&mut self) -> CqlResult<Next> {
        let (def, bound) = (self.def, self.bound);
        let leaving = self.statics.leave().filter(|_| bound.ann.is_none());
        match leaving.filter(|(_, row)| {
            bound
                .filters
                .iter()
                .all(|f| passes(f, def, row.value(def, f.column)))
        }) {
            Some((static_key, row)) => self.shaper.accept(&static_key, static_key.len(), row),
            None => Ok(Next::Continue),
        }
    }

    /// Enters the partition `prefix`: loads its range tombstones (counting them) and its
    /// static row.
    fn enter_partition(
        &mut self,
        prefix: &[u8],
        decoded: &storage::DecodedKey,
        static_row: Option<&StoredRow>,
    ) -> CqlResult<()> {
        // Only a DELETE of a clustering range writes range tombstones: a table without
        // clustering columns has none, and its reads skip the lookup.
        let tombstones = if self.def.clustering_key.is_empty() {
            Vec::new()
        } else {
            self.source.range_tombstones(prefix)?
        };
        self.partition = (prefix.to_vec(), tombstones);
        self.stats.enter_partition(prefix);
        if !self.partition.1.is_empty() {
            let n = self.partition.1.len() as u64;
            self.tombstones.add(&mut self.stats, n, self.def)?;
        }
        let resumed = self.resume_partition.as_deref() == Some(prefix);
        self.statics.enter(
            self.source,
            self.def,
            prefix,
            decoded,
            static_row,
            &self.partition.1,
            &self.liveness,
            resumed,
        )
    }

    /// The page's rows in the order asked for (ranked by ANN score, or sorted after the read,
    /// then trimmed to the LIMIT), its paging state, and what the read examined.
    fn finish(self) -> CqlResult<(Vec<ResultRow>, Option<PagingState>, ReadStats)> {
        let bound = self.bound;
        let (mut rows, paging_state) = self.shaper.finish()?;
        if bound.ann.is_some() {
            rows = ann_rank::top(rows, &self.scores, bound.limit);
        } else if !bound.plan.post_order.is_empty() {
            sort_rows(self.def, &bound.plan.post_order, &mut rows);
            if let Some(limit) = bound.limit {
                rows.truncate(limit);
            }
        }
        Ok((rows, paging_state, self.stats))
    }
}

/// Cassandra's `queriesFullPartitions`: restrictions on static and partition-key columns still
/// read whole partitions; a static restriction also fetches the static row. Whether a
/// partition's static row stands as a row when the partition shows no other.
fn static_only_rows(bound: &BoundSelect) -> bool {
    let (plan, def) = (&bound.plan, &bound.plan.table.def);
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
    whole_partitions
        && def.has_static_columns()
        && (plan.distinct || filters_static || fetches_static_row(def, plan))
}

/// The ROWS result of a page: JSON applied, the read traced, the paging state encoded.
fn result(
    bound: &BoundSelect,
    rows: Vec<ResultRow>,
    paging_state: Option<PagingState>,
    mut stats: ReadStats,
) -> CqlResult<(ResultBody, ReadStats)> {
    let def = &bound.plan.table.def;
    let mut columns = bound.plan.columns.clone();
    let mut rows: Vec<_> = rows.into_iter().map(|r| r.values).collect();
    crate::eval::values::json_functions::apply_to_json(&bound.plan.to_json, &mut rows)?;
    if bound.plan.json {
        let (spec, json_rows) = crate::eval::json::select_json(&columns, rows)?;
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
        paging_state: paging_state.map(|state| state.encode(def)),
        no_metadata: bound.skip_metadata,
        new_metadata_id: None,
    };
    Ok((ResultBody::Rows(Rows { metadata, rows }), stats))
}

/// Whether the query fetches the partition's static row, so that a partition without rows
/// shows its static content: it reads a static column, or no column outside the primary key
/// (Cassandra then fetches every column). A query reading only regular columns does not.
pub(super) fn fetches_static_row(def: &TableDef, plan: &SelectPlan) -> bool {
    let mut non_key = crate::planner::select::selection::output_columns(&plan.outputs)
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
