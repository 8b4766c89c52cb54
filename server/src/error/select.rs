//! `SelectError`: SELECT clauses Cassandra refuses: selectors, aggregates, GROUP BY, ORDER BY, ANN, LIMIT and paging.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`. Types, terms and selectors are held
//! as the message prints them, which keeps the error (and so every `CqlResult`) small.

use cql::statement::ast::Operator;
use cql::types::number_text::NumberTextError;

/// Cassandra's refusal of a query that would need ALLOW FILTERING.
pub(crate) const ALLOW_FILTERING_MESSAGE: &str = "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING";

/// SELECT clauses Cassandra refuses: selectors, aggregates, GROUP BY, ORDER BY, ANN, LIMIT and paging.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SelectError {
    // WHERE clauses only a SELECT plan refuses.
    /// Origin: cql3/restrictions/StatementRestrictions.java StatementRestrictions
    #[error("Clustering columns can only be restricted with CONTAINS with a secondary index or filtering")]
    ClusteringContainsWithoutIndex,
    /// A query that filters rows without ALLOW FILTERING.
    /// Origin: cql3/restrictions/StatementRestrictions.java REQUIRES_ALLOW_FILTERING_MESSAGE
    #[error("{}", ALLOW_FILTERING_MESSAGE)]
    NeedsFiltering,

    // Selectors.
    /// Origin: cql3/selection/Selectable.java WithFunction.Raw.prepare / FromJsonFct
    #[error("fromJson() cannot be used in the selection clause of a SELECT statement")]
    FromJsonInSelection,
    /// A native function (an aggregate, `maxwritetime`, `token`) called with the wrong number
    /// of arguments.
    /// Origin: cql3/functions/FunctionResolver.java validateTypes
    #[error("Invalid number of arguments in call to function system.{function}: {required} required but {provided} provided")]
    ArgumentCount {
        function: &'static str,
        required: usize,
        provided: usize,
    },
    /// Origin: cql3/selection/Selectable.java WithFunction.newSelectorFactory / AbstractFunctionSelector
    #[error("aggregate functions cannot be used as arguments of aggregate functions")]
    NestedAggregate,
    /// Origin: ours — a selector this server does not evaluate
    #[error("Unsupported selector: {selector}")]
    UnsupportedSelector { selector: String },
    /// Origin: ours — a selector shape this server does not evaluate
    #[error("Unsupported selector: {selector} (a function applied to an aggregate may not also read columns)")]
    AggregateWithColumns { selector: String },
    /// `writetime`, `ttl` or `maxwritetime` of a primary key column.
    /// Origin: cql3/selection/Selectable.java WritetimeOrTTL.newSelectorFactory
    #[error("Cannot use selection function {function} on PRIMARY KEY part {column}")]
    CellTimeOnPrimaryKey {
        function: &'static str,
        column: String,
    },
    /// Origin: cql3/selection/Selectable.java WithElementSelection.newSelectorFactory
    #[error("Element selection is only allowed on sets and maps, but {column} is a list")]
    ElementOfList { column: String },
    /// Origin: cql3/selection/Selectable.java WithSliceSelection.newSelectorFactory
    #[error("Slice selection is only allowed on sets and maps, but {column} is a list")]
    SliceOfList { column: String },
    /// Origin: cql3/selection/Selectable.java WithElementSelection.newSelectorFactory
    #[error("Invalid element selection: {column} is of type {ty} is not a collection")]
    ElementOfNonCollection { column: String, ty: String },
    /// Origin: cql3/selection/Selectable.java WithSliceSelection.newSelectorFactory
    #[error("Invalid slice selection: {column} of type {ty} is not a collection")]
    SliceOfNonCollection { column: String, ty: String },
    /// A literal or bind marker whose type nothing in the selector gives.
    /// Origin: cql3/selection/Selectable.java WithTerm.newSelectorFactory
    #[error(
        "Cannot infer type for term {term} in selection clause (try using a cast to force a type)"
    )]
    UntypedTerm { term: String },
    /// Origin: ours — not found in 5.0 (whose `Selectable.WithTerm` prepares the term against
    /// the expected type, refused earlier by the function's own checks)
    #[error("{term} is not of the expected type: {ty}")]
    TermNotOfType { term: String, ty: String },
    /// Origin: cql3/selection/Selectable.java WithFunction.Raw.prepare
    #[error("Unknown function '{function}'")]
    UnknownFunction { function: String },
    /// A CAST whose selector (named by its first column) cannot take type `ty`.
    /// Origin: cql3/selection/Selectable.java WithCast.newSelectorFactory
    #[error("{column} cannot be cast to {ty}")]
    CannotCast { column: String, ty: String },
    /// A type hint `(ty)selector` the selector's type does not suit; `hinted` is
    /// `(ty)selector`.
    /// Origin: cql3/selection/Selectable.java WithTypeHint.newSelectorFactory
    #[error("Cannot assign value {hinted} to {hinted} of type {ty}")]
    HintNotAssignable { hinted: String, ty: String },
    /// Origin: cql3/selection/Selectable.java WithFieldSelection.newSelectorFactory
    #[error("Invalid field selection: {selector} of type {ty} is not a user type")]
    FieldOfNonUdt { selector: String, ty: String },
    /// Origin: cql3/selection/Selectable.java WithFieldSelection.newSelectorFactory
    #[error("{selector} of type {ty} has no field {field}")]
    UnknownField {
        selector: String,
        ty: String,
        field: String,
    },

    // Similarity functions as selectors.
    /// A similarity function (`similarity_cosine`, ...) called without two arguments.
    /// Origin: cql3/functions/FunctionFactory.java getOrCreateFunction (VectorFcts)
    #[error("Invalid number of arguments for function system.{function}(vector<float, n>, vector<float, n>)")]
    SimilarityArgumentCount { function: String },
    /// A similarity call whose arguments are all `NULL` or bind markers.
    /// Origin: cql3/functions/FunctionParameter.java inferType (VectorFcts)
    #[error("Cannot infer type of argument {argument} in call to function {function}")]
    UntypedSimilarityArgument { argument: String, function: String },
    /// A similarity argument (a selector) whose type is not a float vector.
    /// Origin: cql3/functions/FunctionParameter.java vector (VectorFcts)
    #[error("Function {function} requires a float vector argument, but found argument {argument} of type {ty}")]
    SelectorNotFloatVector {
        function: String,
        argument: String,
        ty: String,
    },
    /// A similarity argument (a term) that cannot be a float vector.
    /// Origin: cql3/functions/FunctionParameter.java vector (VectorFcts)
    #[error("Function {function} requires a float vector argument, but found argument {term}")]
    TermNotFloatVector { function: String, term: String },
    /// A vector literal with an element that cannot be a `float`.
    /// Origin: cql3/functions/FunctionResolver.java validateTypes
    #[error("Type error: {term} cannot be passed as argument {index} of function {function} of type vector<float, {dimension}>")]
    ArgumentNotOfType {
        term: String,
        index: usize,
        function: String,
        dimension: u32,
    },

    // GROUP BY and DISTINCT.
    /// Origin: cql3/statements/SelectStatement.java RawStatement.getAggregationSpecFactory
    #[error("Group by currently only support groups of columns following their declared order in the PRIMARY KEY")]
    GroupByOutOfOrder,
    /// Origin: cql3/statements/SelectStatement.java RawStatement.getAggregationSpecFactory
    #[error(
        "Group by is currently only supported on the columns of the PRIMARY KEY, got {column}"
    )]
    GroupByNonPrimaryKey { column: String },
    /// Origin: cql3/statements/SelectStatement.java RawStatement.getAggregationSpecFactory
    #[error("Group by is not supported on only a part of the partition key")]
    GroupByPartialPartitionKey,
    /// Origin: cql3/statements/SelectStatement.java RawStatement.getAggregationSpecFactory
    #[error("Grouping on clustering columns is not allowed for SELECT DISTINCT queries")]
    DistinctGroupByClustering,
    /// Origin: cql3/statements/SelectStatement.java RawStatement.prepare
    #[error("PER PARTITION LIMIT is not allowed with aggregate queries.")]
    PerPartitionLimitWithAggregate,
    /// Origin: cql3/statements/SelectStatement.java RawStatement.prepare
    #[error("PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries")]
    PerPartitionLimitWithDistinct,
    /// Origin: cql3/statements/SelectStatement.java RawStatement.validateDistinctSelection
    #[error("SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.")]
    DistinctRestrictsNonPartition,
    /// Origin: cql3/statements/SelectStatement.java RawStatement.validateDistinctSelection
    #[error("SELECT DISTINCT queries must only request partition key columns and/or static columns (not {column})")]
    DistinctNonPartitionColumn { column: String },
    /// Origin: cql3/statements/SelectStatement.java RawStatement.validateDistinctSelection
    #[error(
        "SELECT DISTINCT queries must request all the partition key columns (missing {column})"
    )]
    DistinctMissingPartitionKey { column: String },

    // ORDER BY.
    /// ORDER BY (other than ANN) in a query that reads a secondary index.
    /// Origin: cql3/statements/SelectStatement.java RawStatement.verifyOrderingIsAllowed
    #[error("ORDER BY with 2ndary indexes is not supported, except for ANN queries.")]
    OrderByWithSecondaryIndex,
    /// Origin: cql3/statements/SelectStatement.java RawStatement.verifyOrderingIsAllowed
    #[error("ORDER BY is only supported when the partition key is restricted by an EQ or an IN.")]
    OrderByWithoutPartitionKey,
    /// Origin: cql3/statements/SelectStatement.java RawStatement.isReversed
    #[error("Order by is currently only supported on the clustered columns of the PRIMARY KEY, got {column}")]
    OrderByNonClustering { column: String },
    /// Origin: cql3/statements/SelectStatement.java RawStatement.isReversed
    #[error("Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY")]
    OrderByOutOfOrder,
    /// ORDER BY columns that do not all follow, or all reverse, the clustering order.
    /// Origin: cql3/statements/SelectStatement.java RawStatement.isReversed
    #[error("Unsupported order by relation")]
    MixedOrderBy,
    /// A paged query whose partitions, read by IN, must be sorted after the read.
    /// Origin: cql3/statements/SelectStatement.java execute (paging with post-query ordering)
    #[error("Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ORDER BY or the IN and sort client side, or disable paging for this query")]
    PostOrderPaging,

    // ANN ordering (vector search).
    /// Origin: index/sai/StorageAttachedIndex.java ANN_LIMIT_ERROR
    #[error("Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than {max}. LIMIT was {limit}")]
    AnnLimit { limit: usize, max: usize },
    /// Origin: cql3/restrictions/StatementRestrictions.java addOrderingRestrictions
    #[error("Cannot specify more than one ANN ordering")]
    MultipleAnnOrderings,
    /// Origin: cql3/restrictions/StatementRestrictions.java addOrderingRestrictions
    #[error("ANN ordering does not support any other ordering")]
    AnnWithOtherOrdering,
    /// Origin: cql3/restrictions/StatementRestrictions.java addOrderingRestrictions
    #[error("Descending ANN ordering is not supported")]
    DescendingAnn,
    /// Origin: cql3/restrictions/StatementRestrictions.java StatementRestrictions (ANN_ONLY_SUPPORTED_ON_VECTOR_MESSAGE)
    #[error("ANN ordering is only supported on float vector indexes")]
    AnnNotFloatVector,
    /// Origin: cql3/restrictions/StatementRestrictions.java ANN_REQUIRES_INDEX_MESSAGE
    #[error("ANN ordering by vector requires the column to be indexed")]
    AnnColumnNotIndexed,
    /// Origin: cql3/restrictions/StatementRestrictions.java ANN_REQUIRES_INDEXED_FILTERING_MESSAGE
    #[error("ANN ordering by vector requires all restricted column(s) to be indexed")]
    AnnUnindexedRestriction,
    /// Origin: cql3/statements/SelectStatement.java TOPK_LIMIT_ERROR (Top-K checks)
    #[error("Top-K queries must have a limit specified and the limit must be less than the query page size")]
    TopKWithoutLimit,
    /// Origin: cql3/statements/SelectStatement.java Top-K checks (aggregation)
    #[error("Top-K queries cannot be run with aggregation")]
    TopKWithAggregation,
    /// Origin: cql3/statements/SelectStatement.java Top-K checks (per-partition limit)
    #[error("Top-K queries do not support per-partition limits")]
    TopKWithPerPartitionLimit,
    /// A WHERE relation on a vector-indexed column of a query without ANN ordering.
    /// Origin: index/sai/plan/Expression.java / StorageAttachedIndex (VECTOR_INDEXES_ANN_ONLY_MESSAGE)
    #[error("Vector indexes only support ANN queries")]
    VectorRestrictionWithoutAnn,
    /// A bound ANN query vector that is not a valid value of the column's type.
    /// Origin: ours — wraps a cql crate codec error, whose text is the serializer's
    #[error(transparent)]
    InvalidVector(cql::types::codec::ValueError),

    // Bound values of the SELECT.
    /// Origin: cql3/restrictions/TokenRestriction.java bounds / dht token factory ("Invalid null token value")
    #[error("Invalid null token value")]
    NullToken,
    /// Origin: cql3/functions/FunctionCall.java bindAndGet (unset argument)
    #[error("Invalid unset value for argument in call to function token")]
    UnsetTokenArgument,
    /// A LIMIT or PER PARTITION LIMIT of zero or less; `clause` is `LIMIT` or
    /// `PER PARTITION LIMIT`.
    /// Origin: cql3/statements/SelectStatement.java getLimit / getPerPartitionLimit (checkLimit)
    #[error("{clause} must be strictly positive")]
    NonPositiveLimit { clause: &'static str },
    /// A null LIMIT or PER PARTITION LIMIT; `limit` is `limit` or `per partition limit`.
    /// Origin: cql3/statements/SelectStatement.java getLimit / getPerPartitionLimit (checkLimit)
    #[error("Invalid null value of {limit}")]
    NullLimit { limit: &'static str },
    /// Origin: ours — defensive: an operator the row filter does not evaluate
    #[error("Filtering with {operator:?} is not supported yet")]
    UnsupportedFilter { operator: Operator },

    // Aggregation at execution.
    /// A stored value an aggregate cannot decode as its column's type.
    /// Origin: ours — a stored value an aggregate cannot decode
    #[error("Invalid {ty} value")]
    InvalidAggregateValue { ty: String },
    /// A `decimal` sum or average with more digits than a number may have.
    /// Origin: ours — wraps NumberTextError, a limit of ours on decimal digits
    #[error(transparent)]
    TooManyDigits(NumberTextError),
    /// A `decimal` result whose scale is beyond an `int`, too small a value.
    /// Origin: java.math.BigDecimal (ArithmeticException "Underflow" from a scale past an int), in cql3/functions/AggregateFcts.java
    #[error("Underflow")]
    DecimalUnderflow,
    /// A `decimal` result whose scale is beyond an `int`, too large a value.
    /// Origin: java.math.BigDecimal (ArithmeticException "Overflow" from a scale past an int), in cql3/functions/AggregateFcts.java
    #[error("Overflow")]
    DecimalOverflow,
}
