//! `FunctionError`: Function calls Cassandra refuses before running them: unknown functions, argument counts and types.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`. Types are boxed to keep
//! `CqlError` small.

use cql::types::ColumnType;

/// Function calls Cassandra refuses before running them: unknown functions, argument counts and types.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FunctionError {
    /// A collection function (`map_keys`, `collection_sum`, ...) given an argument of a type
    /// it does not take; `requirement` is `a map argument`, `a numeric set/list argument`...
    /// Origin: cql3/functions/FunctionParameter.java anyMap, anyCollection, setOrList, numericSetOrList validateType
    #[error("Function {function} requires {requirement}, but found argument {arg} of type {ty}")]
    CollectionArgument {
        function: String,
        requirement: &'static str,
        arg: String,
        ty: String,
    },
    /// A function made per call (a collection or masking function) called with a number of
    /// arguments its factory does not take; `factory` as `system.map_keys(map)`.
    /// Origin: cql3/functions/FunctionFactory.java invalidNumberOfArgumentsException
    #[error("Invalid number of arguments for function {factory}")]
    FactoryArgumentCount { factory: String },
    /// A function made per call whose argument's type cannot be inferred (a marker, a null).
    /// Origin: cql3/functions/FunctionFactory.java getOrCreateFunction
    #[error("Cannot infer type of argument {arg} in call to function {factory}: use type casts to disambiguate")]
    FactoryUntyped { arg: String, factory: String },
    /// A masking function's argument of none of the types its parameter accepts;
    /// `expected` as `int` or `[text|varchar|ascii]`.
    /// Origin: cql3/functions/FunctionParameter.java fixed validateType
    #[error("Function {function} requires an argument of type {expected}, but found argument {arg} of type {ty}")]
    FixedArgument {
        function: String,
        expected: &'static str,
        arg: String,
        ty: String,
    },
    /// `mask_inner` / `mask_outer` given a padding of other than one (UTF-16) character.
    /// Origin: cql3/functions/masking/PartialMaskingFunction.java PartialMaskingFunction (padding deserializer)
    #[error("The padding argument for function {function} should be single-character, but '{padding}' has {length} characters.")]
    PaddingLength {
        function: String,
        padding: String,
        length: usize,
    },
    /// `mask_hash` given an algorithm name no digest answers to.
    /// Origin: cql3/functions/masking/HashMaskingFunction.java messageDigest
    #[error("Hash algorithm not found: {algorithm}")]
    HashAlgorithmNotFound { algorithm: String },
    /// `mask_default` of a type without a masked value (a custom type).
    /// Origin: db/marshal/AbstractType.java getMaskedValue
    #[error("There isn't a defined masked value for type {ty}")]
    NoMaskedValue { ty: String },
    /// No native function has the name.
    /// Origin: cql3/functions/FunctionCall.java Raw.prepare
    #[error("Unknown function {function} called")]
    UnknownFunction { function: String },
    /// A native aggregate (`count`, `max`, ...) called inside a term.
    /// Origin: cql3/functions/FunctionCall.java Raw.prepare
    #[error("Aggregation function are not supported in the where clause")]
    AggregateInTerm,
    /// Origin: cql3/functions/FunctionResolver.java validateTypes
    #[error(
        "Invalid number of arguments in call to function {function}: {required} required but {provided} provided"
    )]
    ArgumentCount {
        function: String,
        required: usize,
        provided: usize,
    },
    /// An argument (as written) that does not fit the only signature of the function.
    /// Origin: cql3/functions/FunctionResolver.java validateTypes
    #[error("Type error: {arg} cannot be passed as argument {index} of function {function} of type {ty}")]
    ArgumentType {
        arg: String,
        index: usize,
        function: String,
        ty: Box<ColumnType>,
    },
    /// No signature of the function fits the arguments; `signatures` as Cassandra prints them.
    /// Origin: cql3/functions/FunctionResolver.java get
    #[error(
        "Invalid call to function {function}, none of its type signatures match (known type signatures: {})",
        .signatures.join(", ")
    )]
    NoMatchingSignature {
        function: String,
        signatures: Vec<String>,
    },
    /// Several signatures fit the arguments equally well.
    /// Origin: cql3/functions/FunctionResolver.java get
    #[error(
        "Ambiguous call to function {function} (can be matched by following signatures: {}): use type casts to disambiguate",
        .signatures.join(", ")
    )]
    AmbiguousCall {
        function: String,
        signatures: Vec<String>,
    },
    /// An operator (`+`, `-`, ...) with operands (as written) no signature accepts.
    /// Origin: cql3/functions/OperationFcts.java OperationFunction (via FunctionResolver)
    #[error("the '{operator}' operation is not supported between {left} and {right}")]
    UnsupportedOperation {
        operator: char,
        left: String,
        right: String,
    },
    /// An operator whose operands (as written) fit several signatures.
    /// Origin: cql3/functions/FunctionResolver.java get (operation functions)
    #[error(
        "Ambiguous '{operator}' operation with args {left} and {right}: use type hint to disambiguate, example '(int) ?'"
    )]
    AmbiguousOperation {
        operator: char,
        left: String,
        right: String,
    },
    /// A negation whose operand fits several numeric types.
    /// Origin: cql3/functions/FunctionResolver.java get (negation)
    #[error("Ambiguous negation: use type casts to disambiguate")]
    AmbiguousNegation,
    /// A function whose result type cannot be assigned to the receiving column.
    /// Origin: cql3/functions/FunctionCall.java Raw.prepare
    #[error(
        "Type error: cannot assign result of function {function} (type {ty}) to {receiver} (type {receiver_type})"
    )]
    ResultNotAssignable {
        function: String,
        ty: Box<ColumnType>,
        receiver: String,
        receiver_type: Box<ColumnType>,
    },
    /// `toJson` where a value is expected.
    /// Origin: cql3/functions/FunctionResolver.java get
    #[error("toJson() may only be used within the selection clause of SELECT statements")]
    ToJsonOutsideSelection,
    /// A vector similarity function given something other than a float vector.
    /// Origin: ours — a bound argument the similarity function cannot read as floats; 5.0 refuses non-float vectors when preparing (SelectError::SelectorNotFloatVector)
    #[error("Function {function} requires a float vector argument")]
    NotAFloatVector { function: String },
    /// A vector similarity function given vectors of different dimensions.
    /// Origin: cql3/functions/VectorFcts.java createSimilarityFunctionFactory
    #[error("All arguments must have the same vector dimensions")]
    VectorDimensionsDiffer,
    /// A similarity with no meaning for an all-zero vector (cosine).
    /// Origin: cql3/functions/VectorFcts.java createSimilarityFunction execute
    #[error("Function {function} doesn't support all-zero vectors.")]
    ZeroVector { function: String },
}
