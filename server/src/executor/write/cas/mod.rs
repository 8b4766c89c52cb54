//! Lightweight transactions (compare-and-set) on this single node: a conditional INSERT,
//! UPDATE or DELETE, or a conditional BATCH on one partition.
//!
//! Linearizability: every conditional request holds `Node::cas_lock` from the snapshot it
//! checks its conditions against until its writes are committed, so conditional requests
//! run one after the other and each sees the writes of the previous one. (Plain writes do
//! not take the lock; as in Cassandra, mixing them with LWTs on the same data is not
//! linearizable.) The writes take one timestamp from the server clock, never the client's.
//!
//! The answer follows Cassandra's `ModificationStatement.buildCasResultSet`: `[applied]`,
//! and when not applied the current rows read for the conditions, restricted to the
//! conditions' columns (all columns for `IF [NOT] EXISTS`; batches add the primary key).

use std::sync::Arc;

use bytes::Bytes;
use cql::frame::response::{ColumnSpec, ResultBody, ResultMetadata, Rows};
use cql::types::ColumnType;
use storage::{ColumnKind, TableDef, WriteBatch};

use crate::error::{CqlResult, ModifyError};
use crate::eval::values::EvalContext;
use crate::executor::consistency::{is_serial, SERIAL};
use crate::executor::options::ExecOptions;
use crate::executor::read::row;
use crate::executor::read::row::{LiveRow, Liveness};
use crate::executor::write::conditions::applies;
use crate::executor::write::modify;
use crate::node::Node;
use crate::planner::modify::conditions::ColumnCondition;
use crate::planner::modify::{ModifyKind, ModifyPlan};

mod prepare;
#[cfg(test)]
mod tests;

use prepare::prepare;

/// One statement of a conditional request with the values it is bound to.
pub(crate) struct CasItem<'a> {
    pub plan: &'a ModifyPlan,
    pub ctx: EvalContext<'a>,
}

/// `ConsistencyLevel.validateForWrite` for a plain (unconditional) write.
pub(crate) fn check_write_consistency(options: &ExecOptions) -> CqlResult<()> {
    if is_serial(options.consistency) {
        return Err(ModifyError::SerialWithoutConditions.into());
    }
    Ok(())
}

/// `validateForCas` (the serial consistency) and `validateForCasCommit` (the commit one).
pub(crate) fn check_cas_consistency(options: &ExecOptions) -> CqlResult<()> {
    if let Some(serial) = options.serial_consistency {
        if !is_serial(serial) {
            return Err(ModifyError::NonSerialConditionalConsistency.into());
        }
    }
    if is_serial(options.consistency) {
        let consistency = if options.consistency == SERIAL {
            "SERIAL"
        } else {
            "LOCAL_SERIAL"
        };
        return Err(ModifyError::SerialCommitConsistency { consistency }.into());
    }
    Ok(())
}

/// What a row of the partition must satisfy.
enum RowCheck<'p> {
    NotExists,
    Exists,
    Columns(Vec<(&'p ColumnCondition, usize)>),
}

/// A checked row: the static row (`clustering` is `None`) or one clustering row.
struct CheckedRow<'p> {
    clustering: Option<Vec<Bytes>>,
    key: Vec<u8>,
    check: RowCheck<'p>,
}

/// The request once keys are evaluated: one partition, its checked rows.
struct Request<'p> {
    def: &'p TableDef,
    partition: Vec<Bytes>,
    rows: Vec<CheckedRow<'p>>,
    /// The columns a not-applied answer shows (`None`: all of them).
    shown: Option<Vec<usize>>,
    /// Which columns the read returns (Cassandra's `CQL3CasRequest.columnsToRead`).
    read: Vec<bool>,
}

/// Runs a conditional statement or batch.
pub(crate) async fn execute(
    node: &Arc<Node>,
    items: &[CasItem<'_>],
    options: &ExecOptions,
    is_batch: bool,
) -> CqlResult<ResultBody> {
    check_cas_consistency(options)?;
    let request = prepare(items, is_batch)?;
    let _serialised = node.cas_lock().lock().await;
    let snapshot = node.store().snapshot()?;
    let now = items.first().map(|i| i.ctx.now_micros).unwrap_or_default();
    let current = read(&request, &snapshot, now)?;
    let mut holds = true;
    for index in 0..request.rows.len() {
        if !check(&request, index, &current, items)? {
            holds = false;
            break;
        }
    }
    drop(snapshot);
    if !holds {
        return Ok(ResultBody::Rows(not_applied(&request, &current)));
    }
    let options = ExecOptions {
        timestamp: Some(node.next_timestamp()),
        ..options.clone()
    };
    let mut writes = WriteBatch::default();
    for item in items {
        modify::build_writes(node, item.plan, &options, &item.ctx, &mut writes)?;
    }
    crate::executor::write::submit::submit(node, writes).await?;
    Ok(ResultBody::Rows(applied_rows(request.def, true)))
}

fn what(plan: &ModifyPlan) -> &'static str {
    match plan.kind {
        ModifyKind::Insert | ModifyKind::Update => "updates",
        _ => "deletions",
    }
}

/// The partition as the conditions see it.
struct Current {
    /// Live static cells (sorted by column id).
    statics: Vec<(u32, Bytes)>,
    /// Each checked clustering row's live state, by the index of its `CheckedRow`.
    rows: Vec<Option<LiveRow>>,
    /// The first live row of the partition when no clustering row is checked.
    first: Option<LiveRow>,
}

fn read(request: &Request<'_>, snapshot: &storage::Snapshot, now: i64) -> CqlResult<Current> {
    let def = request.def;
    let at = Liveness::at(now);
    let prefix = storage::row_key(def, &request.partition, &[])?;
    let tombstones = snapshot.range_tombstones(def.id, &prefix)?;
    let statics = if def.has_static_columns() {
        match snapshot.get(def.id, &prefix)? {
            Some(stored) => row::static_cells(def, stored, &at, None).values,
            None => Vec::new(),
        }
    } else {
        Vec::new()
    };
    let live = |key: &[u8], stored: storage::StoredRow| -> CqlResult<Option<LiveRow>> {
        let decoded = storage::decode_row_key(def, key)?;
        let suffix = key.get(prefix.len()..).unwrap_or_default();
        let deleted = row::range_deleted_at(&tombstones, suffix, false);
        LiveRow::new(def, decoded, stored, &at, deleted)
    };
    let mut rows = Vec::with_capacity(request.rows.len());
    for checked in &request.rows {
        let state = match (&checked.clustering, snapshot.get(def.id, &checked.key)?) {
            (Some(_), Some(stored)) => live(&checked.key, stored)?,
            _ => None,
        };
        rows.push(state);
    }
    let mut first = None;
    if request.rows.iter().all(|r| r.clustering.is_none()) && !def.clustering_key.is_empty() {
        let range = storage::KeyRange::partition(storage::PartitionKey::from_static_row_key(
            prefix.clone(),
        ));
        for entry in snapshot.scan(def.id, &range, storage::Order::Forward)? {
            let (key, stored) = entry?;
            if key == prefix {
                continue;
            }
            if let Some(found) = live(&key, stored)? {
                first = Some(found);
                break;
            }
        }
    }
    Ok(Current {
        statics,
        rows,
        first,
    })
}

fn static_value(current: &Current, def: &TableDef, column: usize) -> Option<Bytes> {
    let id = def.columns[column].id.0;
    current
        .statics
        .binary_search_by_key(&id, |(c, _)| *c)
        .ok()
        .map(|i| current.statics[i].1.clone())
}

/// Whether checked row `index` holds on the current partition.
fn check(
    request: &Request<'_>,
    index: usize,
    current: &Current,
    items: &[CasItem<'_>],
) -> CqlResult<bool> {
    let def = request.def;
    let checked = &request.rows[index];
    let live = current.rows.get(index).and_then(Option::as_ref);
    let exists = match checked.clustering {
        None => !current.statics.is_empty(),
        Some(_) => live.is_some(),
    };
    match &checked.check {
        RowCheck::NotExists => Ok(!exists),
        RowCheck::Exists => Ok(exists),
        RowCheck::Columns(list) => {
            for (condition, item) in list {
                let value = match checked.clustering {
                    None => static_value(current, def, condition.column),
                    Some(_) => live.and_then(|r| r.value(def, condition.column).cloned()),
                };
                let ctx = &items[*item].ctx;
                if !applies(def, condition, value.as_ref(), ctx)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
    }
}

fn applied_spec(def: &TableDef) -> ColumnSpec {
    ColumnSpec {
        keyspace: def.keyspace.clone(),
        table: def.name.clone(),
        name: "[applied]".into(),
        ty: ColumnType::Boolean,
    }
}

fn applied_rows(def: &TableDef, applied: bool) -> Rows {
    Rows {
        metadata: ResultMetadata {
            columns: Arc::from([applied_spec(def)]),
            ..ResultMetadata::default()
        },
        rows: vec![vec![Some(Bytes::from_static(if applied {
            &[1]
        } else {
            &[0]
        }))]],
    }
}

/// The not-applied answer: `[applied] = false` then, per row read, the shown columns.
fn not_applied(request: &Request<'_>, current: &Current) -> Rows {
    let def = request.def;
    let shown: Vec<usize> = match &request.shown {
        Some(columns) => columns.clone(),
        None => (0..def.columns.len()).collect(),
    };
    let statics = read_statics(request, current);
    let mut live: Vec<&LiveRow> = current.rows.iter().flatten().collect();
    if let Some(first) = &current.first {
        live.push(first);
    }
    let shown_row = |row: Option<&LiveRow>| -> Vec<Option<Bytes>> {
        shown
            .iter()
            .map(|&i| shown_value(request, &statics, row, i))
            .collect()
    };
    let mut rows: Vec<Vec<Option<Bytes>>> = live.iter().map(|r| shown_row(Some(r))).collect();
    if rows.is_empty() && !statics.is_empty() {
        rows.push(shown_row(None));
    }
    let mut out = applied_rows(def, false);
    if rows.is_empty() {
        return out;
    }
    let flag = out.rows[0][0].clone();
    let shown_specs = shown.iter().map(|&i| ColumnSpec {
        keyspace: def.keyspace.clone(),
        table: def.name.clone(),
        name: def.columns[i].name.clone(),
        ty: def.columns[i].ty.clone(),
    });
    out.metadata.columns = out
        .metadata
        .columns
        .iter()
        .cloned()
        .chain(shown_specs)
        .collect();
    out.rows = rows
        .into_iter()
        .map(|values| std::iter::once(flag.clone()).chain(values).collect())
        .collect();
    out
}

/// The live static cells of the columns the request reads.
fn read_statics(request: &Request<'_>, current: &Current) -> Vec<(u32, Bytes)> {
    let def = request.def;
    current
        .statics
        .iter()
        .filter(|(id, _)| {
            def.columns
                .iter()
                .position(|c| c.id.0 == *id)
                .is_some_and(|i| request.read[i])
        })
        .cloned()
        .collect()
}

/// The value a not-applied answer shows for column `i` of `row` (`None`: the static row
/// alone): null for a column the request does not read.
fn shown_value(
    request: &Request<'_>,
    statics: &[(u32, Bytes)],
    row: Option<&LiveRow>,
    i: usize,
) -> Option<Bytes> {
    let def = request.def;
    let col = &def.columns[i];
    if !request.read[i] {
        return None;
    }
    match (col.kind, row) {
        (ColumnKind::PartitionKey, _) => usize::try_from(col.position)
            .ok()
            .and_then(|p| request.partition.get(p).cloned()),
        (ColumnKind::Static, _) => statics
            .binary_search_by_key(&col.id.0, |(c, _)| *c)
            .ok()
            .map(|j| statics[j].1.clone()),
        (_, Some(row)) => row.value(def, i).cloned(),
        (_, None) => None,
    }
}
