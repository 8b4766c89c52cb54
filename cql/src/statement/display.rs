//! `Display` for the expression-level AST nodes: canonical CQL (upper-case keywords,
//! identifiers through [`maybe_quote`], quoted identifiers always quoted so they round-trip,
//! strings with `''` escaping). Statements are in `display_stmt`.

use std::fmt::{self, Display, Formatter};

use super::ast::{
    ArithOp, BindMarker, CqlType, Ident, InValues, Literal, Operator, Order, Property,
    PropertyValue, QualifiedName, SelectExpr, Selector, Term,
};
use crate::types::maybe_quote;

/// Writes `items` separated by `", "`.
pub fn comma<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

/// A CQL string literal: `'...'` with `'` doubled.
pub(crate) fn quote_string(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

impl Display for Ident {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.quoted {
            write!(f, "\"{}\"", self.name.replace('"', "\"\""))
        } else {
            f.write_str(&maybe_quote(&self.name))
        }
    }
}

impl Display for QualifiedName {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(ks) = &self.keyspace {
            write!(f, "{ks}.")?;
        }
        write!(f, "{}", self.name)
    }
}

/// A function name: unquoted names print bare even when reserved (`token`), as
/// `allowedFunctionName` accepts them.
struct FunctionName<'a>(&'a QualifiedName);

impl Display for FunctionName<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(ks) = &self.0.keyspace {
            write!(f, "{ks}.")?;
        }
        let name = &self.0.name;
        if !name.quoted && name.name == "token" {
            f.write_str("token")
        } else {
            write!(f, "{name}")
        }
    }
}

impl Display for CqlType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            CqlType::Native(t) => write!(f, "{t}"),
            CqlType::List(t) => write!(f, "list<{t}>"),
            CqlType::Set(t) => write!(f, "set<{t}>"),
            CqlType::Map(k, v) => write!(f, "map<{k}, {v}>"),
            CqlType::Tuple(items) => {
                f.write_str("tuple<")?;
                comma(f, items)?;
                f.write_str(">")
            }
            CqlType::Frozen(t) => write!(f, "frozen<{t}>"),
            CqlType::Udt(name) => write!(f, "{name}"),
            CqlType::Custom(class) => f.write_str(&quote_string(class)),
            CqlType::Vector(t, n) => write!(f, "vector<{t}, {n}>"),
        }
    }
}

impl Display for Literal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Literal::String(s) => f.write_str(&quote_string(s)),
            Literal::Integer(s) | Literal::Float(s) | Literal::Duration(s) => f.write_str(s),
            Literal::Boolean(b) => write!(f, "{b}"),
            Literal::Blob(bytes) => {
                f.write_str("0x")?;
                bytes.iter().try_for_each(|b| write!(f, "{b:02x}"))
            }
            Literal::Uuid(u) => write!(f, "{u}"),
            Literal::Null => f.write_str("NULL"),
        }
    }
}

impl Display for BindMarker {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            BindMarker::Anonymous(_) => f.write_str("?"),
            BindMarker::Named(name, _) => write!(f, ":{name}"),
        }
    }
}

impl Display for ArithOp {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Mod => "%",
        })
    }
}

impl Display for Term {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Term::Literal(lit) => write!(f, "{lit}"),
            Term::Bind(marker) => write!(f, "{marker}"),
            Term::List(items) => {
                f.write_str("[")?;
                comma(f, items)?;
                f.write_str("]")
            }
            Term::Set(items) => {
                f.write_str("{")?;
                comma(f, items)?;
                f.write_str("}")
            }
            Term::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    let sep = if i > 0 { ", " } else { "" };
                    write!(f, "{sep}{k}: {v}")?;
                }
                f.write_str("}")
            }
            Term::Udt(fields) => {
                f.write_str("{")?;
                for (i, (k, v)) in fields.iter().enumerate() {
                    let sep = if i > 0 { ", " } else { "" };
                    write!(f, "{sep}{k}: {v}")?;
                }
                f.write_str("}")
            }
            Term::Tuple(items) => {
                f.write_str("(")?;
                comma(f, items)?;
                f.write_str(")")
            }
            Term::Function { name, args } => {
                write!(f, "{}(", FunctionName(name))?;
                comma(f, args)?;
                f.write_str(")")
            }
            Term::TypeCast(ty, term) => write!(f, "({ty}) {term}"),
            Term::Cast(term, ty) => write!(f, "CAST({term} AS {ty})"),
            // The space keeps `- -1` from printing as a `--` comment.
            Term::Negate(term) => write!(f, "- {term}"),
            Term::Arith(op, l, r) => write!(f, "{l} {op} {r}"),
            Term::Column(c) => write!(f, "{c}"),
        }
    }
}

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

impl Display for PropertyValue {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            PropertyValue::Constant(lit) => write!(f, "{lit}"),
            PropertyValue::Identifier(word) => f.write_str(word),
            PropertyValue::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    let sep = if i > 0 { ", " } else { "" };
                    write!(f, "{sep}{}: {v}", quote_string(k))?;
                }
                f.write_str("}")
            }
        }
    }
}

impl Display for Property {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}", maybe_quote(&self.name), self.value)
    }
}
