//! A materialized view's WHERE clause: its text for `system_schema.views.where_clause` and
//! the restrictions beyond `IS NOT NULL` the storage writer checks on every base row.

use cql::statement::ast::{Ident, InValues, Operator, Relation, Term};
use storage::{ColumnDef, ColumnKind, TableDef, ViewFilter, ViewFilterOp};

use crate::error::{CqlResult, RestrictionError, SchemaError};
use crate::eval::values::{evaluate, EvalContext, Evaluated, Receiver};

/// The clause as Cassandra prints it: relations joined by ` AND `, column names quoted
/// only where needed (`ColumnIdentifier.toCQLString`).
pub(crate) fn where_text(relations: &[Relation]) -> String {
    relations
        .iter()
        .map(|r| {
            let mut r = r.clone();
            for_each_column(&mut r, &mut |ident| ident.quoted = false);
            r.to_string()
        })
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// Calls `f` on every column a relation names.
pub(crate) fn for_each_column(relation: &mut Relation, f: &mut dyn FnMut(&mut Ident)) {
    match relation {
        Relation::Single { column, .. }
        | Relation::In { column, .. }
        | Relation::Element { column, .. } => f(column),
        Relation::Multi { columns, .. }
        | Relation::MultiIn { columns, .. }
        | Relation::Token { columns, .. } => columns.iter_mut().for_each(f),
    }
}

/// The restrictions on base key columns other than `IS NOT NULL`, as storage filters.
///
/// # Errors
/// Restrictions a view cannot check (multi-column, `!=`, `CONTAINS`...), values that do
/// not fit the column, and `null` values.
pub(crate) fn view_filters(base: &TableDef, relations: &[Relation]) -> CqlResult<Vec<ViewFilter>> {
    let mut out = Vec::new();
    for relation in relations {
        let unsupported = || RestrictionError::UnsupportedRestriction {
            relation: relation.to_string(),
        };
        let (column, op, terms): (_, _, Vec<&Term>) = match relation {
            Relation::Single {
                op: Operator::IsNot,
                ..
            } => continue,
            Relation::Single { column, op, value } => {
                let op = match op {
                    Operator::Eq => ViewFilterOp::Eq,
                    Operator::Lt => ViewFilterOp::Lt,
                    Operator::Lte => ViewFilterOp::Lte,
                    Operator::Gt => ViewFilterOp::Gt,
                    Operator::Gte => ViewFilterOp::Gte,
                    _ => return Err(unsupported().into()),
                };
                (column, op, vec![value])
            }
            Relation::In {
                column,
                values: InValues::List(values),
                negated: false,
            } => (column, ViewFilterOp::In, values.iter().collect()),
            _ => return Err(unsupported().into()),
        };
        let Some(def) = base.column(&column.name) else {
            return Err(SchemaError::UndefinedColumn {
                column: column.to_string(),
            }
            .into());
        };
        if !matches!(def.kind, ColumnKind::PartitionKey | ColumnKind::Clustering) {
            return Err(unsupported().into());
        }
        out.push(ViewFilter {
            column: def.id.0,
            op,
            values: filter_values(def, &terms)?,
        });
    }
    Ok(out)
}

/// The values a filter on `column` compares with, which must not be null.
fn filter_values(column: &ColumnDef, terms: &[&Term]) -> CqlResult<Vec<Vec<u8>>> {
    let receiver = Receiver {
        name: &column.name,
        ty: &column.ty,
    };
    let ctx = EvalContext {
        binds: &[],
        now_micros: 0,
    };
    let mut values = Vec::new();
    for term in terms {
        match evaluate(term, receiver, &ctx)? {
            Evaluated::Value(bytes) => values.push(bytes.to_vec()),
            _ => {
                return Err(RestrictionError::NullKeyValue {
                    column: column.name.clone(),
                }
                .into())
            }
        }
    }
    Ok(values)
}
