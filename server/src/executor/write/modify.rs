//! INSERT/UPDATE/DELETE execution: evaluate keys and values, build the row updates with their
//! write timestamp and TTL, and submit them to the group-commit writer.

use std::sync::Arc;

use bytes::Bytes;
use cql::statement::ast::Term;
use cql::types::ColumnType;
use storage::{
    Cell, ColumnId, ColumnKind, DeletionTime, Expiry, Liveness, RangeTombstoneWrite, RowWrite,
    StoredRow, WriteBatch,
};

use crate::error::{CqlResult, ModifyError};
use crate::eval::values::{evaluate, EvalContext, Evaluated, Receiver};
use crate::executor::keys;
use crate::executor::options::ExecOptions;
use crate::executor::read::row;
use crate::executor::write::multicell::Element;
use crate::executor::write::operations::CellWriter;
use crate::executor::write::submit::{self, Handoff};
use crate::executor::write::{multicell, operations};
use crate::guardrails::Threshold;
use crate::node::Node;
use crate::planner::modify::operations::ColumnOperation;
use crate::planner::modify::{ModifyKind, ModifyPlan};

/// Cassandra's maximum TTL: 20 years in seconds.
pub(crate) const MAX_TTL: i64 = 630_720_000;

/// Builds a planned modification's writes, checks them, and hands them to the writer when
/// its queue has room now ([`submit::hand_off`]).
pub(crate) fn start(
    node: &Node,
    plan: &ModifyPlan,
    options: &ExecOptions,
    ctx: &EvalContext<'_>,
) -> CqlResult<Handoff> {
    let mut batch = WriteBatch::default();
    build_writes(node, plan, options, ctx, &mut batch)?;
    submit::hand_off(node, batch)
}

/// Runs a planned modification and waits for the write to be acknowledged.
pub(crate) async fn execute(
    node: &Arc<Node>,
    plan: &ModifyPlan,
    options: &ExecOptions,
    ctx: &EvalContext<'_>,
) -> CqlResult<()> {
    start(node, plan, options, ctx)?.complete(node).await
}

/// The value of a `USING TIMESTAMP` term: `None` when unset. Null, a value that is not a
/// bigint, and the smallest long (Cassandra's "no timestamp", refused by `UpdateParameters`)
/// are errors.
pub(crate) fn using_timestamp(term: &Term, ctx: &EvalContext<'_>) -> CqlResult<Option<i64>> {
    let receiver = Receiver {
        name: "[timestamp]",
        ty: &ColumnType::Bigint,
    };
    let ts = match evaluate(term, receiver, ctx)? {
        Evaluated::Value(bytes) => <[u8; 8]>::try_from(bytes.as_ref())
            .map(i64::from_be_bytes)
            .map_err(|_| ModifyError::InvalidTimestamp)?,
        Evaluated::Unset => return Ok(None),
        Evaluated::Null => return Err(ModifyError::NullTimestamp.into()),
    };
    if ts == i64::MIN {
        return Err(ModifyError::TimestampOutOfBounds {
            min: i64::MIN + 1,
            max: i64::MAX,
        }
        .into());
    }
    Ok(Some(ts))
}

/// The write timestamp: `USING TIMESTAMP`, else the request's default timestamp, else the
/// server's clock as the request read it (made unique across the node).
fn write_timestamp(
    node: &Node,
    plan: &ModifyPlan,
    options: &ExecOptions,
    ctx: &EvalContext<'_>,
) -> CqlResult<i64> {
    if let Some(term) = &plan.using.timestamp {
        if let Some(ts) = using_timestamp(term, ctx)? {
            return Ok(ts);
        }
    }
    // The request's clock reading: its write timestamp and its `now` (TTLs, local deletion
    // times) agree, as Cassandra's `QueryState` gives both.
    Ok(options
        .timestamp
        .unwrap_or_else(|| node.clock().timestamp_from(ctx.now_micros)))
}

/// The TTL of the written cells, as Cassandra 5.0's `Attributes.getTimeToLive`: no `USING
/// TTL` or an unset one takes the table's `default_time_to_live`; null, empty and 0 mean no
/// TTL.
fn expiry(plan: &ModifyPlan, ctx: &EvalContext<'_>) -> CqlResult<Option<Expiry>> {
    let default_ttl = i64::from(plan.table.def.params.default_time_to_live);
    let ttl = match &plan.using.ttl {
        None => default_ttl,
        Some(term) => {
            let receiver = Receiver {
                name: "[ttl]",
                ty: &ColumnType::Int,
            };
            match evaluate(term, receiver, ctx)? {
                Evaluated::Unset => default_ttl,
                Evaluated::Null => 0,
                Evaluated::Value(b) if b.is_empty() => 0,
                Evaluated::Value(b) => match <[u8; 4]>::try_from(b.as_ref()) {
                    Ok(raw) => i64::from(i32::from_be_bytes(raw)),
                    Err(_) => return Err(ModifyError::InvalidTtl.into()),
                },
            }
        }
    };
    if ttl < 0 {
        return Err(ModifyError::NegativeTtl { ttl }.into());
    }
    if ttl > MAX_TTL {
        return Err(ModifyError::TtlTooLarge { ttl, max: MAX_TTL }.into());
    }
    if ttl == 0 {
        return Ok(None);
    }
    let now_seconds = ctx.now_micros.div_euclid(1_000_000);
    Ok(Some(Expiry {
        ttl_seconds: ttl as u32,
        expires_at_seconds: now_seconds + ttl,
    }))
}

/// Builds the row updates of a modification: the static row of each partition for static
/// columns, and each addressed clustering row for the rest.
pub(crate) fn build_writes(
    node: &Node,
    plan: &ModifyPlan,
    options: &ExecOptions,
    ctx: &EvalContext<'_>,
    out: &mut WriteBatch,
) -> CqlResult<()> {
    let def = &plan.table.def;
    // INSERT JSON: bind the plan's synthetic per-column markers from the JSON object.
    let json_binds = match &plan.json {
        Some(json) => Some(crate::eval::values::json_insert::bind_values(
            json, def, ctx,
        )?),
        None => None,
    };
    let ctx = &EvalContext {
        binds: json_binds.as_deref().unwrap_or(ctx.binds),
        ..*ctx
    };
    let timestamp = write_timestamp(node, plan, options, ctx)?;
    let expiry = expiry(plan, ctx)?;
    let now_seconds = ctx.now_micros.div_euclid(1_000_000);
    let pk_values = key_values(&plan.partition_key, def, &def.partition_key, ctx)?;
    let ck_values = key_values(&plan.clustering_key, def, &def.clustering_key, ctx)?;
    if let (ModifyKind::DeleteRange, Some(range)) = (&plan.kind, &plan.range) {
        let deletion = DeletionTime {
            timestamp,
            local_deletion_seconds: now_seconds,
        };
        return range_deletes(def, pk_values, range, deletion, ctx, out);
    }
    let writer = CellWriter {
        node,
        ctx,
        timestamp,
        expiry,
        now_seconds,
    };
    if crate::planner::modify::counters::is_counter_table(def) && !plan.operations.is_empty() {
        return counter_writes(plan, &writer, pk_values, ck_values, out);
    }
    row_writes(plan, &writer, pk_values, ck_values, out)
}

/// The values of each key column of `columns` restricted by `sets` (several under `IN`).
fn key_values(
    sets: &[crate::planner::ValueSet],
    def: &storage::TableDef,
    columns: &[usize],
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Vec<Bytes>>> {
    sets.iter()
        .zip(columns)
        .map(|(set, &i)| keys::write_key_values(set, def, i, ctx))
        .collect()
}

/// The counter updates of an UPDATE of a counter table: its rows when the clustering key
/// is complete, else its partitions' static rows.
fn counter_writes(
    plan: &ModifyPlan,
    writer: &CellWriter<'_>,
    pk_values: Vec<Vec<Bytes>>,
    ck_values: Vec<Vec<Bytes>>,
    out: &mut WriteBatch,
) -> CqlResult<()> {
    let def = &plan.table.def;
    let ctx = writer.ctx;
    let counters = crate::executor::write::counters::CounterStatement {
        def,
        operations: &plan.operations,
        timestamp: writer.timestamp,
        now_seconds: writer.now_seconds,
    };
    let writes_rows = ck_values.len() == def.clustering_key.len();
    let rows = crate::executor::read::clustering::update_rows(
        def,
        ck_values,
        plan.clustering_tuples.as_ref(),
        ctx,
    )?;
    counters.writes(pk_values, writes_rows.then_some(rows), ctx, out)
}

/// The row updates of an INSERT, UPDATE or DELETE of rows or columns: per partition, its
/// static row when static columns change, then each addressed clustering row.
fn row_writes(
    plan: &ModifyPlan,
    writer: &CellWriter<'_>,
    pk_values: Vec<Vec<Bytes>>,
    ck_values: Vec<Vec<Bytes>>,
    out: &mut WriteBatch,
) -> CqlResult<()> {
    let def = &plan.table.def;
    let node = writer.node;
    // Sized once: `Iterator::partition` grew both lists a push at a time, on every write.
    let mut static_ops = Vec::new();
    let mut regular_ops = Vec::with_capacity(plan.operations.len());
    for operation in &plan.operations {
        match def.columns[operation.column].kind {
            ColumnKind::Static => static_ops.push(operation),
            _ => regular_ops.push(operation),
        }
    }
    let snapshot = read_snapshot(node, plan)?;
    let rows = RowCells {
        writer,
        def,
        snapshot: snapshot.as_ref(),
    };
    let marks = RowMarks::of(plan, writer);
    let ck_rows = crate::executor::read::clustering::update_rows(
        def,
        ck_values,
        plan.clustering_tuples.as_ref(),
        writer.ctx,
    )?;
    let writes_rows = plan.clustering_key.len() == def.clustering_key.len()
        && (marks.liveness.is_some() || marks.deletion.is_some() || !regular_ops.is_empty());
    out.rows
        .reserve(usize::from(!static_ops.is_empty()) + if writes_rows { ck_rows.len() } else { 0 });
    for pk in keys::cartesian(pk_values) {
        check_partition(node, def, &pk)?;
        if !static_ops.is_empty() {
            let key = storage::row_key(def, &pk, &[])?;
            let cells = rows.cells(&static_ops, &key)?;
            out.rows.push(row_write(def, key, RowMarks::NONE, cells));
        }
        if !writes_rows {
            continue;
        }
        for ck in &ck_rows {
            keys::check_clustering_length(ck)?;
            let key = storage::row_key(def, &pk, ck)?;
            let cells = rows.cells(&regular_ops, &key)?;
            out.rows.push(row_write(def, key, marks, cells));
        }
    }
    Ok(())
}

/// A snapshot to read current collection values from, when an operation needs them.
fn read_snapshot(node: &Node, plan: &ModifyPlan) -> CqlResult<Option<storage::Snapshot>> {
    let def = &plan.table.def;
    let reads = plan
        .operations
        .iter()
        .any(|o| o.op.requires_read(&def.columns[o.column].ty));
    Ok(if reads {
        Some(node.store().snapshot()?)
    } else {
        None
    })
}

/// A partition key a write may use ([`keys::check_partition_key`]), counted for
/// hot-partition warnings.
fn check_partition(node: &Node, def: &storage::TableDef, pk: &[Bytes]) -> CqlResult<()> {
    keys::check_partition_key(def, pk)?;
    if let Some(hot) = node.hot_partitions().record(def.id, pk) {
        crate::telemetry::warnings::warn(crate::telemetry::hot_partitions::warning(def, &hot));
    }
    Ok(())
}

/// The row marker an INSERT writes and the row deletion a DELETE of rows writes.
#[derive(Clone, Copy)]
struct RowMarks {
    liveness: Option<Liveness>,
    deletion: Option<DeletionTime>,
}

impl RowMarks {
    /// Neither: the static row, or an UPDATE or DELETE of columns.
    const NONE: RowMarks = RowMarks {
        liveness: None,
        deletion: None,
    };

    fn of(plan: &ModifyPlan, writer: &CellWriter<'_>) -> RowMarks {
        let liveness = matches!(plan.kind, ModifyKind::Insert).then_some(Liveness {
            timestamp: writer.timestamp,
            ttl: writer.expiry,
        });
        let deletion = matches!(plan.kind, ModifyKind::DeleteRows).then_some(DeletionTime {
            timestamp: writer.timestamp,
            local_deletion_seconds: writer.now_seconds,
        });
        RowMarks { liveness, deletion }
    }
}

/// The update of the row under `key`.
fn row_write(
    def: &storage::TableDef,
    key: Vec<u8>,
    marks: RowMarks,
    cells: Vec<(ColumnId, Cell)>,
) -> RowWrite {
    RowWrite {
        table_id: def.id,
        key,
        update: StoredRow {
            liveness: marks.liveness,
            deletion: marks.deletion,
            cells,
        },
    }
}

/// Builds the cells of one row from its column operations.
struct RowCells<'a> {
    writer: &'a CellWriter<'a>,
    def: &'a storage::TableDef,
    /// A snapshot to read current list values from, when an operation needs them.
    snapshot: Option<&'a storage::Snapshot>,
}

impl RowCells<'_> {
    fn cells(&self, ops: &[&ColumnOperation], key: &[u8]) -> CqlResult<Vec<(ColumnId, Cell)>> {
        let mut cells: Vec<(ColumnId, Cell)> = Vec::with_capacity(ops.len());
        let mut produced = Vec::new();
        // Whether every cell so far is a single-cell column's, each after the one before in
        // column order (as a plain INSERT's are): then there is nothing to sort or reconcile.
        let mut ordered = true;
        for op in ops {
            let col = &self.def.columns[op.column];
            if let Some(term) = operations::single_cell_term(col, &op.op) {
                if let Some(cell) = self.writer.single_cell(col, &op.op, term)? {
                    ordered &= cells.last().is_none_or(|(last, _)| *last < col.id);
                    cells.push((col.id, cell));
                }
                continue;
            }
            ordered = false;
            // Later operations see what earlier ones did (`l[2] = 8, l = l - [8]`).
            let current = || {
                let pending = cells.iter().filter(|(c, _)| *c == col.id).map(|(_, c)| c);
                Ok(multicell::with_pending(
                    self.current_elements(key, col.id)?,
                    pending,
                ))
            };
            self.writer.cells(col, &op.op, &current, &mut produced)?;
            cells.append(&mut produced);
        }
        if ordered {
            return Ok(cells);
        }
        // Sorted by (column, path), one cell each: two operations on one cell are reconciled
        // as Cassandra merges the statement's cells (at one timestamp, a tombstone beats a
        // value, then the greater value wins), so `s = s + {3}, s = s - {3}` removes 3.
        cells.sort_by(|(a, x), (b, y)| (a, &x.path).cmp(&(b, &y.path)));
        let distinct = |w: &[(ColumnId, Cell)]| (w[0].0, &w[0].1.path) != (w[1].0, &w[1].1.path);
        if cells.windows(2).all(distinct) {
            return Ok(cells);
        }
        let mut unique: Vec<(ColumnId, Cell)> = Vec::with_capacity(cells.len());
        for (id, cell) in cells {
            match unique.pop() {
                Some((last_id, last)) if last_id == id && last.path == cell.path => {
                    unique.push((id, storage::reconcile(last, cell)));
                }
                Some(other) => unique.extend([other, (id, cell)]),
                None => unique.push((id, cell)),
            }
        }
        Ok(unique)
    }

    /// The live elements of column `id` in the stored row under `key`.
    fn current_elements(&self, key: &[u8], id: ColumnId) -> CqlResult<Vec<Element>> {
        let Some(snapshot) = self.snapshot else {
            return Ok(Vec::new());
        };
        let Some(stored) = snapshot.get(self.def.id, key)? else {
            return Ok(Vec::new());
        };
        let decoded = storage::decode_row_key(self.def, key)?;
        let (partition, suffix) = decoded.split(key);
        let tombstones = snapshot.range_tombstones(self.def.id, partition)?;
        let is_static = decoded.clustering.len() < self.def.clustering_key.len();
        let range_deleted_at = row::range_deleted_at(&tombstones, suffix, is_static);
        let now_seconds = self.writer.now_seconds;
        let deleted_at = stored.deletion.map(|d| d.timestamp).max(range_deleted_at);
        let live = |cell: &Cell| {
            deleted_at.is_none_or(|d| cell.timestamp > d)
                && cell
                    .expiry
                    .is_none_or(|e| e.expires_at_seconds > now_seconds)
        };
        let column = stored
            .cells
            .iter()
            .filter(|(c, _)| *c == id)
            .map(|(_, c)| c);
        Ok(multicell::live_elements(column, &live))
    }
}

/// Range tombstones for every partition addressed and every clustering range deleted.
fn range_deletes(
    def: &storage::TableDef,
    pk_values: Vec<Vec<Bytes>>,
    range: &crate::planner::common::clustering::ClusteringPlan,
    deletion: DeletionTime,
    ctx: &EvalContext<'_>,
    out: &mut WriteBatch,
) -> CqlResult<()> {
    let partitions = keys::partition_prefixes(def, keys::cartesian(pk_values))?;
    // The guardrail is on SELECTs only (`in_select_cartesian_product`).
    let (ranges, tuple_check) =
        crate::executor::read::clustering::suffix_ranges(range, def, ctx, Threshold::DISABLED)?;
    let ranges = ranges.all();
    if tuple_check.is_some() {
        return Err(ModifyError::MixedOrderRangeDeletion.into());
    }
    let whole_partition = range.prefix.is_empty() && range.slice.is_none();
    for partition in partitions {
        if whole_partition && def.has_static_columns() {
            // The static row is outside clustering ranges: a partition deletion deletes it
            // as a row of its own.
            out.rows.push(RowWrite {
                table_id: def.id,
                key: partition.clone(),
                update: StoredRow {
                    liveness: None,
                    deletion: Some(deletion),
                    cells: Vec::new(),
                },
            });
        }
        for range in &ranges {
            out.range_tombstones.push(RangeTombstoneWrite {
                table_id: def.id,
                partition: partition.clone(),
                tombstone: range.tombstone(deletion),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "modify_tests.rs"]
mod tests;
