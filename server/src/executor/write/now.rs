//! A plain INSERT, UPDATE or DELETE begun on the caller's thread, as [`crate::executor::execute`] would
//! run it: checked, planned, built and handed to the writer with no request future around
//! it. Only the wait for the writer's acknowledgement is left to poll
//! (`answer::answer_now`); until then nothing a client sees depends on the path taken.

use std::time::Instant;

use storage::WriteBatch;

use crate::error::CqlResult;
use crate::eval::values::EvalContext;
use crate::executor::options::ExecOptions;
use crate::executor::write::{cas, index_limits, modify};
use crate::executor::Planning;
use crate::node::Node;
use crate::telemetry::metrics::table_latency::LatencyKind;
use crate::transport::session::Session;
use cql::frame::request::Value;
use cql::statement::ast::Statement;

/// A write handed to the writer, waiting for its acknowledgement.
pub(crate) struct WriteBegun {
    /// The writer's answer, when it comes.
    pub(crate) ack: modify::Ack,
    table: uuid::Uuid,
    started: Instant,
}

impl WriteBegun {
    /// The write's outcome from the writer's answer, with its table latency recorded as
    /// [`crate::executor::execute`] records it.
    pub(crate) fn finish(&self, node: &Node, acknowledged: modify::Acknowledged) -> CqlResult<()> {
        self.ack.rows.outcome(node, acknowledged)?;
        record_write_latency(node, self.table, self.started);
        Ok(())
    }
}

/// Records a finished write's latency in its table's (`system_views.local_write_latency`).
pub(in crate::executor) fn record_write_latency(node: &Node, table: uuid::Uuid, started: Instant) {
    node.metrics
        .tables
        .record(table, LatencyKind::Write, started.elapsed());
}

/// Begins a prepared INSERT, UPDATE or DELETE (the caller matched the statement) without
/// conditions, of a table without counters, when the write queue has room now; `Ok(None)`,
/// having done nothing a client sees, for anything else (which then goes through
/// [`crate::executor::execute`], waiting for room there). Errors are the ones [`crate::executor::execute`] would
/// answer, in the same order.
pub(crate) fn write_now(
    node: &Node,
    session: &Session,
    planning: Planning<'_>,
    options: &ExecOptions<'_>,
    values: &[Value],
) -> CqlResult<Option<WriteBegun>> {
    let statement = planning.statement();
    debug_assert!(matches!(
        statement,
        Statement::Insert(_) | Statement::Update(_) | Statement::Delete(_)
    ));
    let ctx = EvalContext {
        binds: values,
        now_micros: node.clock.now_micros(),
    };
    crate::auth::authorizer::authorize(node, session, statement, planning.keyspace())?;
    let plan = planning.modification(node)?;
    if plan.conditions.is_some()
        || crate::planner::modify::counters::is_counter_table(&plan.table.def)
    {
        return Ok(None);
    }
    let Ok(slot) = node.write_queue.clone().try_acquire_owned() else {
        return Ok(None);
    };
    let started = Instant::now();
    cas::check_write_consistency(options)?;
    let mut batch = WriteBatch::default();
    modify::build_writes(node, &plan, options, &ctx, &mut batch)?;
    index_limits::check(node, &batch)?;
    Ok(Some(WriteBegun {
        ack: modify::send(node, batch, slot),
        table: plan.table.def.id,
        started,
    }))
}
