//! Statement execution. The handler binds a statement into a [`BoundStatement`] (authorized
//! and planned once, see [`bound`]); [`run`] runs it inline, hands it to the writer, or
//! leaves it to [`Later::finish`], which goes on here by the statement's plan; the result is
//! a RESULT body (plus any warnings, see [`crate::telemetry::warnings`]).

pub(crate) mod access;
pub(crate) mod bound;
mod cluster_check;
pub(crate) mod consistency;
pub(crate) mod read;
pub(crate) mod run;
pub(crate) mod schema;
pub(crate) mod write;

mod explain;
mod keys;
mod options;

use std::sync::Arc;

use cql::frame::response::ResultBody;
use cql::statement::ast::Statement;

pub(crate) use bound::{Authorized, BoundBatch, BoundStatement, Source};
pub(crate) use options::ExecOptions;
pub(crate) use run::{run, run_batch, Later, Outcome, PendingWrite};

use crate::auth::authorizer::Resource;
use crate::describe;
use crate::error::{CqlError, CqlResult, InternalError, SchemaError};
use crate::eval::values::EvalContext;
use crate::node::Node;
use crate::planner::modify::ModifyPlan;
use crate::planner::plan::{plan_statement, DescribePlan, StatementPlan};
use crate::schema::Schema;
use crate::transport::session::Session;
use run::{ReadTiming, WriteTiming};

/// A statement planned as another kind than its own: a bug, never input.
fn not_planned() -> CqlError {
    InternalError::PlannedAsAnotherKind.into()
}

/// The general path of a bound statement that [`run`] did not finish inline: by its plan.
async fn execute_planned(
    node: &Arc<Node>,
    session: &Arc<Session>,
    bound: &BoundStatement,
) -> CqlResult<ResultBody> {
    let ctx = bound.ctx();
    let options = &bound.options;
    match &bound.plan {
        StatementPlan::Select(plan) => {
            let Statement::Select(statement) = bound.statement() else {
                return Err(not_planned());
            };
            let timing = ReadTiming::start(plan);
            let schema = bound.schema.clone();
            let plan = plan.clone();
            let (result, _) =
                read::select::execute(node, session, schema, plan, options, &ctx, statement)
                    .await?;
            timing.record(node);
            Ok(result)
        }
        StatementPlan::Modify(plan) if plan.table.kind == crate::schema::TableKind::Virtual => {
            crate::control::cql::modify(node, plan, options, &ctx).await
        }
        StatementPlan::Modify(plan) => {
            let timing = WriteTiming::start(plan);
            let result = execute_modification(node, plan, options, ctx).await?;
            timing.record(node);
            Ok(result)
        }
        StatementPlan::Explain { .. } => explain::execute(node, session, bound).await,
        StatementPlan::Use(keyspace) => use_keyspace(&bound.schema, session, keyspace),
        StatementPlan::Truncate(table) => {
            schema::truncate(node, &table.name, table.keyspace.as_deref()).await
        }
        StatementPlan::Describe(plan) => describe(&bound.schema, plan),
        StatementPlan::Unplanned => execute_unplanned(node, session, bound).await,
    }
}

/// A statement run from its AST: planned as it runs, if at all (see
/// [`crate::planner::plan`]).
async fn execute_unplanned(
    node: &Arc<Node>,
    session: &Arc<Session>,
    bound: &BoundStatement,
) -> CqlResult<ResultBody> {
    let keyspace = bound.keyspace();
    match bound.statement() {
        Statement::Batch(batch) => {
            query_batch(node, session, batch, keyspace, &bound.options, bound.ctx()).await
        }
        Statement::Role(statement) => access::roles::execute(node, session, statement).await,
        statement @ Statement::Disabled(_) => schema::execute(node, statement, keyspace).await,
        Statement::Permission(statement) => {
            access::permissions::execute(node, session, statement, keyspace).await
        }
        statement @ (Statement::CreateKeyspace(_)
        | Statement::AlterKeyspace(_)
        | Statement::DropKeyspace { .. }
        | Statement::CreateTable(_)
        | Statement::AlterTable(_)
        | Statement::DropTable { .. }
        | Statement::CreateIndex(_)
        | Statement::DropIndex { .. }
        | Statement::CreateView(_)
        | Statement::AlterView { .. }
        | Statement::DropView { .. }
        | Statement::CreateType(_)
        | Statement::AlterType(_)
        | Statement::DropType { .. }) => schema_change(node, session, statement, keyspace).await,
        Statement::Select(_)
        | Statement::Insert(_)
        | Statement::Update(_)
        | Statement::Delete(_)
        | Statement::Explain(_)
        | Statement::Use(_)
        | Statement::Truncate(_)
        | Statement::Describe(_) => Err(not_planned()),
    }
}

/// A BATCH statement in a QUERY: each statement planned now, checked as a BATCH message is
/// (`run::run_batch`), then the batch run and timed.
async fn query_batch(
    node: &Arc<Node>,
    session: &Session,
    batch: &cql::statement::ast::Batch,
    keyspace: Option<&str>,
    options: &ExecOptions,
    ctx: EvalContext<'_>,
) -> CqlResult<ResultBody> {
    let header = write::batch::BatchHeader {
        kind: batch.kind,
        using: &batch.using,
        ctx,
    };
    let schema = node.schema();
    let entries = batch
        .statements
        .iter()
        .map(|statement| {
            let plan = bound::modification_plan(statement, || {
                plan_statement(&schema, statement, keyspace)
            })?;
            Ok(write::batch::Entry { plan, ctx })
        })
        .collect::<CqlResult<Vec<_>>>()?;
    if node.checks_consistency() {
        let keyed = entries.iter().map(|entry| (&*entry.plan, entry.ctx));
        let touches = cluster_check::batch_touches(keyed, batch.kind, options)?;
        cluster_check::check(node, session, &schema, &touches)
            .settle()
            .await?;
    }
    run::run_timed_batch(node, &header, &entries, options).await
}

/// `USE ks`: the session's keyspace, once it exists in `schema`.
fn use_keyspace(schema: &Schema, session: &Session, name: &str) -> CqlResult<ResultBody> {
    if schema.keyspace(name).is_none() {
        return Err(SchemaError::KeyspaceDoesNotExist {
            keyspace: name.to_string(),
        }
        .into());
    }
    session.set_keyspace(name.to_string());
    Ok(ResultBody::SetKeyspace(name.to_string()))
}

/// `DESCRIBE`, read off `schema`.
fn describe(schema: &Schema, plan: &DescribePlan) -> CqlResult<ResultBody> {
    describe::execute(schema, &plan.describe, plan.keyspace.as_deref())
}

/// A schema statement; when it changed the schema, what it creates is granted to its
/// creator and the permissions on what it drops are revoked, as Cassandra does.
async fn schema_change(
    node: &Arc<Node>,
    session: &Arc<Session>,
    statement: &Statement,
    keyspace: Option<&str>,
) -> CqlResult<ResultBody> {
    let result = schema::execute(node, statement, keyspace).await?;
    if !matches!(result, ResultBody::SchemaChange(_)) {
        return Ok(result);
    }
    if let Some(created) = created_resource(statement, keyspace) {
        Box::pin(access::permissions::grant_to_creator(
            node, session, created,
        ))
        .await?;
    }
    if let Some(dropped) = dropped_resource(statement, keyspace) {
        Box::pin(access::permissions::revoke_all_on(node, dropped)).await?;
    }
    Ok(result)
}

/// The keyspace or table a CREATE statement makes, whose creator is granted its permissions
/// (Cassandra grants none on a materialized view).
fn created_resource(statement: &Statement, keyspace: Option<&str>) -> Option<Resource> {
    match statement {
        Statement::CreateKeyspace(s) => Some(Resource::Keyspace(s.name.name.clone())),
        Statement::CreateTable(s) => table_resource(&s.name, keyspace),
        _ => None,
    }
}

/// The keyspace, table or view a DROP statement removed, whose permissions go with it.
fn dropped_resource(statement: &Statement, keyspace: Option<&str>) -> Option<Resource> {
    match statement {
        Statement::DropKeyspace { name, .. } => Some(Resource::Keyspace(name.name.clone())),
        Statement::DropTable { name, .. } | Statement::DropView { name, .. } => {
            table_resource(name, keyspace)
        }
        _ => None,
    }
}

fn table_resource(
    name: &cql::statement::ast::QualifiedName,
    keyspace: Option<&str>,
) -> Option<Resource> {
    let ks = crate::planner::keyspace_of(name, keyspace).ok()?;
    Some(Resource::Table(ks, name.name.name.clone()))
}

/// Runs a planned INSERT, UPDATE or DELETE: conditional ones as lightweight transactions.
async fn execute_modification(
    node: &Arc<Node>,
    plan: &ModifyPlan,
    options: &ExecOptions,
    ctx: EvalContext<'_>,
) -> CqlResult<ResultBody> {
    if plan.conditions.is_some() {
        let item = write::cas::CasItem { plan, ctx };
        return Box::pin(write::cas::execute(node, &[item], options, false)).await;
    }
    check_write(plan, options)?;
    write::modify::execute(node, plan, options, &ctx).await?;
    Ok(ResultBody::Void)
}

/// The consistency level of a plain write: Cassandra checks counter writes instead of, not
/// on top of, other writes.
fn check_write(plan: &ModifyPlan, options: &ExecOptions) -> CqlResult<()> {
    if crate::planner::modify::counters::is_counter_table(&plan.table.def) {
        consistency::check_counter_write(options.consistency, &plan.table.def.name)
    } else {
        write::cas::check_write_consistency(options)
    }
}
