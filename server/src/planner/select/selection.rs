//! The SELECT clause: what each result column carries (a table column, `token()`, an
//! aggregate, or a scalar expression planned by `planner::selector`), named and typed as
//! Cassandra names and types it.
//!
//! The types of a result column live in `output` and are re-exported here; a selector that
//! is an aggregate call is planned by `aggregate`, one that applies functions to aggregates
//! by `applied_aggregate`. Both sit below this file and neither imports it, so the
//! recursion between "plan a selector" and "plan the aggregate inside it" runs one way only.

use cql::statement::ast::{Select, SelectExpr};
use cql::types::ColumnType;

use crate::error::CqlResult;
use crate::eval::functions::registry::made_for_receiver;
use crate::planner::column_index;
use crate::planner::common::token;
use crate::planner::select::aggregate::native_aggregate;
use crate::planner::select::selector::{plan_scalar, Scalar};
use crate::planner::select::{aggregate, applied_aggregate};
use crate::schema::TableRef;

pub(crate) use crate::planner::select::output::{
    Aggregate, AggregateFunction, Output, OutputSource,
};

/// The planned SELECT clause.
#[derive(Debug, Clone)]
pub(crate) struct Selection {
    pub outputs: Vec<Output>,
    /// Whether any output is an aggregate.
    pub has_aggregates: bool,
    /// `toJson(x)` outputs: the output index and the type of `x`; the executor computes `x`
    /// and turns it into JSON text (`crate::eval::values::json_functions::to_json`).
    pub to_json: Vec<(usize, ColumnType)>,
}

/// The table columns `outputs` read, in order of appearance.
pub(crate) fn output_columns(outputs: &[Output]) -> Vec<usize> {
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

/// Whether every output is a table column and no column comes twice: a row's values can then
/// be moved into its result row instead of cloned.
pub(crate) fn distinct_columns(outputs: &[Output]) -> bool {
    let mut columns = Vec::with_capacity(outputs.len());
    for output in outputs {
        let OutputSource::Column(i) = output.source else {
            return false;
        };
        columns.push(i);
    }
    columns.sort_unstable();
    columns.windows(2).all(|pair| pair[0] != pair[1])
}

/// Whether any of `outputs` reads cells' write timestamps or TTLs (`writetime()`, `ttl()`).
pub(crate) fn reads_write_times(outputs: &[Output]) -> bool {
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
    pub(crate) fn columns(&self) -> impl Iterator<Item = usize> + '_ {
        output_columns(&self.outputs).into_iter()
    }

    /// The bind markers in the selectors with the types they receive (named `[selection]`
    /// in bind metadata, as Cassandra names them).
    pub(crate) fn markers(&self) -> Vec<(cql::statement::ast::BindMarker, ColumnType)> {
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
pub(crate) fn plan_selection(table: &TableRef, stmt: &Select) -> CqlResult<Selection> {
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
                    name: format!(
                        "{}({})",
                        crate::eval::values::json_functions::TO_JSON,
                        inner.name
                    ),
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
        SelectExpr::CountAll => Ok(aggregate::count_rows()),
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
            // A selector has no receiver, so `fromJson` has no type to decode into.
            made_for_receiver(name, None)?;
            match native_aggregate(name) {
                Some(function) => aggregate::plan(table, function, args),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn output(source: OutputSource) -> Output {
        Output {
            name: "x".into(),
            ty: ColumnType::Int,
            source,
        }
    }

    #[test]
    fn distinct_columns_are_columns_each_named_once() {
        let columns = |indices: &[usize]| -> Vec<Output> {
            indices
                .iter()
                .map(|&i| output(OutputSource::Column(i)))
                .collect()
        };
        assert!(distinct_columns(&columns(&[2, 0, 1])));
        assert!(distinct_columns(&[]));
        assert!(!distinct_columns(&columns(&[1, 0, 1])));
        let mut with_token = columns(&[0]);
        with_token.push(output(OutputSource::Token));
        assert!(!distinct_columns(&with_token));
    }
}
