//! The CQL statement AST. The grammar (`statement::parser`) builds it; the server's planner
//! consumes it. Every node implements `Display` (in `statement::display`) printing canonical
//! CQL that parses back to an equal node.
//!
//! The nodes are grouped by family in private modules and all re-exported here, so every node
//! is `ast::Name`: `term` (identifiers, types, literals, terms), `relation` (orders,
//! operators, `WHERE` relations), `dml` (SELECT, INSERT, UPDATE, DELETE), `ddl` (schema
//! statements, DESCRIBE, refused DDL) and `auth` (roles, permissions). [`Statement`] and the
//! statements that hold statements (BATCH, EXPLAIN) are here, so no family depends on this
//! module.

mod auth;
mod ddl;
mod dml;
mod relation;
mod term;

pub use auth::{AuthResource, PermissionStatement, RoleOptions, RoleStatement};
pub use ddl::{
    AlterKeyspace, AlterTable, AlterTableAction, AlterType, ColumnDefinition, CreateIndex,
    CreateKeyspace, CreateTable, CreateType, CreateView, Describe, DescribeTarget, DisabledDdl,
    IndexTarget, Property, PropertyValue,
};
pub use dml::{
    Assignment, ColumnCondition, Condition, Delete, DeleteTarget, Insert, InsertValues, Select,
    SelectExpr, Selector, Update, UsingClause,
};
pub use relation::{InValues, Operator, Order, Relation};
pub use term::{ArithOp, BindMarker, CqlType, Ident, Literal, QualifiedName, Term};

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
