//! Calls of Cassandra's native aggregates in a selector: `count(*)`, `count(1)`, `count(v)`,
//! `min`, `max`, `sum` and `avg`, planned as an [`Output`] whose source is an
//! [`Aggregate`]. Used by `selection` for a selector that is an aggregate call and by
//! `applied_aggregate` for the aggregate inside `todate(max(t))`.

use cql::statement::ast::{Literal, QualifiedName, SelectExpr, Term};
use cql::types::ColumnType;

use crate::error::{CqlResult, FunctionError, SelectError};
use crate::eval::functions::registry::lookup;
// The numeric types `sum` and `avg` accept, in Cassandra's signature order.
use crate::eval::functions::NUMERIC;
use crate::planner::select::output::{Aggregate, AggregateFunction, Output, OutputSource};
use crate::planner::select::selector::{plan_scalar, Scalar};
use crate::schema::TableRef;

/// The native aggregate `name` calls: `count`, `min`, `max`, `sum` or `avg`, unqualified or
/// in `system`, unless a native scalar function has that name.
pub(crate) fn native_aggregate(name: &QualifiedName) -> Option<AggregateFunction> {
    let system = name
        .keyspace
        .as_ref()
        .is_none_or(|ks| ks.name.eq_ignore_ascii_case("system"));
    AggregateFunction::from_name(&name.name.name).filter(|_| system && lookup(name).is_empty())
}

/// `count(*)`: the rows of a group.
pub(crate) fn count_rows() -> Output {
    Output {
        name: "count".into(),
        ty: ColumnType::Bigint,
        source: OutputSource::Aggregate(Aggregate {
            function: AggregateFunction::CountRows,
            input: None,
            then: None,
        }),
    }
}

/// Plans `expr` if it is itself a call of a native aggregate (`count(*)` included); `None`
/// for any other selector.
pub(crate) fn plan_call(table: &TableRef, expr: &SelectExpr) -> Option<CqlResult<Output>> {
    match expr {
        SelectExpr::CountAll => Some(Ok(count_rows())),
        SelectExpr::Function { name, args } => {
            native_aggregate(name).map(|function| plan(table, function, args))
        }
        _ => None,
    }
}

/// Plans the call of the aggregate `function` on `args`.
pub(crate) fn plan(
    table: &TableRef,
    function: AggregateFunction,
    args: &[SelectExpr],
) -> CqlResult<Output> {
    let def = &table.def;
    let [arg] = args else {
        return Err(SelectError::ArgumentCount {
            function: function.name(),
            required: 1,
            provided: args.len(),
        }
        .into());
    };
    // `count(1)` and other constants count rows, as Cassandra rewrites them.
    if let (AggregateFunction::Count, SelectExpr::Term(Term::Literal(lit))) = (function, arg) {
        if *lit != Literal::Null {
            return Ok(count_rows());
        }
    }
    let input = plan_scalar(def, arg)?;
    let ty = match function {
        AggregateFunction::Count | AggregateFunction::CountRows => ColumnType::Bigint,
        AggregateFunction::Min | AggregateFunction::Max => input.ty.clone(),
        AggregateFunction::Sum | AggregateFunction::Avg => {
            if !NUMERIC.contains(&input.ty) {
                let fname = function.name();
                let signatures: Vec<String> = NUMERIC
                    .iter()
                    .map(|t| format!("system.{fname} : ({t}) -> {t}"))
                    .collect();
                return Err(FunctionError::NoMatchingSignature {
                    function: fname.to_string(),
                    signatures,
                }
                .into());
            }
            input.ty.clone()
        }
    };
    let arg_name = match &input.scalar {
        Scalar::Column(i) => cql::types::maybe_quote(&def.columns[*i].name),
        _ => input.name.clone(),
    };
    Ok(Output {
        name: format!("system.{}({arg_name})", function.name()),
        ty,
        source: OutputSource::Aggregate(Aggregate {
            function,
            input: Some((input.scalar, input.ty)),
            then: None,
        }),
    })
}

#[cfg(test)]
mod tests {
    use cql::statement::ast::{Select, Statement};

    use super::*;
    use crate::planner::resolve_table;
    use crate::planner::select::selection::plan_selection;
    use crate::planner::select::tests::schema;

    fn select(query: &str) -> (TableRef, Select) {
        let Ok(Statement::Select(select)) = cql::statement::parse_statement(query) else {
            panic!("not a SELECT: {query}");
        };
        let schema = schema(&["CREATE TABLE t (k int PRIMARY KEY, v int, s text)"]);
        let table = resolve_table(&schema, &select.table, Some("ks")).expect("table");
        (table, *select)
    }

    /// Each selector of `query` as `name: type = source`, or the error message (the table's
    /// columns in order: `k`, `s`, `v`).
    fn outputs(query: &str) -> Vec<String> {
        let (table, select) = select(query);
        select
            .selectors
            .iter()
            .map(|selector| match plan_call(&table, &selector.expr) {
                None => "not an aggregate".to_string(),
                Some(Ok(out)) => format!("{}: {} = {}", out.name, out.ty, out.source),
                Some(Err(err)) => format!("error: {err}"),
            })
            .collect()
    }

    #[test]
    fn aggregate_calls_are_named_and_typed_as_cassandra_does() {
        assert_eq!(
            outputs("SELECT count(*), count(1), count(v), max(s), avg(v), v, now() FROM t"),
            [
                "count: bigint = count(*)",
                "count: bigint = count(*)",
                "system.count(v): bigint = count(column 2)",
                "system.max(s): text = max(column 1)",
                "system.avg(v): int = avg(column 2)",
                "not an aggregate",
                "not an aggregate",
            ]
        );
    }

    #[test]
    fn aggregate_calls_refuse_wrong_arguments() {
        let out = outputs("SELECT sum(s), min(v, v) FROM t");
        assert!(
            out[0].starts_with("error: ") && out[0].contains("system.sum : (int) -> int"),
            "{}",
            out[0]
        );
        assert!(out[1].starts_with("error: "), "{}", out[1]);
    }

    #[test]
    fn functions_of_aggregates_plan_through_the_selection() {
        let (table, select) = select("SELECT max(v) - min(v), cast(count(*) AS int) FROM t");
        let selection = plan_selection(&table, &select).expect("selection");
        let shown: Vec<String> = selection
            .outputs
            .iter()
            .map(|o| {
                let OutputSource::Aggregate(first) = &o.source else {
                    panic!("not an aggregate: {}", o.source);
                };
                let functions: Vec<&str> = first.all().map(|a| a.function.name()).collect();
                format!("{}: {} = {}", o.name, o.ty, functions.join(", "))
            })
            .collect();
        assert_eq!(
            shown,
            [
                "system.max(v) - system.min(v): int = max, min",
                "cast(count as int): int = count",
            ]
        );
        assert!(selection.has_aggregates);
    }
}
