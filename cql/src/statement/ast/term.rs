//! Identifiers, types, literals and terms: the values every statement is built from.

use crate::types::ColumnType;

/// An identifier as written: `quoted` identifiers keep their case, unquoted ones are
/// lower-cased by the parser (so `name` is already the effective name).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ident {
    /// The effective name (lower-cased unless it was quoted).
    pub name: String,
    /// Whether it was written in double quotes.
    pub quoted: bool,
}

/// `[keyspace.]name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct QualifiedName {
    pub keyspace: Option<Ident>,
    pub name: Ident,
}

/// A type as written in DDL or a cast. UDT names stay unresolved until the planner looks them up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CqlType {
    /// A native type (`int`, `text`, ...).
    Native(ColumnType),
    List(Box<CqlType>),
    Set(Box<CqlType>),
    Map(Box<CqlType>, Box<CqlType>),
    Tuple(Vec<CqlType>),
    /// `frozen<...>`.
    Frozen(Box<CqlType>),
    /// A user-defined type name, possibly keyspace-qualified.
    Udt(QualifiedName),
    /// A custom type given by a quoted class name.
    Custom(String),
    /// `vector<type, n>`.
    Vector(Box<CqlType>, i32),
}

/// A literal constant. Numbers keep their source text so the planner can type them exactly.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// A single-quoted or `$$`-quoted string, unescaped.
    String(String),
    /// An integer literal, with its sign, as written (`-12`, `123456789012345678901`).
    Integer(String),
    /// A float literal as written (`1.5`, `-2e10`, `NaN`, `Infinity`, `-Infinity`).
    Float(String),
    Boolean(bool),
    /// `0x...`, as bytes.
    Blob(Vec<u8>),
    /// An unquoted UUID literal.
    Uuid(uuid::Uuid),
    /// A duration literal (`1h30m`, `P1DT2H`, `-3d`), as written.
    Duration(String),
    Null,
}

/// A bind marker: `?` (positional) or `:name`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BindMarker {
    /// `?`, numbered from 0 in order of appearance in the statement text.
    Anonymous(usize),
    /// `:name`, also numbered in order of appearance.
    Named(Ident, usize),
}

/// Binary operators allowed in terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// A value expression (`term` in Cassandra's grammar).
#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    Literal(Literal),
    Bind(BindMarker),
    /// `[a, b]`
    List(Vec<Term>),
    /// `{a, b}`
    Set(Vec<Term>),
    /// `{k: v, ...}` (also an empty `{}`, whose type the context decides)
    Map(Vec<(Term, Term)>),
    /// `{field: v, ...}` — only distinguishable from a map by its unquoted identifier keys.
    Udt(Vec<(Ident, Term)>),
    /// `(a, b)`
    Tuple(Vec<Term>),
    /// `fn(args)`, possibly keyspace-qualified. `token(...)`, `now()` etc. are plain calls.
    Function {
        name: QualifiedName,
        args: Vec<Term>,
    },
    /// `(type) term`: a type hint.
    TypeCast(CqlType, Box<Term>),
    /// `CAST(term AS type)`: a conversion.
    Cast(Box<Term>, CqlType),
    /// `-term` applied to a non-literal.
    Negate(Box<Term>),
    Arith(ArithOp, Box<Term>, Box<Term>),
    /// A column reference, only valid where the grammar allows it (e.g. `SET c = c + 1`).
    Column(Ident),
}
