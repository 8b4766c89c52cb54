//! Data statements: SELECT (with its selectors), INSERT, UPDATE and DELETE, and the `USING`
//! and `IF` clauses they share. BATCH, which holds statements, is with [`super::Statement`].

use super::relation::{Operator, Order, Relation};
use super::term::{ArithOp, CqlType, Ident, QualifiedName, Term};

/// `SELECT [JSON] [DISTINCT] selectors FROM t [WHERE ...] [GROUP BY ...] [ORDER BY ...]
/// [PER PARTITION LIMIT n] [LIMIT n] [ALLOW FILTERING]`
#[derive(Debug, Clone, PartialEq)]
pub struct Select {
    pub json: bool,
    pub distinct: bool,
    /// Empty means `*`.
    pub selectors: Vec<Selector>,
    pub table: QualifiedName,
    pub where_clause: Vec<Relation>,
    pub group_by: Vec<Ident>,
    pub order_by: Vec<(Ident, Order)>,
    /// `ORDER BY v ANN OF <term> [ASC|DESC]` orderings (Cassandra 5.0 vector search), in the
    /// order written; the planner accepts one.
    pub ann: Vec<(Ident, Term, Order)>,
    pub per_partition_limit: Option<Term>,
    pub limit: Option<Term>,
    pub allow_filtering: bool,
}

/// One selected expression with an optional `AS alias`.
#[derive(Debug, Clone, PartialEq)]
pub struct Selector {
    pub expr: SelectExpr,
    pub alias: Option<Ident>,
}

/// What a selector computes.
#[derive(Debug, Clone, PartialEq)]
pub enum SelectExpr {
    Column(Ident),
    /// `count(*)` and `count(1)`.
    CountAll,
    /// `writetime(c)`, `maxwritetime(c)` and the like keep their function name here.
    WriteTime(Ident),
    Ttl(Ident),
    /// `fn(args)`, including aggregates (`min`, `max`, `sum`, `avg`, `count(c)`) and `token(...)`.
    Function {
        name: QualifiedName,
        args: Vec<SelectExpr>,
    },
    /// `CAST(x AS type)`
    Cast(Box<SelectExpr>, CqlType),
    /// `u.field`
    Field(Box<SelectExpr>, Ident),
    /// `c[k]` or `c[a..b]` element/slice selection.
    Element(Box<SelectExpr>, Box<Term>),
    Slice(Box<SelectExpr>, Option<Box<Term>>, Option<Box<Term>>),
    /// A literal or bind marker used as a selector argument.
    Term(Term),
    Arith(ArithOp, Box<SelectExpr>, Box<SelectExpr>),
    Negate(Box<SelectExpr>),
    /// `(type) selector`: a type hint on a selector that is not a plain term (a hinted term
    /// is `Term(Term::TypeCast(..))`).
    TypeHint(CqlType, Box<SelectExpr>),
}

/// `USING TTL n AND TIMESTAMP n`
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UsingClause {
    pub ttl: Option<Term>,
    pub timestamp: Option<Term>,
    pub timeout: Option<Term>,
}

/// `INSERT INTO t (cols) VALUES (...)` or `INSERT INTO t JSON '...'`.
#[derive(Debug, Clone, PartialEq)]
pub struct Insert {
    pub table: QualifiedName,
    pub values: InsertValues,
    pub if_not_exists: bool,
    pub using: UsingClause,
}

/// The source of an INSERT's values.
#[derive(Debug, Clone, PartialEq)]
pub enum InsertValues {
    Columns {
        columns: Vec<Ident>,
        values: Vec<Term>,
    },
    Json {
        json: Term,
        default_unset: bool,
    },
}

/// `UPDATE t [USING ...] SET ... WHERE ... [IF ...]`
#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    pub table: QualifiedName,
    pub using: UsingClause,
    pub assignments: Vec<Assignment>,
    pub where_clause: Vec<Relation>,
    pub condition: Option<Condition>,
}

/// One `SET` item.
#[derive(Debug, Clone, PartialEq)]
pub enum Assignment {
    /// `c = term`
    Set { column: Ident, value: Term },
    /// `c = c + term`, `c = c - term`, `c += term`, `c -= term`
    Modify {
        column: Ident,
        op: ArithOp,
        value: Term,
    },
    /// `c = term + c` (list prepend)
    Prepend { column: Ident, value: Term },
    /// `c[k] = term`
    Element {
        column: Ident,
        key: Term,
        value: Term,
    },
    /// `c.field = term`
    Field {
        column: Ident,
        field: Ident,
        value: Term,
    },
}

/// `IF EXISTS` or `IF cond AND cond`.
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    Exists,
    Columns(Vec<ColumnCondition>),
}

/// One LWT condition: `c op v`, `c[k] op v`, `c.f op v`, `c IN (...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnCondition {
    pub column: Ident,
    pub element: Option<Term>,
    pub field: Option<Ident>,
    pub op: Operator,
    /// For `IN`, a `Term::Tuple` of the candidates or a bind marker.
    pub value: Term,
}

/// `DELETE [cols] FROM t [USING TIMESTAMP n] WHERE ... [IF ...]`
#[derive(Debug, Clone, PartialEq)]
pub struct Delete {
    pub columns: Vec<DeleteTarget>,
    pub table: QualifiedName,
    pub using: UsingClause,
    pub where_clause: Vec<Relation>,
    pub condition: Option<Condition>,
}

/// A column, or an element/field of one, named in `DELETE`.
#[derive(Debug, Clone, PartialEq)]
pub enum DeleteTarget {
    Column(Ident),
    Element(Ident, Term),
    Field(Ident, Ident),
}
