//! Statement execution: dispatches a parsed statement to its executor and returns the RESULT
//! body (plus any warnings).

pub(crate) mod access;
pub(crate) mod consistency;
pub(crate) mod read;
pub(crate) mod schema;
pub(crate) mod write;

mod explain;
mod keys;
mod options;

pub(crate) use write::now::{write_now, WriteBegun};

use std::sync::Arc;

use cql::frame::request::Value;
use cql::frame::response::ResultBody;
use cql::statement::ast::{BatchKind, Statement, UsingClause};

pub(crate) use options::ExecOptions;

use crate::describe;
use crate::error::{CqlError, CqlResult, InternalError, RequestError, SchemaError};
use crate::eval::values::EvalContext;
use crate::node::prepared::PreparedStatement;
use crate::node::Node;
use crate::planner::modify::ModifyPlan;
use crate::planner::plan::{plan_statement, StatementPlan};
use crate::planner::select::SelectPlan;
use crate::schema::{Schema, TableKind};
use crate::telemetry::metrics::table_latency::LatencyKind;
use crate::transport::session::Session;
use std::time::Instant;

/// Where the executor gets a statement's plan.
#[derive(Clone, Copy)]
pub(crate) enum Planning<'a> {
    /// Plan the statement now, against the current schema (QUERY, statements of a text
    /// batch); `keyspace` is the session's.
    Now {
        statement: &'a Statement,
        keyspace: Option<&'a str>,
    },
    /// Use the plan PREPARE made, made again only if the schema changed since.
    Prepared(&'a PreparedStatement),
}

impl<'a> Planning<'a> {
    /// The statement being run.
    pub(crate) fn statement(&self) -> &'a Statement {
        match self {
            Planning::Now { statement, .. } => statement,
            Planning::Prepared(prepared) => &prepared.statement,
        }
    }

    /// The keyspace unqualified names resolve in.
    pub(crate) fn keyspace(&self) -> Option<&'a str> {
        match self {
            Planning::Now { keyspace, .. } => *keyspace,
            Planning::Prepared(prepared) => prepared.keyspace.as_deref(),
        }
    }

    /// The statement's plan against `schema`.
    fn plan(&self, schema: &Arc<Schema>) -> CqlResult<StatementPlan> {
        match self {
            Planning::Now {
                statement,
                keyspace,
            } => plan_statement(schema, statement, *keyspace),
            Planning::Prepared(prepared) => prepared.plan_for(schema),
        }
    }

    /// The plan of a SELECT, with the schema snapshot it was made against.
    fn select(&self, node: &Node) -> CqlResult<(Arc<Schema>, Arc<SelectPlan>)> {
        let schema = node.schema();
        match self.plan(&schema)? {
            StatementPlan::Select(plan) => Ok((schema, plan)),
            StatementPlan::Modify(_) | StatementPlan::Explain { .. } | StatementPlan::Unplanned => {
                Err(not_planned())
            }
        }
    }

    /// The plan of an INSERT, UPDATE or DELETE; any other statement is refused with
    /// Cassandra's message for batches (the only place one can meet another kind).
    fn modification(&self, node: &Node) -> CqlResult<Arc<ModifyPlan>> {
        if !matches!(
            self.statement(),
            Statement::Insert(_) | Statement::Update(_) | Statement::Delete(_)
        ) {
            return Err(RequestError::NotAModification.into());
        }
        match self.plan(&node.schema())? {
            StatementPlan::Modify(plan) => Ok(plan),
            StatementPlan::Select(_) | StatementPlan::Explain { .. } | StatementPlan::Unplanned => {
                Err(not_planned())
            }
        }
    }
}

/// A statement planned as another kind than its own: a bug, never input.
fn not_planned() -> CqlError {
    InternalError::PlannedAsAnotherKind.into()
}

/// Executes a SELECT that names one row by its whole primary key, of a user table, on the
/// caller's thread, as [`execute`] would; `None` (having done nothing a client sees) for any
/// other statement, which then goes through [`execute`].
pub(crate) fn read_one_row_now(
    node: &Arc<Node>,
    session: &Arc<Session>,
    planning: Planning<'_>,
    options: &ExecOptions<'_>,
    values: &[Value],
) -> CqlResult<Option<ResultBody>> {
    let Statement::Select(statement) = planning.statement() else {
        return Ok(None);
    };
    if crate::executor::consistency::is_serial(options.consistency) {
        // A serial read waits for the lightweight transaction under way (`read::select::execute`).
        return Ok(None);
    }
    let ctx = EvalContext {
        binds: values,
        now_micros: node.clock.now_micros(),
    };
    crate::auth::authorizer::authorize(node, session, planning.statement(), planning.keyspace())?;
    let PlannedRead {
        schema,
        plan,
        timing,
    } = PlannedRead::new(node, &planning, options)?;
    if plan.table.kind != TableKind::User || !read::point::names_one_row(&plan, &plan.table.def) {
        return Ok(None);
    }
    match read::select::begin(node, session, &schema, plan, options, &ctx, statement)? {
        read::select::Begun::Done(result, _) => {
            timing.record(node);
            Ok(Some(result))
        }
        // Not reached: a one-row read of a user table always runs inline.
        read::select::Begun::Blocking(_) => Ok(None),
    }
}

/// A SELECT about to read: its plan, with the schema snapshot it was made against, and the
/// timing of its table latency.
struct PlannedRead {
    schema: Arc<Schema>,
    plan: Arc<SelectPlan>,
    timing: ReadTiming,
}

impl PlannedRead {
    /// Checks the read's consistency level, finds its plan and starts its timing.
    fn new(node: &Node, planning: &Planning<'_>, options: &ExecOptions<'_>) -> CqlResult<Self> {
        crate::executor::consistency::check_read(options.consistency)?;
        let (schema, plan) = planning.select(node)?;
        let timing = ReadTiming {
            timed: timed_read(&plan),
            started: Instant::now(),
        };
        Ok(PlannedRead {
            schema,
            plan,
            timing,
        })
    }
}

/// A read's table latency, from its start.
struct ReadTiming {
    /// The table and kind of latency the read records, if it is timed ([`timed_read`]).
    timed: Option<(uuid::Uuid, LatencyKind)>,
    started: Instant,
}

impl ReadTiming {
    /// Records the finished read's latency in its table's.
    fn record(self, node: &Node) {
        if let Some((table, kind)) = self.timed {
            node.metrics
                .tables
                .record(table, kind, self.started.elapsed());
        }
    }
}

/// Executes a statement with bound `values` (by marker index).
pub(crate) async fn execute(
    node: &Arc<Node>,
    session: &Arc<Session>,
    planning: Planning<'_>,
    options: &ExecOptions<'_>,
    values: &[Value],
) -> CqlResult<ResultBody> {
    let ctx = EvalContext {
        binds: values,
        now_micros: node.clock.now_micros(),
    };
    let keyspace = planning.keyspace();
    crate::auth::authorizer::authorize(node, session, planning.statement(), keyspace)?;
    match planning.statement() {
        Statement::Select(statement) => {
            let PlannedRead {
                schema,
                plan,
                timing,
            } = PlannedRead::new(node, &planning, options)?;
            let (result, _) =
                read::select::execute(node, session, schema, plan, options, &ctx, statement)
                    .await?;
            timing.record(node);
            Ok(result)
        }
        Statement::Insert(_) | Statement::Update(_) | Statement::Delete(_) => {
            let plan = planning.modification(node)?;
            let started = Instant::now();
            let result = execute_modification(node, &plan, options, ctx).await?;
            write::now::record_write_latency(node, plan.table.def.id, started);
            Ok(result)
        }
        // Rare paths are boxed so they do not size every request's future.
        Statement::Batch(batch) => Box::pin(query_batch(node, batch, keyspace, options, ctx)).await,
        Statement::Use(ident) => use_keyspace(node, session, &ident.name),
        Statement::Truncate(name) => Box::pin(schema::truncate(node, name, keyspace)).await,
        Statement::Describe(describe) => {
            let schema = node.schema();
            describe::execute(&schema, describe, keyspace)
        }
        Statement::Explain(statement) => {
            Box::pin(explain::execute(
                node, session, planning, statement, options, ctx,
            ))
            .await
        }
        Statement::Role(statement) => {
            Box::pin(access::roles::execute(node, session, statement)).await
        }
        Statement::Disabled(_) => {
            Box::pin(schema::execute(node, planning.statement(), keyspace)).await
        }
        Statement::Permission(statement) => {
            Box::pin(access::permissions::execute(
                node, session, statement, keyspace,
            ))
            .await
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
        | Statement::DropType { .. }) => {
            Box::pin(schema_change(node, session, statement, keyspace)).await
        }
    }
}

/// A BATCH statement in a QUERY: each statement planned now, then the batch run and timed.
async fn query_batch(
    node: &Arc<Node>,
    batch: &cql::statement::ast::Batch,
    keyspace: Option<&str>,
    options: &ExecOptions<'_>,
    ctx: EvalContext<'_>,
) -> CqlResult<ResultBody> {
    let header = write::batch::BatchHeader {
        kind: batch.kind,
        using: &batch.using,
        ctx,
    };
    let entries: Vec<write::batch::Entry<'_>> = batch
        .statements
        .iter()
        .map(|statement| write::batch::Entry {
            planning: Planning::Now {
                statement,
                keyspace,
            },
            ctx,
        })
        .collect();
    run_timed_batch(node, &header, &entries, options).await
}

/// `USE ks`: the session's keyspace, once it exists.
fn use_keyspace(node: &Node, session: &Session, name: &str) -> CqlResult<ResultBody> {
    if node.schema().keyspace(name).is_none() {
        return Err(SchemaError::KeyspaceDoesNotExist {
            keyspace: name.to_string(),
        }
        .into());
    }
    session.set_keyspace(name.to_string());
    Ok(ResultBody::SetKeyspace(name.to_string()))
}

/// A schema statement; what it creates is granted to its creator, as Cassandra does.
async fn schema_change(
    node: &Arc<Node>,
    session: &Arc<Session>,
    statement: &Statement,
    keyspace: Option<&str>,
) -> CqlResult<ResultBody> {
    let result = schema::execute(node, statement, keyspace).await?;
    if let Some(created) = created_resource(statement, keyspace) {
        Box::pin(access::permissions::grant_to_creator(
            node, session, created,
        ))
        .await?;
    }
    Ok(result)
}

/// The table and kind of latency a read records: a read of named partitions is a read,
/// any other a scan; reads of virtual tables are not timed.
fn timed_read(plan: &SelectPlan) -> Option<(uuid::Uuid, LatencyKind)> {
    if plan.table.kind != TableKind::User {
        return None;
    }
    let kind = match plan.partitions {
        crate::planner::select::PartitionSelection::Keys(_) => LatencyKind::Read,
        _ => LatencyKind::Scan,
    };
    Some((plan.table.def.id, kind))
}

/// The keyspace or table a CREATE statement makes, whose creator is granted its permissions.
fn created_resource(
    statement: &Statement,
    keyspace: Option<&str>,
) -> Option<crate::auth::authorizer::Resource> {
    use crate::auth::authorizer::Resource;
    match statement {
        Statement::CreateKeyspace(s) => Some(Resource::Keyspace(s.name.name.clone())),
        Statement::CreateTable(s) => {
            let ks = crate::planner::keyspace_of(&s.name, keyspace).ok()?;
            Some(Resource::Table(ks, s.name.name.name.clone()))
        }
        _ => None,
    }
}

/// Runs a planned INSERT, UPDATE or DELETE: conditional ones as lightweight transactions.
async fn execute_modification(
    node: &Arc<Node>,
    plan: &ModifyPlan,
    options: &ExecOptions<'_>,
    ctx: EvalContext<'_>,
) -> CqlResult<ResultBody> {
    if plan.conditions.is_some() {
        let item = write::cas::CasItem { plan, ctx };
        return Box::pin(write::cas::execute(node, &[item], options, false)).await;
    }
    // Cassandra checks counter writes instead of, not on top of, other writes.
    if crate::planner::modify::counters::is_counter_table(&plan.table.def) {
        crate::executor::consistency::check_counter_write(
            options.consistency,
            &plan.table.def.name,
        )?;
    } else {
        write::cas::check_write_consistency(options)?;
    }
    write::modify::execute(node, plan, options, &ctx).await?;
    Ok(ResultBody::Void)
}

/// One statement of a BATCH message with its own values and keyspace.
pub(crate) struct BatchItem {
    pub statement: Arc<Statement>,
    pub values: Vec<Value>,
    pub keyspace: Option<String>,
    /// The prepared statement the item names, whose plan it uses.
    pub prepared: Option<Arc<PreparedStatement>>,
}

/// Executes a BATCH message of `kind`: all row updates are committed in one storage
/// transaction.
pub(crate) async fn execute_batch(
    node: &Arc<Node>,
    kind: BatchKind,
    items: &[BatchItem],
    options: &ExecOptions<'_>,
) -> CqlResult<ResultBody> {
    let now = node.clock.now_micros();
    let header = write::batch::BatchHeader {
        kind,
        using: &UsingClause::default(),
        ctx: EvalContext {
            binds: &[],
            now_micros: now,
        },
    };
    let entries: Vec<write::batch::Entry<'_>> = items
        .iter()
        .map(|item| write::batch::Entry {
            planning: match &item.prepared {
                Some(prepared) => Planning::Prepared(prepared),
                None => Planning::Now {
                    statement: &item.statement,
                    keyspace: item.keyspace.as_deref(),
                },
            },
            ctx: EvalContext {
                binds: &item.values,
                now_micros: now,
            },
        })
        .collect();
    run_timed_batch(node, &header, &entries, options).await
}

/// Runs a batch, timed as one write of each table it writes (`local_write_latency`).
async fn run_timed_batch(
    node: &Arc<Node>,
    header: &write::batch::BatchHeader<'_>,
    entries: &[write::batch::Entry<'_>],
    options: &ExecOptions<'_>,
) -> CqlResult<ResultBody> {
    let started = Instant::now();
    let result = write::batch::run(node, header, entries, options).await?;
    let elapsed = started.elapsed();
    let schema = node.schema();
    let mut tables: Vec<uuid::Uuid> = entries
        .iter()
        .filter_map(|entry| written_table(&schema, &entry.planning))
        .collect();
    tables.sort_unstable();
    tables.dedup();
    for table in tables {
        node.metrics
            .tables
            .record(table, LatencyKind::Write, elapsed);
    }
    Ok(result)
}

/// The table a batch entry writes, if it names one that exists.
fn written_table(schema: &Schema, planning: &Planning<'_>) -> Option<uuid::Uuid> {
    let name = match planning.statement() {
        Statement::Insert(s) => &s.table,
        Statement::Update(s) => &s.table,
        Statement::Delete(s) => &s.table,
        _ => return None,
    };
    crate::planner::resolve_table(schema, name, planning.keyspace())
        .ok()
        .map(|table| table.def.id)
}
