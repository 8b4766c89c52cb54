//! Runs the statements of a batch (a BATCH message or `BEGIN ... APPLY BATCH` text): plans
//! them, checks Cassandra's batch rules, gives every statement without its own timestamp the
//! batch's one, builds all their writes into one storage request, checks the batch's size
//! (warning or refusing as Cassandra does) and commits it.

use std::sync::Arc;

use cql::frame::response::ResultBody;
use cql::statement::ast::{BatchKind, UsingClause};
use storage::WriteBatch;

use crate::error::{CqlResult, ModifyError};
use crate::eval::values::EvalContext;
use crate::executor::options::ExecOptions;
use crate::executor::write::batch_rules::StatementTraits;
use crate::executor::write::batch_size::{Footprint, Mark};
use crate::executor::write::{batch_rules, modify};
use crate::node::Node;
use crate::planner::modify::counters::is_counter_table;
use crate::planner::modify::ModifyPlan;

/// One statement of a batch: its plan, and its own bound values.
pub(crate) struct Entry<'a> {
    pub(crate) plan: Arc<ModifyPlan>,
    pub(crate) ctx: EvalContext<'a>,
}

/// The batch around the entries: its kind and `USING` clause (evaluated with `ctx`).
pub(crate) struct BatchHeader<'a> {
    pub(crate) kind: BatchKind,
    pub(crate) using: &'a UsingClause,
    pub(crate) ctx: EvalContext<'a>,
}

/// Checks, builds and commits the planned batch; its warnings go to the client
/// ([`crate::telemetry::warnings`]).
pub(crate) async fn run(
    node: &Arc<Node>,
    header: &BatchHeader<'_>,
    entries: &[Entry<'_>],
    options: &ExecOptions,
) -> CqlResult<ResultBody> {
    let plans: Vec<&ModifyPlan> = entries.iter().map(|entry| &*entry.plan).collect();
    let traits: Vec<StatementTraits> = plans
        .iter()
        .map(|p| StatementTraits {
            is_counter: is_counter_table(&p.table.def),
            has_timestamp: p.using.timestamp.is_some(),
        })
        .collect();
    batch_rules::validate(header.kind, header.using, &traits)?;
    if plans.iter().any(|p| p.conditions.is_some()) {
        if header.using.timestamp.is_some() {
            return Err(ModifyError::ConditionalBatchTimestamp.into());
        }
        let items: Vec<crate::executor::write::cas::CasItem<'_>> = plans
            .iter()
            .zip(entries)
            .map(|(plan, entry)| crate::executor::write::cas::CasItem {
                plan,
                ctx: entry.ctx,
            })
            .collect();
        return crate::executor::write::cas::execute(node, &items, options, true).await;
    }
    crate::executor::write::cas::check_write_consistency(options)?;
    let options = ExecOptions {
        timestamp: Some(batch_timestamp(node, header, options)?),
        ..options.clone()
    };
    let mut writes = WriteBatch::default();
    let mut footprint = Footprint::default();
    for (plan, entry) in plans.iter().zip(entries) {
        let mark = Mark::of(&writes);
        modify::build_writes(node, plan, &options, &entry.ctx, &mut writes)?;
        footprint.add(&plan.table.def, &writes, mark)?;
    }
    let warnings = footprint.verdict(header.kind, &node.config().batch_thresholds)?;
    crate::executor::write::submit::submit(node, writes).await?;
    for warning in warnings {
        crate::telemetry::warnings::warn(warning);
    }
    Ok(ResultBody::Void)
}

/// `USING TIMESTAMP` of the batch, else the request's default timestamp, else the clock.
fn batch_timestamp(node: &Node, header: &BatchHeader<'_>, options: &ExecOptions) -> CqlResult<i64> {
    if let Some(term) = &header.using.timestamp {
        if let Some(ts) = modify::using_timestamp(term, &header.ctx)? {
            return Ok(ts);
        }
    }
    Ok(options
        .timestamp
        .unwrap_or_else(|| node.clock().timestamp_from(header.ctx.now_micros)))
}
