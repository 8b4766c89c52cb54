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
    /// Origin: cql3/statements/ModificationStatement.java validate
    #[error("Cannot directly modify a materialized view")]
    MaterializedView,
    /// Origin: cql3/statements/UpdateStatement.java ParsedInsert.prepareInternal
    #[error("INSERT statements are not allowed on counter tables, use UPDATE instead")]
    InsertOnCounterTable,
    /// INSERT with more or fewer values than column names.
    /// Origin: cql3/statements/UpdateStatement.java ParsedInsert.prepareInternal
    #[error("Unmatched column names/values")]
    UnmatchedColumnValues,
    /// INSERT naming a column twice.
    /// Origin: cql3/statements/UpdateStatement.java ParsedInsert.prepareInternal
    #[error("The column names contains duplicates")]
    DuplicateColumnNames,

    // --- Key requirements of writes ---
    /// Origin: cql3/restrictions/StatementRestrictions.java StatementRestrictions
    #[error("Some partition key parts are missing: {}", .columns.join(", "))]
    MissingPartitionKeyParts { columns: Vec<String> },
    /// Origin: cql3/restrictions/StatementRestrictions.java StatementRestrictions
    #[error("Some clustering keys are missing: {}", .columns.join(", "))]
    MissingClusteringKeys { columns: Vec<String> },
    /// `token(..)` in the WHERE clause of an UPDATE or DELETE.
    /// Origin: cql3/restrictions/StatementRestrictions.java StatementRestrictions
    #[error("The token function cannot be used in WHERE clauses for {statement} statements")]
    TokenInWhere { statement: &'static str },
    /// Origin: cql3/restrictions/StatementRestrictions.java StatementRestrictions
    #[error(
        "Slice restrictions are not supported on the clustering columns in {statement} statements"
    )]
    ClusteringSlice { statement: &'static str },
    /// Origin: cql3/restrictions/StatementRestrictions.java StatementRestrictions
    #[error("Only EQ and IN relation are supported on the partition key (unless you use the token() function) for {statement} statements")]
    PartitionKeyNotEqOrIn { statement: &'static str },
    /// Regular or static columns restricted in the WHERE clause of a write (Cassandra's
    /// message ends with a space).
    /// Origin: cql3/restrictions/StatementRestrictions.java StatementRestrictions
    #[error("Non PRIMARY KEY columns found in where clause: {} ", .columns.join(", "))]
    NonKeyColumnsInWhere { columns: Vec<String> },
    /// A DELETE of rows or regular columns whose key is not fixed by equalities.
    /// Origin: cql3/statements/DeleteStatement.java Parsed.prepareInternal
    #[error("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to delete non static columns")]
    DeleteNonStaticWithoutFullKey,
    /// Origin: cql3/statements/DeleteStatement.java Parsed.prepareInternal
    #[error("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF condition on non static columns")]
    ConditionOnNonStaticWithoutFullKey,
    /// Origin: cql3/statements/DeleteStatement.java addUpdateForKey
    #[error("Range deletions are not supported for specific columns")]
    RangeDeletionOfColumns,
    /// An UPDATE or DELETE of static columns only that restricts clustering columns.
    /// Origin: cql3/restrictions/StatementRestrictions.java StatementRestrictions
    #[error("Invalid restrictions on clustering columns since the {statement} statement modifies only static columns")]
    ClusteringRestrictedForStaticWrite { statement: &'static str },
    /// Origin: ours — a limit of this server (5.0 deletes such multi-column slices); not found in 5.0
    #[error("Range deletions over clustering columns of mixed order are not supported yet")]
    MixedOrderRangeDeletion,
    // --- Operations on columns and collections ---
    /// Origin: cql3/statements/UpdateStatement.java ParsedUpdate.prepareInternal
    #[error("PRIMARY KEY part {column} found in SET part")]
    PrimaryKeyInSet { column: String },
    /// An assignment the column's type does not allow; `column_kind` is Cassandra's word for
    /// the column ("non counter column", "frozen list column", ...).
    /// Origin: cql3/Operation.java RawUpdate.prepare (Addition, Substraction, Prepend, SetElement, SetField)
    #[error("Invalid operation ({operation}) for {column_kind} {column}")]
    InvalidOperation {
        operation: String,
        column_kind: &'static str,
        column: String,
    },
    /// `m = m + v` where the constant `v` is not a map.
    /// Origin: cql3/Operation.java Addition.prepare
    #[error("Value for a map addition has to be a map, but was: '{term}'")]
    MapAdditionNotMap { term: String },
    /// `m = m - v` where the constant `v` is not a set.
    /// Origin: cql3/Operation.java Substraction.prepare
    #[error("Value for a map substraction has to be a set, but was: '{term}'")]
    MapSubtractionNotSet { term: String },
    /// Origin: cql3/Operation.java SetField.prepare
    #[error("UDT column {column} does not have a field named {field}")]
    UnknownUdtField { column: String, field: String },
    /// Origin: cql3/statements/DeleteStatement.java Parsed.prepareInternal
    #[error("Invalid identifier {column} for deletion (should not be a PRIMARY KEY part)")]
    DeletePrimaryKeyPart { column: String },
    /// Origin: cql3/Operation.java ElementDeletion.prepare
    #[error("Invalid deletion operation for non collection column {column}")]
    ElementDeletionOnNonCollection { column: String },
    /// Origin: cql3/Operation.java ElementDeletion.prepare
    #[error("Invalid deletion operation for frozen collection column {column}")]
    ElementDeletionOnFrozen { column: String },
    /// Origin: cql3/Operation.java FieldDeletion.prepare
    #[error("Frozen UDT column {column} does not support field deletions")]
    FieldDeletionOnFrozenUdt { column: String },
    /// Origin: cql3/Operation.java FieldDeletion.prepare
    #[error("Invalid deletion operation for non-UDT column {column}")]
    FieldDeletionOnNonUdt { column: String },
    /// Origin: ours — defensive: field operations are planned on user-type columns only
    #[error("{column} is not a UDT column")]
    NotUdtColumn { column: String },
    /// Origin: ours — defensive: collection operations are planned on multi-cell columns only
    #[error("{ty} is not a multi-cell type")]
    NotMultiCell { ty: ColumnType },
    /// A stored collection value that does not decode.
    /// Origin: ours — a stored collection that does not decode
    #[error("Malformed collection value")]
    MalformedCollection,
    /// A cell value past the largest a cell may hold.
    /// Origin: ours — a cell past the largest value this storage holds
    #[error("Value of column {column} is too large ({size} bytes)")]
    ValueTooLarge { column: String, size: usize },
    /// Origin: cql3/Maps.java SetterByKey.execute
    #[error("Invalid null map key")]
    NullMapKey,
    /// Origin: cql3/Maps.java SetterByKey.execute
    #[error("Invalid unset map key")]
    UnsetMapKey,
    /// A list index that is not a 4-byte int.
    /// Origin: ours — defensive: the index is bound as an int, which the binding checks first
    #[error("Invalid list index")]
    InvalidListIndex,
    /// Origin: cql3/Lists.java SetterByIndex.execute
    #[error("Invalid null value for list index")]
    NullListIndex,
    /// Origin: cql3/Lists.java SetterByIndex.execute
    #[error("Invalid unset value for list index")]
    UnsetListIndex,
    /// `l[i] = v` or `DELETE l[i]` on a list with no elements; `action` is "set an element
    /// on" or "delete an element from".
    /// Origin: cql3/Lists.java SetterByIndex.execute / DiscarderByIndex.execute
    #[error("Attempted to {action} a list which is null")]
    ElementOfNullList { action: &'static str },
    /// Origin: cql3/Lists.java SetterByIndex.execute
    #[error("List index {index} out of bound, list has size {size}")]
    ListIndexOutOfBound { index: i32, size: usize },

    // --- Counters ---
    /// Origin: cql3/statements/ModificationStatement.java validate
    #[error("Cannot provide custom timestamp for counter updates")]
    CounterTimestamp,
    /// Origin: cql3/statements/ModificationStatement.java validate
    #[error("Cannot provide custom TTL for counter updates")]
    CounterTtl,
    /// Origin: cql3/Operation.java SetValue.prepare
    #[error("Cannot set the value of counter column {column} (counters can only be incremented/decremented, not set)")]
    CounterSet { column: String },
    /// Origin: ours — defensive: the planner gives counters only + and - (Operation.SetValue.prepare refuses the rest)
    #[error("Invalid operation on counter column {column}")]
    CounterOperation { column: String },
    /// Origin: cql3/Constants.java Adder.execute
    #[error("Invalid null value for counter increment")]
    NullCounterIncrement,
    /// A counter delta that is not 8 bytes long.
    /// Origin: ours — defensive: the delta is bound as a bigint, which the binding checks first
    #[error("Expected 8 bytes for a bigint ({size})")]
    CounterDeltaSize { size: usize },
    /// `c = c - delta` where `-delta` does not fit a bigint.
    /// Origin: cql3/Constants.java Substracter.execute
    #[error(
        "The negation of {delta} overflows supported counter precision (signed 8 bytes integer)"
    )]
    CounterNegationOverflow { delta: i64 },

    // --- TTL and timestamp ---
    /// A `USING TIMESTAMP` value that is not 8 bytes long.
    /// Origin: ours — defensive: the timestamp is bound as a bigint, which the binding checks first
    #[error("Invalid value for [timestamp]")]
    InvalidTimestamp,
    /// Origin: cql3/Attributes.java getTimestamp
    #[error("Invalid null value of timestamp")]
    NullTimestamp,
    /// Origin: cql3/UpdateParameters.java UpdateParameters
    #[error("Out of bound timestamp, must be in [{min}, {max}]")]
    TimestampOutOfBounds { min: i64, max: i64 },
    /// A `USING TTL` value that is not 4 bytes long.
    /// Origin: ours — defensive: the TTL is bound as an int, which the binding checks first
    #[error("Invalid TTL value")]
    InvalidTtl,
    /// Origin: cql3/Attributes.java getTimeToLive
    #[error("A TTL must be greater or equal to 0, but was {ttl}")]
    NegativeTtl { ttl: i64 },
    /// Origin: cql3/Attributes.java getTimeToLive
    #[error("ttl is too large. requested ({ttl}) maximum ({max})")]
    TtlTooLarge { ttl: i64, max: i64 },

    // --- LWT conditions (IF ...) ---
    /// Origin: cql3/conditions/ColumnCondition.java Raw.prepare
    #[error("Conditions on counters are not supported")]
    ConditionOnCounter,
    /// `IF s[k] ...` on a set column.
    /// Origin: cql3/conditions/ColumnCondition.java Raw.prepare
    #[error("Invalid element access syntax for set column {column}")]
    ElementAccessOnSet { column: String },
    /// Origin: cql3/conditions/ColumnCondition.java Raw.prepare
    #[error("Invalid element access syntax for non-collection column {column}")]
    ElementAccessOnNonCollection { column: String },
    /// `IF c.f ...` on a column that is not a UDT.
    /// Origin: cql3/conditions/ColumnCondition.java Raw.prepare
    #[error("Invalid field selection: {column} of type {ty} is not a user type")]
    FieldOfNonUdt { column: String, ty: ColumnType },
    /// Origin: cql3/conditions/ColumnCondition.java Raw.prepare
    #[error("Unknown field {field} for column {column}")]
    UnknownConditionField { field: String, column: String },
    /// Origin: cql3/statements/ModificationStatement.java Parsed.prepareColumnConditions
    #[error("PRIMARY KEY column '{column}' cannot have IF conditions")]
    ConditionOnPrimaryKey { column: String },
    /// A slice condition on a collection, tuple or UDT (`container`) holding durations.
    /// Origin: cql3/conditions/ColumnCondition.java Raw.validateOperationOnDurations
    #[error("Slice conditions are not supported on {container} containing durations")]
    SliceOnDurationsIn { container: &'static str },
    /// Origin: cql3/conditions/ColumnCondition.java Raw.validateOperationOnDurations
    #[error("Slice conditions ( {op} ) are not supported on durations")]
    SliceOnDuration { op: Operator },
    /// `receiver` is the condition's target as Cassandra prints it (`c`, `c.f`, `value(c)`).
    /// Origin: cql3/conditions/ColumnCondition.java Raw.prepare (CONTAINS KEY)
    #[error("Cannot use CONTAINS KEY on non-map column {receiver}")]
    ContainsKeyOnNonMap { receiver: String },
    /// Origin: cql3/conditions/ColumnCondition.java Raw.prepare (CONTAINS)
    #[error("Cannot use CONTAINS on non-collection column {receiver}")]
    ContainsOnNonCollection { receiver: String },
    /// Origin: cql3/statements/ModificationStatement.java ModificationStatement / Parsed.prepareColumnConditions
    #[error("Cannot provide custom timestamp for conditional updates")]
    ConditionalTimestamp,
    /// Origin: cql3/statements/ModificationStatement.java ModificationStatement
    #[error("Conditional updates are not supported on counter tables")]
    ConditionalCounterTable,
    /// Origin: cql3/conditions/ColumnCondition.java SimpleBound / compareWithOperator
    #[error("Invalid comparison with null for operator \"{op}\"")]
    NullComparison { op: Operator },
    /// A null key in `IF m[k] ...` or `IF l[i] ...` (`collection` is "map" or "list").
    /// Origin: cql3/conditions/ColumnCondition.java ElementAccessBound
    #[error("Invalid null value for {collection} element access")]
    NullElementAccess { collection: &'static str },
    /// Origin: cql3/conditions/ColumnCondition.java ElementAccessBound.getListIndex
    #[error("Invalid negative list index {index}")]
    NegativeListIndex { index: i32 },
    /// Origin: cql3/conditions/ColumnCondition.java bindAndGetTerms / checkValues
    #[error("Invalid 'unset' value in condition")]
    UnsetInCondition,
    /// Origin: cql3/conditions/ColumnCondition.java bindAndGetTerms / checkValues
    #[error("Invalid null list in IN condition")]
    NullInList,
    /// The list bound to `IN ?` in a condition that does not decode.
    /// Origin: ours — a bound IN list that does not decode (5.0 answers its deserializer's message, which ours does not reproduce)
    #[error("Exception while binding column in({column}): malformed list value")]
    MalformedInList { column: String },
    /// An element of the list bound to `IN ?` that does not fit the column's type: the
    /// serializer's message alone, as 5.0 binds it.
    /// Origin: cql3/Constants.java Marker.bindAndGet (the serializer's MarshalException message alone)
    #[error("{reason}")]
    InListElement {
        reason: cql::types::codec::ValueError,
    },
    /// Origin: ours — defensive: the bound value count is checked first (RequestError::ValueCount)
    #[error("No value bound for marker {index} (column in({column}))")]
    UnboundInMarker { index: usize, column: String },
    /// A plain write at SERIAL or LOCAL_SERIAL consistency.
    /// Origin: db/ConsistencyLevel.java validateForWrite
    #[error("You must use conditional updates for serializable writes")]
    SerialWithoutConditions,
    /// Origin: db/ConsistencyLevel.java validateForCas
    #[error("Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL")]
    NonSerialConditionalConsistency,
    /// A conditional write whose commit consistency (`consistency`) is a serial one.
    /// Origin: db/ConsistencyLevel.java validateForCasCommit
    #[error("{consistency} is not supported as conditional update commit consistency. Use ANY if you mean \"make sure it is accepted but I don't care how many replicas commit it for non-SERIAL reads\"")]
    SerialCommitConsistency { consistency: &'static str },
    /// Origin: ours — defensive: a batch with conditions has a statement
    #[error("Empty conditional batch")]
    EmptyConditionalBatch,
    /// Origin: cql3/statements/BatchStatement.java validate
    #[error("Batch with conditions cannot span multiple tables")]
    ConditionalBatchTables,
    /// A conditional batch with IN on the partition key. 5.0 throws an
    /// `IllegalArgumentException` here, which reaches the client as a server error (0x0000)
    /// whose message is the exception's `toString()`.
    /// Origin: cql3/statements/BatchStatement.java makeCasRequest (IllegalArgumentException, sent as ServerError with its toString)
    #[error("java.lang.IllegalArgumentException: Batch with conditions cannot span multiple partitions (you cannot use IN on the partition key)")]
    ConditionalBatchIn,
    /// Origin: cql3/statements/BatchStatement.java makeCasRequest
    #[error("Batch with conditions cannot span multiple partitions")]
    ConditionalBatchPartitions,
    /// A conditional statement with IN on the partition key; `statements` is "updates" or
    /// "deletions".
    /// Origin: cql3/statements/ModificationStatement.java makeCasRequest
    #[error("IN on the partition key is not supported with conditional {statements}")]
    ConditionalPartitionIn { statements: &'static str },
    /// Origin: cql3/statements/ModificationStatement.java makeCasRequest
    #[error("IN on the clustering key columns is not supported with conditional {statements}")]
    ConditionalClusteringIn { statements: &'static str },
    /// Origin: ours — defensive: a key restricted by = or an IN of one has a value
    #[error("Invalid empty key in a conditional update")]
    ConditionalEmptyKey,
    /// Origin: cql3/statements/CQL3CasRequest.java addExistsCondition
    #[error("Cannot mix IF EXISTS and IF NOT EXISTS conditions for the same row")]
    ExistsAndNotExists,
    /// Origin: cql3/statements/CQL3CasRequest.java addExistsCondition / setConditionsForRow
    #[error("Cannot mix IF conditions and IF EXISTS for the same row")]
    ConditionsAndExists,
    /// Origin: cql3/statements/CQL3CasRequest.java addExistsCondition / setConditionsForRow
    #[error("Cannot mix IF conditions and IF NOT EXISTS for the same row")]
    ConditionsAndNotExists,

    // --- Batches ---
    /// Origin: cql3/statements/BatchStatement.java Parsed.prepare
    #[error("Global TTL on the BATCH statement is not supported.")]
    BatchTtl,
    /// Origin: cql3/statements/BatchStatement.java validate
    #[error("Cannot provide custom timestamp for counter BATCH")]
    CounterBatchTimestamp,
    /// USING TIMESTAMP on both the batch and one of its statements.
    /// Origin: cql3/statements/BatchStatement.java validate
    #[error("Timestamp must be set either on BATCH or individual statements")]
    BatchTimestampTwice,
    /// Origin: cql3/statements/BatchStatement.java validate
    #[error("Cannot provide custom timestamp for a BATCH containing counters")]
    BatchWithCountersTimestamp,
    /// Origin: cql3/statements/BatchStatement.java validate
    #[error("Cannot provide custom timestamp for conditional BATCH")]
    ConditionalBatchTimestamp,
    /// Origin: cql3/statements/BatchStatement.java validate
    #[error("Cannot include non-counter statement in a counter batch")]
    NonCounterInCounterBatch,
    /// Origin: cql3/statements/BatchStatement.java validate
    #[error("Counter and non-counter mutations cannot exist in the same batch")]
    MixedCounterBatch,
    /// Origin: cql3/statements/BatchStatement.java validate
    #[error("Cannot include a counter statement in a logged batch")]
    CounterInLoggedBatch,
    /// A batch past the `batch_size_fail_threshold`.
    /// Origin: cql3/statements/BatchStatement.java verifyBatchSize
    #[error("Batch too large")]
    BatchTooLarge,
}
