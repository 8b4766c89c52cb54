//! `DdlError`: Keyspace and table DDL (CREATE, ALTER, DROP) that breaks Cassandra's rules.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

use cql::types::{maybe_quote, ColumnType};

/// Keyspace and table DDL (CREATE, ALTER, DROP) that breaks Cassandra's rules.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DdlError {
    // Names and the statements themselves.
    /// A CREATE KEYSPACE name that is empty, too long or not alphanumeric-underscore.
    #[error("Keyspace name must not be empty, more than {max_length} characters long, or contain non-alphanumeric-underscore characters (got '{keyspace}')")]
    InvalidKeyspaceName { keyspace: String, max_length: usize },
    /// A CREATE TABLE name that is empty, too long or not alphanumeric-underscore.
    #[error("Table name must not be empty, more than {max_length} characters long, or contain non-alphanumeric-underscore characters (got '{table}')")]
    InvalidTableName { table: String, max_length: usize },
    /// A schema statement this server does not run; `statement` is its CQL text.
    #[error("This schema statement is not supported yet: {statement}")]
    UnsupportedStatement { statement: String },
    /// A schema change in `system`, `system_schema` and the like.
    #[error("System keyspace '{keyspace}' is not user-modifiable")]
    SystemKeyspaceNotModifiable { keyspace: String },
    /// A schema change in a virtual keyspace.
    #[error("Virtual keyspace '{keyspace}' is not user-modifiable")]
    VirtualKeyspaceNotModifiable { keyspace: String },

    // CREATE TABLE.
    #[error("Duplicate column '{column}' declaration for table '{table}'")]
    DuplicateColumn { column: String, table: String },
    #[error("Multiple PRIMARY KEY specified for table '{table}' (exactly one required)")]
    MultiplePrimaryKeys { table: String },
    // "specifed" is Cassandra's spelling.
    #[error("No PRIMARY KEY specifed for table '{table}' (exactly one required)")]
    NoPrimaryKey { table: String },
    #[error("Unknown column '{column}' referenced in PRIMARY KEY for table '{table}'")]
    UnknownKeyColumn { column: String, table: String },
    #[error("Duplicate column '{column}' in PRIMARY KEY clause for table '{table}'")]
    DuplicateKeyColumn { column: String, table: String },
    /// A primary-key column of a non-frozen collection or user type.
    #[error("Invalid non-frozen {} type {ty} for PRIMARY KEY column '{column}'", multi_cell_kind(.ty))]
    NonFrozenKeyColumn { column: String, ty: Box<ColumnType> },
    #[error("counter type is not supported for PRIMARY KEY column '{column}'")]
    CounterKeyColumn { column: String },
    #[error("duration type is not supported for PRIMARY KEY column '{column}'")]
    DurationKeyColumn { column: String },
    #[error("Static column '{column}' cannot be part of the PRIMARY KEY")]
    StaticKeyColumn { column: String },
    /// A CLUSTERING ORDER naming more columns than the clustering key, or a column outside it.
    #[error("Only clustering columns can be defined in CLUSTERING ORDER directive")]
    ClusteringOrderNotClustering,
    /// A CLUSTERING ORDER listing clustering columns out of their order.
    #[error("The order of columns in the CLUSTERING ORDER directive must match that of the clustering columns ({expected} must appear before {found})")]
    ClusteringOrderMismatch { expected: String, found: String },
    /// A CLUSTERING ORDER that skips a clustering column before one it lists.
    #[error("Missing CLUSTERING ORDER for column {column}")]
    MissingClusteringOrder { column: String },
    /// A static column in a table (or a table being altered) without clustering columns.
    #[error("Static columns are only useful (and thus allowed) if the table has at least one clustering column")]
    StaticWithoutClustering,
    #[error("Cannot mix counter and non counter columns in the same table")]
    MixedCounterColumns,
    #[error("Cannot set default_time_to_live on a table with counters")]
    CounterTableTtl,
    /// CREATE TABLE with a non-frozen user-type column that has a non-frozen collection field.
    #[error("Non-frozen UDTs with nested non-frozen collections are not supported")]
    NestedNonFrozenCollection,

    // Types as written in DDL.
    #[error("frozen<> is only allowed on collections, tuples, and user-defined types")]
    FrozenNonCollection,
    /// A user type qualified with another keyspace than the statement's.
    #[error("Statement on keyspace {keyspace} cannot refer to a user type in keyspace {type_keyspace}; user types can only be used in the keyspace they are defined in")]
    ForeignUserType {
        keyspace: String,
        type_keyspace: String,
    },
    #[error("Unknown type {keyspace}.{name}")]
    UnknownType { keyspace: String, name: String },
    /// A non-frozen user type nested in a collection; `ty` is the type as written.
    #[error("Non-frozen UDTs are not allowed inside collections: {ty}")]
    NonFrozenUdtInCollection { ty: String },
    /// A non-frozen collection nested in another; `ty` is the type as written.
    #[error("Non-frozen collections are not allowed inside collections: {ty}")]
    NonFrozenCollectionInCollection { ty: String },
    /// A counter element, key or value; `ty` is the collection as written.
    #[error("Counters are not allowed inside collections: {ty}")]
    CounterInCollection { ty: String },
    /// A duration set element; `ty` is the set as written.
    #[error("Durations are not allowed inside sets: {ty}")]
    DurationInSet { ty: String },
    /// A duration map key; `ty` is the map as written.
    #[error("Durations are not allowed as map keys: {ty}")]
    DurationMapKey { ty: String },
    #[error("vectors may only have positive dimensions; given {dimension}")]
    NonPositiveVectorDimension { dimension: i32 },

    // DROP TABLE, ALTER TABLE, TRUNCATE.
    #[error(
        "Cannot use DROP TABLE on a materialized view. Please use DROP MATERIALIZED VIEW instead."
    )]
    DropTableOnView,
    /// DROP TABLE of a base table with views; Cassandra names the keyspace, not the views.
    #[error("Cannot drop a table when materialized views still depend on it ({keyspace})")]
    DropTableWithViews { keyspace: String },
    #[error("Cannot use ALTER TABLE on a materialized view; use ALTER MATERIALIZED VIEW instead")]
    AlterTableOnView,
    #[error("Altering column types is no longer supported")]
    AlterColumnType,
    #[error("Cannot TRUNCATE materialized view directly; must truncate base table instead")]
    TruncateView,
    /// ALTER TABLE ADD of a column the table has (or the statement adds twice).
    #[error("Column with name '{column}' already exists")]
    ColumnExists { column: String },
    /// ALTER TABLE ADD of a non-frozen user-type column with a non-frozen collection field.
    #[error(
        "Non-frozen UDTs with nested non-frozen collections are not supported for column {column}"
    )]
    NestedNonFrozenCollectionColumn { column: String },
    #[error("Cannot add a counter column ({column}) in a non counter column family")]
    CounterInNonCounterTable { column: String },
    #[error("Cannot add a non counter column ({column}) in a counter column family")]
    NonCounterInCounterTable { column: String },
    /// Re-adding a dropped column with a type its old cells cannot be read as.
    #[error("Cannot re-add previously dropped column '{column}' of type {ty}, incompatible with previous type {previous}")]
    ReaddedIncompatibleType {
        column: String,
        ty: Box<ColumnType>,
        previous: Box<ColumnType>,
    },
    /// Re-adding a dropped column as static when it was regular, or the reverse.
    #[error("Cannot re-add previously dropped column '{column}' of kind {}, incompatible with previous kind {}", column_kind(.is_static), column_kind(.was_static))]
    ReaddedIncompatibleKind {
        column: String,
        is_static: bool,
        was_static: bool,
    },
    #[error("Cannot re-add previously dropped counter column {column}")]
    ReaddedCounter { column: String },
    /// ALTER TABLE DROP of a column the table does not have.
    #[error("Column {column} was not found in table '{table}'")]
    DropColumnNotFound { column: String, table: String },
    #[error("Cannot drop PRIMARY KEY column {column}")]
    DropPrimaryKeyColumn { column: String },
    #[error("Cannot drop column {column} on base table {table} with materialized views")]
    DropColumnWithViews { column: String, table: String },
    /// ALTER TABLE RENAME of a column the table does not have; `column` as written.
    #[error("Column {column} was not found in table {}.{}", maybe_quote(.keyspace), maybe_quote(.table))]
    RenameColumnNotFound {
        column: String,
        keyspace: String,
        table: String,
    },
    /// ALTER TABLE RENAME of a regular or static column; `column` as written.
    #[error("Cannot rename non PRIMARY KEY column {column}")]
    RenameNonPrimaryKey { column: String },
    /// ALTER TABLE RENAME to a name the table has; both names as written.
    #[error("Cannot rename column {column} to {new_name} in table '{}.{}'; another column with that name already exists", maybe_quote(.keyspace), maybe_quote(.table))]
    RenameTargetExists {
        column: String,
        new_name: String,
        keyspace: String,
        table: String,
    },
    /// ALTER TABLE RENAME of a column secondary indexes depend on; `column` as written.
    #[error("Cannot rename column {column} because it has dependent secondary indexes ({})", .indexes.join(", "))]
    RenameIndexedColumn {
        column: String,
        indexes: Vec<String>,
    },

    // FUNCTION, AGGREGATE and TRIGGER DDL, which this server answers as a node with UDFs
    // disabled and no trigger class to load.
    /// CREATE FUNCTION or CREATE AGGREGATE (`what`: `functions`, `aggregates`): this server
    /// runs no user code, whatever `user_defined_functions_enabled` says.
    /// Origin: ours — Cassandra runs them when the setting allows; its refusal
    /// (`UDFunction.assertUdfsEnabled`) would point at a setting that does not help here.
    #[error("cqld does not run user-defined {what}: CREATE {statement} is not supported, whatever user_defined_functions_enabled says")]
    UdfsNotRun {
        what: &'static str,
        statement: &'static str,
    },
    /// DROP FUNCTION of a function that does not exist; `args` the argument types if given.
    #[error("Function '{keyspace}.{function}{}' doesn't exist", signature(.args))]
    FunctionNotFound {
        keyspace: String,
        function: String,
        args: Option<Vec<String>>,
    },
    /// DROP AGGREGATE of an aggregate that does not exist; `args` the argument types if given.
    #[error("Aggregate '{keyspace}.{function}{}' doesn't exist", signature(.args))]
    AggregateNotFound {
        keyspace: String,
        function: String,
        args: Option<Vec<String>>,
    },
    /// CREATE TRIGGER on a table that does not exist; Cassandra names the table alone.
    #[error("Table '{table}' doesn't exist")]
    TriggerTableNotFound { table: String },
    #[error("Trigger class '{class}' couldn't be loaded")]
    TriggerClassNotLoaded { class: String },
    #[error("Trigger '{trigger}' on '{keyspace}.{table}' doesn't exist")]
    TriggerNotFound {
        trigger: String,
        keyspace: String,
        table: String,
    },

    // Guardrails past their fail threshold (Cassandra's `Guardrails`), which refuse the
    // statement as Invalid.
    /// More partition keys in an IN restriction on `table` than `partition_keys_in_select`
    /// allows.
    #[error("Guardrail partition_keys_in_select violated: Aborting query with partition keys in IN clause on table {table}, number of partition keys {keys} exceeds fail threshold of {threshold}.")]
    PartitionKeysInSelect {
        table: String,
        keys: u64,
        threshold: i64,
    },
    /// A cartesian product of IN restrictions on the `what` columns (`partition key` or
    /// `clustering key`) larger than `in_select_cartesian_product` allows.
    #[error("Guardrail in_select_cartesian_product violated: Aborting query because the cartesian product of the IN restrictions on {what} produces {size} values, this exceeds fail threshold of {threshold}.")]
    InSelectCartesianProduct {
        what: String,
        size: u64,
        threshold: i64,
    },
    /// A value written to `column` larger than `column_value_size` allows.
    #[error("Guardrail column_value_size violated: Value of column {column} has size {size}, this exceeds the failure threshold of {threshold}.")]
    ColumnValueSize {
        column: String,
        size: u64,
        threshold: i64,
    },
    /// A collection written to `column` larger than `collection_size` allows.
    #[error("Guardrail collection_size violated: Detected collection {column} of size {size}, this exceeds the failure threshold of {threshold}.")]
    CollectionSize {
        column: String,
        size: u64,
        threshold: i64,
    },
    /// A collection written to `column` with more items than `items_per_collection` allows.
    #[error("Guardrail items_per_collection violated: Detected collection {column} with {items} items, this exceeds the failure threshold of {threshold}.")]
    ItemsPerCollection {
        column: String,
        items: u64,
        threshold: i64,
    },
}

/// What Cassandra calls a non-frozen (multi-cell) type: a collection or a user type.
fn multi_cell_kind(ty: &ColumnType) -> &'static str {
    if ty.is_collection() {
        "collection"
    } else {
        "user-defined"
    }
}

/// A column's kind as Cassandra prints it when re-adding a dropped column.
fn column_kind(is_static: &bool) -> &'static str {
    if *is_static {
        "STATIC"
    } else {
        "REGULAR"
    }
}

/// A function's argument types as DROP FUNCTION printed them: `(int, text)`, or nothing.
fn signature(args: &Option<Vec<String>>) -> String {
    args.as_ref()
        .map(|args| format!("({})", args.join(", ")))
        .unwrap_or_default()
}
