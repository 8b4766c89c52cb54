//! `toJson()` stands only in a selection clause: a write that uses it in a value, a key or a
//! WHERE operand is refused as Cassandra refuses it while preparing the term
//! (`FunctionCall.Raw.prepare`).

use cql::statement::ast::{InValues, Relation, Term};

use crate::error::CqlResult;
use crate::planner::modify::operations::{ColumnOperation, Operation};

/// Refuses `toJson()` anywhere in the operations' terms or the relations' operands.
pub(crate) fn refuse_to_json(
    operations: &[ColumnOperation],
    relations: &[Relation],
) -> CqlResult<()> {
    let in_operations = operations.iter().any(|o| match &o.op {
        Operation::Set(t)
        | Operation::Add(t)
        | Operation::Remove(t)
        | Operation::Prepend(t)
        | Operation::DeleteElement(t) => calls_to_json(t),
        Operation::SetElement { key, value } => calls_to_json(key) || calls_to_json(value),
        Operation::SetField { value, .. } => calls_to_json(value),
        Operation::Delete | Operation::DeleteField(_) => false,
    });
    if in_operations || relations.iter().any(relation_calls_to_json) {
        return Err(crate::eval::values::json_functions::to_json_outside_selection());
    }
    Ok(())
}

/// Refuses `toJson()` in an INSERT's values (by column).
pub(crate) fn refuse_to_json_in_values(values: &[Option<Term>]) -> CqlResult<()> {
    if values.iter().flatten().any(calls_to_json) {
        return Err(crate::eval::values::json_functions::to_json_outside_selection());
    }
    Ok(())
}

fn relation_calls_to_json(relation: &Relation) -> bool {
    match relation {
        Relation::Single { value, .. }
        | Relation::Multi { value, .. }
        | Relation::Token { value, .. } => calls_to_json(value),
        Relation::Element { key, value, .. } => calls_to_json(key) || calls_to_json(value),
        Relation::In { values, .. } | Relation::MultiIn { values, .. } => match values {
            InValues::List(terms) => terms.iter().any(calls_to_json),
            InValues::Bind(_) => false,
        },
    }
}

/// Whether `term` calls `toJson` at any depth.
fn calls_to_json(term: &Term) -> bool {
    match term {
        Term::Function { name, args } => {
            name.name.name.eq_ignore_ascii_case("tojson") || args.iter().any(calls_to_json)
        }
        Term::List(items) | Term::Set(items) | Term::Tuple(items) => {
            items.iter().any(calls_to_json)
        }
        Term::Map(entries) => entries
            .iter()
            .any(|(k, v)| calls_to_json(k) || calls_to_json(v)),
        Term::Udt(fields) => fields.iter().any(|(_, v)| calls_to_json(v)),
        Term::TypeCast(_, inner) | Term::Cast(inner, _) | Term::Negate(inner) => {
            calls_to_json(inner)
        }
        Term::Arith(_, left, right) => calls_to_json(left) || calls_to_json(right),
        Term::Literal(_) | Term::Bind(_) | Term::Column(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_to_json_at_any_depth() {
        let parsed = cql::statement::parse("DELETE FROM t WHERE k = fromJson(toJson(?))").unwrap();
        let cql::statement::ast::Statement::Delete(delete) = parsed.statement else {
            panic!()
        };
        assert!(refuse_to_json(&[], &delete.where_clause).is_err());
        let parsed = cql::statement::parse("DELETE FROM t WHERE k = fromJson(?)").unwrap();
        let cql::statement::ast::Statement::Delete(delete) = parsed.statement else {
            panic!()
        };
        assert!(refuse_to_json(&[], &delete.where_clause).is_ok());
    }
}
