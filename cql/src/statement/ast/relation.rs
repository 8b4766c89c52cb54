//! Sort orders, comparison operators and `WHERE` relations, shared by SELECT, UPDATE, DELETE
//! and materialized views.

use super::term::{BindMarker, Ident, Term};

/// Sort direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    Asc,
    Desc,
}

/// Comparison operators in WHERE relations and IF conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    Eq,
    Lt,
    Lte,
    Gt,
    Gte,
    Neq,
    In,
    NotIn,
    Contains,
    ContainsKey,
    Like,
    IsNot,
}

/// The right-hand side of an `IN`: a parenthesised list or a single bind marker (`IN ?`).
#[derive(Debug, Clone, PartialEq)]
pub enum InValues {
    List(Vec<Term>),
    Bind(BindMarker),
}

/// One `WHERE` relation.
#[derive(Debug, Clone, PartialEq)]
pub enum Relation {
    /// `col op term` (for `IN`/`NOT IN` the term is `Term::Tuple` of the values, or a bind
    /// marker for `IN ?`). `IS NOT NULL` is `op = IsNot` with `Literal::Null`.
    Single {
        column: Ident,
        op: Operator,
        value: Term,
    },
    /// `col IN (...)`, `col IN ?`
    In {
        column: Ident,
        values: InValues,
        negated: bool,
    },
    /// `col[key] op term` (map element).
    Element {
        column: Ident,
        key: Term,
        op: Operator,
        value: Term,
    },
    /// `(c1, c2) op (v1, v2)` or `(c1, c2) op ?`
    Multi {
        columns: Vec<Ident>,
        op: Operator,
        value: Term,
    },
    /// `(c1, c2) IN ((1, 2), (3, 4))` or `(c1, c2) IN ?`
    MultiIn {
        columns: Vec<Ident>,
        values: InValues,
    },
    /// `token(a, b) op term`
    Token {
        columns: Vec<Ident>,
        op: Operator,
        value: Term,
    },
}
