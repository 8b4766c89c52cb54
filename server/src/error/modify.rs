//! `ModifyError`: INSERT, UPDATE, DELETE and BATCH that break Cassandra's rules: operations, conditions, counters, keys.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

use cql::statement::ast::Operator;
use cql::types::ColumnType;

/// INSERT, UPDATE, DELETE and BATCH that break Cassandra's rules: operations, conditions, counters, keys.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ModifyError {
    // --- What a write may target and how it names its columns ---
    #[error("Cannot directly modify a materialized view")]
    MaterializedView,
    #[error("INSERT statements are not allowed on counter tables, use UPDATE instead")]
    InsertOnCounterTable,
    /// INSERT with more or fewer values than column names.
    #[error("Unmatched column names/values")]
    UnmatchedColumnValues,
    /// INSERT naming a column twice.
    #[error("The column names contains duplicates")]
    DuplicateColumnNames,

    // --- Key requirements of writes ---
    #[error("Some partition key parts are missing: {}", .columns.join(", "))]
    MissingPartitionKeyParts { columns: Vec<String> },
    #[error("Some clustering keys are missing: {}", .columns.join(", "))]
    MissingClusteringKeys { columns: Vec<String> },
    /// `token(..)` in the WHERE clause of an UPDATE or DELETE.
    #[error("The token function cannot be used in WHERE clauses for {statement} statements")]
    TokenInWhere { statement: &'static str },
    #[error(
        "Slice restrictions are not supported on the clustering columns in {statement} statements"
    )]
    ClusteringSlice { statement: &'static str },
    #[error("Only EQ and IN relation are supported on the partition key (unless you use the token() function) for {statement} statements")]
    PartitionKeyNotEqOrIn { statement: &'static str },
    /// Regular or static columns restricted in the WHERE clause of a write (Cassandra's
    /// message ends with a space).
    #[error("Non PRIMARY KEY columns found in where clause: {} ", .columns.join(", "))]
    NonKeyColumnsInWhere { columns: Vec<String> },
    /// A DELETE of rows or regular columns whose key is not fixed by equalities.
    #[error("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to delete non static columns")]
    DeleteNonStaticWithoutFullKey,
    #[error("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF condition on non static columns")]
    ConditionOnNonStaticWithoutFullKey,
    #[error("Range deletions are not supported for specific columns")]
    RangeDeletionOfColumns,
    /// An UPDATE or DELETE of static columns only that restricts clustering columns.
    #[error("Invalid restrictions on clustering columns since the {statement} statement modifies only static columns")]
    ClusteringRestrictedForStaticWrite { statement: &'static str },
    #[error("Range deletions over clustering columns of mixed order are not supported yet")]
    MixedOrderRangeDeletion,
    // --- Operations on columns and collections ---
    #[error("PRIMARY KEY part {column} found in SET part")]
    PrimaryKeyInSet { column: String },
    /// An assignment the column's type does not allow; `column_kind` is Cassandra's word for
    /// the column ("non counter column", "frozen list column", ...).
    #[error("Invalid operation ({operation}) for {column_kind} {column}")]
    InvalidOperation {
        operation: String,
        column_kind: &'static str,
        column: String,
    },
    /// `m = m + v` where the constant `v` is not a map.
    #[error("Value for a map addition has to be a map, but was: '{term}'")]
    MapAdditionNotMap { term: String },
    /// `m = m - v` where the constant `v` is not a set.
    #[error("Value for a map substraction has to be a set, but was: '{term}'")]
    MapSubtractionNotSet { term: String },
    #[error("UDT column {column} does not have a field named {field}")]
    UnknownUdtField { column: String, field: String },
    #[error("Invalid identifier {column} for deletion (should not be a PRIMARY KEY part)")]
    DeletePrimaryKeyPart { column: String },
    #[error("Invalid deletion operation for non collection column {column}")]
    ElementDeletionOnNonCollection { column: String },
    #[error("Invalid deletion operation for frozen collection column {column}")]
    ElementDeletionOnFrozen { column: String },
    #[error("Frozen UDT column {column} does not support field deletions")]
    FieldDeletionOnFrozenUdt { column: String },
    #[error("Invalid deletion operation for non-UDT column {column}")]
    FieldDeletionOnNonUdt { column: String },
    #[error("{column} is not a UDT column")]
    NotUdtColumn { column: String },
    #[error("{ty} is not a multi-cell type")]
    NotMultiCell { ty: ColumnType },
    /// A stored collection value that does not decode.
    #[error("Malformed collection value")]
    MalformedCollection,
    /// A cell value past the largest a cell may hold.
    #[error("Value of column {column} is too large ({size} bytes)")]
    ValueTooLarge { column: String, size: usize },
    #[error("Invalid null map key")]
    NullMapKey,
    #[error("Invalid unset map key")]
    UnsetMapKey,
    /// A list index that is not a 4-byte int.
    #[error("Invalid list index")]
    InvalidListIndex,
    #[error("Invalid null value for list index")]
    NullListIndex,
    #[error("Invalid unset value for list index")]
    UnsetListIndex,
    /// `l[i] = v` or `DELETE l[i]` on a list with no elements; `action` is "set an element
    /// on" or "delete an element from".
    #[error("Attempted to {action} a list which is null")]
    ElementOfNullList { action: &'static str },
    #[error("List index {index} out of bound, list has size {size}")]
    ListIndexOutOfBound { index: i32, size: usize },

    // --- Counters ---
    #[error("Cannot provide custom timestamp for counter updates")]
    CounterTimestamp,
    #[error("Cannot provide custom TTL for counter updates")]
    CounterTtl,
    #[error("Cannot set the value of counter column {column} (counters can only be incremented/decremented, not set)")]
    CounterSet { column: String },
    #[error("Invalid operation on counter column {column}")]
    CounterOperation { column: String },
    #[error("Invalid null value for counter increment")]
    NullCounterIncrement,
    /// A counter delta that is not 8 bytes long.
    #[error("Expected 8 bytes for a bigint ({size})")]
    CounterDeltaSize { size: usize },
    /// `c = c - delta` where `-delta` does not fit a bigint.
    #[error(
        "The negation of {delta} overflows supported counter precision (signed 8 bytes integer)"
    )]
    CounterNegationOverflow { delta: i64 },

    // --- TTL and timestamp ---
    /// A `USING TIMESTAMP` value that is not 8 bytes long.
    #[error("Invalid value for [timestamp]")]
    InvalidTimestamp,
    #[error("Invalid null value of timestamp")]
    NullTimestamp,
    #[error("Out of bound timestamp, must be in [{min}, {max}]")]
    TimestampOutOfBounds { min: i64, max: i64 },
    /// A `USING TTL` value that is not 4 bytes long.
    #[error("Invalid TTL value")]
    InvalidTtl,
    #[error("A TTL must be greater or equal to 0, but was {ttl}")]
    NegativeTtl { ttl: i64 },
    #[error("ttl is too large. requested ({ttl}) maximum ({max})")]
    TtlTooLarge { ttl: i64, max: i64 },

    // --- LWT conditions (IF ...) ---
    #[error("Conditions on counters are not supported")]
    ConditionOnCounter,
    /// `IF s[k] ...` on a set column.
    #[error("Invalid element access syntax for set column {column}")]
    ElementAccessOnSet { column: String },
    #[error("Invalid element access syntax for non-collection column {column}")]
    ElementAccessOnNonCollection { column: String },
    /// `IF c.f ...` on a column that is not a UDT.
    #[error("Invalid field selection: {column} of type {ty} is not a user type")]
    FieldOfNonUdt { column: String, ty: ColumnType },
    #[error("Unknown field {field} for column {column}")]
    UnknownConditionField { field: String, column: String },
    #[error("PRIMARY KEY column '{column}' cannot have IF conditions")]
    ConditionOnPrimaryKey { column: String },
    /// A slice condition on a collection, tuple or UDT (`container`) holding durations.
    #[error("Slice conditions are not supported on {container} containing durations")]
    SliceOnDurationsIn { container: &'static str },
    #[error("Slice conditions ( {op} ) are not supported on durations")]
    SliceOnDuration { op: Operator },
    /// `receiver` is the condition's target as Cassandra prints it (`c`, `c.f`, `value(c)`).
    #[error("Cannot use CONTAINS KEY on non-map column {receiver}")]
    ContainsKeyOnNonMap { receiver: String },
    #[error("Cannot use CONTAINS on non-collection column {receiver}")]
    ContainsOnNonCollection { receiver: String },
    #[error("Cannot provide custom timestamp for conditional updates")]
    ConditionalTimestamp,
    #[error("Conditional updates are not supported on counter tables")]
    ConditionalCounterTable,
    #[error("Invalid comparison with null for operator \"{op}\"")]
    NullComparison { op: Operator },
    /// A null key in `IF m[k] ...` or `IF l[i] ...` (`collection` is "map" or "list").
    #[error("Invalid null value for {collection} element access")]
    NullElementAccess { collection: &'static str },
    #[error("Invalid negative list index {index}")]
    NegativeListIndex { index: i32 },
    #[error("Invalid 'unset' value in condition")]
    UnsetInCondition,
    #[error("Invalid null list in IN condition")]
    NullInList,
    /// The list bound to `IN ?` in a condition that does not decode.
    #[error("Exception while binding column in({column}): malformed list value")]
    MalformedInList { column: String },
    /// An element of the list bound to `IN ?` that does not fit the column's type: the
    /// serializer's message alone, as 5.0 binds it.
    #[error("{reason}")]
    InListElement {
        reason: cql::types::codec::ValueError,
    },
    #[error("No value bound for marker {index} (column in({column}))")]
    UnboundInMarker { index: usize, column: String },
    /// A plain write at SERIAL or LOCAL_SERIAL consistency.
    #[error("You must use conditional updates for serializable writes")]
    SerialWithoutConditions,
    #[error("Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL")]
    NonSerialConditionalConsistency,
    /// A conditional write whose commit consistency (`consistency`) is a serial one.
    #[error("{consistency} is not supported as conditional update commit consistency. Use ANY if you mean \"make sure it is accepted but I don't care how many replicas commit it for non-SERIAL reads\"")]
    SerialCommitConsistency { consistency: &'static str },
    #[error("Empty conditional batch")]
    EmptyConditionalBatch,
    #[error("Batch with conditions cannot span multiple tables")]
    ConditionalBatchTables,
    /// A conditional batch with IN on the partition key. 5.0 throws an
    /// `IllegalArgumentException` here, which reaches the client as a server error (0x0000)
    /// whose message is the exception's `toString()`.
    #[error("java.lang.IllegalArgumentException: Batch with conditions cannot span multiple partitions (you cannot use IN on the partition key)")]
    ConditionalBatchIn,
    #[error("Batch with conditions cannot span multiple partitions")]
    ConditionalBatchPartitions,
    /// A conditional statement with IN on the partition key; `statements` is "updates" or
    /// "deletions".
    #[error("IN on the partition key is not supported with conditional {statements}")]
    ConditionalPartitionIn { statements: &'static str },
    #[error("IN on the clustering key columns is not supported with conditional {statements}")]
    ConditionalClusteringIn { statements: &'static str },
    #[error("Invalid empty key in a conditional update")]
    ConditionalEmptyKey,
    #[error("Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row")]
    ExistsAndNotExists,
    #[error("Cannot mix IF conditions and IF EXISTS for the same row")]
    ConditionsAndExists,
    #[error("Cannot mix IF conditions and IF NOT EXISTS for the same row")]
    ConditionsAndNotExists,

    // --- Batches ---
    #[error("Global TTL on the BATCH statement is not supported.")]
    BatchTtl,
    #[error("Cannot provide custom timestamp for counter BATCH")]
    CounterBatchTimestamp,
    /// USING TIMESTAMP on both the batch and one of its statements.
    #[error("Timestamp must be set either on BATCH or individual statements")]
    BatchTimestampTwice,
    #[error("Cannot provide custom timestamp for a BATCH containing counters")]
    BatchWithCountersTimestamp,
    #[error("Cannot provide custom timestamp for conditional BATCH")]
    ConditionalBatchTimestamp,
    #[error("Cannot include non-counter statement in a counter batch")]
    NonCounterInCounterBatch,
    #[error("Counter and non-counter mutations cannot exist in the same batch")]
    MixedCounterBatch,
    #[error("Cannot include a counter statement in a logged batch")]
    CounterInLoggedBatch,
    /// A batch past the `batch_size_fail_threshold`.
    #[error("Batch too large")]
    BatchTooLarge,
}
