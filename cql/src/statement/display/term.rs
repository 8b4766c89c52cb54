//! `Display` for identifiers, names, types, literals, bind markers and terms.

use std::fmt::{self, Display, Formatter};

use super::clause::{comma, quote_string};
use crate::statement::ast::{ArithOp, BindMarker, CqlType, Ident, Literal, QualifiedName, Term};
use crate::types::maybe_quote;

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
pub(super) struct FunctionName<'a>(pub(super) &'a QualifiedName);

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
