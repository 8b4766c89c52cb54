//! INSERT/UPDATE/DELETE execution: evaluate keys and values, build the row updates with their
//! write timestamp and TTL, and submit them to the group-commit writer.

use std::sync::Arc;

use bytes::Bytes;
use cql::frame::request::QueryParameters;
use cql::statement::ast::Term;
use cql::types::ColumnType;
use storage::{
    Cell, CellValue, ColumnId, DeletionTime, Expiry, Liveness, RangeTombstone, RangeTombstoneWrite,
    RowWrite, StoredRow, WriteBatch,
};

use crate::error::{CqlError, CqlResult};
use crate::executor::keys;
use crate::node::Node;
use crate::planner::modify::{ModifyKind, ModifyPlan};
use crate::values::{evaluate, EvalContext, Evaluated, Receiver};

/// Cassandra's maximum TTL: 20 years in seconds.
pub const MAX_TTL: i64 = 630_720_000;

/// Runs a planned modification and waits for the write to be acknowledged.
pub async fn execute(
    node: &Arc<Node>,
    plan: &ModifyPlan,
    params: &QueryParameters,
    ctx: &EvalContext<'_>,
) -> CqlResult<()> {
    let mut batch = WriteBatch::default();
    build_writes(node, plan, params, ctx, &mut batch)?;
    submit(node, batch).await
}

/// Submits a batch to the writer and waits for its commit.
pub async fn submit(node: &Node, batch: WriteBatch) -> CqlResult<()> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    node.store.submit(
        batch,
        Box::new(move |result| {
            let _ = tx.send(result);
        }),
    );
    match rx.await {
        Ok(result) => result.map_err(Into::into),
        Err(_) => Err(CqlError::Server("the storage writer stopped".into())),
    }
}

fn int_term(
    term: &Term,
    name: &str,
    ty: &ColumnType,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<i64>> {
    match evaluate(term, Receiver { name, ty }, ctx)? {
        Evaluated::Value(b) => match b.len() {
            4 => Ok(Some(i64::from(i32::from_be_bytes([
                b[0], b[1], b[2], b[3],
            ])))),
            8 => {
                let mut raw = [0u8; 8];
                raw.copy_from_slice(&b);
                Ok(Some(i64::from_be_bytes(raw)))
            }
            _ => Err(CqlError::invalid(format!("Invalid value for {name}"))),
        },
        Evaluated::Unset => Ok(None),
        Evaluated::Null => Err(CqlError::invalid(format!(
            "Invalid null value of {}",
            name.trim_matches(|c| c == '[' || c == ']')
        ))),
    }
}

/// The write timestamp: `USING TIMESTAMP`, else the request's default timestamp, else the
/// server's clock.
fn write_timestamp(
    node: &Node,
    plan: &ModifyPlan,
    params: &QueryParameters,
    ctx: &EvalContext<'_>,
) -> CqlResult<i64> {
    if let Some(term) = &plan.using.timestamp {
        if let Some(ts) = int_term(term, "[timestamp]", &ColumnType::Bigint, ctx)? {
            return Ok(ts);
        }
    }
    Ok(params
        .default_timestamp
        .unwrap_or_else(|| node.next_timestamp()))
}

fn expiry(plan: &ModifyPlan, ctx: &EvalContext<'_>) -> CqlResult<Option<Expiry>> {
    let ttl = match &plan.using.ttl {
        Some(term) => int_term(term, "[ttl]", &ColumnType::Int, ctx)?,
        None => None,
    }
    .unwrap_or_else(|| i64::from(plan.table.def.params.default_time_to_live));
    if ttl < 0 {
        return Err(CqlError::invalid(format!(
            "A TTL must be greater or equal to 0, but was {ttl}"
        )));
    }
    if ttl > MAX_TTL {
        return Err(CqlError::invalid(format!(
            "ttl is too large. requested ({ttl}) maximum ({MAX_TTL})"
        )));
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

/// Builds the row updates of a modification (one per addressed row).
pub fn build_writes(
    node: &Node,
    plan: &ModifyPlan,
    params: &QueryParameters,
    ctx: &EvalContext<'_>,
    out: &mut WriteBatch,
) -> CqlResult<()> {
    let def = &plan.table.def;
    let timestamp = write_timestamp(node, plan, params, ctx)?;
    let expiry = expiry(plan, ctx)?;
    let now_seconds = ctx.now_micros.div_euclid(1_000_000);
    let pk_values = plan
        .partition_key
        .iter()
        .zip(&def.partition_key)
        .map(|(set, &i)| keys::key_values(set, def, i, ctx))
        .collect::<CqlResult<Vec<_>>>()?;
    let ck_values = plan
        .clustering_key
        .iter()
        .zip(&def.clustering_key)
        .map(|(set, &i)| keys::key_values(set, def, i, ctx))
        .collect::<CqlResult<Vec<_>>>()?;
    let mut cells = Vec::new();
    for (i, term) in &plan.assignments {
        let col = &def.columns[*i];
        let value = match evaluate(
            term,
            Receiver {
                name: &col.name,
                ty: &col.ty,
            },
            ctx,
        )? {
            Evaluated::Unset => continue,
            Evaluated::Null => CellValue::Tombstone {
                local_deletion_seconds: now_seconds,
            },
            Evaluated::Value(bytes) => {
                check_size(&col.name, &bytes)?;
                CellValue::Live(bytes)
            }
        };
        let cell_expiry = if matches!(value, CellValue::Live(_)) {
            expiry
        } else {
            None
        };
        cells.push((
            col.id,
            Cell {
                timestamp,
                expiry: cell_expiry,
                value,
                path: None,
            },
        ));
    }
    if let ModifyKind::DeleteColumns(columns) = &plan.kind {
        for &i in columns {
            let value = CellValue::Tombstone {
                local_deletion_seconds: now_seconds,
            };
            cells.push((
                def.columns[i].id,
                Cell {
                    timestamp,
                    expiry: None,
                    value,
                    path: None,
                },
            ));
        }
    }
    cells.sort_by_key(|(id, _): &(ColumnId, Cell)| id.0);
    let update = StoredRow {
        liveness: matches!(plan.kind, ModifyKind::Insert).then_some(Liveness {
            timestamp,
            ttl: expiry,
        }),
        deletion: matches!(plan.kind, ModifyKind::DeleteRows).then_some(DeletionTime {
            timestamp,
            local_deletion_seconds: now_seconds,
        }),
        cells,
    };
    if let (ModifyKind::DeleteRange, Some(range)) = (&plan.kind, &plan.range) {
        let deletion = DeletionTime {
            timestamp,
            local_deletion_seconds: now_seconds,
        };
        return range_deletes(def, pk_values, range, deletion, ctx, out);
    }
    for pk in keys::cartesian(pk_values) {
        if pk.iter().any(Bytes::is_empty) {
            return Err(CqlError::invalid("Key may not be empty"));
        }
        for ck in keys::cartesian(ck_values.clone()) {
            let key = storage::row_key(def, &pk, &ck)?;
            out.rows.push(RowWrite {
                table_id: def.id,
                key,
                update: update.clone(),
            });
        }
    }
    Ok(())
}

/// Range tombstones for every partition addressed and every clustering range deleted.
fn range_deletes(
    def: &storage::TableDef,
    pk_values: Vec<Vec<Bytes>>,
    range: &crate::planner::clustering::ClusteringPlan,
    deletion: DeletionTime,
    ctx: &EvalContext<'_>,
    out: &mut WriteBatch,
) -> CqlResult<()> {
    let partitions = keys::partition_prefixes(def, keys::cartesian(pk_values))?;
    let (ranges, tuple_check) = super::clustering::suffix_ranges(range, def, ctx)?;
    if tuple_check.is_some() {
        return Err(CqlError::invalid(
            "Range deletions over clustering columns of mixed order are not supported yet",
        ));
    }
    for partition in partitions {
        for (start, end) in &ranges {
            out.range_tombstones.push(RangeTombstoneWrite {
                table_id: def.id,
                partition: partition.clone(),
                tombstone: RangeTombstone {
                    start: start.clone(),
                    end: end.clone(),
                    deletion,
                },
            });
        }
    }
    Ok(())
}

fn check_size(column: &str, bytes: &Bytes) -> CqlResult<()> {
    // Cassandra's cells are limited by the commit log segment; keep far below our frame limit.
    const MAX_CELL: usize = 64 * 1024 * 1024;
    if bytes.len() > MAX_CELL {
        return Err(CqlError::invalid(format!(
            "Value of column {column} is too large ({} bytes)",
            bytes.len()
        )));
    }
    Ok(())
}
