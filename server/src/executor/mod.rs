//! Statement execution: dispatches a parsed statement to its executor and returns the RESULT
//! body (plus any warnings).

mod aggregate;
mod batch_exec;
mod batch_rules;
mod batch_size;
pub mod cas;
mod clustering;
mod collection_filter;
mod conditions;
mod counters;
pub mod ddl;
mod elements;
mod index_ddl;
mod index_limits;
mod index_scan;
mod keys;
pub mod modify;
mod multicell;
mod operations;
pub mod paging;
pub mod row;
mod scalar;
pub mod select;
mod shaping;
pub mod source;
mod statics;
mod user_types;

use std::sync::Arc;

use cql::frame::request::{QueryParameters, Value};
use cql::frame::response::ResultBody;
use cql::statement::ast::{BatchKind, Statement, UsingClause};

use crate::describe;
use crate::error::{CqlError, CqlResult};
use crate::node::Node;
use crate::planner::{modify as modify_plan, select as select_plan};
use crate::session::Session;
use crate::values::EvalContext;

/// Executes `statement` with bound `values` (by marker index).
pub async fn execute(
    node: &Arc<Node>,
    session: &Arc<Session>,
    statement: &Statement,
    params: &QueryParameters,
    values: &[Value],
    keyspace: Option<&str>,
) -> CqlResult<ResultBody> {
    let ctx = EvalContext {
        binds: values,
        now_micros: node.clock.now_micros(),
    };
    match statement {
        Statement::Select(stmt) => {
            crate::consistency::check_read(params.consistency)?;
            let schema = node.schema();
            let plan = select_plan::plan_select(&schema, stmt, keyspace)?;
            select::execute(node, session, schema, plan, params, &ctx).await
        }
        Statement::Insert(_) | Statement::Update(_) | Statement::Delete(_) => {
            let plan = plan_modification(node, statement, keyspace)?;
            if plan.conditions.is_some() {
                let item = cas::CasItem { plan, ctx };
                return cas::execute(node, &[item], params, false).await;
            }
            // Cassandra checks counter writes instead of, not on top of, other writes.
            if crate::planner::counters::is_counter_table(&plan.table.def) {
                crate::consistency::check_counter_write(params.consistency, &plan.table.def.name)?;
            } else {
                cas::check_write_consistency(params)?;
            }
            modify::execute(node, &plan, params, &ctx).await?;
            Ok(ResultBody::Void)
        }
        Statement::Batch(batch) => {
            let header = batch_exec::BatchHeader {
                kind: batch.kind,
                using: &batch.using,
                ctx,
            };
            let entries: Vec<batch_exec::Entry<'_>> = batch
                .statements
                .iter()
                .map(|statement| batch_exec::Entry {
                    statement,
                    keyspace,
                    ctx,
                })
                .collect();
            batch_exec::run(node, &header, &entries, params).await
        }
        Statement::Use(ident) => {
            let schema = node.schema();
            if schema.keyspace(&ident.name).is_none() {
                return Err(CqlError::invalid(format!(
                    "Keyspace '{}' does not exist",
                    ident.name
                )));
            }
            session.set_keyspace(ident.name.clone());
            Ok(ResultBody::SetKeyspace(ident.name.clone()))
        }
        Statement::Truncate(name) => ddl::truncate(node, name, keyspace).await,
        Statement::Describe(describe) => {
            let schema = node.schema();
            describe::execute(&schema, describe, keyspace)
        }
        Statement::CreateKeyspace(_)
        | Statement::AlterKeyspace(_)
        | Statement::DropKeyspace { .. }
        | Statement::CreateTable(_)
        | Statement::AlterTable(_)
        | Statement::DropTable { .. }
        | Statement::CreateIndex(_)
        | Statement::DropIndex { .. }
        | Statement::CreateType(_)
        | Statement::AlterType(_)
        | Statement::DropType { .. } => ddl::execute(node, statement, keyspace).await,
    }
}

/// One statement of a BATCH message with its own values and keyspace.
pub struct BatchItem {
    pub statement: Arc<Statement>,
    pub values: Vec<Value>,
    pub keyspace: Option<String>,
}

/// Executes a BATCH message of `kind`: all row updates are committed in one storage
/// transaction.
pub async fn execute_batch(
    node: &Arc<Node>,
    kind: BatchKind,
    items: &[BatchItem],
    params: &QueryParameters,
) -> CqlResult<ResultBody> {
    let now = node.clock.now_micros();
    let header = batch_exec::BatchHeader {
        kind,
        using: &UsingClause::default(),
        ctx: EvalContext {
            binds: &[],
            now_micros: now,
        },
    };
    let entries: Vec<batch_exec::Entry<'_>> = items
        .iter()
        .map(|item| batch_exec::Entry {
            statement: &item.statement,
            keyspace: item.keyspace.as_deref(),
            ctx: EvalContext {
                binds: &item.values,
                now_micros: now,
            },
        })
        .collect();
    batch_exec::run(node, &header, &entries, params).await
}

fn plan_modification(
    node: &Node,
    statement: &Statement,
    keyspace: Option<&str>,
) -> CqlResult<modify_plan::ModifyPlan> {
    let schema = node.schema();
    match statement {
        Statement::Insert(stmt) => modify_plan::plan_insert(&schema, stmt, keyspace),
        Statement::Update(stmt) => modify_plan::plan_update(&schema, stmt, keyspace),
        Statement::Delete(stmt) => modify_plan::plan_delete(&schema, stmt, keyspace),
        _ => Err(CqlError::invalid(
            "Only INSERT, UPDATE and DELETE statements are allowed in a batch",
        )),
    }
}
