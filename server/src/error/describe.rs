//! `DescribeError`: DESCRIBE of something the schema does not have.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// DESCRIBE of something the schema does not have.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DescribeError {
    /// A name the keyspace has no table, view or index for (generic DESCRIBE).
    /// Origin: cql3/statements/DescribeStatement.java generic
    #[error("'{name}' not found in keyspace '{keyspace}'")]
    NotFoundInKeyspace { name: String, keyspace: String },
    /// A DESCRIBE needing a keyspace, without one named or in use.
    /// Origin: cql3/statements/DescribeStatement.java Element.describe
    #[error("No keyspace specified and no current keyspace")]
    NoKeyspace,
    /// Origin: cql3/statements/DescribeStatement.java validateKeyspace
    #[error("'{keyspace}' not found in keyspaces")]
    KeyspaceNotFound { keyspace: String },
    /// Origin: cql3/statements/DescribeStatement.java type
    #[error("User defined type '{name}' not found in '{keyspace}'")]
    TypeNotFound { keyspace: String, name: String },
    /// Origin: cql3/statements/DescribeStatement.java table
    #[error("Table '{table}' not found in keyspace '{keyspace}'")]
    TableNotFound { keyspace: String, table: String },
    /// DESCRIBE INDEX of an index no table of the keyspace has.
    /// Origin: cql3/statements/DescribeStatement.java index
    #[error("Table for existing index '{index}' not found in '{keyspace}'")]
    IndexNotFound { index: String, keyspace: String },
    /// DESCRIBE FUNCTION of a function the keyspace does not have.
    /// Origin: cql3/statements/DescribeStatement.java function
    #[error("User defined function '{name}' not found in '{keyspace}'")]
    FunctionNotFound { name: String, keyspace: String },
    /// DESCRIBE AGGREGATE of an aggregate the keyspace does not have.
    /// Origin: cql3/statements/DescribeStatement.java aggregate
    #[error("User defined aggregate '{name}' not found in '{keyspace}'")]
    AggregateNotFound { name: String, keyspace: String },
    /// Origin: cql3/statements/DescribeStatement.java view
    #[error("Materialized view '{view}' not found in '{keyspace}'")]
    ViewNotFound { keyspace: String, view: String },
}
