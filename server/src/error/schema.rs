//! `SchemaError`: Names a statement uses that the schema does not have.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

use cql::types::maybe_quote;

/// Names a statement uses that the schema does not have.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SchemaError {
    /// A table named without a keyspace, on a session with no `USE`.
    #[error(
        "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"
    )]
    NoKeyspace,
    /// The keyspace of a DML or SELECT statement is not in the schema.
    #[error("keyspace {keyspace} does not exist")]
    KeyspaceNotFound { keyspace: String },
    /// The table of a DML or SELECT statement is not in its keyspace.
    #[error("table {table} does not exist")]
    TableNotFound { table: String },
    /// A column name the table does not have.
    #[error("Undefined column name {} in table {keyspace}.{table}", maybe_quote(.column))]
    UndefinedColumnInTable {
        column: String,
        keyspace: String,
        table: String,
    },
    /// A column name the table does not have, where Cassandra does not name the table.
    #[error("Undefined column name {column}")]
    UndefinedColumn { column: String },
    /// DDL or a schema query naming a keyspace that does not exist.
    #[error("Keyspace '{keyspace}' doesn't exist")]
    UnknownKeyspace { keyspace: String },
    /// `USE` of a keyspace that does not exist.
    #[error("Keyspace '{keyspace}' does not exist")]
    KeyspaceDoesNotExist { keyspace: String },
    /// DDL naming a table that does not exist.
    #[error("Table '{keyspace}.{table}' doesn't exist")]
    UnknownTable { keyspace: String, table: String },
}
