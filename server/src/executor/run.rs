//! One pipeline for every statement. [`run`] takes a bound statement and decides: answer it
//! inline (a read that needs no waiting: point reads and small slices of user tables, most
//! virtual tables; `USE`; `DESCRIBE`; any error), hand it to the writer (a plain write, when
//! the writer's queue has room), or leave it, the same value, to [`Later::finish`]
//! (whatever waits: a lock, the write queue, the blocking pool, the DDL lock). Nothing is
//! bound, authorized or planned again on the way.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Instant;

use cql::frame::response::ResultBody;
use cql::statement::ast::{Statement, UsingClause};
use storage::WriteBatch;

use crate::error::CqlResult;
use crate::eval::values::EvalContext;
use crate::executor::bound::{BoundBatch, BoundStatement};
use crate::executor::cluster_check;
use crate::executor::read::select::{self, BoundSelect};
use crate::executor::write::submit::{self, Ack, Handoff};
use crate::executor::{
    check_write, consistency, describe, execute_planned, not_planned, use_keyspace, write,
};
use crate::node::Node;
use crate::planner::modify::ModifyPlan;
use crate::planner::plan::StatementPlan;
use crate::planner::select::{PartitionSelection, SelectPlan};
use crate::schema::TableKind;
use crate::telemetry::metrics::table_latency::LatencyKind;
use crate::transport::session::Session;

/// What [`run`] made of a statement.
pub(crate) enum Outcome {
    /// Answered (or failed).
    Done(CqlResult<ResultBody>),
    /// A write handed to the writer: done when the writer acknowledges it.
    Writing(PendingWrite),
    /// Left to [`Later::finish`].
    Later(Later),
}

/// Runs a bound statement as far as it goes without waiting (see the module documentation).
pub(crate) fn run(node: &Arc<Node>, session: &Arc<Session>, bound: BoundStatement) -> Outcome {
    if node.checks_consistency() {
        if let Some(refused) = cluster_gate(node, session, &bound) {
            return refused;
        }
    }
    match &bound.plan {
        // A serial read waits for the lightweight transaction under way (`select::execute`).
        StatementPlan::Select(plan) if !waits_for_transactions(plan, &bound) => {
            let plan = plan.clone();
            read(node, session, bound, plan)
        }
        StatementPlan::Modify(plan)
            if plan.conditions.is_none() && plan.table.kind == TableKind::User =>
        {
            let plan = plan.clone();
            write(node, bound, &plan)
        }
        StatementPlan::Use(keyspace) => {
            Outcome::Done(use_keyspace(&bound.schema, session, keyspace))
        }
        StatementPlan::Describe(plan) => Outcome::Done(describe(&bound.schema, plan)),
        _ => Outcome::Later(Later(Pending::Statement(Box::new(bound)))),
    }
}

/// A BATCH message: it always waits (for the write queue, or its transaction's lock).
pub(crate) fn run_batch(node: &Node, session: &Session, batch: BoundBatch) -> Outcome {
    if node.checks_consistency() {
        if let Some(refused) = batch_cluster_gate(node, session, &batch) {
            return refused;
        }
    }
    Outcome::Later(Later(Pending::Batch(Box::new(batch))))
}

/// On a simulated cluster, or one node with `strict_consistency`, the coordinator's
/// consistency arithmetic for a statement (`executor::cluster_check`): `None` to run it,
/// else its refusal.
fn cluster_gate(node: &Node, session: &Session, bound: &BoundStatement) -> Option<Outcome> {
    match cluster_check::touches_of(&bound.plan, &bound.ctx(), &bound.options) {
        Ok(touches) => refusal(cluster_check::check(node, session, &bound.schema, &touches)),
        Err(err) => Some(Outcome::Done(Err(err))),
    }
}

/// [`cluster_gate`] for every statement of a batch, as one write.
fn batch_cluster_gate(node: &Node, session: &Session, batch: &BoundBatch) -> Option<Outcome> {
    let entries = batch
        .entries
        .iter()
        .map(|(statement, plan)| (&**plan, statement.ctx(batch.now_micros)));
    match cluster_check::batch_touches(entries, batch.kind, &batch.options) {
        Ok(touches) => refusal(cluster_check::check(
            node,
            session,
            &node.schema(),
            &touches,
        )),
        Err(err) => Some(Outcome::Done(Err(err))),
    }
}

/// What a [`cluster_check::Check`] makes of the request.
fn refusal(check: cluster_check::Check) -> Option<Outcome> {
    match check {
        cluster_check::Check::Proceed => None,
        cluster_check::Check::Fail(err) => Some(Outcome::Done(Err(err))),
        cluster_check::Check::FailAfter(after, error) => {
            Some(Outcome::Later(Later(Pending::FailAfter { after, error })))
        }
    }
}

/// Runs a statement without bound values, its names resolved in `keyspace`, to its end, as
/// a QUERY runs it (init scripts; tests).
pub(crate) async fn execute_text(
    node: &Arc<Node>,
    session: &Arc<Session>,
    statement: Statement,
    keyspace: Option<&str>,
    options: crate::executor::ExecOptions,
) -> CqlResult<ResultBody> {
    let source = crate::executor::Source::Text {
        statement: Arc::new(statement),
        keyspace: keyspace.map(str::to_string),
    };
    let authorized = crate::executor::Authorized::new(node, session, source, Vec::new(), None)?;
    match run(node, session, authorized.plan(node, options)?) {
        Outcome::Done(result) => result,
        Outcome::Writing(mut write) => std::future::poll_fn(|cx| write.poll_done(cx, node)).await,
        Outcome::Later(later) => later.finish(node, session).await,
    }
}

/// Whether a SELECT is a serial read of a user table, which waits for the lightweight
/// transaction under way.
fn waits_for_transactions(plan: &SelectPlan, bound: &BoundStatement) -> bool {
    consistency::is_serial(bound.options.consistency) && plan.table.kind == TableKind::User
}

/// A SELECT: read inline when it may be, else bound for the blocking pool.
fn read(
    node: &Arc<Node>,
    session: &Arc<Session>,
    bound: BoundStatement,
    plan: Arc<SelectPlan>,
) -> Outcome {
    let Statement::Select(statement) = bound.statement() else {
        return Outcome::Done(Err(not_planned()));
    };
    let timing = ReadTiming::start(&plan);
    let ctx = bound.ctx();
    let begun = select::begin(
        node,
        session,
        &bound.schema,
        plan,
        &bound.options,
        &ctx,
        statement,
    );
    match begun {
        Err(err) => Outcome::Done(Err(err)),
        Ok(select::Begun::Done(result, _)) => {
            timing.record(node);
            Outcome::Done(Ok(result))
        }
        Ok(select::Begun::Blocking(select)) => Outcome::Later(Later(Pending::Read {
            bound: Box::new(bound),
            select,
            timing,
        })),
    }
}

/// A plain INSERT, UPDATE or DELETE: checked, built and handed to the writer, or queued for
/// room in its queue.
fn write(node: &Node, bound: BoundStatement, plan: &ModifyPlan) -> Outcome {
    let timing = WriteTiming::start(plan);
    let handoff = check_write(plan, &bound.options)
        .and_then(|()| write::modify::start(node, plan, &bound.options, &bound.ctx()));
    match handoff {
        Err(err) => Outcome::Done(Err(err)),
        Ok(Handoff::Sent(ack)) => Outcome::Writing(PendingWrite { ack, timing }),
        Ok(Handoff::Queued(batch)) => Outcome::Later(Later(Pending::Queued { batch, timing })),
    }
}

/// A write handed to the writer, waiting for its acknowledgement.
pub(crate) struct PendingWrite {
    ack: Ack,
    timing: WriteTiming,
}

impl PendingWrite {
    /// Polls for the writer's acknowledgement: the write's outcome, its table latency
    /// recorded.
    pub(crate) fn poll_done(
        &mut self,
        cx: &mut Context<'_>,
        node: &Node,
    ) -> Poll<CqlResult<ResultBody>> {
        let acknowledged = ready!(Pin::new(&mut self.ack.receiver).poll(cx));
        let outcome = self.ack.rows.outcome(node, acknowledged);
        Poll::Ready(outcome.map(|()| {
            self.timing.record(node);
            ResultBody::Void
        }))
    }
}

/// A statement [`run`] left to finish where it may wait.
pub(crate) struct Later(Pending);

/// What a [`Later`] holds.
enum Pending {
    /// Not started: run by [`execute_planned`] (lightweight transactions, serial reads, DDL,
    /// role statements, EXPLAIN, TRUNCATE, batches of text).
    Statement(Box<BoundStatement>),
    /// A SELECT bound, to be read on the blocking pool.
    Read {
        bound: Box<BoundStatement>,
        select: Box<BoundSelect>,
        timing: ReadTiming,
    },
    /// A write built and checked, waiting for room in the writer's queue.
    Queued {
        batch: WriteBatch,
        timing: WriteTiming,
    },
    /// A BATCH message, planned.
    Batch(Box<BoundBatch>),
    /// A request that needs a paused replica of a simulated cluster: its timeout, after the
    /// wait.
    FailAfter {
        after: std::time::Duration,
        error: crate::error::CqlError,
    },
}

impl Later {
    /// Finishes the statement.
    pub(crate) async fn finish(
        self,
        node: &Arc<Node>,
        session: &Arc<Session>,
    ) -> CqlResult<ResultBody> {
        match self.0 {
            // Boxed: rare, large paths, which would size every request's future.
            Pending::Statement(bound) => Box::pin(execute_planned(node, session, &bound)).await,
            Pending::Read {
                bound,
                select,
                timing,
            } => {
                let Statement::Select(statement) = bound.statement() else {
                    return Err(not_planned());
                };
                let schema = bound.schema.clone();
                let options = &bound.options;
                let (result, _) =
                    select::finish(node, session, schema, select, options, statement).await?;
                timing.record(node);
                Ok(result)
            }
            Pending::Queued { batch, timing } => {
                submit::when_room(node, batch).await?;
                timing.record(node);
                Ok(ResultBody::Void)
            }
            Pending::Batch(batch) => Box::pin(execute_batch(node, &batch)).await,
            Pending::FailAfter { after, error } => {
                tokio::time::sleep(after).await;
                Err(error)
            }
        }
    }
}

/// Runs a planned BATCH message.
async fn execute_batch(node: &Arc<Node>, batch: &BoundBatch) -> CqlResult<ResultBody> {
    let header = write::batch::BatchHeader {
        kind: batch.kind,
        using: &UsingClause::default(),
        ctx: EvalContext {
            binds: &[],
            now_micros: batch.now_micros,
        },
    };
    let entries: Vec<write::batch::Entry<'_>> = batch
        .entries
        .iter()
        .map(|(statement, plan)| write::batch::Entry {
            plan: plan.clone(),
            ctx: statement.ctx(batch.now_micros),
        })
        .collect();
    run_timed_batch(node, &header, &entries, &batch.options).await
}

/// Runs a batch, timed as one write of each table it writes (`local_write_latency`).
pub(super) async fn run_timed_batch(
    node: &Arc<Node>,
    header: &write::batch::BatchHeader<'_>,
    entries: &[write::batch::Entry<'_>],
    options: &crate::executor::ExecOptions,
) -> CqlResult<ResultBody> {
    let started = Instant::now();
    let result = write::batch::run(node, header, entries, options).await?;
    let elapsed = started.elapsed();
    let mut tables: Vec<uuid::Uuid> = entries.iter().map(|e| e.plan.table.def.id).collect();
    tables.sort_unstable();
    tables.dedup();
    for table in tables {
        node.metrics()
            .tables
            .record(table, LatencyKind::Write, elapsed);
    }
    Ok(result)
}

/// A read's table latency, from its start.
pub(super) struct ReadTiming {
    /// The table and kind of latency the read records: a read of named partitions is a
    /// read, any other a scan; reads of virtual tables are not timed.
    timed: Option<(uuid::Uuid, LatencyKind)>,
    started: Instant,
}

impl ReadTiming {
    /// Starts timing a read of `plan`.
    pub(super) fn start(plan: &SelectPlan) -> ReadTiming {
        let timed = (plan.table.kind == TableKind::User).then(|| {
            let kind = match plan.partitions {
                PartitionSelection::Keys(_) => LatencyKind::Read,
                _ => LatencyKind::Scan,
            };
            (plan.table.def.id, kind)
        });
        ReadTiming {
            timed,
            started: Instant::now(),
        }
    }

    /// Records the finished read's latency in its table's.
    pub(super) fn record(self, node: &Node) {
        if let Some((table, kind)) = self.timed {
            node.metrics()
                .tables
                .record(table, kind, self.started.elapsed());
        }
    }
}

/// A write's table latency (`system_views.local_write_latency`), from its start.
pub(super) struct WriteTiming {
    table: uuid::Uuid,
    started: Instant,
}

impl WriteTiming {
    /// Starts timing a write of `plan`.
    pub(super) fn start(plan: &ModifyPlan) -> WriteTiming {
        WriteTiming {
            table: plan.table.def.id,
            started: Instant::now(),
        }
    }

    /// Records the finished write's latency in its table's.
    pub(super) fn record(&self, node: &Node) {
        node.metrics()
            .tables
            .record(self.table, LatencyKind::Write, self.started.elapsed());
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
