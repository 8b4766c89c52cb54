//! SELECT execution: evaluate the plan's terms, then walk the key ranges (point lookups when
//! the primary key is fixed), apply liveness and filters, and shape the page. redb is
//! synchronous: point lookups run inline, anything longer on a blocking thread.

use std::sync::Arc;

use bytes::Bytes;
use cql::frame::response::ResultBody;
use cql::statement::ast::{Operator, Select};

use crate::error::{CqlResult, InternalError};
use crate::eval::functions::CallContext;
use crate::eval::values::EvalContext;
use crate::executor::options::ExecOptions;
use crate::executor::read::paging::PagingState;
use crate::executor::read::query_text::query_text;
use crate::executor::read::ranges::ReadRanges;
use crate::executor::read::stats::ReadStats;
use crate::executor::read::{ann_rank, clustering, index_scan, virtual_tables};
use crate::node::Node;
use crate::planner::select::{PartitionSelection, SelectPlan};
use crate::schema::{Schema, TableKind};
use crate::telemetry::trace;
use crate::transport::session::Session;

mod bind;
mod run;

use bind::*;
use run::*;

/// A restriction evaluated for row-by-row checking.
struct BoundFilter {
    column: usize,
    checks: Vec<(Operator, Vec<Bytes>)>,
    /// `m[key] = value` checks.
    elements: Vec<(Bytes, Bytes)>,
    /// The text analysis equality uses (an analyzing SAI index on the column); `In`
    /// operands are then analyzed.
    analyzer: Option<storage::index::Analyzer>,
    /// `CONTAINS` (`false`) and `CONTAINS KEY` (`true`) checks an analyzing SAI index on
    /// the collection's values or keys answers, with their analyzed operands.
    analyzed_contains: Vec<(bool, storage::index::Analyzer, Bytes)>,
    /// A `NOT IN` list holding null: no row passes (`x != null` is unknown).
    never: bool,
}

/// Everything the blocking scan needs, with all terms evaluated.
pub(crate) struct BoundSelect {
    /// The plan; shared with the prepared statement unless selectors had terms to bind.
    plan: Arc<SelectPlan>,
    ranges: ReadRanges,
    filters: Vec<BoundFilter>,
    /// Tuple bounds of a slice over mixed-direction clustering columns.
    tuple_check: Option<clustering::TupleCheck>,
    /// The clustering ranges a row must fall in (the plan's `clustering_filter`).
    clustering_filter: Option<Vec<storage::ClusteringRange>>,
    limit: Option<usize>,
    per_partition_limit: Option<usize>,
    page_size: Option<usize>,
    paging: Option<PagingState>,
    skip_metadata: bool,
    /// The request's clock, for functions in the selectors.
    call: CallContext,
    /// The secondary-index lookup that narrows `ranges` to candidate rows.
    index: Option<index_scan::BoundIndex>,
    /// The keyspaces a schema table's read is restricted to (see [`virtual_read`]).
    keyspaces: Option<Vec<String>>,
    /// `ORDER BY v ANN OF ...`: how rows are scored.
    ann: Option<ann_rank::BoundAnn>,
}

/// Runs a planned SELECT with the warnings it earns (`crate::executor::read::thresholds`: Cassandra's on
/// aggregates before the read, the tombstone and filtering ones after it), returning what
/// its read examined with the result (EXPLAIN ANALYZE reports it); `params` are the request's
/// options, `statement` is the SELECT as written, named in those warnings.
pub(crate) async fn execute(
    node: &Arc<Node>,
    session: &Arc<Session>,
    schema: Arc<Schema>,
    plan: Arc<SelectPlan>,
    params: &ExecOptions,
    ctx: &EvalContext<'_>,
    statement: &Select,
) -> CqlResult<(ResultBody, ReadStats)> {
    // A SERIAL read is linearizable with lightweight transactions, as Cassandra's Paxos read
    // is: it waits for the one under way to commit (in `batch` mode, after its fsync), so it
    // never sees a conditional write that a crash could still take back.
    let serial = crate::executor::consistency::is_serial(params.consistency)
        && plan.table.kind == TableKind::User;
    let _serialised = if serial {
        Some(node.cas_lock().lock().await)
    } else {
        None
    };
    match begin(node, session, &schema, plan, params, ctx, statement)? {
        Begun::Done(result, stats) => Ok((result, stats)),
        Begun::Blocking(bound) => finish(node, session, schema, bound, params, statement).await,
    }
}

/// Reads a SELECT that [`begin`] bound for the blocking pool, with the warnings it earns.
pub(crate) async fn finish(
    node: &Arc<Node>,
    session: &Arc<Session>,
    schema: Arc<Schema>,
    bound: Box<BoundSelect>,
    params: &ExecOptions,
    statement: &Select,
) -> CqlResult<(ResultBody, ReadStats)> {
    let consistency = params.consistency;
    let node = node.clone();
    let session = session.clone();
    let tracer = trace::current().map(|t| t.on(trace::READ_THREAD));
    let (result, plan, node) = tokio::task::spawn_blocking(move || {
        trace::within(tracer, || {
            let result = run(&node, &schema, &session, &bound, usize::MAX, consistency);
            (result, bound.plan, node)
        })
    })
    .await
    .map_err(InternalError::ReadTaskFailed)?;
    let (result, stats) = result?.ok_or(InternalError::UnboundedReadOverBudget)?;
    warn_after_read(&node, &plan, &stats, statement, params);
    Ok((result, stats))
}

/// How far [`begin`] took a read.
// `Done` is what nearly every read returns, by value: boxing it would allocate per read.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Begun {
    /// Read on the caller's thread: the result and what the read examined.
    Done(ResultBody, ReadStats),
    /// Bound, and to be read on the blocking pool (a scan, an index or virtual-table read,
    /// a slice over its inline budget).
    Blocking(Box<BoundSelect>),
}

/// A read's steps on the caller's thread: its aggregation warning, binding, its trace's
/// first events, and the read itself when it may run inline (see [`inline_budget`]).
pub(crate) fn begin(
    node: &Arc<Node>,
    session: &Arc<Session>,
    schema: &Arc<Schema>,
    plan: Arc<SelectPlan>,
    params: &ExecOptions,
    ctx: &EvalContext<'_>,
    statement: &Select,
) -> CqlResult<Begun> {
    if plan.table.kind == TableKind::User {
        crate::executor::read::thresholds::warn_aggregation(&plan);
    }
    let bound = bind(plan, params, ctx, node.config())?;
    trace_read_start(&bound);
    let budget = match bound.plan.table.kind {
        TableKind::User => inline_budget(&bound),
        // A traced read stays on the read stage, where Cassandra's trace shows reads.
        TableKind::Virtual if trace::current().is_some() => None,
        TableKind::Virtual => {
            let def = &bound.plan.table.def;
            virtual_tables::inline(schema, def, bound.keyspaces.as_deref()).then_some(usize::MAX)
        }
    };
    if let Some(budget) = budget {
        let read = run(node, schema, session, &bound, budget, params.consistency)?;
        if let Some((result, stats)) = read {
            warn_after_read(node, &bound.plan, &stats, statement, params);
            return Ok(Begun::Done(result, stats));
        }
    }
    Ok(Begun::Blocking(Box::new(bound)))
}

/// The warnings a finished read of a user table earned; what it examined goes to the query
/// log when the request is recorded.
fn warn_after_read(
    node: &Node,
    plan: &SelectPlan,
    stats: &ReadStats,
    statement: &Select,
    options: &ExecOptions,
) {
    crate::control::query_log::examined::add_read(node, stats);
    if plan.table.kind == TableKind::User {
        crate::executor::read::thresholds::warn_after_read(
            &node.config().read_thresholds,
            plan,
            stats,
            || query_text(statement, plan, options.page_size),
        );
    }
}

/// Traces the plan of a read and how it will reach its rows, in Cassandra's words where it
/// has them (`SinglePartitionReadCommand`, `StorageProxy.getRangeSlice`, `ReadCommand`).
/// Does nothing (one task-local read) when the request is not traced.
fn trace_read_start(bound: &BoundSelect) {
    let Some(tracer) = trace::current() else {
        return;
    };
    tracer.record(format!("Query plan: {}", bound.plan));
    let def = &bound.plan.table.def;
    match (&bound.index, &bound.plan.partitions) {
        (Some(_), _) => {
            let index = bound.plan.index.as_ref().map_or("", |i| i.name.as_str());
            tracer.record(format!(
                "Executing read on {}.{} using index {index}",
                def.keyspace, def.name
            ));
        }
        (None, PartitionSelection::Keys(_)) => {
            tracer.record(format!("Executing single-partition query on {}", def.name));
        }
        (None, PartitionSelection::All | PartitionSelection::Tokens(_)) => {
            tracer.record("Computing ranges to query");
            tracer.record(format!("Executing seq scan on {}", def.name));
        }
    }
}

/// The most key ranges (point lookups, partitions of an `IN`) a read tries inline.
const MAX_INLINE_RANGES: usize = 64;

/// The most rows a slice may be expected to return (its LIMIT or page size) to be tried
/// inline.
const INLINE_RESULT_ROWS: usize = 100;

/// The rows a slice read tried inline may examine before it stops and starts again on the
/// blocking pool: tombstoned or expired rows, or an aggregate, can make a small result read
/// many rows. At ~0.3 us a row this bounds the work done twice to well under 100 us.
const INLINE_EXAMINED_ROWS: usize = 256;

/// How many stored rows a read may examine on the runtime's thread, or `None` to send it to
/// the blocking pool at once. Handing a read to a blocking thread and back costs tens of
/// microseconds of wake-ups (the `hot_path` bench's in-process point SELECT round trip:
/// ~40-63 us with the hand-off, ~4-5 us inline), while a point lookup takes ~1 us (snapshot
/// plus get). So point lookups of a user table always run inline, small slices of given
/// partitions (`LIMIT 1` of a time series) try inline within a budget of rows, and scans,
/// index lookups and virtual tables, whose length depends on the data, keep the hand-off.
fn inline_budget(bound: &BoundSelect) -> Option<usize> {
    if bound.plan.table.kind != TableKind::User
        || bound.index.is_some()
        || bound.ranges.count() > MAX_INLINE_RANGES as u64
    {
        return None;
    }
    if bound.ranges.all_points() {
        return Some(usize::MAX);
    }
    if !matches!(bound.plan.partitions, PartitionSelection::Keys(_)) {
        return None;
    }
    let per_partition = bound
        .per_partition_limit
        .map(|n| n.saturating_mul(usize::try_from(bound.ranges.count()).unwrap_or(usize::MAX)));
    let expected = [bound.limit, bound.page_size, per_partition]
        .into_iter()
        .flatten()
        .min()?;
    (expected <= INLINE_RESULT_ROWS).then_some(INLINE_EXAMINED_ROWS)
}

#[cfg(test)]
mod tests {
    use cql::frame::request::Value;
    use cql::statement::ast::Statement;

    use super::*;
    use crate::config::Config;
    use crate::planner::select::plan_select;
    use crate::planner::select::tests::schema;
    use storage::{KeyRange, TableDef};

    const TABLE: &str = "CREATE TABLE t (k int, c int, d int, v int, PRIMARY KEY (k, c, d))";

    /// A SELECT bound with `binds` (ints) and `page_size`.
    fn bind_select(
        create: &str,
        query: &str,
        binds: &[i32],
        page_size: Option<usize>,
    ) -> BoundSelect {
        let schema = schema(&[create]);
        let Ok(Statement::Select(select)) = cql::statement::parse_statement(query) else {
            panic!("not a SELECT: {query}");
        };
        let plan = plan_select(&schema, &select, Some("ks")).expect("a plan");
        let values: Vec<Value> = binds
            .iter()
            .map(|v| Value::Bytes(Bytes::copy_from_slice(&v.to_be_bytes())))
            .collect();
        let ctx = EvalContext {
            binds: &values,
            now_micros: 0,
        };
        let options = ExecOptions {
            page_size,
            ..ExecOptions::default()
        };
        bind(Arc::new(plan), &options, &ctx, &Config::default()).expect("bound")
    }

    /// The key ranges a SELECT reads with `binds` and `page_size`, and its inline budget.
    fn bound(
        create: &str,
        query: &str,
        binds: &[i32],
        page_size: Option<usize>,
    ) -> (Vec<KeyRange>, Option<usize>) {
        let bound = bind_select(create, query, binds, page_size);
        let budget = inline_budget(&bound);
        let def = bound.plan.table.def.clone();
        (bound.ranges.to_vec(&def).expect("ranges"), budget)
    }

    /// The int key values of a point range's key.
    fn key_values(def: &TableDef, range: &KeyRange) -> Vec<i32> {
        let key = range.exact_key().expect("a point range");
        let decoded = storage::decode_row_key(def, key).expect("a row key");
        decoded
            .partition
            .iter()
            .chain(&decoded.clustering)
            .map(|v| i32::from_be_bytes([v[0], v[1], v[2], v[3]]))
            .collect()
    }

    #[test]
    fn in_products_are_walked_in_key_order_and_resume_where_a_page_ended() {
        let query = "SELECT v FROM t WHERE k IN (?, ?, ?) AND c IN (?, ?) AND d IN (?, ?, ?)";
        let binds = [3, 1, 3, 2, 1, 5, 4, 5];
        for (reversed, order) in [(false, ""), (true, " ORDER BY c DESC, d DESC")] {
            let select = bind_select(TABLE, &format!("{query}{order}"), &binds, None);
            let def = select.plan.table.def.clone();
            assert_eq!(select.ranges.count(), 2 * 2 * 2, "{order}");
            assert!(select.ranges.all_points());
            let walked: Vec<KeyRange> = select
                .ranges
                .walk(&def, None, reversed)
                .collect::<CqlResult<_>>()
                .expect("ranges");
            let keys: Vec<Vec<i32>> = walked.iter().map(|r| key_values(&def, r)).collect();
            let mut expected = Vec::new();
            for k in [1, 3] {
                for c in [1, 2] {
                    for d in [4, 5] {
                        expected.push(vec![k, c, d]);
                    }
                }
            }
            if reversed {
                // Partitions stay in key order; rows within each are read backwards.
                for partition in expected.chunks_mut(4) {
                    partition.reverse();
                }
            }
            assert_eq!(keys, expected, "{order}");
            for (n, range) in walked.iter().enumerate() {
                let last = range.exact_key().expect("a point");
                let rest: Vec<KeyRange> = select
                    .ranges
                    .walk(&def, Some(last), reversed)
                    .collect::<CqlResult<_>>()
                    .expect("ranges");
                assert_eq!(rest, walked[n + 1..], "resumed after range {n}{order}");
            }
        }
    }

    #[test]
    fn a_huge_in_product_is_never_built_whole() {
        let create = "CREATE TABLE w (k int, c1 int, c2 int, c3 int, v int, \
                      PRIMARY KEY (k, c1, c2, c3))";
        let list = |n: usize| vec!["?"; n].join(", ");
        let query = format!(
            "SELECT v FROM w WHERE k = ? AND c1 IN ({0}) AND c2 IN ({0}) AND c3 IN ({0})",
            list(300)
        );
        let binds: Vec<i32> = std::iter::once(0)
            .chain((0..900).map(|i| i % 300))
            .collect();
        let started = std::time::Instant::now();
        let select = bind_select(create, &query, &binds, Some(100));
        let def = select.plan.table.def.clone();
        assert_eq!(select.ranges.count(), 27_000_000);
        let first: Vec<Vec<i32>> = select
            .ranges
            .walk(&def, None, false)
            .take(2)
            .map(|r| key_values(&def, &r.expect("a range")))
            .collect();
        assert_eq!(first, vec![vec![0, 0, 0, 0], vec![0, 0, 0, 1]]);
        // A page ending at the last combination: found by looking its values up, not by
        // walking 27 million ranges to it.
        let int = |v: i32| Bytes::copy_from_slice(&v.to_be_bytes());
        let key =
            storage::row_key(&def, &[int(0)], &[int(299), int(299), int(299)]).expect("a key");
        assert_eq!(select.ranges.walk(&def, Some(&key), false).count(), 0);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn a_full_primary_key_is_read_by_point_lookups_inline() {
        let query = "SELECT v FROM t WHERE k = ? AND c = ? AND d = ?";
        let (point, budget) = bound(TABLE, query, &[1, 2, 3], Some(5000));
        assert_eq!(point.len(), 1);
        assert!(point[0].exact_key().is_some());
        assert_eq!(budget, Some(usize::MAX));
        let query = "SELECT v FROM t WHERE k IN (?, ?) AND c = ? AND d IN (?, ?)";
        let (keys, budget) = bound(TABLE, query, &[1, 2, 3, 4, 5], None);
        assert_eq!(keys.len(), 4);
        assert!(keys.iter().all(|r| r.exact_key().is_some()));
        assert_eq!(budget, Some(usize::MAX));
        let single = "CREATE TABLE s (k int PRIMARY KEY, v int)";
        let (point, budget) = bound(single, "SELECT v FROM s WHERE k = ?", &[1], None);
        assert!(point[0].exact_key().is_some());
        assert_eq!(budget, Some(usize::MAX));
    }

    #[test]
    fn small_slices_try_inline_and_the_rest_go_to_the_blocking_pool() {
        for query in [
            "SELECT v FROM t WHERE k = ?",
            "SELECT v FROM t WHERE k = ? AND c = ?",
            "SELECT v FROM t WHERE k = ? AND c = ? AND d > ?",
        ] {
            let (ranges, budget) = bound(TABLE, query, &[1, 2, 3], Some(5000));
            assert!(ranges.iter().all(|r| r.exact_key().is_none()), "{query}");
            assert_eq!(budget, None, "{query}");
            let limited = format!("{query} LIMIT 1");
            let (_, budget) = bound(TABLE, &limited, &[1, 2, 3], Some(5000));
            assert_eq!(budget, Some(INLINE_EXAMINED_ROWS), "{limited}");
        }
        let (_, budget) = bound(TABLE, "SELECT v FROM t WHERE k = ?", &[1], Some(10));
        assert_eq!(budget, Some(INLINE_EXAMINED_ROWS), "a small page");
        let scan = "SELECT v FROM t LIMIT 1";
        assert_eq!(
            bound(TABLE, scan, &[], None).1,
            None,
            "a scan of every partition"
        );
    }
}
