//! Schema statements: keyspaces, tables, materialized views, indexes and user types with their
//! `WITH` properties, DESCRIBE, and the DDL this server parses only to refuse (functions,
//! aggregates, triggers).

use super::dml::Selector;
use super::relation::{Order, Relation};
use super::term::{CqlType, Ident, Literal, QualifiedName};

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
