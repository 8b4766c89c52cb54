//! `Display` for SELECT (with its selectors), INSERT, UPDATE and DELETE and their `USING`
//! and `IF` clauses.

use std::fmt::{self, Display, Formatter};

use super::clause::{comma, if_not_exists, where_clause};
use super::term::FunctionName;
use crate::statement::ast::{
    ArithOp, Assignment, ColumnCondition, Condition, Delete, DeleteTarget, Insert, InsertValues,
    Select, SelectExpr, Selector, Update, UsingClause,
};

/// Binding strength of a selector, for parenthesising arithmetic operands.
fn precedence(expr: &SelectExpr) -> u8 {
    match expr {
        SelectExpr::Arith(ArithOp::Add | ArithOp::Sub, ..) => 1,
        SelectExpr::Arith(..) => 2,
        _ => 3,
    }
}

/// Writes `expr`, in parentheses if it binds less tightly than `min`.
fn operand(f: &mut Formatter<'_>, expr: &SelectExpr, min: u8) -> fmt::Result {
    if precedence(expr) < min {
        write!(f, "({expr})")
    } else {
        write!(f, "{expr}")
    }
}

impl Display for SelectExpr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            SelectExpr::Column(c) => write!(f, "{c}"),
            SelectExpr::CountAll => f.write_str("COUNT(*)"),
            SelectExpr::WriteTime(c) => write!(f, "WRITETIME({c})"),
            SelectExpr::Ttl(c) => write!(f, "TTL({c})"),
            SelectExpr::Function { name, args } => {
                write!(f, "{}(", FunctionName(name))?;
                comma(f, args)?;
                f.write_str(")")
            }
            SelectExpr::Cast(expr, ty) => write!(f, "CAST({expr} AS {ty})"),
            SelectExpr::Field(expr, field) => {
                operand(f, expr, 3)?;
                write!(f, ".{field}")
            }
            SelectExpr::Element(expr, key) => {
                operand(f, expr, 3)?;
                write!(f, "[{key}]")
            }
            SelectExpr::Slice(expr, from, to) => {
                operand(f, expr, 3)?;
                f.write_str("[")?;
                if let Some(from) = from {
                    write!(f, "{from}")?;
                }
                f.write_str("..")?;
                if let Some(to) = to {
                    write!(f, "{to}")?;
                }
                f.write_str("]")
            }
            SelectExpr::Term(term) => write!(f, "{term}"),
            SelectExpr::Arith(op, l, r) => {
                let p = precedence(self);
                operand(f, l, p)?;
                write!(f, " {op} ")?;
                operand(f, r, p + 1)
            }
            SelectExpr::Negate(expr) => {
                f.write_str("- ")?;
                operand(f, expr, 3)
            }
            SelectExpr::TypeHint(ty, expr) => {
                write!(f, "({ty}) ")?;
                operand(f, expr, 3)
            }
        }
    }
}

impl Display for Selector {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.expr)?;
        if let Some(alias) = &self.alias {
            write!(f, " AS {alias}")?;
        }
        Ok(())
    }
}

impl Display for Select {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("SELECT ")?;
        if self.json {
            f.write_str("JSON ")?;
        }
        if self.distinct {
            f.write_str("DISTINCT ")?;
        }
        if self.selectors.is_empty() {
            f.write_str("*")?;
        } else {
            comma(f, &self.selectors)?;
        }
        write!(f, " FROM {}", self.table)?;
        where_clause(f, &self.where_clause)?;
        if !self.group_by.is_empty() {
            f.write_str(" GROUP BY ")?;
            comma(f, &self.group_by)?;
        }
        for (i, (c, order)) in self.order_by.iter().enumerate() {
            f.write_str(if i == 0 { " ORDER BY " } else { ", " })?;
            write!(f, "{c} {order}")?;
        }
        for (i, (c, vector, order)) in self.ann.iter().enumerate() {
            let first = i == 0 && self.order_by.is_empty();
            f.write_str(if first { " ORDER BY " } else { ", " })?;
            write!(f, "{c} ANN OF {vector} {order}")?;
        }
        if let Some(n) = &self.per_partition_limit {
            write!(f, " PER PARTITION LIMIT {n}")?;
        }
        if let Some(n) = &self.limit {
            write!(f, " LIMIT {n}")?;
        }
        if self.allow_filtering {
            f.write_str(" ALLOW FILTERING")?;
        }
        Ok(())
    }
}

impl Display for UsingClause {
    /// ` USING TTL n AND TIMESTAMP n AND TIMEOUT d`, or nothing.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let parts = [
            ("TTL", &self.ttl),
            ("TIMESTAMP", &self.timestamp),
            ("TIMEOUT", &self.timeout),
        ];
        let mut first = true;
        for (name, value) in parts {
            if let Some(v) = value {
                f.write_str(if first { " USING " } else { " AND " })?;
                write!(f, "{name} {v}")?;
                first = false;
            }
        }
        Ok(())
    }
}

impl Display for Insert {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "INSERT INTO {}", self.table)?;
        match &self.values {
            InsertValues::Columns { columns, values } => {
                f.write_str(" (")?;
                comma(f, columns)?;
                f.write_str(") VALUES (")?;
                comma(f, values)?;
                f.write_str(")")?;
            }
            InsertValues::Json {
                json,
                default_unset,
            } => {
                write!(f, " JSON {json}")?;
                if *default_unset {
                    f.write_str(" DEFAULT UNSET")?;
                }
            }
        }
        if_not_exists(f, self.if_not_exists)?;
        write!(f, "{}", self.using)
    }
}

impl Display for Assignment {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Assignment::Set { column, value } => write!(f, "{column} = {value}"),
            Assignment::Modify { column, op, value } => {
                write!(f, "{column} = {column} {op} {value}")
            }
            Assignment::Prepend { column, value } => write!(f, "{column} = {value} + {column}"),
            Assignment::Element { column, key, value } => {
                write!(f, "{column}[{key}] = {value}")
            }
            Assignment::Field {
                column,
                field,
                value,
            } => write!(f, "{column}.{field} = {value}"),
        }
    }
}

impl Display for ColumnCondition {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.column)?;
        if let Some(e) = &self.element {
            write!(f, "[{e}]")?;
        }
        if let Some(field) = &self.field {
            write!(f, ".{field}")?;
        }
        // The candidates of `IN` are a `Term::Tuple`, which prints as `(a, b)`.
        write!(f, " {} {}", self.op, self.value)
    }
}

impl Display for Condition {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Exists => f.write_str(" IF EXISTS"),
            Condition::Columns(conds) => {
                for (i, c) in conds.iter().enumerate() {
                    f.write_str(if i == 0 { " IF " } else { " AND " })?;
                    write!(f, "{c}")?;
                }
                Ok(())
            }
        }
    }
}

impl Display for Update {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "UPDATE {}{} SET ", self.table, self.using)?;
        comma(f, &self.assignments)?;
        where_clause(f, &self.where_clause)?;
        if let Some(c) = &self.condition {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl Display for DeleteTarget {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            DeleteTarget::Column(c) => write!(f, "{c}"),
            DeleteTarget::Element(c, k) => write!(f, "{c}[{k}]"),
            DeleteTarget::Field(c, field) => write!(f, "{c}.{field}"),
        }
    }
}

impl Display for Delete {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("DELETE ")?;
        if !self.columns.is_empty() {
            comma(f, &self.columns)?;
            f.write_str(" ")?;
        }
        write!(f, "FROM {}{}", self.table, self.using)?;
        where_clause(f, &self.where_clause)?;
        if let Some(c) = &self.condition {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}
