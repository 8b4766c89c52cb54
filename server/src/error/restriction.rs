//! `RestrictionError`: WHERE clauses that break the primary-key rules: partition and clustering restrictions, slices, IN, tokens, filtering.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

use cql::statement::ast::Operator;
use cql::types::codec;
use cql::types::{maybe_quote, ColumnType};
use storage::index::AnalyzerOptionError;

/// WHERE clauses that break the primary-key rules: partition and clustering restrictions, slices, IN, tokens, filtering.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RestrictionError {
    /// A relation only a materialized view's WHERE takes (`IS NOT NULL`); `relation` as written.
    /// Origin: cql3/restrictions/StatementRestrictions.java StatementRestrictions
    #[error("Unsupported restriction: {relation}")]
    UnsupportedRestriction { relation: String },
    /// Cassandra 5.0 has no `!=` in WHERE clauses; `relation` as written.
    /// Origin: cql3/Relation.java toRestriction (NEQ)
    #[error("Unsupported \"!=\" relation: {relation}")]
    UnsupportedNeq { relation: String },
    /// `token(columns) != value`.
    /// Origin: cql3/Relation.java toRestriction (NEQ on TokenRelation)
    #[error("Unsupported \"!=\" relation: token({}) != {value}", .columns.join(", "))]
    UnsupportedTokenNeq { columns: Vec<String>, value: String },
    /// A column (or `token(...)`) restricted by IN and by another relation.
    /// Origin: cql3/restrictions/SingleColumnRestriction.java INRestriction.doMergeWith / TokenRestriction
    #[error("{column} cannot be restricted by more than one relation if it includes a IN")]
    InWithOtherRelation { column: String },
    /// A column (or `token(...)`) restricted by `=` and by another relation.
    /// Origin: cql3/restrictions/SingleColumnRestriction.java EQRestriction.doMergeWith / TokenRestriction
    #[error("{column} cannot be restricted by more than one relation if it includes an Equal")]
    EqWithOtherRelation { column: String },
    /// Two lower bounds on one column (or `token(...)`).
    /// Origin: cql3/restrictions/SingleColumnRestriction.java SliceRestriction.doMergeWith
    #[error("More than one restriction was found for the start bound on {column}")]
    DuplicateStartBound { column: String },
    /// Two upper bounds on one column (or `token(...)`).
    /// Origin: cql3/restrictions/SingleColumnRestriction.java SliceRestriction.doMergeWith
    #[error("More than one restriction was found for the end bound on {column}")]
    DuplicateEndBound { column: String },
    /// Origin: cql3/SingleColumnRelation.java newEQRestriction (map entry)
    #[error("Map-entry equality predicates on frozen map column {column} are not supported")]
    FrozenMapEntry { column: String },
    /// Origin: cql3/SingleColumnRelation.java toReceivers
    #[error(
        "Non-frozen UDT column '{column}' ({}.{}) cannot be restricted by any relation",
        maybe_quote(.keyspace),
        maybe_quote(.type_name)
    )]
    NonFrozenUdt {
        column: String,
        keyspace: String,
        type_name: String,
    },
    /// A non-frozen collection restricted by anything but CONTAINS, CONTAINS KEY or an entry.
    /// Origin: cql3/SingleColumnRelation.java toReceivers
    #[error("Collection column '{column}' ({ty}) cannot be restricted by a '{op}' relation")]
    CollectionRelation {
        column: String,
        ty: ColumnType,
        op: Operator,
    },
    /// Origin: cql3/SingleColumnRelation.java newSliceRestriction
    #[error("Slice restrictions are not supported on collections containing durations")]
    DurationCollectionSlice,
    /// Origin: cql3/SingleColumnRelation.java newSliceRestriction
    #[error("Slice restrictions are not supported on tuples containing durations")]
    DurationTupleSlice,
    /// Origin: cql3/SingleColumnRelation.java newSliceRestriction
    #[error("Slice restrictions are not supported on UDTs containing durations")]
    DurationUdtSlice,
    /// Origin: cql3/SingleColumnRelation.java newSliceRestriction
    #[error("Slice restrictions are not supported on duration columns")]
    DurationSlice,
    /// Origin: cql3/SingleColumnRelation.java toReceivers
    #[error("Cannot use CONTAINS on non-collection column {column}")]
    ContainsOnNonCollection { column: String },
    /// Origin: cql3/SingleColumnRelation.java toReceivers
    #[error("Cannot use CONTAINS KEY on non-map column {column}")]
    ContainsKeyOnNonMap { column: String },
    /// Origin: cql3/MultiColumnRelation.java receivers
    #[error(
        "Multi-column relations can only be applied to clustering columns but was applied to: {column}"
    )]
    MultiColumnOnNonClustering { column: String },
    /// Origin: cql3/restrictions/ClusteringColumnRestrictions.java addRestriction / MultiColumnRelation
    #[error(
        "Clustering columns must appear in the PRIMARY KEY order in multi-column relations: ({})",
        .columns.join(",")
    )]
    MultiColumnOutOfOrder { columns: Vec<String> },
    /// Two slices over `column` that start at different columns.
    /// Origin: cql3/restrictions/MultiColumnRestriction.java SliceRestriction.doMergeWith
    #[error(
        "Column \"{column}\" cannot be restricted by two inequalities not starting with the same column"
    )]
    TwoInequalities { column: String },
    /// Origin: ours — not found in 5.0, whose MultiColumnRestriction/SingleColumnRestriction merges answer by which relation came first
    #[error(
        "Column \"{column}\" cannot be restricted by both a multi-column and a single-column relation"
    )]
    MultiAndSingleColumn { column: String },
    /// Origin: cql3/restrictions/MultiColumnRestriction.java SliceRestriction.addToRowFilter
    #[error("Multi-column slice restrictions cannot be used for filtering.")]
    MultiColumnSliceFiltering,
    /// Clustering column `column` restricted out of key order, after `preceding`: restricted
    /// by a slice when `preceding_non_eq`, else not restricted at all.
    /// Origin: cql3/restrictions/StatementRestrictions.java StatementRestrictions / ClusteringColumnRestrictions.addRestriction
    #[error("{}", key_order(.column, .preceding, *.preceding_non_eq))]
    ClusteringKeyOrder {
        column: String,
        preceding: String,
        preceding_non_eq: bool,
    },
    /// A slice on `sliced` written after a restriction on the later clustering column `column`.
    /// Origin: cql3/restrictions/ClusteringColumnRestrictions.java addRestriction
    #[error(
        "PRIMARY KEY column \"{column}\" cannot be restricted (preceding column \"{sliced}\" is restricted by a non-EQ relation)"
    )]
    SliceBeforeRestricted { column: String, sliced: String },
    /// Origin: ours — defensive: != is refused first (Relation.toRestriction), and the grammar gives a tuple no other operator
    #[error("Unsupported \"{op}\" relation on multiple clustering columns")]
    UnsupportedMultiColumnOperator { op: Operator },
    /// Origin: cql3/restrictions/TokenRestriction.java / cql3/TokenRelation.java validateReceivers
    #[error("The token() function contains duplicate partition key components")]
    TokenDuplicateComponents,
    /// Origin: cql3/TokenRelation.java validateReceivers
    #[error(
        "The token() function must be applied to all partition key components or none of them"
    )]
    TokenPartialKey,
    /// `token(...)` over the partition key columns out of order; `partition_key` in order.
    /// Origin: cql3/TokenRelation.java validateReceivers
    #[error(
        "The token function arguments must be in the partition key order: {}",
        .partition_key.join(", ")
    )]
    TokenKeyOrder { partition_key: Vec<String> },
    /// Origin: ours — defensive: the parser gives token() only =, <, <=, >, >=
    #[error("Unsupported operator {op:?} on the token function")]
    UnsupportedTokenOperator { op: Operator },
    /// Origin: cql3/functions/FunctionResolver.java validateTypes (system.token)
    #[error(
        "Invalid number of arguments in call to function system.token: {required} required but {provided} provided"
    )]
    TokenArgumentCount { required: usize, provided: usize },
    /// Origin: ours — token() over something other than a column (5.0's grammar takes only column names there)
    #[error("The token function only accepts partition key columns")]
    TokenNonColumnArgument,
    /// `token(...)` given column `argument` where partition key column of type `expected` goes.
    /// Origin: cql3/functions/FunctionResolver.java validateTypes (system.token)
    #[error(
        "Type error: {argument} cannot be passed as argument {position} of function system.token of type {expected}"
    )]
    TokenArgumentType {
        argument: String,
        position: usize,
        expected: String,
    },
    /// SAI analysis options on a primary key column; `options` are the analysis ones, printed
    /// as a CQL map literal (`{'case_sensitive': 'false'}`).
    /// Origin: index/sai/StorageAttachedIndex.java validateOptions (ANALYSIS_ON_KEY_COLUMNS_MESSAGE)
    #[error("Analysis options are not supported on primary key columns, but found {options}")]
    AnalysisOnKeyColumn { options: String },
    /// An SAI analysis option whose value is not a boolean.
    /// Origin: ours — wraps storage's AnalyzerOptionError (index/sai/analyzer/AbstractAnalyzer.java fromOptions words)
    #[error(transparent)]
    AnalysisOption(AnalyzerOptionError),
    /// SAI analysis options on a non-text value; `ty` as Cassandra names it.
    /// Origin: index/sai/analyzer/AbstractAnalyzer.java fromOptions
    #[error("CQL type {ty} cannot be analyzed.")]
    NotAnalyzable { ty: String },
    /// SAI cannot index values of `ty`.
    /// Origin: index/sai/StorageAttachedIndex.java validateOptions
    #[error("Unsupported type: {ty}")]
    UnsupportedIndexType { ty: ColumnType },
    /// A tuple of the wrong width for a multi-column relation; `value` as written.
    /// Origin: cql3/Tuples.java Literal.validateTupleAssignableTo / Tuples.checkTupleSize
    #[error("Expected {expected} elements in value tuple, but got {got}: {value}")]
    TupleArity {
        expected: usize,
        got: usize,
        value: String,
    },
    /// Origin: ours — a statement kind this server does not prepare with markers
    #[error("Bind markers are only supported in SELECT, INSERT, UPDATE and DELETE statements")]
    BindMarkersUnsupportedStatement,
    /// Bind marker `index` (from 0) has no receiver this server can describe.
    /// Origin: ours — a marker position this server cannot describe
    #[error("Bind marker {index} is in a position this server cannot prepare yet")]
    UnpreparableMarker { index: usize },
    /// A clustering value for a position past the last clustering column.
    /// Origin: ours — defensive: a clustering value past the clustering key
    #[error("Too many values for the clustering columns")]
    TooManyValuesForClustering,
    /// A clustering prefix longer than the clustering key.
    /// Origin: ours — defensive: a clustering prefix longer than the key
    #[error("Too many clustering values")]
    TooManyClusteringValues,
    /// A null key value in an `=`, `IN (...)` or tuple restriction.
    /// Origin: cql3/restrictions/SingleColumnRestriction.java / MultiColumnRestriction.java (checkNotNull "Invalid null value in condition for column %s")
    #[error("Invalid null value in condition for column {column}")]
    NullKeyValue { column: String },
    /// `IN ?` on a key column bound to null.
    /// Origin: cql3/restrictions/SingleColumnRestriction.java INRestriction (Invalid null value for column)
    #[error("Invalid null value for column {column}")]
    NullKeyList { column: String },
    /// Origin: cql3/restrictions/SingleColumnRestriction.java / MultiColumnRestriction.java (checkBindValueSet)
    #[error("Invalid unset value for column {column}")]
    UnsetKeyValue { column: String },
    /// A null operand of a filtering or index expression.
    /// Origin: cql3/restrictions/SingleColumnRestriction.java addToRowFilter / db/filter/RowFilter.java
    #[error("Unsupported null value for column {column}")]
    NullFilterValue { column: String },
    /// An unset operand of a filtering or index expression.
    /// Origin: cql3/restrictions/SingleColumnRestriction.java addToRowFilter
    #[error("Unsupported unset value for column {column}")]
    UnsetFilterValue { column: String },
    /// A null key or value (`part`) in `m[key] = value`.
    /// Origin: cql3/restrictions/SingleColumnRestriction.java ContainsRestriction.addToRowFilter (map entry)
    #[error("Unsupported null map {part} for column {column}")]
    NullMapEntryPart { part: String, column: String },
    /// An unset key or value (`part`) in `m[key] = value`.
    /// Origin: cql3/restrictions/SingleColumnRestriction.java ContainsRestriction.addToRowFilter (map entry)
    #[error("Unsupported unset map {part} for column {column}")]
    UnsetMapEntryPart { part: String, column: String },
    /// A tuple-typed restriction value that decoded to something else.
    /// Origin: ours — defensive: a tuple restriction value that decoded to something else
    #[error("Expected a tuple value")]
    ExpectedTuple,
    /// A bound restriction value its type cannot decode.
    /// Origin: ours — wraps a cql crate codec error, whose text is the serializer's
    #[error(transparent)]
    MalformedValue(codec::ValueError),
    /// An index expression value of `length` bytes, over Cassandra's 64 KiB.
    /// Origin: db/filter/RowFilter.java SimpleExpression.validate
    #[error("Index expression values may not be larger than 64K")]
    IndexValueTooLarge { length: usize },
    /// A key component longer than an unsigned short can count.
    /// Origin: cql3/Validation.java validateKey
    #[error("Key length of {length} is longer than maximum of {max}")]
    KeyTooLong { length: usize, max: usize },
    /// Origin: cql3/Validation.java validateKey
    #[error("Key may not be empty")]
    EmptyKey,
}

/// `ClusteringKeyOrder`'s message: Cassandra words it by whether the preceding column is
/// sliced or unrestricted.
fn key_order(column: &str, preceding: &str, preceding_non_eq: bool) -> String {
    if preceding_non_eq {
        format!("Clustering column \"{column}\" cannot be restricted (preceding column \"{preceding}\" is restricted by a non-EQ relation)")
    } else {
        format!("PRIMARY KEY column \"{column}\" cannot be restricted as preceding column \"{preceding}\" is not restricted")
    }
}
