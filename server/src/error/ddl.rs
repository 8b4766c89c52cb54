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
    /// Origin: cql3/statements/schema/CreateKeyspaceStatement.java apply (SchemaConstants.isValidName)
    #[error("Keyspace name must not be empty, more than {max_length} characters long, or contain non-alphanumeric-underscore characters (got '{keyspace}')")]
    InvalidKeyspaceName { keyspace: String, max_length: usize },
    /// A CREATE TABLE name that is empty, too long or not alphanumeric-underscore.
    /// Origin: schema/TableMetadata.java validate
    #[error("Table name must not be empty, more than {max_length} characters long, or contain non-alphanumeric-underscore characters (got '{table}')")]
    InvalidTableName { table: String, max_length: usize },
    /// A schema statement this server does not run; `statement` is its CQL text.
    /// Origin: ours — a schema statement this server does not run
    #[error("This schema statement is not supported yet: {statement}")]
    UnsupportedStatement { statement: String },
    /// A schema change in `system`, `system_schema` and the like.
    /// Origin: cql3/statements/schema/AlterSchemaStatement.java validate
    #[error("System keyspace '{keyspace}' is not user-modifiable")]
    SystemKeyspaceNotModifiable { keyspace: String },
    /// CREATE or ALTER KEYSPACE with `LocalStrategy` (refused as Invalid, before the options
    /// are validated).
    /// Origin: cql3/statements/schema/CreateKeyspaceStatement.java apply / AlterKeyspaceStatement.java apply
    #[error("Unable to use given strategy class: LocalStrategy is reserved for internal use.")]
    LocalStrategy,
    /// A schema change in a virtual keyspace.
    /// Origin: cql3/statements/schema/AlterSchemaStatement.java validate
    #[error("Virtual keyspace '{keyspace}' is not user-modifiable")]
    VirtualKeyspaceNotModifiable { keyspace: String },

    // CREATE TABLE.
    /// Origin: cql3/statements/schema/CreateTableStatement.java Raw.addColumn (the table as written, QualifiedName.toString)
    #[error("Duplicate column '{column}' declaration for table '{table}'")]
    DuplicateColumn { column: String, table: String },
    /// Origin: cql3/statements/schema/CreateTableStatement.java Raw.setPartitionKeyColumns (the table as written)
    #[error("Multiple PRIMARY KEY specified for table '{table}' (exactly one required)")]
    MultiplePrimaryKeys { table: String },
    // "specifed" is Cassandra's spelling.
    /// Origin: cql3/statements/schema/CreateTableStatement.java Raw.prepare (the table as written)
    #[error("No PRIMARY KEY specifed for table '{table}' (exactly one required)")]
    NoPrimaryKey { table: String },
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("Unknown column '{column}' referenced in PRIMARY KEY for table '{table}'")]
    UnknownKeyColumn { column: String, table: String },
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("Duplicate column '{column}' in PRIMARY KEY clause for table '{table}'")]
    DuplicateKeyColumn { column: String, table: String },
    /// A primary-key column of a non-frozen collection or user type.
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("Invalid non-frozen {} type {ty} for PRIMARY KEY column '{column}'", multi_cell_kind(.ty))]
    NonFrozenKeyColumn { column: String, ty: Box<ColumnType> },
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("counter type is not supported for PRIMARY KEY column '{column}'")]
    CounterKeyColumn { column: String },
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("duration type is not supported for PRIMARY KEY column '{column}'")]
    DurationKeyColumn { column: String },
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("Static column '{column}' cannot be part of the PRIMARY KEY")]
    StaticKeyColumn { column: String },
    /// A CLUSTERING ORDER naming columns outside the clustering key, listed as Java prints a
    /// list (`[a, b]`).
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder (nonClusterColumn)
    #[error("Only clustering key columns can be defined in CLUSTERING ORDER directive: [{}] are not clustering columns", .columns.join(", "))]
    ClusteringOrderNotClustering { columns: Vec<String> },
    /// A CLUSTERING ORDER naming a column twice.
    /// Origin: cql3/statements/schema/CreateTableStatement.java Raw.extendClusteringOrder
    #[error("Duplicate column '{column}' in CLUSTERING ORDER BY clause for table '{table}'")]
    DuplicateClusteringOrder { column: String, table: String },
    /// A CLUSTERING ORDER listing clustering columns out of their order.
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("The order of columns in the CLUSTERING ORDER directive must match that of the clustering columns ({expected} must appear before {found})")]
    ClusteringOrderMismatch { expected: String, found: String },
    /// A CLUSTERING ORDER that skips a clustering column before one it lists.
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("Missing CLUSTERING ORDER for column {column}")]
    MissingClusteringOrder { column: String },
    /// A static column in a table (or a table being altered) without clustering columns.
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("Static columns are only useful (and thus allowed) if the table has at least one clustering column")]
    StaticWithoutClustering,
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("Cannot mix counter and non counter columns in the same table")]
    MixedCounterColumns,
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("Cannot set default_time_to_live on a table with counters")]
    CounterTableTtl,
    /// CREATE TABLE with a non-frozen user-type column that has a non-frozen collection field.
    /// Origin: cql3/statements/schema/CreateTableStatement.java builder
    #[error("Non-frozen UDTs with nested non-frozen collections are not supported")]
    NestedNonFrozenCollection,

    // Types as written in DDL.
    /// Origin: cql3/CQL3Type.java Raw.RawType.freeze
    #[error("frozen<> is only allowed on collections, tuples, and user-defined types")]
    FrozenNonCollection,
    /// A user type qualified with another keyspace than the statement's.
    /// Origin: cql3/CQL3Type.java Raw.RawUT.prepare
    #[error("Statement on keyspace {keyspace} cannot refer to a user type in keyspace {type_keyspace}; user types can only be used in the keyspace they are defined in")]
    ForeignUserType {
        keyspace: String,
        type_keyspace: String,
    },
    /// Origin: cql3/CQL3Type.java Raw.RawUT.prepare
    #[error("Unknown type {keyspace}.{name}")]
    UnknownType { keyspace: String, name: String },
    /// A non-frozen user type nested in a collection; `ty` is the type as written.
    /// Origin: cql3/CQL3Type.java Raw.RawCollection.prepareInternal
    #[error("Non-frozen UDTs are not allowed inside collections: {ty}")]
    NonFrozenUdtInCollection { ty: String },
    /// A non-frozen collection nested in another; `ty` is the type as written.
    /// Origin: cql3/CQL3Type.java Raw.RawCollection.prepareInternal
    #[error("Non-frozen collections are not allowed inside collections: {ty}")]
    NonFrozenCollectionInCollection { ty: String },
    /// A counter element, key or value; `ty` is the collection as written.
    /// Origin: cql3/CQL3Type.java Raw.RawCollection.prepareInternal
    #[error("Counters are not allowed inside collections: {ty}")]
    CounterInCollection { ty: String },
    /// A duration set element; `ty` is the set as written.
    /// Origin: cql3/CQL3Type.java Raw.RawCollection.prepareInternal
    #[error("Durations are not allowed inside sets: {ty}")]
    DurationInSet { ty: String },
    /// A duration map key; `ty` is the map as written.
    /// Origin: cql3/CQL3Type.java Raw.RawCollection.prepareInternal
    #[error("Durations are not allowed as map keys: {ty}")]
    DurationMapKey { ty: String },
    /// Origin: db/marshal/VectorType.java VectorType(AbstractType, int)
    #[error("vectors may only have positive dimensions; given {dimension}")]
    NonPositiveVectorDimension { dimension: i32 },

    // DROP TABLE, ALTER TABLE, TRUNCATE.
    /// Origin: cql3/statements/schema/DropTableStatement.java apply
    #[error(
        "Cannot use DROP TABLE on a materialized view. Please use DROP MATERIALIZED VIEW instead."
    )]
    DropTableOnView,
    /// DROP TABLE of a base table with views; Cassandra names the keyspace, not the views.
    /// Origin: cql3/statements/schema/DropTableStatement.java apply (the format has one %s, so the views are not printed)
    #[error("Cannot drop a table when materialized views still depend on it ({keyspace})")]
    DropTableWithViews { keyspace: String },
    /// Origin: cql3/statements/schema/AlterTableStatement.java apply
    #[error("Cannot use ALTER TABLE on a materialized view; use ALTER MATERIALIZED VIEW instead")]
    AlterTableOnView,
    /// Origin: cql3/statements/schema/AlterTableStatement.java AlterColumn.apply
    #[error("Altering column types is no longer supported")]
    AlterColumnType,
    /// Origin: cql3/statements/TruncateStatement.java validate
    #[error("Cannot TRUNCATE materialized view directly; must truncate base table instead")]
    TruncateView,
    /// ALTER TABLE ADD of a column the table has (or the statement adds twice).
    /// Origin: cql3/statements/schema/AlterTableStatement.java AddColumns.addColumn
    #[error("Column with name '{column}' already exists")]
    ColumnExists { column: String },
    /// ALTER TABLE ADD of a non-frozen user-type column with a non-frozen collection field.
    /// Origin: ours — not found in 5.0 (its CREATE TABLE wording, without the column, is NestedNonFrozenCollection)
    #[error(
        "Non-frozen UDTs with nested non-frozen collections are not supported for column {column}"
    )]
    NestedNonFrozenCollectionColumn { column: String },
    /// Origin: cql3/statements/schema/AlterTableStatement.java AddColumns.addColumn
    #[error("Cannot add a counter column ({column}) in a non counter column family")]
    CounterInNonCounterTable { column: String },
    /// Origin: cql3/statements/schema/AlterTableStatement.java AddColumns.addColumn
    #[error("Cannot add a non counter column ({column}) in a counter column family")]
    NonCounterInCounterTable { column: String },
    /// Re-adding a dropped column with a type its old cells cannot be read as.
    /// Origin: cql3/statements/schema/AlterTableStatement.java AddColumns.addColumn
    #[error("Cannot re-add previously dropped column '{column}' of type {ty}, incompatible with previous type {previous}")]
    ReaddedIncompatibleType {
        column: String,
        ty: Box<ColumnType>,
        previous: Box<ColumnType>,
    },
    /// Re-adding a dropped column as static when it was regular, or the reverse.
    /// Origin: cql3/statements/schema/AlterTableStatement.java AddColumns.addColumn
    #[error("Cannot re-add previously dropped column '{column}' of kind {}, incompatible with previous kind {}", column_kind(.is_static), column_kind(.was_static))]
    ReaddedIncompatibleKind {
        column: String,
        is_static: bool,
        was_static: bool,
    },
    /// Origin: cql3/statements/schema/AlterTableStatement.java AddColumns.addColumn
    #[error("Cannot re-add previously dropped counter column {column}")]
    ReaddedCounter { column: String },
    /// ALTER TABLE DROP of a column the table does not have.
    /// Origin: cql3/statements/schema/AlterTableStatement.java DropColumns.dropColumn
    #[error("Column {column} was not found in table '{table}'")]
    DropColumnNotFound { column: String, table: String },
    /// Origin: cql3/statements/schema/AlterTableStatement.java DropColumns.dropColumn
    #[error("Cannot drop PRIMARY KEY column {column}")]
    DropPrimaryKeyColumn { column: String },
    /// Origin: cql3/statements/schema/AlterTableStatement.java DropColumns.dropColumn
    #[error("Cannot drop column {column} on base table {table} with materialized views")]
    DropColumnWithViews { column: String, table: String },
    /// ALTER TABLE RENAME of a column the table does not have; `column` as written.
    /// Origin: cql3/statements/schema/AlterTableStatement.java RenameColumns.renameColumn
    #[error("Column {column} was not found in table {}.{}", maybe_quote(.keyspace), maybe_quote(.table))]
    RenameColumnNotFound {
        column: String,
        keyspace: String,
        table: String,
    },
    /// ALTER TABLE RENAME of a regular or static column; `column` as written.
    /// Origin: cql3/statements/schema/AlterTableStatement.java RenameColumns.renameColumn
    #[error("Cannot rename non PRIMARY KEY column {column}")]
    RenameNonPrimaryKey { column: String },
    /// ALTER TABLE RENAME to a name the table has; both names as written.
    /// Origin: cql3/statements/schema/AlterTableStatement.java RenameColumns.renameColumn
    #[error("Cannot rename column {column} to {new_name} in table '{}.{}'; another column with that name already exists", maybe_quote(.keyspace), maybe_quote(.table))]
    RenameTargetExists {
        column: String,
        new_name: String,
        keyspace: String,
        table: String,
    },
    /// ALTER TABLE RENAME of a column secondary indexes depend on; `column` as written.
    /// Origin: cql3/statements/schema/AlterTableStatement.java RenameColumns.renameColumn
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
    /// Origin: cql3/statements/schema/DropFunctionStatement.java apply
    #[error("Function '{keyspace}.{function}{}' doesn't exist", signature(.args))]
    FunctionNotFound {
        keyspace: String,
        function: String,
        args: Option<Vec<String>>,
    },
    /// DROP AGGREGATE of an aggregate that does not exist; `args` the argument types if given.
    /// Origin: cql3/statements/schema/DropAggregateStatement.java apply
    #[error("Aggregate '{keyspace}.{function}{}' doesn't exist", signature(.args))]
    AggregateNotFound {
        keyspace: String,
        function: String,
        args: Option<Vec<String>>,
    },
    /// CREATE TRIGGER on a table that does not exist; Cassandra names the table alone.
    /// Origin: cql3/statements/schema/CreateTriggerStatement.java apply
    #[error("Table '{table}' doesn't exist")]
    TriggerTableNotFound { table: String },
    /// Origin: cql3/statements/schema/CreateTriggerStatement.java apply
    #[error("Trigger class '{class}' couldn't be loaded")]
    TriggerClassNotLoaded { class: String },
    /// Origin: cql3/statements/schema/DropTriggerStatement.java apply
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
    /// Origin: db/guardrails/Guardrails.java partitionKeysInSelect (Guardrail.fail prefixes "Guardrail %s violated: ")
    #[error("Guardrail partition_keys_in_select violated: Aborting query with partition keys in IN clause on table {table}, number of partition keys {keys} exceeds fail threshold of {threshold}.")]
    PartitionKeysInSelect {
        table: String,
        keys: u64,
        threshold: i64,
    },
    /// A cartesian product of IN restrictions on the `what` columns (`partition key` or
    /// `clustering key`) larger than `in_select_cartesian_product` allows.
    /// Origin: db/guardrails/Guardrails.java inSelectCartesianProduct (Guardrail.fail)
    #[error("Guardrail in_select_cartesian_product violated: Aborting query because the cartesian product of the IN restrictions on {what} produces {size} values, this exceeds fail threshold of {threshold}.")]
    InSelectCartesianProduct {
        what: String,
        size: u64,
        threshold: i64,
    },
    /// A value written to `column` larger than `column_value_size` allows.
    /// Origin: db/guardrails/Guardrails.java columnValueSize (Guardrail.fail)
    #[error("Guardrail column_value_size violated: Value of column {column} has size {size}, this exceeds the failure threshold of {threshold}.")]
    ColumnValueSize {
        column: String,
        size: u64,
        threshold: i64,
    },
    /// A collection written to `column` larger than `collection_size` allows.
    /// Origin: db/guardrails/Guardrails.java collectionSize (Guardrail.fail)
    #[error("Guardrail collection_size violated: Detected collection {column} of size {size}, this exceeds the failure threshold of {threshold}.")]
    CollectionSize {
        column: String,
        size: u64,
        threshold: i64,
    },
    /// A collection written to `column` with more items than `items_per_collection` allows.
    /// Origin: db/guardrails/Guardrails.java itemsPerCollection (Guardrail.fail)
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
