//! `Display` for sort orders, comparison operators and `WHERE` relations.

use std::fmt::{self, Display, Formatter};

use super::clause::comma;
use crate::statement::ast::{InValues, Operator, Order, Relation};

impl Display for Order {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Order::Asc => "ASC",
            Order::Desc => "DESC",
        })
    }
}

impl Display for Operator {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operator::Eq => "=",
            Operator::Lt => "<",
            Operator::Lte => "<=",
            Operator::Gt => ">",
            Operator::Gte => ">=",
            Operator::Neq => "!=",
            Operator::In => "IN",
            Operator::NotIn => "NOT IN",
            Operator::Contains => "CONTAINS",
            Operator::ContainsKey => "CONTAINS KEY",
            Operator::Like => "LIKE",
            Operator::IsNot => "IS NOT",
        })
    }
}

impl Display for InValues {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            InValues::List(items) => {
                f.write_str("(")?;
                comma(f, items)?;
                f.write_str(")")
            }
            InValues::Bind(marker) => write!(f, "{marker}"),
        }
    }
}

impl Display for Relation {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Relation::Single { column, op, value } => match op {
                Operator::IsNot => write!(f, "{column} IS NOT NULL"),
                _ => write!(f, "{column} {op} {value}"),
            },
            Relation::In {
                column,
                values,
                negated,
            } => {
                let not = if *negated { "NOT " } else { "" };
                write!(f, "{column} {not}IN {values}")
            }
            Relation::Element {
                column,
                key,
                op,
                value,
            } => write!(f, "{column}[{key}] {op} {value}"),
            Relation::Multi { columns, op, value } => {
                f.write_str("(")?;
                comma(f, columns)?;
                write!(f, ") {op} {value}")
            }
            Relation::MultiIn { columns, values } => {
                f.write_str("(")?;
                comma(f, columns)?;
                write!(f, ") IN {values}")
            }
            Relation::Token { columns, op, value } => {
                f.write_str("TOKEN(")?;
                comma(f, columns)?;
                write!(f, ") {op} {value}")
            }
        }
    }
}
