//! Planning: pure and synchronous. A statement AST plus a schema snapshot in, a plan out.
//! Plans keep their value terms unevaluated (bind markers included) so a prepared statement
//! is planned against the schema and evaluated per execution.

pub(crate) mod access;
pub(crate) mod aggregate;
pub mod ann;
pub(crate) mod applied_aggregate;
pub mod batch_bind;
pub mod bind;
pub mod bind_info;
pub mod clustering;
pub mod conditions;
pub mod counters;
pub(crate) mod ddl;
pub(crate) mod delete;
pub mod explain;
pub mod grouping;
pub mod index_choice;
pub mod modify;
mod modify_print;
pub mod operations;
pub mod ordering;
pub(crate) mod output;
pub mod plan;
pub(crate) mod relation_order;
pub mod restrictions;
pub(crate) mod sai_options;
pub(crate) mod sai_terms;
pub mod select;
mod select_print;
pub mod selection;
pub(crate) mod selection_only;
pub mod selector;
pub mod token;

use cql::statement::ast::{Ident, QualifiedName};
use storage::TableDef;

use crate::error::{CqlResult, SchemaError};
use crate::schema::{Schema, TableRef};

pub use restrictions::ValueSet;

/// The keyspace a statement addresses: its own qualifier, else the session's.
pub fn keyspace_of(name: &QualifiedName, session_keyspace: Option<&str>) -> CqlResult<String> {
    match (&name.keyspace, session_keyspace) {
        (Some(ks), _) => Ok(ks.name.clone()),
        (None, Some(ks)) => Ok(ks.to_string()),
        (None, None) => Err(SchemaError::NoKeyspace.into()),
    }
}

/// Resolves a table for DML/SELECT, with Cassandra's messages for unknown names.
pub fn resolve_table(
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
pub fn column_index(table: &TableDef, ident: &Ident) -> CqlResult<usize> {
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

#[cfg(test)]
mod modify_tests;
#[cfg(test)]
pub(crate) mod select_tests;
