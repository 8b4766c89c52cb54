//! The CQL statement AST. The grammar (`statement::parser`) builds it; the server's planner
//! consumes it. Every node implements `Display` (in `statement::display`) printing canonical
//! CQL that parses back to an equal node.

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

/// A top-level statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    Select(Box<Select>),
    Insert(Box<Insert>),
    Update(Box<Update>),
    Delete(Box<Delete>),
    Batch(Box<Batch>),
    Use(Ident),
    Truncate(QualifiedName),
    CreateKeyspace(CreateKeyspace),
    AlterKeyspace(AlterKeyspace),
    DropKeyspace {
        name: Ident,
        if_exists: bool,
    },
    CreateTable(Box<CreateTable>),
    AlterTable(Box<AlterTable>),
    DropTable {
        name: QualifiedName,
        if_exists: bool,
    },
    CreateIndex(Box<CreateIndex>),
    /// `CREATE MATERIALIZED VIEW`.
    CreateView(Box<CreateView>),
    /// `ALTER MATERIALIZED VIEW [IF EXISTS] v WITH ...`.
    AlterView {
        name: QualifiedName,
        if_exists: bool,
        properties: Vec<Property>,
    },
    /// `DROP MATERIALIZED VIEW [IF EXISTS] v`.
    DropView {
        name: QualifiedName,
        if_exists: bool,
    },
    DropIndex {
        name: QualifiedName,
        if_exists: bool,
    },
    CreateType(CreateType),
    AlterType(AlterType),
    DropType {
        name: QualifiedName,
        if_exists: bool,
    },
    /// DDL for what this server leaves out (user-defined functions and aggregates, triggers):
    /// parsed so it is refused with Cassandra's message for a node where it is disabled.
    Disabled(DisabledDdl),
    Describe(Describe),
    /// Role management (`CREATE ROLE`, `LIST ROLES`, `GRANT role TO role`, ...).
    Role(RoleStatement),
    /// `GRANT/REVOKE/LIST` permissions.
    Permission(PermissionStatement),
    /// `EXPLAIN [ANALYZE] statement`: our extension, not Cassandra's.
    Explain(Box<Explain>),
}

/// `EXPLAIN [ANALYZE] (SELECT | INSERT | UPDATE | DELETE ...)`: describes how the statement
/// would reach its rows; with `ANALYZE` it also runs it and reports what it read. Not a
/// Cassandra statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Explain {
    /// `EXPLAIN ANALYZE`: run the statement and report its counts and time.
    pub analyze: bool,
    /// The explained statement: a SELECT, INSERT, UPDATE or DELETE.
    pub statement: Statement,
}

// ---------- SELECT ----------

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

// ---------- modification statements ----------

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

/// `BEGIN [UNLOGGED|COUNTER] BATCH [USING ...] stmts APPLY BATCH`
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    pub kind: BatchKind,
    pub using: UsingClause,
    pub statements: Vec<Statement>,
}

/// The kind of a batch (also the BATCH message's type byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchKind {
    Logged,
    Unlogged,
    Counter,
}

// ---------- DDL ----------

/// A `WITH` property value.
#[derive(Debug, Clone, PartialEq)]
pub enum PropertyValue {
    /// A constant (string, number, boolean) or bare identifier, as text.
    Constant(Literal),
    Identifier(String),
    /// `{ 'k': v, ... }` with keys and values as strings.
    Map(Vec<(String, Literal)>),
}

/// `name = value` in a `WITH` clause.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub name: String,
    pub value: PropertyValue,
}

/// `CREATE KEYSPACE [IF NOT EXISTS] ks WITH ...`
#[derive(Debug, Clone, PartialEq)]
pub struct CreateKeyspace {
    pub name: Ident,
    pub if_not_exists: bool,
    pub properties: Vec<Property>,
}

/// `ALTER KEYSPACE [IF EXISTS] ks WITH ...`
#[derive(Debug, Clone, PartialEq)]
pub struct AlterKeyspace {
    pub name: Ident,
    pub if_exists: bool,
    pub properties: Vec<Property>,
}

/// A column in `CREATE TABLE`.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDefinition {
    pub name: Ident,
    pub ty: CqlType,
    pub is_static: bool,
    /// `c type PRIMARY KEY`
    pub primary_key: bool,
}

/// `CREATE TABLE [IF NOT EXISTS] t (...) [WITH ...]`
#[derive(Debug, Clone, PartialEq)]
pub struct CreateTable {
    pub name: QualifiedName,
    pub if_not_exists: bool,
    pub columns: Vec<ColumnDefinition>,
    /// From a `PRIMARY KEY ((a, b), c)` clause; empty when a column is marked `PRIMARY KEY`.
    pub partition_key: Vec<Ident>,
    pub clustering_key: Vec<Ident>,
    pub clustering_order: Vec<(Ident, Order)>,
    pub compact_storage: bool,
    pub properties: Vec<Property>,
}

/// `CREATE MATERIALIZED VIEW [IF NOT EXISTS] v AS SELECT selectors FROM t WHERE ...
/// PRIMARY KEY (...) [WITH CLUSTERING ORDER BY (...) AND properties]`
#[derive(Debug, Clone, PartialEq)]
pub struct CreateView {
    pub name: QualifiedName,
    pub if_not_exists: bool,
    /// The base table.
    pub base: QualifiedName,
    /// Empty means `*`.
    pub selectors: Vec<Selector>,
    pub where_clause: Vec<Relation>,
    /// Empty when the statement has no `PRIMARY KEY` clause (refused by the server).
    pub partition_key: Vec<Ident>,
    pub clustering_key: Vec<Ident>,
    pub clustering_order: Vec<(Ident, Order)>,
    pub properties: Vec<Property>,
    /// Whether the statement holds bind markers (refused by the server).
    pub has_bind_markers: bool,
}

/// `ALTER TABLE t ...`
#[derive(Debug, Clone, PartialEq)]
pub struct AlterTable {
    pub name: QualifiedName,
    pub if_exists: bool,
    pub action: AlterTableAction,
}

/// What an ALTER TABLE does.
#[derive(Debug, Clone, PartialEq)]
pub enum AlterTableAction {
    /// `ADD [IF NOT EXISTS] c type [static], ...` (with or without parentheses)
    Add {
        if_not_exists: bool,
        columns: Vec<ColumnDefinition>,
    },
    /// `DROP [IF EXISTS] c, ...` or `DROP (c, d)`, optionally `USING TIMESTAMP n`
    Drop {
        if_exists: bool,
        columns: Vec<Ident>,
        timestamp: Option<i64>,
    },
    /// `RENAME [IF EXISTS] a TO b AND c TO d`
    Rename {
        if_exists: bool,
        renames: Vec<(Ident, Ident)>,
    },
    /// `ALTER c TYPE t` (rejected by Cassandra 4+, kept for the error message)
    AlterType { column: Ident, ty: CqlType },
    /// `WITH ...`
    With(Vec<Property>),
}

/// The target of `CREATE INDEX`.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexTarget {
    Simple(Ident),
    Keys(Ident),
    Values(Ident),
    Entries(Ident),
    Full(Ident),
}

/// `CREATE [CUSTOM] INDEX [IF NOT EXISTS] [name] ON t (target, ...) [USING 'class'] [WITH OPTIONS = {...}]`
#[derive(Debug, Clone, PartialEq)]
pub struct CreateIndex {
    pub name: Option<Ident>,
    pub table: QualifiedName,
    pub targets: Vec<IndexTarget>,
    pub if_not_exists: bool,
    pub custom_class: Option<String>,
    pub options: Vec<(String, String)>,
}

/// `CREATE TYPE [IF NOT EXISTS] ks.t (f type, ...)`
#[derive(Debug, Clone, PartialEq)]
pub struct CreateType {
    pub name: QualifiedName,
    pub if_not_exists: bool,
    pub fields: Vec<(Ident, CqlType)>,
}

/// `ALTER TYPE t ADD f type` / `RENAME a TO b ...`
#[derive(Debug, Clone, PartialEq)]
pub enum AlterType {
    Add {
        name: QualifiedName,
        field: Ident,
        ty: CqlType,
    },
    Rename {
        name: QualifiedName,
        renames: Vec<(Ident, Ident)>,
    },
}

/// `DESCRIBE ...` (server-side describe, Cassandra 4.0+).
#[derive(Debug, Clone, PartialEq)]
pub struct Describe {
    pub target: DescribeTarget,
    pub with_internals: bool,
}

/// What `DESCRIBE` describes.
#[derive(Debug, Clone, PartialEq)]
pub enum DescribeTarget {
    Cluster,
    Schema {
        full: bool,
    },
    Keyspaces,
    /// `[ONLY] KEYSPACE [ks]`
    Keyspace {
        name: Option<Ident>,
        only: bool,
    },
    Tables,
    Table(QualifiedName),
    Index(QualifiedName),
    MaterializedView(QualifiedName),
    Types,
    Type(QualifiedName),
    Functions,
    Function(QualifiedName),
    Aggregates,
    Aggregate(QualifiedName),
    /// A bare name: resolved keyspace, then table, index, view.
    Name(QualifiedName),
}

/// A role statement: who may log in and which roles hold which (Cassandra's role
/// management; `USER` forms are the legacy spellings).
#[derive(Debug, Clone, PartialEq)]
pub enum RoleStatement {
    /// `CREATE ROLE [IF NOT EXISTS] name [WITH options]`, `CREATE USER ...`.
    Create {
        /// The role name.
        name: String,
        /// `IF NOT EXISTS`.
        if_not_exists: bool,
        /// The options given.
        options: RoleOptions,
        /// Written as `CREATE USER` (which implies `LOGIN = true`).
        user: bool,
    },
    /// `ALTER ROLE [IF EXISTS] name WITH options`, `ALTER USER ...`.
    Alter {
        /// The role name.
        name: String,
        /// `IF EXISTS`.
        if_exists: bool,
        /// The options given.
        options: RoleOptions,
        /// Written as `ALTER USER`.
        user: bool,
    },
    /// `DROP ROLE [IF EXISTS] name`, `DROP USER ...`.
    Drop {
        /// The role name.
        name: String,
        /// `IF EXISTS`.
        if_exists: bool,
        /// Written as `DROP USER`.
        user: bool,
    },
    /// `LIST ROLES [OF name] [NORECURSIVE]`, `LIST USERS`.
    List {
        /// `OF name`.
        of: Option<String>,
        /// Without `NORECURSIVE`: the roles granted through other roles too.
        recursive: bool,
        /// Written as `LIST USERS`.
        users: bool,
    },
    /// `GRANT role TO grantee`.
    Grant {
        /// The role granted.
        role: String,
        /// The role it is granted to.
        grantee: String,
    },
    /// `REVOKE role FROM revokee`.
    Revoke {
        /// The role revoked.
        role: String,
        /// The role it is revoked from.
        revokee: String,
    },
}

/// The options of `CREATE ROLE` / `ALTER ROLE` (and the `USER` forms).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RoleOptions {
    /// `PASSWORD = '...'`.
    pub password: Option<String>,
    /// `HASHED PASSWORD = '...'` (a bcrypt hash).
    pub hashed_password: Option<String>,
    /// `LOGIN = true|false`.
    pub login: Option<bool>,
    /// `SUPERUSER = true|false` (`SUPERUSER` / `NOSUPERUSER` for users).
    pub superuser: Option<bool>,
    /// `OPTIONS = {...}`.
    pub options: Option<Vec<(String, String)>>,
}

impl RoleOptions {
    /// Whether no option was given.
    pub fn is_empty(&self) -> bool {
        *self == RoleOptions::default()
    }
}

/// A resource permissions are granted on (Cassandra's `DataResource` and `RoleResource`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthResource {
    /// `ALL KEYSPACES`.
    AllKeyspaces,
    /// `KEYSPACE ks`.
    Keyspace(Ident),
    /// `[TABLE] [ks.]table`.
    Table(QualifiedName),
    /// `ALL ROLES`.
    AllRoles,
    /// `ROLE name`.
    Role(String),
}

/// `GRANT`, `REVOKE` and `LIST` of permissions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionStatement {
    /// `GRANT permissions ON resource TO role`.
    Grant {
        /// The permissions (upper-case names); `None` for `ALL [PERMISSIONS]`.
        permissions: Option<Vec<String>>,
        /// The resource.
        resource: AuthResource,
        /// The grantee.
        role: String,
    },
    /// `REVOKE permissions ON resource FROM role`.
    Revoke {
        /// The permissions; `None` for `ALL [PERMISSIONS]`.
        permissions: Option<Vec<String>>,
        /// The resource.
        resource: AuthResource,
        /// The role they are revoked from.
        role: String,
    },
    /// `LIST permissions [ON resource] [OF role] [NORECURSIVE]`.
    List {
        /// The permissions asked about; `None` for `ALL [PERMISSIONS]`.
        permissions: Option<Vec<String>>,
        /// `ON resource`.
        resource: Option<AuthResource>,
        /// `OF role`.
        of: Option<String>,
        /// Without `NORECURSIVE`: permissions held through granted roles, and on the
        /// resource's parents, too.
        recursive: bool,
    },
}

/// `CREATE`/`DROP` `FUNCTION`, `AGGREGATE` or `TRIGGER`: parsed, never run.
#[derive(Debug, Clone, PartialEq)]
pub enum DisabledDdl {
    /// `CREATE [OR REPLACE] FUNCTION | AGGREGATE [IF NOT EXISTS] name ...`.
    CreateFunction {
        name: QualifiedName,
        aggregate: bool,
    },
    /// `DROP FUNCTION | AGGREGATE [IF EXISTS] name [(types)]`.
    DropFunction {
        name: QualifiedName,
        aggregate: bool,
        args: Option<Vec<CqlType>>,
        if_exists: bool,
    },
    /// `CREATE TRIGGER [IF NOT EXISTS] name ON table USING 'class'`.
    CreateTrigger {
        name: Ident,
        table: QualifiedName,
        class: String,
        if_not_exists: bool,
    },
    /// `DROP TRIGGER [IF EXISTS] name ON table`.
    DropTrigger {
        name: Ident,
        table: QualifiedName,
        if_exists: bool,
    },
}
