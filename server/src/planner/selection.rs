//! The SELECT clause: what each result column carries (a table column, `token()`, an
//! aggregate, or a scalar expression planned by `planner::selector`), named and typed as
//! Cassandra names and types it.

use std::fmt;

use cql::statement::ast::{Select, SelectExpr};
use cql::types::ColumnType;

use crate::error::{CqlResult, SelectError};
// The numeric types `sum` and `avg` accept, in Cassandra's signature order.
use crate::functions::registry::lookup;
use crate::functions::NUMERIC;
use crate::planner::applied_aggregate;
use crate::planner::selector::{plan_scalar, Scalar};
use crate::planner::{column_index, token};
use crate::schema::TableRef;

/// One result column.
#[derive(Debug, Clone)]
pub struct Output {
    /// The column name in result metadata (alias if given).
    pub name: String,
    pub ty: ColumnType,
    pub source: OutputSource,
}

/// Where a result column's value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputSource {
    /// A table column, by index.
    Column(usize),
    /// `token(partition key)`.
    Token,
    /// An aggregate over the rows of a group.
    Aggregate(Aggregate),
    /// A computed value: function calls, casts, arithmetic, field selection.
    Scalar(Scalar),
}

/// An aggregate function applied to a selector (or to rows, for `count(*)`).
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    pub function: AggregateFunction,
    /// What is aggregated and its type; `None` for `count(*)`.
    pub input: Option<(Scalar, ColumnType)>,
    /// Functions applied to this aggregate's result and to others' (`todate(max(t))`,
    /// `max(v) - min(v)`); the output is their value.
    pub then: Option<Box<Applied>>,
}

/// The expression a selector applies to aggregates: it reads this aggregate's result as
/// `Scalar::Aggregated(0)` and `others[k]`'s as `Scalar::Aggregated(k + 1)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub scalar: Scalar,
    pub others: Vec<Aggregate>,
}

impl Aggregate {
    /// This aggregate, then the others its selector combines with it, in result order.
    pub fn all(&self) -> impl Iterator<Item = &Aggregate> {
        std::iter::once(self).chain(self.then.iter().flat_map(|t| t.others.iter()))
    }
}

/// Cassandra's native aggregates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggregateFunction {
    /// `count(*)` / `count(1)`: rows.
    CountRows,
    /// `count(col)`: non-null values.
    Count,
    Min,
    Max,
    Sum,
    Avg,
}

impl AggregateFunction {
    fn from_name(name: &str) -> Option<AggregateFunction> {
        Some(match name.to_ascii_lowercase().as_str() {
            "count" => AggregateFunction::Count,
            "min" => AggregateFunction::Min,
            "max" => AggregateFunction::Max,
            "sum" => AggregateFunction::Sum,
            "avg" => AggregateFunction::Avg,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            AggregateFunction::CountRows | AggregateFunction::Count => "count",
            AggregateFunction::Min => "min",
            AggregateFunction::Max => "max",
            AggregateFunction::Sum => "sum",
            AggregateFunction::Avg => "avg",
        }
    }
}

impl fmt::Display for OutputSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputSource::Column(i) => write!(f, "column {i}"),
            OutputSource::Token => f.write_str("token"),
            OutputSource::Aggregate(a) => match &a.input {
                Some((Scalar::Column(i), _)) => write!(f, "{}(column {i})", a.function.name()),
                Some(_) => write!(f, "{}(expression)", a.function.name()),
                None => f.write_str("count(*)"),
            },
            OutputSource::Scalar(_) => f.write_str("expression"),
        }
    }
}

/// The planned SELECT clause.
#[derive(Debug, Clone)]
pub struct Selection {
    pub outputs: Vec<Output>,
    /// Whether any output is an aggregate.
    pub has_aggregates: bool,
    /// `toJson(x)` outputs: the output index and the type of `x`; the executor computes `x`
    /// and turns it into JSON text (`crate::values::json_functions::to_json`).
    pub to_json: Vec<(usize, ColumnType)>,
}

/// The table columns `outputs` read, in order of appearance.
pub fn output_columns(outputs: &[Output]) -> Vec<usize> {
    let mut out = Vec::new();
    for output in outputs {
        match &output.source {
            OutputSource::Column(i) => out.push(*i),
            OutputSource::Aggregate(aggregate) => {
                for (scalar, _) in aggregate.all().filter_map(|a| a.input.as_ref()) {
                    scalar.columns(&mut out);
                }
            }
            OutputSource::Scalar(scalar) => scalar.columns(&mut out),
            OutputSource::Token => {}
        }
    }
    out
}

/// Whether any of `outputs` reads cells' write timestamps or TTLs (`writetime()`, `ttl()`).
pub fn reads_write_times(outputs: &[Output]) -> bool {
    outputs.iter().any(|output| match &output.source {
        OutputSource::Aggregate(aggregate) => aggregate
            .all()
            .filter_map(|a| a.input.as_ref())
            .any(|(scalar, _)| scalar.reads_write_times()),
        OutputSource::Scalar(scalar) => scalar.reads_write_times(),
        OutputSource::Column(_) | OutputSource::Token => false,
    })
}

impl Selection {
    /// The table columns the selection reads (for DISTINCT's checks).
    pub fn columns(&self) -> impl Iterator<Item = usize> + '_ {
        output_columns(&self.outputs).into_iter()
    }

    /// The bind markers in the selectors with the types they receive (named `[selection]`
    /// in bind metadata, as Cassandra names them).
    pub fn markers(&self) -> Vec<(cql::statement::ast::BindMarker, ColumnType)> {
        let mut out = Vec::new();
        for output in &self.outputs {
            match &output.source {
                OutputSource::Aggregate(aggregate) => {
                    for (scalar, _) in aggregate.all().filter_map(|a| a.input.as_ref()) {
                        scalar.markers(&mut out);
                    }
                    if let Some(then) = &aggregate.then {
                        then.scalar.markers(&mut out);
                    }
                }
                OutputSource::Scalar(scalar) => scalar.markers(&mut out),
                _ => {}
            }
        }
        out
    }
}

/// Plans the selectors of `stmt` (empty selectors mean `*`).
pub fn plan_selection(table: &TableRef, stmt: &Select) -> CqlResult<Selection> {
    let def = &table.def;
    if stmt.selectors.is_empty() {
        let outputs = def
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| Output {
                name: c.name.clone(),
                ty: c.ty.clone(),
                source: OutputSource::Column(i),
            })
            .collect();
        return Ok(Selection {
            outputs,
            has_aggregates: false,
            to_json: Vec::new(),
        });
    }
    let mut outputs = Vec::with_capacity(stmt.selectors.len());
    let mut to_json = Vec::new();
    for selector in &stmt.selectors {
        let mut output = match to_json_arg(&selector.expr) {
            Some(arg) => {
                let inner = plan_expr(table, arg)?;
                to_json.push((outputs.len(), inner.ty));
                Output {
                    name: format!("{}({})", crate::values::json_functions::TO_JSON, inner.name),
                    ty: ColumnType::Text,
                    source: inner.source,
                }
            }
            None => plan_expr(table, &selector.expr)?,
        };
        if let Some(alias) = &selector.alias {
            output.name = alias.name.clone();
        }
        outputs.push(output);
    }
    let has_aggregates = outputs
        .iter()
        .any(|o| matches!(o.source, OutputSource::Aggregate(_)));
    Ok(Selection {
        outputs,
        has_aggregates,
        to_json,
    })
}

/// The argument of a `toJson(x)` selector.
fn to_json_arg(expr: &SelectExpr) -> Option<&SelectExpr> {
    match expr {
        SelectExpr::Function { name, args } if name.name.name.eq_ignore_ascii_case("tojson") => {
            match args.as_slice() {
                [arg] => Some(arg),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The native aggregate `name` calls: `count`, `min`, `max`, `sum` or `avg`, unqualified or
/// in `system`, unless a native scalar function has that name.
pub(crate) fn native_aggregate(
    name: &cql::statement::ast::QualifiedName,
) -> Option<AggregateFunction> {
    let system = name
        .keyspace
        .as_ref()
        .is_none_or(|ks| ks.name.eq_ignore_ascii_case("system"));
    AggregateFunction::from_name(&name.name.name).filter(|_| system && lookup(name).is_empty())
}

/// Plans one selector.
pub(crate) fn plan_expr(table: &TableRef, expr: &SelectExpr) -> CqlResult<Output> {
    if let Some(aggregate) = applied_aggregate::inner_aggregate(expr) {
        return applied_aggregate::plan(table, expr, aggregate);
    }
    let def = &table.def;
    match expr {
        SelectExpr::Column(ident) => {
            let i = column_index(def, ident)?;
            let col = &def.columns[i];
            Ok(Output {
                name: col.name.clone(),
                ty: col.ty.clone(),
                source: OutputSource::Column(i),
            })
        }
        SelectExpr::CountAll => Ok(Output {
            name: "count".into(),
            ty: ColumnType::Bigint,
            source: OutputSource::Aggregate(Aggregate {
                function: AggregateFunction::CountRows,
                input: None,
                then: None,
            }),
        }),
        SelectExpr::Function { name, args } => {
            let system = name
                .keyspace
                .as_ref()
                .is_none_or(|ks| ks.name.eq_ignore_ascii_case("system"));
            let fname = &name.name.name;
            if system && fname.eq_ignore_ascii_case("token") {
                token::check_selector(def, args)?;
                let names: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                return Ok(Output {
                    name: format!("system.token({})", names.join(", ")),
                    ty: ColumnType::Bigint,
                    source: OutputSource::Token,
                });
            }
            if fname.eq_ignore_ascii_case("fromjson") {
                return Err(SelectError::FromJsonInSelection.into());
            }
            match native_aggregate(name) {
                Some(function) => plan_aggregate(table, function, args),
                None => scalar_output(table, expr),
            }
        }
        _ => scalar_output(table, expr),
    }
}

fn scalar_output(table: &TableRef, expr: &SelectExpr) -> CqlResult<Output> {
    let planned = plan_scalar(&table.def, expr)?;
    let source = match planned.scalar {
        Scalar::Column(i) => OutputSource::Column(i),
        other => OutputSource::Scalar(other),
    };
    Ok(Output {
        name: planned.name,
        ty: planned.ty,
        source,
    })
}

fn plan_aggregate(
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
    if let (AggregateFunction::Count, SelectExpr::Term(cql::statement::ast::Term::Literal(lit))) =
        (function, arg)
    {
        if *lit != cql::statement::ast::Literal::Null {
            return plan_expr(table, &SelectExpr::CountAll);
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
                return Err(SelectError::NoMatchingSignature {
                    function: fname,
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
    use super::*;

    #[test]
    fn aggregate_names_follow_cassandra() {
        assert_eq!(
            AggregateFunction::from_name("MAX"),
            Some(AggregateFunction::Max)
        );
        assert_eq!(AggregateFunction::from_name("median"), None);
        assert_eq!(AggregateFunction::CountRows.name(), "count");
    }
}
