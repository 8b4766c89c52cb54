//! Planning: pure and synchronous. A statement AST plus a schema snapshot in, a plan out.
//! Plans keep their value terms unevaluated (bind markers included) so a prepared statement
//! is planned against the schema and evaluated per execution.

pub(crate) mod common;

pub(crate) mod access;
pub(crate) mod ddl;
pub(crate) mod explain;
pub(crate) mod modify;
pub(crate) mod plan;
pub(crate) mod select;

use cql::statement::ast::{Ident, QualifiedName};
use storage::TableDef;

use crate::error::{CqlResult, SchemaError};
use crate::schema::{Schema, TableRef};

pub(crate) use common::restrictions::ValueSet;

/// The keyspace a statement addresses: its own qualifier, else the session's.
pub(crate) fn keyspace_of(
    name: &QualifiedName,
    session_keyspace: Option<&str>,
) -> CqlResult<String> {
    match (&name.keyspace, session_keyspace) {
        (Some(ks), _) => Ok(ks.name.clone()),
        (None, Some(ks)) => Ok(ks.to_string()),
        (None, None) => Err(SchemaError::NoKeyspace.into()),
    }
}

/// Resolves a table for DML/SELECT, with Cassandra's messages for unknown names.
pub(crate) fn resolve_table(
    schema: &Schema,
    name: &QualifiedName,
    session_keyspace: Option<&str>,
) -> CqlResult<TableRef> {
    let keyspace = keyspace_of(name, session_keyspace)?;
    if schema.keyspace(&keyspace).is_none() {
        return Err(SchemaError::KeyspaceNotFound { keyspace }.into());
    }
    schema.table(&keyspace, &name.name.name).ok_or_else(|| {
        SchemaError::TableNotFound {
            table: name.name.name.clone(),
        }
        .into()
    })
}

/// Index of a column by name, or Cassandra's "Undefined column name" error.
pub(crate) fn column_index(table: &TableDef, ident: &Ident) -> CqlResult<usize> {
    table
        .columns
        .iter()
        .position(|c| c.name == ident.name)
        .ok_or_else(|| {
            SchemaError::UndefinedColumnInTable {
                column: ident.name.clone(),
                keyspace: table.keyspace.clone(),
                table: table.name.clone(),
            }
            .into()
        })
}
