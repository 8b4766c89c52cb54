//! EXPLAIN and EXPLAIN ANALYZE (our extension): rows of one `plan` text column, the lines
//! `planner::explain` reads off the plan; ANALYZE runs the statement too and adds what its
//! read examined (`ReadStats`) and how long it took.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use cql::frame::response::{ResultBody, ResultMetadata, Rows};
use cql::statement::ast::Statement;

use super::read::select;
use super::read::stats::ReadStats;
use super::{execute_modification, keys, not_planned, BoundStatement};
use crate::error::CqlResult;
use crate::eval::values::EvalContext;
use crate::node::Node;
use crate::planner::explain::{columns, describe};
use crate::planner::modify::ModifyPlan;
use crate::planner::plan::StatementPlan;
use crate::transport::session::Session;

/// Runs `EXPLAIN [ANALYZE] statement`.
pub(super) async fn execute(
    node: &Arc<Node>,
    session: &Arc<Session>,
    bound: &BoundStatement,
) -> CqlResult<ResultBody> {
    let (StatementPlan::Explain { analyze, inner }, Statement::Explain(explain)) =
        (&bound.plan, bound.statement())
    else {
        return Err(not_planned());
    };
    let (options, ctx, schema) = (&bound.options, bound.ctx(), bound.schema.clone());
    let table = inner.table().ok_or_else(not_planned)?.clone();
    let mut lines = describe(inner);
    if *analyze {
        let started = Instant::now();
        let (stats, more) = match (&**inner, &explain.statement) {
            (StatementPlan::Select(plan), Statement::Select(statement)) => {
                crate::executor::consistency::check_read(options.consistency)?;
                let plan = plan.clone();
                let (result, stats) =
                    select::execute(node, session, schema, plan, options, &ctx, statement).await?;
                let more = matches!(&result, ResultBody::Rows(rows) if rows.metadata.paging_state.is_some());
                (stats, more)
            }
            (StatementPlan::Modify(plan), _) => {
                execute_modification(node, plan, options, ctx).await?;
                let stats = ReadStats {
                    partitions: partitions_written(plan, &ctx)?,
                    ..ReadStats::default()
                };
                (stats, false)
            }
            _ => return Err(not_planned()),
        };
        lines.extend(analyze_lines(&stats, more, started.elapsed()));
    }
    let rows = lines
        .into_iter()
        .map(|line| vec![Some(Bytes::from(line))])
        .collect();
    Ok(ResultBody::Rows(Rows {
        metadata: ResultMetadata {
            columns: columns(&table),
            paging_state: None,
            no_metadata: options.skip_metadata,
            new_metadata_id: None,
        },
        rows,
    }))
}

/// The partitions a write touched: the product of its partition-key value lists.
fn partitions_written(plan: &ModifyPlan, ctx: &EvalContext<'_>) -> CqlResult<u64> {
    let def = &plan.table.def;
    plan.partition_key
        .iter()
        .zip(&def.partition_key)
        .try_fold(1u64, |n, (set, &column)| {
            let values = keys::key_values(set, def, column, ctx)?;
            Ok(n.saturating_mul(values.len() as u64))
        })
}

/// What ANALYZE adds: the read's counts and the time the statement took.
fn analyze_lines(stats: &ReadStats, more_pages: bool, took: Duration) -> Vec<String> {
    let page = if more_pages {
        " (one page; more follow)"
    } else {
        ""
    };
    vec![
        format!("Partitions touched: {}", stats.partitions),
        format!("Rows examined: {}", stats.rows_examined),
        format!("Tombstones examined: {}", stats.tombstones),
        format!("Rows returned: {}{page}", stats.rows_returned),
        format!("Time: {:.3} ms", took.as_secs_f64() * 1000.0),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analyze_lines_report_every_count_and_the_time() {
        let stats = ReadStats {
            partitions: 2,
            rows_examined: 7,
            live_rows: 4,
            tombstones: 3,
            rows_returned: 4,
            last_token: None,
        };
        assert_eq!(
            analyze_lines(&stats, true, Duration::from_micros(1500)),
            [
                "Partitions touched: 2",
                "Rows examined: 7",
                "Tombstones examined: 3",
                "Rows returned: 4 (one page; more follow)",
                "Time: 1.500 ms",
            ]
        );
    }
}
