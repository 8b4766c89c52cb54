//! `ViewError`: Materialized-view DDL that breaks Cassandra's rules.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

use cql::statement::ast::Ident;
use cql::types::{maybe_quote, ColumnType};

/// Materialized-view DDL that breaks Cassandra's rules.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ViewError {
    /// Origin: cql3/statements/schema/CreateViewStatement.java Raw.extendClusteringOrder
    #[error("Duplicate column '{column}' in CLUSTERING ORDER BY clause for view '{view}'")]
    DuplicateClusteringOrder { column: String, view: String },
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Cannot create a materialized view on a table in a different keyspace")]
    OtherKeyspace,
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Bind variables are not allowed in CREATE MATERIALIZED VIEW statements")]
    BindMarkers,
    /// CREATE MATERIALIZED VIEW while `materialized_views_enabled` is off.
    /// Origin: cql3/statements/schema/CreateViewStatement.java validate
    #[error("Materialized views are disabled. Enable in cassandra.yaml to use.")]
    Disabled,
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Base table '{table}' doesn't exist")]
    UnknownBaseTable { table: String },
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error(
        "Cannot create materialized view '{view}' - a table with the same name already exists"
    )]
    TableNameTaken { view: String },
    /// Origin: schema/TableMetadata.java validate (SchemaConstants.NAME_LENGTH is 222 for views)
    #[error(
        "Table name must not be empty, more than 222 characters long, or contain non-alphanumeric-underscore characters (got '{view}')"
    )]
    InvalidName { view: String },
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Materialized views are not supported on counter tables")]
    CounterBase,
    /// CREATE MATERIALIZED VIEW on a base whose `gc_grace_seconds` is 0.
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error(
        "Cannot create materialized view '{view}' for base table '{base}' with gc_grace_seconds of 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed."
    )]
    ZeroGcGraceBase { view: String, base: String },
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Cannot include static column '{column}' in materialized view '{view}'")]
    StaticColumn { column: String, view: String },
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error(
        "Cannot set default_time_to_live for a materialized view. Data in a materialized view always expire at the same time than the corresponding data in the parent table."
    )]
    DefaultTtl,
    /// A selector with an alias (the selector as written).
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Cannot use aliases when defining a materialized view (got {selector})")]
    Alias { selector: String },
    /// A selector other than a column name (the expression as written).
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error(
        "Can only select columns by name when defining a materialized view (got {expression})"
    )]
    NotAColumn { expression: String },
    /// A selected column the base table does not have.
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply (getExistingColumn)
    #[error("Undefined column name {column} in table {table}")]
    UndefinedColumn { column: Ident, table: String },
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Must provide at least one partition key column for materialized view '{view}'")]
    NoPartitionKey { view: String },
    /// A view key column that is not selected (or not in the base table).
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Unknown column '{column}' referenced in PRIMARY KEY for materialized view '{view}'")]
    UnknownKeyColumn { column: Ident, view: String },
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Duplicate column '{column}' in PRIMARY KEY clause for materialized view '{view}'")]
    DuplicateKeyColumn { column: Ident, view: String },
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Clustering key columns must exactly match columns in CLUSTERING ORDER BY directive")]
    ClusteringOrderMismatch,
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Invalid non-frozen user-defined type '{ty}' for PRIMARY KEY column '{column}'")]
    NonFrozenUdtKey { ty: ColumnType, column: Ident },
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Invalid non-frozen collection type '{ty}' for PRIMARY KEY column '{column}'")]
    NonFrozenCollectionKey { ty: ColumnType, column: Ident },
    /// Base key columns the view key leaves out.
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error(
        "Cannot create materialized view '{view}' without primary key columns {} from base table '{base}'",
        quoted(.columns, ", ")
    )]
    MissingBaseKey {
        view: String,
        columns: Vec<String>,
        base: String,
    },
    /// View key columns beyond the base key, when more than one.
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error(
        "Cannot include more than one non-primary key column in materialized view primary key (got {})",
        quoted(.columns, ", ")
    )]
    TooManyNonKeyColumns { columns: Vec<String> },
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error("Cannot use token relation when defining a materialized view")]
    TokenRelation,
    /// View key columns the WHERE clause does not restrict.
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error(
        "Primary key columns {} must be restricted with 'IS NOT NULL' or otherwise",
        quoted(.columns, ", ")
    )]
    UnrestrictedKey { columns: Vec<String> },
    /// Columns outside the base key restricted other than by `IS NOT NULL`.
    /// Origin: cql3/statements/schema/CreateViewStatement.java apply
    #[error(
        "Non-primary key columns can only be restricted with 'IS NOT NULL' (got: {} restricted illegally)",
        quoted(.columns, ",")
    )]
    IllegalRestriction { columns: Vec<String> },
    /// ALTER or DROP of a view the keyspace does not have.
    /// Origin: cql3/statements/schema/AlterViewStatement.java apply / DropViewStatement.java apply
    #[error("Materialized view '{keyspace}.{view}' doesn't exist")]
    UnknownView { keyspace: String, view: String },
    /// Origin: cql3/statements/schema/AlterViewStatement.java apply
    #[error(
        "Cannot alter gc_grace_seconds of a materialized view to 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed."
    )]
    ZeroGcGrace,
    /// ALTER MATERIALIZED VIEW setting a default TTL.
    /// Origin: schema/TableParams.java / cql3/statements/schema/AlterViewStatement.java apply
    #[error(
        "Forbidden default_time_to_live detected for a materialized view. Data in a materialized view always expire at the same time than the corresponding data in the parent table. default_time_to_live must be set to zero, see CASSANDRA-12868 for more information"
    )]
    ForbiddenDefaultTtl,
}

/// Column names quoted where CQL needs it, joined by `separator`.
fn quoted(columns: &[String], separator: &str) -> String {
    columns
        .iter()
        .map(|c| maybe_quote(c))
        .collect::<Vec<_>>()
        .join(separator)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_lists_are_quoted_and_joined_as_cassandra_does() {
        let columns = vec!["a".to_string(), "Odd".to_string()];
        assert_eq!(
            ViewError::IllegalRestriction {
                columns: columns.clone()
            }
            .to_string(),
            "Non-primary key columns can only be restricted with 'IS NOT NULL' (got: a,\"Odd\" restricted illegally)"
        );
        assert_eq!(
            ViewError::UnrestrictedKey { columns }.to_string(),
            "Primary key columns a, \"Odd\" must be restricted with 'IS NOT NULL' or otherwise"
        );
    }
}
