//! `SchemaError`: Names a statement uses that the schema does not have.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

use cql::types::maybe_quote;

/// Names a statement uses that the schema does not have.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SchemaError {
    /// A table named without a keyspace, on a session with no `USE`.
    /// Origin: service/ClientState.java getKeyspace
    #[error(
        "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"
    )]
    NoKeyspace,
    /// The keyspace of a DML or SELECT statement is not in the schema.
    /// Origin: schema/Schema.java validateTable
    #[error("keyspace {keyspace} does not exist")]
    KeyspaceNotFound { keyspace: String },
    /// The table of a DML or SELECT statement is not in its keyspace.
    /// Origin: schema/Schema.java validateTable
    #[error("table {table} does not exist")]
    TableNotFound { table: String },
    /// A column name the table does not have.
    /// Origin: schema/TableMetadata.java getExistingColumn
    #[error("Undefined column name {} in table {keyspace}.{table}", maybe_quote(.column))]
    UndefinedColumnInTable {
        column: String,
        keyspace: String,
        table: String,
    },
    /// A column name the table does not have, where Cassandra does not name the table.
    /// Origin: cql3/selection/Selectable.java / schema/ColumnMetadata.java Raw.prepare ("Undefined column name %s")
    #[error("Undefined column name {column}")]
    UndefinedColumn { column: String },
    /// DDL or a schema query naming a keyspace that does not exist.
    /// Origin: cql3/statements/schema/AlterSchemaStatement.java subclasses apply ("Keyspace '%s' doesn't exist")
    #[error("Keyspace '{keyspace}' doesn't exist")]
    UnknownKeyspace { keyspace: String },
    /// `USE` of a keyspace that does not exist.
    /// Origin: service/ClientState.java setKeyspace
    #[error("Keyspace '{keyspace}' does not exist")]
    KeyspaceDoesNotExist { keyspace: String },
    /// DDL naming a table that does not exist.
    /// Origin: cql3/statements/schema/AlterTableStatement.java apply / DropTableStatement.java apply
    #[error("Table '{keyspace}.{table}' doesn't exist")]
    UnknownTable { keyspace: String, table: String },
}
