//! What an INSERT/UPDATE/DELETE does to each non-key column (Cassandra's `Operation`s): set a
//! value, add to or remove from a collection, set or delete one element or UDT field. Each is
//! checked against the column's type here, with Cassandra's messages.

use std::fmt;

use cql::statement::ast::{ArithOp, Assignment, DeleteTarget, Ident, Term};
use cql::types::ColumnType;
use storage::{ColumnKind, TableDef};

use crate::error::{CqlError, CqlResult, ModifyError};
use crate::planner::column_index;

/// One column operation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Operation {
    /// `c = term` (and INSERT values): replaces the value; a non-frozen collection or UDT is
    /// cleared first.
    Set(Term),
    /// `c = c + term`: appends to a list, adds set elements or map entries.
    Add(Term),
    /// `c = c - term`: removes list values, set elements or map keys.
    Remove(Term),
    /// `c = term + c`: prepends to a list.
    Prepend(Term),
    /// `c[key] = value` on a list (by index) or a map (by key).
    SetElement { key: Term, value: Term },
    /// `c.field = value` on a non-frozen UDT; `field` is the field's position.
    SetField { field: usize, value: Term },
    /// `DELETE c`.
    Delete,
    /// `DELETE c[key]`: a list index, set element or map key.
    DeleteElement(Term),
    /// `DELETE c.field` on a non-frozen UDT.
    DeleteField(usize),
}

impl Operation {
    /// Whether executing this needs the column's current value (list operations by index or
    /// by value, as in Cassandra's `requiresRead`).
    pub(crate) fn requires_read(&self, ty: &ColumnType) -> bool {
        matches!(ty, ColumnType::List { .. })
            && matches!(
                self,
                Operation::Remove(_) | Operation::SetElement { .. } | Operation::DeleteElement(_)
            )
    }
}

/// An operation on the column at `column` of the table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ColumnOperation {
    pub column: usize,
    pub op: Operation,
}

/// How an assignment is written back in messages (`toString(receiver)` in Cassandra).
struct Shown<'a>(&'a Assignment);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Assignment::Set { column, value } => write!(f, "{} = {value}", column.name),
            Assignment::Modify { column, op, value } => {
                let sign = if matches!(op, ArithOp::Sub) { '-' } else { '+' };
                write!(f, "{} = {} {sign} {value}", column.name, column.name)
            }
            Assignment::Prepend { column, value } => {
                write!(f, "{} = {value} + {}", column.name, column.name)
            }
            Assignment::Element { column, key, value } => {
                write!(f, "{}[{key}] = {value}", column.name)
            }
            Assignment::Field {
                column,
                field,
                value,
            } => write!(f, "{}.{} = {value}", column.name, field.name),
        }
    }
}

fn column_of(def: &TableDef, ident: &Ident) -> CqlResult<usize> {
    let i = column_index(def, ident)?;
    if matches!(
        def.columns[i].kind,
        ColumnKind::PartitionKey | ColumnKind::Clustering
    ) {
        return Err(ModifyError::PrimaryKeyInSet {
            column: ident.name.clone(),
        }
        .into());
    }
    Ok(i)
}

/// Plans one UPDATE assignment.
pub(crate) fn plan_assignment(
    def: &TableDef,
    assignment: &Assignment,
) -> CqlResult<ColumnOperation> {
    let assigning = Assigning { def, assignment };
    let (column, op) = match assignment {
        Assignment::Set { column, value } => assigning.set(column, value)?,
        Assignment::Modify { column, op, value } => assigning.modify(column, *op, value)?,
        Assignment::Prepend { column, value } => assigning.prepend(column, value)?,
        Assignment::Element { column, key, value } => assigning.element(column, key, value)?,
        Assignment::Field {
            column,
            field,
            value,
        } => assigning.field(column, field, value)?,
    };
    Ok(ColumnOperation { column, op })
}

/// One UPDATE assignment being planned against its table; Cassandra's "Invalid operation"
/// messages quote it.
struct Assigning<'a> {
    def: &'a TableDef,
    assignment: &'a Assignment,
}

impl Assigning<'_> {
    /// Cassandra's refusal of the assignment on `column`, a `column_kind` column.
    fn invalid(&self, column_kind: &'static str, column: &Ident) -> CqlError {
        ModifyError::InvalidOperation {
            operation: Shown(self.assignment).to_string(),
            column_kind,
            column: column.name.clone(),
        }
        .into()
    }

    /// `c = value`: any non-key column but a counter, which only takes `+`/`-`.
    fn set(&self, column: &Ident, value: &Term) -> CqlResult<(usize, Operation)> {
        let i = column_of(self.def, column)?;
        if self.def.columns[i].ty.is_counter() {
            return Err(crate::planner::modify::counters::set_refused(&column.name));
        }
        Ok((i, Operation::Set(value.clone())))
    }

    /// `c = c + value` / `c = c - value`: a counter's increment or decrement, or adding to or
    /// removing from a non-frozen collection; a tuple takes no `+`.
    fn modify(&self, column: &Ident, op: ArithOp, value: &Term) -> CqlResult<(usize, Operation)> {
        let i = column_of(self.def, column)?;
        let ty = &self.def.columns[i].ty;
        if matches!(op, ArithOp::Add) && matches!(ty, ColumnType::Tuple(_)) {
            return Err(self.invalid("tuple column", column));
        }
        if !ty.is_collection() {
            // A counter's `+`/`-` is an increment/decrement (applied as a delta).
            return match op {
                ArithOp::Add if ty.is_counter() => Ok((i, Operation::Add(value.clone()))),
                ArithOp::Sub if ty.is_counter() => Ok((i, Operation::Remove(value.clone()))),
                _ => Err(self.invalid("non counter column", column)),
            };
        }
        if !ty.is_multi_cell() {
            return Err(self.invalid("frozen collection column", column));
        }
        let op = match op {
            ArithOp::Add => Operation::Add(value.clone()),
            ArithOp::Sub => Operation::Remove(value.clone()),
            _ => return Err(self.invalid("non counter column", column)),
        };
        Ok((i, op))
    }

    /// `c = value + c`: prepending to a non-frozen list.
    fn prepend(&self, column: &Ident, value: &Term) -> CqlResult<(usize, Operation)> {
        let i = column_of(self.def, column)?;
        match &self.def.columns[i].ty {
            ColumnType::List { frozen: false, .. } => {}
            ColumnType::List { .. } => return Err(self.invalid("frozen list column", column)),
            _ => return Err(self.invalid("non list column", column)),
        }
        Ok((i, Operation::Prepend(value.clone())))
    }

    /// `c[key] = value`: an element of a non-frozen list or map (a set has no keys).
    fn element(&self, column: &Ident, key: &Term, value: &Term) -> CqlResult<(usize, Operation)> {
        let i = column_of(self.def, column)?;
        match &self.def.columns[i].ty {
            ty if !ty.is_collection() => return Err(self.invalid("non collection column", column)),
            ty if !ty.is_multi_cell() => {
                return Err(self.invalid("frozen collection column", column))
            }
            ColumnType::Set { .. } => return Err(self.invalid("set column", column)),
            _ => {}
        }
        let op = Operation::SetElement {
            key: key.clone(),
            value: value.clone(),
        };
        Ok((i, op))
    }

    /// `c.field = value`: a field of a non-frozen UDT.
    fn field(&self, column: &Ident, field: &Ident, value: &Term) -> CqlResult<(usize, Operation)> {
        let i = column_of(self.def, column)?;
        let position = match &self.def.columns[i].ty {
            ColumnType::Udt {
                frozen: false,
                fields,
                ..
            } => field_position(fields, column, field)?,
            ColumnType::Udt { .. } => return Err(self.invalid("frozen UDT column", column)),
            _ => return Err(self.invalid("non-UDT column", column)),
        };
        let op = Operation::SetField {
            field: position,
            value: value.clone(),
        };
        Ok((i, op))
    }
}

fn field_position(
    fields: &[(String, ColumnType)],
    column: &Ident,
    field: &Ident,
) -> CqlResult<usize> {
    fields
        .iter()
        .position(|(name, _)| *name == field.name)
        .ok_or_else(|| {
            ModifyError::UnknownUdtField {
                column: column.name.clone(),
                field: field.name.clone(),
            }
            .into()
        })
}

/// Plans one DELETE target.
pub(crate) fn plan_delete_target(
    def: &TableDef,
    target: &DeleteTarget,
) -> CqlResult<ColumnOperation> {
    let ident = match target {
        DeleteTarget::Column(ident)
        | DeleteTarget::Element(ident, _)
        | DeleteTarget::Field(ident, _) => ident,
    };
    let column = column_index(def, ident)?;
    let col = &def.columns[column];
    if matches!(col.kind, ColumnKind::PartitionKey | ColumnKind::Clustering) {
        return Err(ModifyError::DeletePrimaryKeyPart {
            column: ident.name.clone(),
        }
        .into());
    }
    let op = match target {
        DeleteTarget::Column(_) => Operation::Delete,
        DeleteTarget::Element(_, key) => {
            if !col.ty.is_collection() {
                return Err(ModifyError::ElementDeletionOnNonCollection {
                    column: ident.name.clone(),
                }
                .into());
            }
            if !col.ty.is_multi_cell() {
                return Err(ModifyError::ElementDeletionOnFrozen {
                    column: ident.name.clone(),
                }
                .into());
            }
            Operation::DeleteElement(key.clone())
        }
        DeleteTarget::Field(_, field) => match &col.ty {
            ColumnType::Udt {
                frozen: false,
                fields,
                ..
            } => Operation::DeleteField(field_position(fields, ident, field)?),
            ColumnType::Udt { .. } => {
                return Err(ModifyError::FieldDeletionOnFrozenUdt {
                    column: ident.name.clone(),
                }
                .into())
            }
            _ => {
                return Err(ModifyError::FieldDeletionOnNonUdt {
                    column: ident.name.clone(),
                }
                .into())
            }
        },
    };
    Ok(ColumnOperation { column, op })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cql::statement::ast::Statement;
    use cql::statement::parse_statement;

    fn table() -> TableDef {
        crate::planner::select::tests::table_from(
            "CREATE TABLE ks.t (k int, c int, v int, l list<int>, fl frozen<list<int>>, s set<int>, m map<int, text>, tu tuple<int, int>, PRIMARY KEY (k, c))",
        )
    }

    fn assignment_error(set: &str) -> String {
        let def = table();
        let Statement::Update(update) =
            parse_statement(&format!("UPDATE ks.t SET {set} WHERE k = 0 AND c = 0")).unwrap()
        else {
            panic!("not an update")
        };
        plan_assignment(&def, &update.assignments[0])
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn invalid_operations_use_cassandra_wording() {
        assert_eq!(
            assignment_error("v = v + 1"),
            "Invalid operation (v = v + 1) for non counter column v"
        );
        assert_eq!(
            assignment_error("fl = fl + [1]"),
            "Invalid operation (fl = fl + [1]) for frozen collection column fl"
        );
        assert_eq!(
            assignment_error("s = [1] + s"),
            "Invalid operation (s = [1] + s) for non list column s"
        );
        assert_eq!(
            assignment_error("s[1] = 2"),
            "Invalid operation (s[1] = 2) for set column s"
        );
        assert_eq!(
            assignment_error("v[1] = 2"),
            "Invalid operation (v[1] = 2) for non collection column v"
        );
        assert_eq!(
            assignment_error("tu = tu + (1, 1)"),
            "Invalid operation (tu = tu + (1, 1)) for tuple column tu"
        );
        assert_eq!(
            assignment_error("k = 2"),
            "PRIMARY KEY part k found in SET part"
        );
    }

    #[test]
    fn list_operations_by_index_or_value_read_first() {
        let def = table();
        let list = &def.columns[3].ty;
        let one = Term::Literal(cql::statement::ast::Literal::Integer("1".into()));
        assert!(Operation::Remove(one.clone()).requires_read(list));
        assert!(Operation::DeleteElement(one.clone()).requires_read(list));
        assert!(!Operation::Add(one.clone()).requires_read(list));
        assert!(!Operation::Remove(one).requires_read(&def.columns[5].ty));
    }
}
