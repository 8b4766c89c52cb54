//! SELECT execution: evaluate the plan's terms, then walk the key ranges (point lookups when
//! the primary key is fixed), apply liveness and filters, and shape the page. redb is
//! synchronous: point lookups run inline, anything longer on a blocking thread.

use std::cmp::Ordering;
use std::ops::Bound;
use std::sync::Arc;

use bytes::Bytes;
use cql::frame::request::QueryParameters;
use cql::frame::response::{ResultBody, ResultMetadata, Rows};
use cql::statement::ast::{Operator, Select};
use cql::types::ordering;
use storage::{ColumnKind, RangeTombstone, TableDef};

use crate::config::Config;
use crate::error::{CqlError, CqlResult};
use crate::executor::ann_graph;
use crate::executor::ann_rank;
use crate::executor::clustering;
use crate::executor::collection_filter;
use crate::executor::index_scan;
use crate::executor::keys;
use crate::executor::paging::PagingState;
use crate::executor::point;
use crate::executor::query_text::query_text;
use crate::executor::read_ranges::{RangeProduct, ReadRanges};
use crate::executor::read_stats::ReadStats;
use crate::executor::row::{LiveRow, Liveness};
use crate::executor::sai_filter;
use crate::executor::shaping::{Limits, Next, ResultRow, Shaper};
use crate::executor::source::{within, KeyRange, RowSource};
use crate::executor::statics::PartitionStatics;
use crate::executor::virtual_read;
use crate::functions::CallContext;
use crate::guardrails;
use crate::node::Node;
use crate::planner::clustering::PrefixPart;
use crate::planner::grouping::Grouping;
use crate::planner::restrictions::Bound as TermBound;
use crate::planner::select::{Aggregate, OutputSource, PartitionSelection, SelectPlan};
use crate::planner::selection::reads_write_times;
use crate::planner::token::TokenRange;
use crate::schema::{Schema, TableKind};
use crate::session::Session;
use crate::trace;
use crate::values::{evaluate, EvalContext, Evaluated, Receiver};

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
struct BoundSelect {
    /// The plan; shared with the prepared statement unless selectors had terms to bind.
    plan: Arc<SelectPlan>,
    ranges: ReadRanges,
    filters: Vec<BoundFilter>,
    /// Tuple bounds of a slice over mixed-direction clustering columns.
    tuple_check: Option<clustering::TupleCheck>,
    /// The clustering suffix ranges a row must fall in (the plan's `clustering_filter`).
    clustering_filter: Option<Vec<KeyRange>>,
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

/// Cassandra's refusal to page a query whose rows are sorted after the read.
const POST_ORDER_PAGING_MESSAGE: &str = "Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ORDER BY or the IN and sort client side, or disable paging for this query";

/// Runs a planned SELECT with the warnings it earns (`crate::read_thresholds`: Cassandra's on
/// aggregates before the read, the tombstone and filtering ones after it), returning what
/// its read examined with the result (EXPLAIN ANALYZE reports it); `statement` is the SELECT
/// as written, named in those warnings.
pub async fn execute(
    node: &Arc<Node>,
    session: &Arc<Session>,
    schema: Arc<Schema>,
    plan: Arc<SelectPlan>,
    params: &QueryParameters,
    ctx: &EvalContext<'_>,
    statement: &Select,
) -> CqlResult<(ResultBody, ReadStats)> {
    let user_table = plan.table.kind == TableKind::User;
    if user_table {
        crate::read_thresholds::warn_aggregation(&plan);
    }
    let bound = bind(plan, params, ctx, &node.config)?;
    trace_read_start(&bound);
    let consistency = params.consistency;
    let budget = match bound.plan.table.kind {
        TableKind::User => inline_budget(&bound),
        // A traced read stays on the read stage, where Cassandra's trace shows reads.
        TableKind::Virtual if trace::current().is_some() => None,
        TableKind::Virtual => {
            let def = &bound.plan.table.def;
            virtual_read::inline(&schema, def, bound.keyspaces.as_deref()).then_some(usize::MAX)
        }
    };
    if let Some(budget) = budget {
        if let Some((result, stats)) = run(node, &schema, session, &bound, budget, consistency)? {
            warn_after_read(node, &bound.plan, &stats, statement, params);
            return Ok((result, stats));
        }
    }
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
    .map_err(|err| CqlError::Server(format!("read task failed: {err}")))?;
    let (result, stats) =
        result?.ok_or_else(|| CqlError::Server("an unbounded read ran out of budget".into()))?;
    warn_after_read(&node, &plan, &stats, statement, params);
    Ok((result, stats))
}

/// The warnings a finished read of a user table earned.
fn warn_after_read(
    node: &Node,
    plan: &SelectPlan,
    stats: &ReadStats,
    statement: &Select,
    params: &QueryParameters,
) {
    if plan.table.kind == TableKind::User {
        crate::read_thresholds::warn_after_read(&node.config.read_thresholds, plan, stats, || {
            query_text(statement, plan, params.page_size)
        });
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

/// Evaluates the terms of computed selectors (literals and markers inside function calls);
/// plans selecting only columns are shared as they are.
fn bind_outputs(plan: Arc<SelectPlan>, ctx: &EvalContext<'_>) -> CqlResult<Arc<SelectPlan>> {
    let computed = |output: &&crate::planner::select::Output| {
        matches!(
            output.source,
            OutputSource::Scalar(_)
                | OutputSource::Aggregate(Aggregate { input: Some(_), .. })
                | OutputSource::Aggregate(Aggregate { then: Some(_), .. })
        )
    };
    if !plan.outputs.iter().any(|o| computed(&o)) {
        return Ok(plan);
    }
    let mut plan = SelectPlan::clone(&plan);
    for output in &mut plan.outputs {
        match &mut output.source {
            OutputSource::Scalar(scalar) => scalar.bind(ctx)?,
            OutputSource::Aggregate(aggregate) => bind_aggregate(aggregate, ctx)?,
            _ => {}
        }
    }
    Ok(Arc::new(plan))
}

/// Evaluates the terms of an aggregate output: its aggregates' inputs and the expression
/// applied to them.
fn bind_aggregate(aggregate: &mut Aggregate, ctx: &EvalContext<'_>) -> CqlResult<()> {
    if let Some((scalar, _)) = &mut aggregate.input {
        scalar.bind(ctx)?;
    }
    if let Some(then) = &mut aggregate.then {
        then.scalar.bind(ctx)?;
        for other in &mut then.others {
            bind_aggregate(other, ctx)?;
        }
    }
    Ok(())
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

/// Cassandra's guardrails on partition-key IN lists, checked before the keys are built.
fn guard_partition_keys(config: &Config, table: &str, values: &[Vec<Bytes>]) -> CqlResult<()> {
    if values.iter().all(|v| v.len() <= 1) {
        return Ok(());
    }
    let size = values
        .iter()
        .fold(1u64, |n, v| n.saturating_mul(v.len() as u64));
    guardrails::in_select_cartesian_product(
        config.in_select_cartesian_product,
        "partition key",
        size,
    )?;
    guardrails::partition_keys_in_select(config.partition_keys_in_select, table, size)
}

fn bind(
    plan: Arc<SelectPlan>,
    params: &QueryParameters,
    ctx: &EvalContext<'_>,
    config: &Config,
) -> CqlResult<BoundSelect> {
    let plan = bind_outputs(plan, ctx)?;
    let def = plan.table.def.clone();
    let (ranges, tuple_check) = match point::single_row_key(&plan, &def, ctx)? {
        Some(key) => (
            ReadRanges::Listed(vec![(Bound::Included(key.clone()), Bound::Included(key))]),
            None,
        ),
        None => key_ranges(&plan, &def, ctx, config)?,
    };
    let filters = plan
        .filters
        .iter()
        .map(|(column, r)| bind_filter(&def, *column, r, ctx))
        .collect::<CqlResult<Vec<_>>>()?;
    let (clustering_filter, tuple_check) = match &plan.clustering_filter {
        Some(filter) => {
            let guard = config.in_select_cartesian_product;
            let (ranges, check) = clustering::suffix_ranges(filter, &def, ctx, guard)?;
            (Some(ranges.all()), tuple_check.or(check))
        }
        None => (None, tuple_check),
    };
    let limit = match &plan.limit {
        None => None,
        Some(term) => Some(limit_value(term, ctx, LIMIT)?),
    };
    let per_partition_limit = match &plan.per_partition_limit {
        None => None,
        Some(term) => Some(limit_value(term, ctx, PER_PARTITION_LIMIT)?),
    };
    let ann = match &plan.ann {
        Some(ann) => Some(ann_rank::BoundAnn::bind(ann, &def, ctx)?),
        None => None,
    };
    if let (Some(_), Some(limit)) = (&ann, limit) {
        if limit > crate::planner::ann::MAX_TOP_K {
            return Err(crate::planner::ann::limit_error(limit));
        }
    }
    let page_size = params.page_size.filter(|&n| n > 0).map(|n| n as usize);
    let page_size = match plan.grouping {
        // Vector search returns its LIMIT best rows in one page.
        _ if ann.is_some() => None,
        // An aggregate over everything is one row: read it all, whatever the page size.
        Grouping::All => None,
        _ if !plan.post_order.is_empty() && page_size.is_some() => {
            return Err(CqlError::invalid(POST_ORDER_PAGING_MESSAGE));
        }
        _ => page_size,
    };
    let paging = match &params.paging_state {
        Some(state) if page_size.is_some() => Some(PagingState::decode(state, &def)?),
        _ => None,
    };
    let index = index_scan::bind(&def, &plan, ctx)?;
    let keyspaces = virtual_read::keyspaces(&plan, &def, ctx)?;
    Ok(BoundSelect {
        index,
        keyspaces,
        ann,
        plan,
        ranges,
        filters,
        tuple_check,
        clustering_filter,
        limit,
        per_partition_limit,
        page_size,
        paging,
        skip_metadata: params.skip_metadata,
        call: CallContext {
            now_micros: ctx.now_micros,
        },
    })
}

/// The key ranges a SELECT reads, in read order, and the tuple check of a slice over
/// mixed-direction clustering columns. Partitions given by key are a product of value lists,
/// walked lazily.
fn key_ranges(
    plan: &SelectPlan,
    def: &TableDef,
    ctx: &EvalContext<'_>,
    config: &Config,
) -> CqlResult<(ReadRanges, Option<clustering::TupleCheck>)> {
    let partition_values = match &plan.partitions {
        PartitionSelection::Keys(sets) => {
            let values = sets
                .iter()
                .zip(&def.partition_key)
                .map(|(set, &i)| keys::key_values(set, def, i, ctx))
                .collect::<CqlResult<Vec<_>>>()?;
            guard_partition_keys(config, &def.name, &values)?;
            Some(values)
        }
        _ => None,
    };
    let (clustering, tuple_check) = clustering::suffix_ranges(
        &plan.clustering,
        def,
        ctx,
        config.in_select_cartesian_product,
    )?;
    let ranges = match (&plan.partitions, partition_values) {
        (PartitionSelection::Tokens(range), _) => {
            ReadRanges::Listed(token_key_range(def, range, ctx)?.into_iter().collect())
        }
        (_, Some(mut values)) => {
            let token_range = match &plan.token_filter {
                Some(range) => match token_key_range(def, range, ctx)? {
                    Some(range) => Some(range),
                    None => {
                        values.iter_mut().for_each(Vec::clear);
                        None
                    }
                },
                None => None,
            };
            let points = fixes_rows(plan, def) && tuple_check.is_none();
            ReadRanges::Product(Box::new(RangeProduct::new(
                def,
                values,
                token_range,
                clustering,
                plan.reversed,
                points,
            )?))
        }
        _ => ReadRanges::Listed(vec![(Bound::Unbounded, Bound::Unbounded)]),
    };
    Ok((ranges, tuple_check))
}

/// The token a token-relation bound stands for: a bigint, or `token(values...)` of values
/// typed as the partition key columns.
fn token_value(def: &TableDef, bound: &TermBound, ctx: &EvalContext<'_>) -> CqlResult<i64> {
    if let cql::statement::ast::Term::Function { name, args } = &bound.term {
        if name.name.name.eq_ignore_ascii_case("token") {
            return token_of_values(def, args, ctx);
        }
    }
    let ty = cql::types::ColumnType::Bigint;
    match evaluate(
        &bound.term,
        Receiver {
            name: "partition key token",
            ty: &ty,
        },
        ctx,
    )? {
        Evaluated::Value(b) if b.len() == 8 => {
            let mut raw = [0u8; 8];
            raw.copy_from_slice(&b);
            Ok(i64::from_be_bytes(raw))
        }
        _ => Err(CqlError::invalid("Invalid null token value")),
    }
}

/// `token(v1, .., vn)` over values of the partition key's types.
fn token_of_values(
    def: &TableDef,
    args: &[cql::statement::ast::Term],
    ctx: &EvalContext<'_>,
) -> CqlResult<i64> {
    if args.len() != def.partition_key.len() {
        return Err(CqlError::invalid(format!(
            "Invalid number of arguments in call to function system.token: {} required but {} provided",
            def.partition_key.len(),
            args.len()
        )));
    }
    let mut values = Vec::with_capacity(args.len());
    for (n, (arg, &i)) in args.iter().zip(&def.partition_key).enumerate() {
        let name = format!("arg{n}(system.token)");
        let receiver = Receiver {
            name: &name,
            ty: &def.columns[i].ty,
        };
        match evaluate(arg, receiver, ctx)? {
            Evaluated::Value(b) => values.push(b),
            Evaluated::Unset => {
                return Err(CqlError::invalid(
                    "Invalid unset value for argument in call to function token",
                ))
            }
            Evaluated::Null => return Err(CqlError::invalid("Invalid null token value")),
        }
    }
    let parts: Vec<&[u8]> = values.iter().map(|b| b.as_ref()).collect();
    Ok(storage::encoding::token::token_of(&parts))
}

/// The storage key range of a token range. Keys start with the token's 8 order-preserving
/// bytes, so `token > t` starts at the first key of token `t + 1`. Like Cassandra, a range whose
/// start is past its end selects nothing (it does not wrap around the ring).
fn token_key_range(
    def: &TableDef,
    range: &TokenRange,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<KeyRange>> {
    let key = |t: i64| storage::encoding::key::token_bytes(t).to_vec();
    let start = match &range.lower {
        None => Some(i64::MIN),
        Some(b) => {
            let t = token_value(def, b, ctx)?;
            if b.inclusive {
                Some(t)
            } else {
                t.checked_add(1)
            }
        }
    };
    // Exclusive end token; `None` means past the last token.
    let end = match &range.upper {
        None => None,
        Some(b) => {
            let t = token_value(def, b, ctx)?;
            if b.inclusive {
                t.checked_add(1)
            } else {
                Some(t)
            }
        }
    };
    let Some(start) = start else { return Ok(None) };
    if end.is_some_and(|e| e <= start) {
        return Ok(None);
    }
    let end_bound = end.map_or(Bound::Unbounded, |e| Bound::Excluded(key(e)));
    Ok(Some((Bound::Included(key(start)), end_bound)))
}

/// How a LIMIT-like clause is named in bind metadata and messages.
struct LimitKind {
    receiver: &'static str,
    clause: &'static str,
    null_name: &'static str,
}

const LIMIT: LimitKind = LimitKind {
    receiver: "[limit]",
    clause: "LIMIT",
    null_name: "limit",
};

const PER_PARTITION_LIMIT: LimitKind = LimitKind {
    receiver: "[per_partition_limit]",
    clause: "PER PARTITION LIMIT",
    null_name: "per partition limit",
};

fn limit_value(
    term: &cql::statement::ast::Term,
    ctx: &EvalContext<'_>,
    kind: LimitKind,
) -> CqlResult<usize> {
    let ty = cql::types::ColumnType::Int;
    match evaluate(
        term,
        Receiver {
            name: kind.receiver,
            ty: &ty,
        },
        ctx,
    )? {
        Evaluated::Value(b) if b.len() == 4 => {
            let n = i32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            if n <= 0 {
                return Err(CqlError::invalid(format!(
                    "{} must be strictly positive",
                    kind.clause
                )));
            }
            Ok(n as usize)
        }
        Evaluated::Unset => Ok(usize::MAX),
        _ => Err(CqlError::invalid(format!(
            "Invalid null value of {}",
            kind.null_name
        ))),
    }
}

/// Whether the plan fixes whole primary keys once its partitions are: every clustering
/// column is restricted by `=`/`IN` (or there are none), so each range of a partition holds
/// at most one row, the one whose key is the range's start.
fn fixes_rows(plan: &SelectPlan, def: &TableDef) -> bool {
    let width: usize = plan
        .clustering
        .prefix
        .iter()
        .map(|part| match part {
            PrefixPart::Single(_) => 1,
            PrefixPart::Multi { width, .. } => *width,
        })
        .sum();
    plan.clustering.slice.is_none() && width == def.clustering_key.len()
}

fn bind_filter(
    def: &TableDef,
    column: usize,
    r: &crate::planner::restrictions::ColumnRestriction,
    ctx: &EvalContext<'_>,
) -> CqlResult<BoundFilter> {
    let col = &def.columns[column];
    let receiver = Receiver {
        name: &col.name,
        ty: &col.ty,
    };
    let is_key = matches!(col.kind, ColumnKind::PartitionKey | ColumnKind::Clustering);
    let value = |term| -> CqlResult<Bytes> {
        if !is_key {
            return index_scan::operand(term, &col.name, &col.ty, ctx);
        }
        match evaluate(term, receiver, ctx)? {
            Evaluated::Value(b) => Ok(b),
            Evaluated::Null => Err(CqlError::invalid(format!(
                "Invalid null value in condition for column {}",
                col.name
            ))),
            Evaluated::Unset => Err(CqlError::invalid(format!(
                "Invalid unset value for column {}",
                col.name
            ))),
        }
    };
    let mut checks = Vec::new();
    let (key_ty, value_ty) = index_scan::element_types(&col.ty);
    let elements = r
        .elements
        .iter()
        .map(|(key, value)| {
            Ok((
                index_scan::element_operand(key, &col.name, "key", key_ty, ctx)?,
                index_scan::element_operand(value, &col.name, "value", value_ty, ctx)?,
            ))
        })
        .collect::<CqlResult<Vec<_>>>()?;
    if let Some(set) = &r.eq {
        let values = if is_key {
            keys::key_values(set, def, column, ctx)?
        } else {
            keys::filter_values(set, col, ctx)?
        };
        checks.push((Operator::In, values));
    }
    if let Some(b) = &r.lower {
        checks.push((
            if b.inclusive {
                Operator::Gte
            } else {
                Operator::Gt
            },
            vec![value(&b.term)?],
        ));
    }
    if let Some(b) = &r.upper {
        checks.push((
            if b.inclusive {
                Operator::Lte
            } else {
                Operator::Lt
            },
            vec![value(&b.term)?],
        ));
    }
    let mut never = false;
    for (op, term) in &r.other {
        match op {
            Operator::NotIn => match keys::excluded_values(term, col, ctx)? {
                Some(values) => checks.push((Operator::NotIn, values)),
                None => never = true,
            },
            Operator::Neq => checks.push((Operator::Neq, vec![value(term)?])),
            Operator::Contains => checks.push((
                Operator::Contains,
                vec![index_scan::operand(term, &col.name, value_ty, ctx)?],
            )),
            Operator::ContainsKey => checks.push((
                Operator::ContainsKey,
                vec![index_scan::operand(term, &col.name, key_ty, ctx)?],
            )),
            other => {
                return Err(CqlError::invalid(format!(
                    "Filtering with {other:?} is not supported yet"
                )))
            }
        }
    }
    let analyzed_contains = take_analyzed_contains(def, column, &mut checks);
    let analyzer = sai_filter::analyzer(def, column, storage::IndexTargetKind::Simple);
    if let Some(analyzer) = &analyzer {
        for (op, operands) in checks.iter_mut() {
            if *op == Operator::In {
                for operand in operands.iter_mut() {
                    *operand = Bytes::from(analyzer.analyze_bytes(operand));
                }
            }
        }
    }
    Ok(BoundFilter {
        column,
        checks,
        elements,
        analyzer,
        analyzed_contains,
        never,
    })
}

/// Moves the `CONTAINS` / `CONTAINS KEY` checks an analyzing SAI index answers out of
/// `checks`, with their operands analyzed.
fn take_analyzed_contains(
    def: &TableDef,
    column: usize,
    checks: &mut Vec<(Operator, Vec<Bytes>)>,
) -> Vec<(bool, storage::index::Analyzer, Bytes)> {
    let values = sai_filter::analyzer(def, column, storage::IndexTargetKind::Values);
    let keys = sai_filter::analyzer(def, column, storage::IndexTargetKind::Keys);
    let mut out = Vec::new();
    checks.retain(|(op, operands)| {
        let (key, analyzer) = match op {
            Operator::Contains => (false, values),
            Operator::ContainsKey => (true, keys),
            _ => return true,
        };
        let Some(analyzer) = analyzer else {
            return true;
        };
        for operand in operands {
            out.push((key, analyzer, Bytes::from(analyzer.analyze_bytes(operand))));
        }
        false
    });
    out
}

/// The rows the vector graph proposes for an ANN query over many rows, as ranges to read;
/// `None` to read every row the restrictions select (see [`ann_graph`]).
fn ann_candidates(
    node: &Node,
    bound: &BoundSelect,
    source: &RowSource,
    indexed: Option<&[KeyRange]>,
    liveness: &Liveness,
) -> CqlResult<Option<ReadRanges>> {
    let (Some(ann), Some(limit)) = (&bound.ann, bound.limit) else {
        return Ok(None);
    };
    if matches!(bound.plan.partitions, PartitionSelection::Keys(_)) {
        return Ok(None);
    }
    let def = &bound.plan.table.def;
    let ranges = bound.ranges.to_vec(def)?;
    let scope = ann_graph::AnnScope {
        def,
        source,
        ann,
        limit,
        ranges: &ranges,
        indexed,
        liveness,
    };
    let accept = |row: &LiveRow| {
        bound
            .filters
            .iter()
            .all(|f| passes(f, def, row.value(def, f.column)))
    };
    Ok(ann_graph::graph_ranges(node, &scope, &accept)?.map(ReadRanges::Listed))
}

fn passes(filter: &BoundFilter, def: &TableDef, value: Option<&Bytes>) -> bool {
    let ty = &def.columns[filter.column].ty;
    let Some(value) = value else { return false };
    if filter.never {
        return false;
    }
    if !collection_filter::passes(ty, value, &filter.checks, &filter.elements) {
        return false;
    }
    let analyzed = |(key, analyzer, operand): &(bool, storage::index::Analyzer, Bytes)| {
        sai_filter::contains(ty, *key, value, analyzer, operand)
    };
    if !filter.analyzed_contains.iter().all(analyzed) {
        return false;
    }
    filter.checks.iter().all(|(op, operands)| {
        let cmp = |b: &Bytes| ordering::compare(ty, value, b);
        match op {
            Operator::In => match &filter.analyzer {
                Some(a) => operands.iter().any(|b| sai_filter::equals(a, value, b)),
                None => operands.iter().any(|b| cmp(b) == Ordering::Equal),
            },
            Operator::Gt => cmp(&operands[0]) == Ordering::Greater,
            Operator::Gte => cmp(&operands[0]) != Ordering::Less,
            Operator::Lt => cmp(&operands[0]) == Ordering::Less,
            Operator::Lte => cmp(&operands[0]) != Ordering::Greater,
            Operator::Neq => cmp(&operands[0]) != Ordering::Equal,
            Operator::NotIn => operands.iter().all(|b| cmp(b) != Ordering::Equal),
            Operator::Contains | Operator::ContainsKey => true,
            _ => false,
        }
    })
}

/// Reads and shapes the result, counting what it examined; `None` when it examined more than
/// `budget` stored rows (the caller then runs it again where it may take long). Past
/// `tombstone_failure_threshold` tombstones the read fails, as Cassandra's does.
fn run(
    node: &Node,
    schema: &Schema,
    session: &Session,
    bound: &BoundSelect,
    budget: usize,
    consistency: u16,
) -> CqlResult<Option<(ResultBody, ReadStats)>> {
    let def = bound.plan.table.def.clone();
    let source = match bound.plan.table.kind {
        TableKind::User => RowSource::Stored(node.store.snapshot()?, def.id),
        TableKind::Virtual => {
            let keyspaces = bound.keyspaces.as_deref();
            RowSource::Virtual(crate::system::rows(node, schema, session, &def, keyspaces)?)
        }
    };
    // One moment for the whole read: liveness, `ttl()` and the time functions agree.
    let liveness = Liveness::at(bound.call.now_micros)
        .keeping_write_times(reads_write_times(&bound.plan.outputs));
    let reversed = bound.plan.reversed;
    let post_order = !bound.plan.post_order.is_empty() || bound.ann.is_some();
    let mut scores: Vec<f32> = Vec::new();
    let resume = match &bound.paging {
        Some(state) => {
            let decoded = storage::encoding::key::decode_row_key(&def, &state.last_key)?;
            let partition = state
                .last_key
                .get(..decoded.partition_len)
                .unwrap_or_default();
            Some((partition.to_vec(), state.partition_emitted))
        }
        None => None,
    };
    let resume_partition = resume.as_ref().map(|(partition, _)| partition.clone());
    let limits = Limits {
        // Rows sorted after the read are trimmed to the LIMIT after the sort.
        remaining: match &bound.paging {
            _ if post_order => None,
            Some(state) => state.remaining,
            None => bound.limit,
        },
        per_partition: bound.per_partition_limit,
        page_size: bound.page_size,
    };
    let plan = &bound.plan;
    let mut shaper = Shaper::new(
        &def,
        &plan.outputs,
        bound.call,
        plan.grouping,
        plan.distinct,
        limits,
        resume,
        post_order,
    );
    // Cassandra's `queriesFullPartitions`: restrictions on static and partition-key columns
    // still read whole partitions; a static restriction also fetches the static row.
    let whole_partitions = plan.clustering.prefix.is_empty()
        && plan.clustering.slice.is_none()
        && plan.filters.iter().all(|(i, _)| {
            matches!(
                def.columns[*i].kind,
                storage::ColumnKind::Static | storage::ColumnKind::PartitionKey
            )
        })
        && bound.tuple_check.is_none();
    let filters_static = plan
        .filters
        .iter()
        .any(|(i, _)| def.columns[*i].kind == storage::ColumnKind::Static);
    let static_only_rows = whole_partitions
        && def.has_static_columns()
        && (plan.distinct || filters_static || fetches_static_row(&def, plan));
    let mut statics = PartitionStatics::new(&def, static_only_rows);
    // Range tombstones of the partition being read, loaded once per partition.
    let mut partition_tombstones: (Vec<u8>, Vec<RangeTombstone>) = (Vec::new(), Vec::new());
    // A resumed read starts in the range holding the last key returned: ranges follow the
    // read order (IN partitions by key value), which is not the storage key order.
    let candidates;
    let ranges = match &bound.index {
        Some(index) => {
            let listed = bound.ranges.to_vec(&def)?;
            candidates = ReadRanges::Listed(index_scan::candidate_ranges(&source, index, &listed)?);
            &candidates
        }
        None => &bound.ranges,
    };
    let indexed = match (&bound.index, ranges) {
        (Some(_), ReadRanges::Listed(listed)) => Some(listed.as_slice()),
        _ => None,
    };
    let proposed = ann_candidates(node, bound, &source, indexed, &liveness)?;
    let ranges = proposed.as_ref().unwrap_or(ranges);
    let mut stats = ReadStats::default();
    let tombstones = node.config.read_thresholds.tombstone_guard(
        bound.plan.table.kind == TableKind::User,
        consistency,
        session.local.ip(),
    );
    let budget = u64::try_from(budget).unwrap_or(u64::MAX);
    let resume_key = bound.paging.as_ref().map(|state| state.last_key.as_slice());
    let mut stopped = false;
    'ranges: for range in ranges.walk(&def, resume_key, reversed) {
        let mut range = range?;
        loop {
            let mut skip_to = None;
            for item in source.scan(range.clone(), reversed)? {
                stats.rows_examined += 1;
                if stats.rows_examined > budget {
                    return Ok(None);
                }
                let (key, stored) = item?;
                let decoded = storage::encoding::key::decode_row_key(&def, &key)?;
                let partition_len = decoded.partition_len;
                let prefix = key.get(..partition_len).unwrap_or(&key);
                let is_static = decoded.clustering.len() < def.clustering_key.len();
                if partition_tombstones.0 != prefix {
                    // A partition's static-only row has no vector to rank by.
                    let leaving = statics.leave().filter(|_| bound.ann.is_none());
                    if let Some((static_key, row)) = leaving.filter(|(_, row)| {
                        bound
                            .filters
                            .iter()
                            .all(|f| passes(f, &def, row.value(&def, f.column)))
                    }) {
                        if let Next::Stop = shaper.accept(&static_key, static_key.len(), &row)? {
                            stopped = true;
                            break 'ranges;
                        }
                    }
                    partition_tombstones = (prefix.to_vec(), source.range_tombstones(prefix)?);
                    stats.enter_partition(prefix);
                    if !partition_tombstones.1.is_empty() {
                        let n = partition_tombstones.1.len() as u64;
                        tombstones.add(&mut stats, n, &def)?;
                    }
                    let resumed = resume_partition.as_deref() == Some(prefix);
                    statics.enter(
                        &source,
                        &def,
                        prefix,
                        &decoded,
                        is_static.then_some(&stored),
                        &partition_tombstones.1,
                        &liveness,
                        resumed,
                    )?;
                }
                if is_static {
                    continue;
                }
                let suffix = key.get(partition_len..).unwrap_or_default();
                let range_deleted_at = RangeTombstone::shadowing(&partition_tombstones.1, suffix);
                let Some(row) = LiveRow::new(&def, decoded, stored, &liveness, range_deleted_at)?
                else {
                    tombstones.add(&mut stats, 1, &def)?;
                    continue;
                };
                stats.live_rows += 1;
                if row.cells.dead > 0 {
                    tombstones.add(&mut stats, u64::from(row.cells.dead), &def)?;
                }
                let row = statics.row(row);
                if !bound
                    .filters
                    .iter()
                    .all(|f| passes(f, &def, row.value(&def, f.column)))
                {
                    continue;
                }
                if bound
                    .tuple_check
                    .as_ref()
                    .is_some_and(|c| !c.passes(&def, &row.clustering))
                {
                    continue;
                }
                if bound
                    .clustering_filter
                    .as_ref()
                    .is_some_and(|ranges| !ranges.iter().any(|r| within(suffix, r)))
                {
                    continue;
                }
                let score = match &bound.ann {
                    Some(ann) => match row.value(&def, ann.column).and_then(|v| ann.score(v)) {
                        Some(score) => Some(score),
                        None => continue,
                    },
                    None => None,
                };
                let built = shaper.len();
                let next = shaper.accept(&key, partition_len, &row)?;
                if let Some(score) = score.filter(|_| shaper.len() > built) {
                    scores.push(score);
                }
                match next {
                    Next::Continue => {}
                    Next::Stop => {
                        stopped = true;
                        break 'ranges;
                    }
                    Next::SkipPartition => {
                        skip_to = Some(skip_partition(&range, prefix, reversed));
                        break;
                    }
                }
            }
            match skip_to {
                Some(Some(rest)) => range = rest,
                Some(None) | None => break,
            }
        }
    }
    if !stopped && bound.ann.is_none() {
        if let Some((static_key, row)) = statics.leave().filter(|(_, row)| {
            bound
                .filters
                .iter()
                .all(|f| passes(f, &def, row.value(&def, f.column)))
        }) {
            shaper.accept(&static_key, static_key.len(), &row)?;
        }
    }
    let (mut rows, paging_state) = shaper.finish()?;
    if bound.ann.is_some() {
        rows = ann_rank::top(rows, &scores, bound.limit);
    } else if post_order {
        sort_rows(&def, &bound.plan.post_order, &mut rows);
        if let Some(limit) = bound.limit {
            rows.truncate(limit);
        }
    }
    let mut columns = bound.plan.columns.clone();
    let mut rows: Vec<_> = rows.into_iter().map(|r| r.values).collect();
    crate::values::json_functions::apply_to_json(&bound.plan.to_json, &mut rows)?;
    if bound.plan.json {
        let (spec, json_rows) = crate::json::select_json(&columns, rows)?;
        columns = Arc::from([spec]);
        rows = json_rows;
    }
    stats.rows_returned = rows.len() as u64;
    if let Some(tracer) = trace::current() {
        tracer.record(format!(
            "Read {} live rows and {} tombstone cells",
            stats.live_rows, stats.tombstones
        ));
        tracer.record(format!(
            "Examined {} stored rows in {} partitions, returning {} rows{}",
            stats.rows_examined,
            stats.partitions,
            rows.len(),
            if paging_state.is_some() {
                " (one page)"
            } else {
                ""
            }
        ));
    }
    let metadata = ResultMetadata {
        columns,
        paging_state: paging_state.map(|state| state.encode(&def)),
        no_metadata: bound.skip_metadata,
        new_metadata_id: None,
    };
    Ok(Some((ResultBody::Rows(Rows { metadata, rows }), stats)))
}

/// Whether the query fetches the partition's static row, so that a partition without rows
/// shows its static content: it reads a static column, or no column outside the primary key
/// (Cassandra then fetches every column). A query reading only regular columns does not.
fn fetches_static_row(def: &TableDef, plan: &SelectPlan) -> bool {
    let mut non_key = crate::planner::selection::output_columns(&plan.outputs)
        .into_iter()
        .map(|i| def.columns[i].kind)
        .filter(|kind| matches!(kind, ColumnKind::Regular | ColumnKind::Static))
        .peekable();
    non_key.peek().is_none() || non_key.any(|kind| kind == ColumnKind::Static)
}

/// Sorts rows of several partitions by the ORDER BY columns, keeping the read order of ties
/// (Cassandra sorts the same way, stably, after the read).
fn sort_rows(def: &TableDef, order: &[(usize, bool)], rows: &mut [ResultRow]) {
    rows.sort_by(|a, b| {
        for &(column, desc) in order {
            let col = &def.columns[column];
            let position = usize::try_from(col.position).unwrap_or(usize::MAX);
            let cmp = match (a.clustering.get(position), b.clustering.get(position)) {
                (Some(x), Some(y)) => ordering::compare(&col.ty, x, y),
                (x, y) => x.is_some().cmp(&y.is_some()),
            };
            let cmp = if desc { cmp.reverse() } else { cmp };
            if cmp != Ordering::Equal {
                return cmp;
            }
        }
        Ordering::Equal
    });
}

/// What is left of `range` after the partition with prefix `partition`, in scan direction;
/// `None` when nothing is.
fn skip_partition(range: &KeyRange, partition: &[u8], reversed: bool) -> Option<KeyRange> {
    let (start, end) = range.clone();
    if reversed {
        let start_past = match &start {
            Bound::Included(s) | Bound::Excluded(s) => s.as_slice() >= partition,
            Bound::Unbounded => false,
        };
        (!start_past).then(|| (start, Bound::Excluded(partition.to_vec())))
    } else {
        let next = storage::encoding::key::prefix_end(partition)?;
        let end_past = match &end {
            Bound::Included(e) => e.as_slice() < next.as_slice(),
            Bound::Excluded(e) => e.as_slice() <= next.as_slice(),
            Bound::Unbounded => false,
        };
        (!end_past).then_some((Bound::Included(next), end))
    }
}

#[cfg(test)]
mod tests {
    use cql::frame::request::Value;
    use cql::statement::ast::Statement;

    use super::*;
    use crate::executor::source::exact_key;
    use crate::planner::select::plan_select;
    use crate::planner::select_tests::schema;

    const TABLE: &str = "CREATE TABLE t (k int, c int, d int, v int, PRIMARY KEY (k, c, d))";

    /// A SELECT bound with `binds` (ints) and `page_size`.
    fn bind_select(
        create: &str,
        query: &str,
        binds: &[i32],
        page_size: Option<i32>,
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
        let params = QueryParameters {
            page_size,
            ..QueryParameters::default()
        };
        bind(Arc::new(plan), &params, &ctx, &Config::default()).expect("bound")
    }

    /// The key ranges a SELECT reads with `binds` and `page_size`, and its inline budget.
    fn bound(
        create: &str,
        query: &str,
        binds: &[i32],
        page_size: Option<i32>,
    ) -> (Vec<KeyRange>, Option<usize>) {
        let bound = bind_select(create, query, binds, page_size);
        let budget = inline_budget(&bound);
        let def = bound.plan.table.def.clone();
        (bound.ranges.to_vec(&def).expect("ranges"), budget)
    }

    /// The int key values of a point range's key.
    fn key_values(def: &TableDef, range: &KeyRange) -> Vec<i32> {
        let key = exact_key(range).expect("a point range");
        let decoded = storage::encoding::key::decode_row_key(def, key).expect("a row key");
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
                let last = exact_key(range).expect("a point");
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
        let mut key = keys::partition_prefix(&def, &[int(0)]).expect("a prefix");
        key.extend(keys::clustering_bytes(&def, &[int(299), int(299), int(299)]).expect("ck"));
        assert_eq!(select.ranges.walk(&def, Some(&key), false).count(), 0);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn a_full_primary_key_is_read_by_point_lookups_inline() {
        let query = "SELECT v FROM t WHERE k = ? AND c = ? AND d = ?";
        let (point, budget) = bound(TABLE, query, &[1, 2, 3], Some(5000));
        assert_eq!(point.len(), 1);
        assert!(exact_key(&point[0]).is_some());
        assert_eq!(budget, Some(usize::MAX));
        let query = "SELECT v FROM t WHERE k IN (?, ?) AND c = ? AND d IN (?, ?)";
        let (keys, budget) = bound(TABLE, query, &[1, 2, 3, 4, 5], None);
        assert_eq!(keys.len(), 4);
        assert!(keys.iter().all(|r| exact_key(r).is_some()));
        assert_eq!(budget, Some(usize::MAX));
        let single = "CREATE TABLE s (k int PRIMARY KEY, v int)";
        let (point, budget) = bound(single, "SELECT v FROM s WHERE k = ?", &[1], None);
        assert!(exact_key(&point[0]).is_some());
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
            assert!(ranges.iter().all(|r| exact_key(r).is_none()), "{query}");
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
