//! The CQL door: INSERT, UPDATE, DELETE and TRUNCATE of the `test_control` tables run as
//! [`Command`]s (reads are plain virtual-table reads, [`super::tables`]).
//!
//! A write is planned and evaluated as any write is (bind markers, literals, functions), into
//! a batch that is never stored: each row of it is read back as column values and turned
//! into the command its table and kind mean:
//!
//! | statement | command |
//! |---|---|
//! | `INSERT INTO commands (command, name, seconds) ...` | `reset`, `restore` (`name`), `advance_clock` (`seconds`); on a simulated cluster `stop`, `start`, `pause`, `decommission` (`name`: the node's address) and `add_node` (`name`: its datacenter) |
//! | `INSERT INTO snapshots (name) ...` | take the snapshot |
//! | `DELETE FROM snapshots WHERE name = ...` | delete it |
//! | `INSERT INTO faults (id, ...) ...` | add a fault rule (replacing one with that id) |
//! | `DELETE FROM faults WHERE id = ...`, `TRUNCATE faults` | remove one, all |
//! | `TRUNCATE queries`, `DELETE FROM queries WHERE ...` | empty the query log |

use std::collections::BTreeMap;
use std::sync::Arc;

use cql::frame::response::ResultBody;
use cql::types::codec::deserialize_value;
use cql::types::CqlValue;
use storage::{CellValue, RowWrite, TableDef, WriteBatch};

use super::{Command, ControlError, KEYSPACE};
use crate::error::CqlResult;
use crate::eval::values::EvalContext;
use crate::executor::ExecOptions;
use crate::node::Node;
use crate::planner::modify::{ModifyKind, ModifyPlan};

/// One written row of a control table: its columns' values, by name (missing: not set or
/// null), and whether it is a deletion.
#[derive(Debug, Default)]
pub(crate) struct ControlRow {
    /// The values set, by column name.
    pub(crate) values: BTreeMap<String, CqlValue>,
    /// The statement deletes the row (DELETE).
    pub(crate) deleted: bool,
}

impl ControlRow {
    /// The text value of `column`.
    pub(crate) fn text(&self, column: &str) -> Option<&str> {
        match self.values.get(column) {
            Some(CqlValue::Text(text) | CqlValue::Ascii(text)) => Some(text),
            _ => None,
        }
    }

    /// The numeric value of `column` as a float.
    pub(crate) fn number(&self, column: &str) -> Option<f64> {
        match self.values.get(column)? {
            CqlValue::Double(v) => Some(*v),
            CqlValue::Float(v) => Some(f64::from(*v)),
            CqlValue::Int(v) => Some(f64::from(*v)),
            CqlValue::Bigint(v) => Some(*v as f64),
            _ => None,
        }
    }
}

/// Runs an INSERT, UPDATE or DELETE of a control table.
///
/// # Errors
/// A condition (`IF`); a row that is no command; the command's own errors.
pub(crate) async fn modify(
    node: &Arc<Node>,
    plan: &ModifyPlan,
    options: &ExecOptions,
    ctx: &EvalContext<'_>,
) -> CqlResult<ResultBody> {
    if plan.conditions.is_some() {
        return Err(ControlError::BadRequest(format!(
            "conditions (IF) do not apply to {KEYSPACE} tables"
        ))
        .into());
    }
    let def = &plan.table.def;
    let mut batch = WriteBatch::default();
    crate::executor::write::modify::build_writes(node, plan, options, ctx, &mut batch)?;
    let deleting = matches!(
        plan.kind,
        ModifyKind::DeleteRows | ModifyKind::DeleteColumns | ModifyKind::DeleteRange
    );
    if deleting && def.name == "queries" {
        super::command::run(node, Command::ClearQueries).await?;
        return Ok(ResultBody::Void);
    }
    for write in &batch.rows {
        let row = read_row(def, write, deleting)?;
        let command = command_for(&def.name, row)?;
        super::command::run(node, command).await?;
    }
    Ok(ResultBody::Void)
}

/// `TRUNCATE` of a control table.
///
/// # Errors
/// The table is not one that empties (`faults`, `queries`).
pub(crate) async fn truncate(node: &Arc<Node>, table: &str) -> CqlResult<ResultBody> {
    let command = match table {
        "faults" => Command::ClearFaults,
        "queries" => Command::ClearQueries,
        other => {
            return Err(ControlError::BadRequest(format!(
                "TRUNCATE {KEYSPACE}.{other} means nothing; only faults and queries are emptied"
            ))
            .into())
        }
    };
    super::command::run(node, command).await?;
    Ok(ResultBody::Void)
}

/// The values one row write sets.
fn read_row(def: &TableDef, write: &RowWrite, deleted: bool) -> Result<ControlRow, ControlError> {
    let key = storage::decode_row_key(def, &write.key)
        .map_err(|err| ControlError::BadRequest(err.to_string()))?;
    let mut row = ControlRow {
        deleted,
        ..ControlRow::default()
    };
    let keys = def
        .partition_key_columns()
        .zip(&key.partition)
        .chain(def.clustering_columns().zip(&key.clustering));
    for (column, bytes) in keys {
        row.values
            .insert(column.name.clone(), value(&column.ty, bytes)?);
    }
    for (id, cell) in &write.update.cells {
        let (Some(column), CellValue::Live(bytes)) = (def.column_by_id(*id), &cell.value) else {
            continue;
        };
        row.values
            .insert(column.name.clone(), value(&column.ty, bytes)?);
    }
    Ok(row)
}

fn value(ty: &cql::types::ColumnType, bytes: &[u8]) -> Result<CqlValue, ControlError> {
    deserialize_value(ty, bytes).map_err(|err| ControlError::BadRequest(err.to_string()))
}

/// The command a row written to `table` means.
fn command_for(table: &str, row: ControlRow) -> Result<Command, ControlError> {
    match (table, row.deleted) {
        ("commands", false) => command_row(&row),
        ("snapshots", false) => Ok(Command::TakeSnapshot(required(&row, "name")?)),
        ("snapshots", true) => Ok(Command::DeleteSnapshot(required(&row, "name")?)),
        ("faults", false) => Ok(Command::AddFault(Box::new(
            super::faults::FaultRule::from_row(&row)?,
        ))),
        ("faults", true) => Ok(Command::RemoveFault(required(&row, "id")?)),
        (other, _) => Err(ControlError::BadRequest(format!(
            "{KEYSPACE}.{other} is read-only"
        ))),
    }
}

/// A row of `commands`.
fn command_row(row: &ControlRow) -> Result<Command, ControlError> {
    let command = required(row, "command")?;
    match command.as_str() {
        "reset" => Ok(Command::Reset),
        "restore" => Ok(Command::RestoreSnapshot(required(row, "name")?)),
        "advance_clock" => {
            let seconds = row.number("seconds").ok_or_else(|| {
                ControlError::BadRequest("advance_clock needs seconds".to_string())
            })?;
            Ok(Command::AdvanceClock(super::http::routes::seconds_forward(
                seconds,
            )?))
        }
        "add_node" => Ok(Command::AddNode {
            datacenter: required(row, "name")?,
            rack: None,
        }),
        action => match crate::cluster::control::NodeAction::named(action) {
            Some(action) => Ok(Command::NodeAction {
                address: required(row, "name")?,
                action,
            }),
            None => Err(ControlError::BadRequest(format!(
                "unknown command {action}: expected reset, restore, advance_clock, stop, \
                 start, pause, decommission or add_node"
            ))),
        },
    }
}

/// The text value of `column`, which the command needs.
fn required(row: &ControlRow, column: &str) -> Result<String, ControlError> {
    row.text(column)
        .map(str::to_string)
        .ok_or_else(|| ControlError::BadRequest(format!("{column} is required")))
}
