//! Binding a SELECT: its terms evaluated against the request's values into key ranges,
//! filters, limits and selectors ([`bind`]), with Cassandra's messages.

use std::sync::Arc;

use bytes::Bytes;
use cql::statement::ast::{Operator, Term};
use storage::{ColumnDef, ColumnKind, KeyRange, TableDef};

use crate::config::Config;
use crate::error::{CqlResult, SelectError};
use crate::eval::functions::CallContext;
use crate::eval::values::{evaluate, EvalContext, Evaluated, Receiver};
use crate::executor::keys;
use crate::executor::options::ExecOptions;
use crate::executor::read::paging::PagingState;
use crate::executor::read::ranges::{RangeProduct, ReadRanges};
use crate::executor::read::{ann_rank, clustering, index_scan, point, sai_filter, virtual_tables};
use crate::guardrails;
use crate::planner::common::clustering::PrefixPart;
use crate::planner::common::restrictions::{Bound as TermBound, ColumnRestriction};
use crate::planner::common::token::TokenRange;
use crate::planner::select::grouping::Grouping;
use crate::planner::select::{Aggregate, OutputSource, PartitionSelection, SelectPlan};

use super::*;

/// Evaluates the terms of computed selectors (literals and markers inside function calls);
/// plans selecting only columns are shared as they are.
pub(super) fn bind_outputs(
    plan: Arc<SelectPlan>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Arc<SelectPlan>> {
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
pub(super) fn bind_aggregate(aggregate: &mut Aggregate, ctx: &EvalContext<'_>) -> CqlResult<()> {
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

/// Cassandra's guardrails on partition-key IN lists, checked before the keys are built.
pub(super) fn guard_partition_keys(
    config: &Config,
    table: &str,
    values: &[Vec<Bytes>],
) -> CqlResult<()> {
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

/// Evaluates a SELECT's terms against the request's values: the key ranges it reads, its
/// row filters, limits, paging, index lookup and ANN ordering.
pub(super) fn bind(
    plan: Arc<SelectPlan>,
    options: &ExecOptions,
    ctx: &EvalContext<'_>,
    config: &Config,
) -> CqlResult<BoundSelect> {
    let plan = bind_outputs(plan, ctx)?;
    let def = plan.table.def.clone();
    let (ranges, tuple_check) = match point::single_row(&plan, &def, ctx)? {
        Some(row) => (ReadRanges::Listed(vec![row]), None),
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
    let (limit, per_partition_limit, ann) = bind_limits(&plan, &def, ctx)?;
    let page_size = page_size(&plan, ann.is_some(), options)?;
    let paging = match options.paging_state.as_deref() {
        Some(state) if page_size.is_some() => Some(PagingState::decode(state, &def)?),
        _ => None,
    };
    let index = index_scan::bind(&def, &plan, ctx)?;
    let keyspaces = virtual_tables::keyspaces(&plan, &def, ctx)?;
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
        skip_metadata: options.skip_metadata,
        call: CallContext {
            now_micros: ctx.now_micros,
        },
    })
}

/// The LIMIT, the PER PARTITION LIMIT and the ANN ordering of a SELECT, evaluated; an ANN
/// query's LIMIT is held to the most rows a vector search returns.
fn bind_limits(
    plan: &SelectPlan,
    def: &TableDef,
    ctx: &EvalContext<'_>,
) -> CqlResult<(Option<usize>, Option<usize>, Option<ann_rank::BoundAnn>)> {
    let limit = match &plan.limit {
        None => None,
        Some(term) => Some(limit_value(term, ctx, LIMIT)?),
    };
    let per_partition_limit = match &plan.per_partition_limit {
        None => None,
        Some(term) => Some(limit_value(term, ctx, PER_PARTITION_LIMIT)?),
    };
    let ann = match &plan.ann {
        Some(ann) => Some(ann_rank::BoundAnn::bind(ann, def, ctx)?),
        None => None,
    };
    if let (Some(_), Some(limit)) = (&ann, limit) {
        if limit > crate::planner::select::ann::MAX_TOP_K {
            return Err(crate::planner::select::ann::limit_error(limit));
        }
    }
    Ok((limit, per_partition_limit, ann))
}

/// The page size a SELECT reads with: none for a vector search or an aggregate over
/// everything; a sort after the read cannot be paged.
fn page_size(plan: &SelectPlan, ann: bool, options: &ExecOptions) -> CqlResult<Option<usize>> {
    Ok(match plan.grouping {
        // Vector search returns its LIMIT best rows in one page.
        _ if ann => None,
        // An aggregate over everything is one row: read it all, whatever the page size.
        Grouping::All => None,
        _ if !plan.post_order.is_empty() && options.page_size.is_some() => {
            return Err(SelectError::PostOrderPaging.into());
        }
        _ => options.page_size,
    })
}

/// The key ranges a SELECT reads, in read order, and the tuple check of a slice over
/// mixed-direction clustering columns. Partitions given by key are a product of value lists,
/// walked lazily.
pub(super) fn key_ranges(
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
        _ => ReadRanges::Listed(vec![KeyRange::all()]),
    };
    Ok((ranges, tuple_check))
}

/// The token a token-relation bound stands for: a bigint, or `token(values...)` of values
/// typed as the partition key columns.
pub(super) fn token_value(
    def: &TableDef,
    bound: &TermBound,
    ctx: &EvalContext<'_>,
) -> CqlResult<i64> {
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
        _ => Err(SelectError::NullToken.into()),
    }
}

/// `token(v1, .., vn)` over values of the partition key's types.
pub(super) fn token_of_values(
    def: &TableDef,
    args: &[cql::statement::ast::Term],
    ctx: &EvalContext<'_>,
) -> CqlResult<i64> {
    if args.len() != def.partition_key.len() {
        return Err(SelectError::ArgumentCount {
            function: "token",
            required: def.partition_key.len(),
            provided: args.len(),
        }
        .into());
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
            Evaluated::Unset => return Err(SelectError::UnsetTokenArgument.into()),
            Evaluated::Null => return Err(SelectError::NullToken.into()),
        }
    }
    let parts: Vec<&[u8]> = values.iter().map(|b| b.as_ref()).collect();
    Ok(storage::token_of(&parts))
}

/// The storage key range of a token range: `token > t` starts at token `t + 1`. Like
/// Cassandra, a range whose start is past its end selects nothing (it does not wrap around the
/// ring).
pub(super) fn token_key_range(
    def: &TableDef,
    range: &TokenRange,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<KeyRange>> {
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
    Ok(Some(KeyRange::tokens(start, end)))
}

/// How a LIMIT-like clause is named in bind metadata and messages.
pub(super) struct LimitKind {
    receiver: &'static str,
    clause: &'static str,
    null_name: &'static str,
}

pub(super) const LIMIT: LimitKind = LimitKind {
    receiver: "[limit]",
    clause: "LIMIT",
    null_name: "limit",
};

pub(super) const PER_PARTITION_LIMIT: LimitKind = LimitKind {
    receiver: "[per_partition_limit]",
    clause: "PER PARTITION LIMIT",
    null_name: "per partition limit",
};

pub(super) fn limit_value(
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
                return Err(SelectError::NonPositiveLimit {
                    clause: kind.clause,
                }
                .into());
            }
            Ok(n as usize)
        }
        Evaluated::Unset => Ok(usize::MAX),
        _ => Err(SelectError::NullLimit {
            limit: kind.null_name,
        }
        .into()),
    }
}

/// Whether the plan fixes whole primary keys once its partitions are: every clustering
/// column is restricted by `=`/`IN` (or there are none), so each range of a partition holds
/// at most one row, the one whose key is the range's start.
pub(super) fn fixes_rows(plan: &SelectPlan, def: &TableDef) -> bool {
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

/// One column's row filter with its terms evaluated, in Cassandra's order (map entries,
/// then `=`/`IN`, the bounds, and the other relations as written), so the first bad term is
/// the one reported.
pub(super) fn bind_filter(
    def: &TableDef,
    column: usize,
    r: &ColumnRestriction,
    ctx: &EvalContext<'_>,
) -> CqlResult<BoundFilter> {
    let col = &def.columns[column];
    let elements = element_checks(col, r, ctx)?;
    let mut checks = value_checks(def, column, r, ctx)?;
    let never = other_checks(col, r, ctx, &mut checks)?;
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

/// Whether `col` is a primary-key column: its filter operands are refused in the words of
/// key conditions rather than of row-filter expressions.
fn is_key_column(col: &ColumnDef) -> bool {
    matches!(col.kind, ColumnKind::PartitionKey | ColumnKind::Clustering)
}

/// The operand of a comparison (`<`, `>=`, `!=`, ...) filtering `col`.
fn filter_operand(col: &ColumnDef, term: &Term, ctx: &EvalContext<'_>) -> CqlResult<Bytes> {
    if !is_key_column(col) {
        return index_scan::operand(term, &col.name, &col.ty, ctx);
    }
    let receiver = Receiver {
        name: &col.name,
        ty: &col.ty,
    };
    keys::key_value(term, receiver, ctx)
}

/// The `m[key] = value` checks of a filter: (key, value) operands.
fn element_checks(
    col: &ColumnDef,
    r: &ColumnRestriction,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<(Bytes, Bytes)>> {
    let (key_ty, value_ty) = index_scan::element_types(&col.ty);
    r.elements
        .iter()
        .map(|(key, value)| {
            Ok((
                index_scan::element_operand(key, &col.name, "key", key_ty, ctx)?,
                index_scan::element_operand(value, &col.name, "value", value_ty, ctx)?,
            ))
        })
        .collect()
}

/// The `=`/`IN` check and the bounds of a filter on column `column`.
fn value_checks(
    def: &TableDef,
    column: usize,
    r: &ColumnRestriction,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<(Operator, Vec<Bytes>)>> {
    let col = &def.columns[column];
    let mut checks = Vec::new();
    if let Some(set) = &r.eq {
        let values = if is_key_column(col) {
            keys::key_values(set, def, column, ctx)?
        } else {
            keys::filter_values(set, col, ctx)?
        };
        checks.push((Operator::In, values));
    }
    if let Some(b) = &r.lower {
        let op = if b.inclusive {
            Operator::Gte
        } else {
            Operator::Gt
        };
        checks.push((op, vec![filter_operand(col, &b.term, ctx)?]));
    }
    if let Some(b) = &r.upper {
        let op = if b.inclusive {
            Operator::Lte
        } else {
            Operator::Lt
        };
        checks.push((op, vec![filter_operand(col, &b.term, ctx)?]));
    }
    Ok(checks)
}

/// Adds the checks of the relations that can only be filtered (`NOT IN`, `!=`, `CONTAINS`,
/// `CONTAINS KEY`) to `checks`; whether a `NOT IN` list holding null lets no row pass.
fn other_checks(
    col: &ColumnDef,
    r: &ColumnRestriction,
    ctx: &EvalContext<'_>,
    checks: &mut Vec<(Operator, Vec<Bytes>)>,
) -> CqlResult<bool> {
    let (key_ty, value_ty) = index_scan::element_types(&col.ty);
    let mut never = false;
    for (op, term) in &r.other {
        match op {
            Operator::NotIn => match keys::excluded_values(term, col, ctx)? {
                Some(values) => checks.push((Operator::NotIn, values)),
                None => never = true,
            },
            Operator::Neq => checks.push((Operator::Neq, vec![filter_operand(col, term, ctx)?])),
            Operator::Contains => checks.push((
                Operator::Contains,
                vec![index_scan::operand(term, &col.name, value_ty, ctx)?],
            )),
            Operator::ContainsKey => checks.push((
                Operator::ContainsKey,
                vec![index_scan::operand(term, &col.name, key_ty, ctx)?],
            )),
            other => return Err(SelectError::UnsupportedFilter { operator: *other }.into()),
        }
    }
    Ok(never)
}

/// Moves the `CONTAINS` / `CONTAINS KEY` checks an analyzing SAI index answers out of
/// `checks`, with their operands analyzed.
pub(super) fn take_analyzed_contains(
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
