//! `ValueError`: Values that do not fit their column: literals, bound values, collections, casts, JSON.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`. Types and values are boxed to
//! keep `CqlError` small.

use cql::statement::ast::CqlType;
use cql::types::codec::ValueError as CodecError;
use cql::types::duration::DurationError;
use cql::types::number_text::NumberTextError;
use cql::types::{ColumnType, CqlValue};

/// Values that do not fit their column: literals, bound values, collections, casts, JSON;
/// also numbers, dates and durations that functions cannot convert, and consistency levels a
/// request cannot use.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ValueError {
    // Constants (`Constants.Literal` and each type's `fromString`).
    /// A constant of a kind (`STRING`, `INTEGER`, ...) the receiving type does not take.
    /// Origin: cql3/Constants.java Literal.testAssignment / prepare
    #[error("Invalid {kind} constant ({text}) for \"{column}\" of type {ty}")]
    ConstantNotOfType {
        kind: &'static str,
        text: String,
        column: String,
        ty: Box<ColumnType>,
    },
    /// Text that is no value of the type Cassandra names `what` (`int`, `UUID`, ...).
    /// Origin: db/marshal/*Type.java fromString ("Unable to make %s from '%s'")
    #[error("Unable to make {what} from '{text}'")]
    Unparsable { what: &'static str, text: String },
    /// Text that is no `varint` or `decimal` (`IntegerType` and `DecimalType` say it in lower case).
    /// Origin: db/marshal/IntegerType.java / DecimalType.java fromString
    #[error("unable to make {what} from '{text}'")]
    MalformedNumber { what: &'static str, text: String },
    /// A number with more digits than the server converts.
    /// Origin: ours — a limit of ours on the digits a varint or decimal converts
    #[error("unable to make {what}: {source}")]
    NumberTooLong {
        what: &'static str,
        #[source]
        source: NumberTextError,
    },
    /// A string constant for an `ascii` receiver with a character ASCII cannot hold, as
    /// Java's encoder reports it (`input_length` in UTF-16 units).
    /// Origin: db/marshal/AsciiType.java fromString
    #[error("Invalid ASCII character in string literal: java.nio.charset.UnmappableCharacterException: Input length = {input_length}")]
    NotAscii { input_length: usize },
    /// Origin: db/marshal/TimeUUIDType.java fromString
    #[error("TimeUUID supports only version 1 UUIDs")]
    TimeuuidVersion,
    /// Origin: db/marshal/TimeUUIDType.java fromString
    #[error("Unknown timeuuid representation: {text}")]
    UnknownTimeuuid { text: String },
    /// Origin: db/marshal/BytesType.java fromString
    #[error("cannot parse '{text}' as hex bytes")]
    NotHex { text: String },
    /// A `timestamp`, `date` or `time` constant its type does not read; `reason` is the
    /// parser's message.
    /// Origin: ours — carries the date/time parser's message (serializers/TimestampSerializer.java, SimpleDateSerializer.java, TimeSerializer.java words)
    #[error("{reason}")]
    Temporal {
        ty: Box<ColumnType>,
        text: String,
        reason: String,
    },
    /// A `duration` constant that does not parse.
    /// Origin: ours — wraps the cql crate DurationError (cql3/Duration.java words)
    #[error(transparent)]
    Duration(#[from] DurationError),
    /// Origin: ours — not found in 5.0; a negation of a non-numeric constant
    #[error("Cannot negate a value of type {ty} for {column}")]
    NotNegatable { ty: Box<ColumnType>, column: String },

    // Bound values, nulls and unsets.
    /// Origin: ours — defensive: the bound value count is checked first (RequestError::ValueCount)
    #[error("No value bound for marker {index} (column {column})")]
    NoBoundValue { index: usize, column: String },
    /// A bound value that is not a valid serialized value of the column's type: 5.0 answers
    /// the serializer's message alone.
    /// Origin: cql3/Constants.java Marker.bindAndGet (the serializer's MarshalException message alone)
    #[error("{source}")]
    Binding {
        #[source]
        source: CodecError,
    },
    /// Bytes that do not decode as their type.
    /// Origin: ours — wraps a cql crate codec error, whose text is the serializer's (serializers/*Serializer.java validate)
    #[error(transparent)]
    Codec(#[from] CodecError),
    /// Origin: cql3/Constants.java Literal / Marker (null counter increment)
    #[error("Invalid null value for counter increment/decrement")]
    NullCounter,
    /// Origin: serializers/CollectionSerializer.java / cql3/Lists.java, Sets.java, Maps.java Literal.prepare
    #[error("null is not supported inside collections")]
    NullInCollection,
    /// Origin: cql3/functions/FunctionCall.java executeInternal / bindAndGet
    #[error("Invalid unset value for argument in call to function {function}")]
    UnsetArgument { function: String },
    /// Origin: cql3/UserTypes.java DelayedValue.bindInternal
    #[error("Invalid unset value for field '{field}' of user defined type {type_name}")]
    UnsetField { field: String, type_name: String },
    /// Origin: cql3/Tuples.java DelayedValue.bindInternal
    #[error("Invalid unset value for tuple field number {index}")]
    UnsetTupleField { index: usize },
    /// A column name (`term`) where a value is expected.
    /// Origin: ours — a column name where a value is expected (5.0's grammar has no column in a term)
    #[error("Invalid value {term} for column {column} of type {ty}")]
    ColumnAsValue {
        term: String,
        column: String,
        ty: Box<ColumnType>,
    },

    // Collection, vector, tuple and UDT literals; `kind` is `list`, `set`, `map`,
    // `vector` or `user type`.
    /// A collection or UDT literal for a receiver of another type.
    /// Origin: cql3/Lists.java, Sets.java, Maps.java, Vectors.java, UserTypes.java Literal.validateAssignableTo
    #[error("Invalid {kind} literal for {column} of type {ty}")]
    LiteralNotOfType {
        kind: &'static str,
        column: String,
        ty: Box<ColumnType>,
    },
    /// A list, set or vector element (as written) not of the element type.
    /// Origin: cql3/Lists.java, Sets.java, Vectors.java Literal.validateAssignableTo
    #[error("Invalid {kind} literal for {column}: value {value} is not of type {ty}")]
    ElementNotOfType {
        kind: &'static str,
        column: String,
        value: String,
        ty: Box<ColumnType>,
    },
    /// A map key or value (`part`, as written in `term`) not of its type.
    /// Origin: cql3/Maps.java Literal.validateAssignableTo
    #[error("Invalid map literal for {column}: {part} {term} is not of type {ty}")]
    EntryNotOfType {
        column: String,
        part: &'static str,
        term: String,
        ty: Box<ColumnType>,
    },
    /// Origin: cql3/Vectors.java Literal.validateAssignableTo
    #[error(
        "Invalid vector literal for {column} of type {ty}; expected {dimension} elements, but given {given}"
    )]
    VectorSize {
        column: String,
        ty: Box<ColumnType>,
        dimension: u32,
        given: usize,
    },
    /// Origin: cql3/UserTypes.java Literal.prepare
    #[error("Unknown field '{field}' in value of user defined type {type_name}")]
    UnknownField { field: String, type_name: String },
    /// Origin: cql3/UserTypes.java Literal.validateAssignableTo
    #[error("Invalid user type literal for {column}: field {field} is not of type {ty}")]
    FieldNotOfType {
        column: String,
        field: String,
        ty: Box<ColumnType>,
    },
    /// A tuple literal for a receiver that is not a tuple.
    /// Origin: cql3/Tuples.java Literal.validateTupleAssignableTo
    #[error("Invalid tuple type literal for {column} of type {ty}")]
    NotATuple { column: String, ty: Box<ColumnType> },
    /// Origin: cql3/Tuples.java Literal.validateTupleAssignableTo
    #[error(
        "Invalid tuple literal for {column}: too many elements. Type {ty} expects {expected} but got {given}"
    )]
    TooManyTupleElements {
        column: String,
        ty: Box<ColumnType>,
        expected: usize,
        given: usize,
    },
    /// A tuple written as a string constant (`'1:2:3'`) with too many fields.
    /// Origin: db/marshal/TupleType.java fromString
    #[error(
        "Invalid tuple literal: too many elements. Type {ty} expects {expected} but got {given}"
    )]
    TooManyTupleFields {
        ty: Box<ColumnType>,
        expected: usize,
        given: usize,
    },
    /// Origin: cql3/Tuples.java Literal.validateTupleAssignableTo
    #[error("Invalid tuple literal for {column}: component {index} is not of type {ty}")]
    ComponentNotOfType {
        column: String,
        index: usize,
        ty: Box<ColumnType>,
    },

    // Type hints and casts (`term` as written).
    /// `(type) term` where the term cannot be of the hinted type.
    /// Origin: cql3/TypeCast.java prepare
    #[error("Cannot cast value {term} to type {ty}")]
    HintNotOfType { term: String, ty: Box<ColumnType> },
    /// `(hint) term` for a receiver the hinted type does not fit.
    /// Origin: cql3/TypeCast.java prepare
    #[error("Cannot assign value ({hint}){term} to {column} of type {ty}")]
    HintNotAssignable {
        hint: Box<ColumnType>,
        term: String,
        column: String,
        ty: Box<ColumnType>,
    },
    /// `CAST(term AS ty)` with no conversion.
    /// Origin: cql3/functions/CastFcts.java / cql3/selection/Selectable.java WithCast
    #[error("{term} cannot be cast to {ty}")]
    NoCast { term: String, ty: Box<CqlType> },

    // Numbers, dates and times as functions and casts convert them.
    /// A fixed-size numeric value of the wrong size.
    /// Origin: ours — defensive: a numeric value of the wrong size for a conversion
    #[error("Expected {expected} bytes but got {given}")]
    WrongSize { expected: usize, given: usize },
    /// Origin: ours — defensive: a decimal value that does not decode for a conversion
    #[error("Invalid decimal value")]
    InvalidDecimal,
    /// Origin: ours — defensive: a float value that does not decode for a conversion
    #[error("Invalid float value")]
    InvalidFloat,
    /// Origin: ours — defensive: a conversion planned on a non-numeric type
    #[error("{ty} is not a numeric type")]
    NotNumeric { ty: Box<ColumnType> },
    /// A decimal whose scale does not fit an `int`; `reason` is Java's (`Underflow`, `Overflow`).
    /// Origin: java.math.BigDecimal (ArithmeticException "Underflow"/"Overflow"), in db/marshal/DecimalType.java
    #[error("{reason}")]
    DecimalScale { reason: String },
    /// Origin: db/marshal/DecimalType.java toBigDecimal
    #[error("A NaN cannot be converted into a decimal")]
    NanToDecimal,
    /// Origin: db/marshal/DecimalType.java toBigDecimal
    #[error("An infinite number cannot be converted into a decimal")]
    InfiniteToDecimal,
    /// A `varint` or `decimal` with too many digits to convert or print.
    /// Origin: ours — wraps NumberTextError, a limit of ours on decimal digits
    #[error(transparent)]
    NumberText(#[from] NumberTextError),
    /// Origin: ours — defensive: a value with no text form
    #[error("Cannot render {value:?} as text")]
    NotRenderable { value: Box<CqlValue> },
    /// Origin: ours — a date conversion past the range of date
    #[error("{days} days is out of the range of date")]
    DateOutOfRange { days: i64 },
    /// Origin: ours — defensive: a time conversion of a non-temporal value
    #[error("Invalid {ty} value for a time conversion")]
    NotATime { ty: Box<ColumnType> },
    /// A timestamp moved by a duration (as printed) finer than milliseconds.
    /// Origin: db/marshal/TimestampType.java addDuration / substractDuration
    #[error("The duration must have a millisecond precision. Was: {duration}")]
    DurationFinerThanMillis { duration: String },
    /// A date moved by a duration (as printed) finer than days.
    /// Origin: db/marshal/SimpleDateType.java addDuration / substractDuration
    #[error("The duration must have a day precision. Was: {duration}")]
    DurationFinerThanDays { duration: String },
    /// Origin: ours — date arithmetic past the range of date
    #[error("The resulting date is out of range")]
    ResultingDateOutOfRange,
    /// `blobAs<type>` of bytes that are no value of the type.
    /// Origin: cql3/functions/BytesConversionFcts.java makeFromBlobFunction
    #[error(
        "In call to function {function}, value 0x{} is not a valid binary representation for type {ty}",
        super::hex(.value)
    )]
    NotABlobOf {
        function: String,
        value: Vec<u8>,
        ty: Box<ColumnType>,
    },

    // JSON (`fromJson`, `INSERT JSON`); `json` is the value as compact JSON text and `kind`
    // Jackson's class name for it.
    /// A JSON value of a kind the type does not read from.
    /// Origin: db/marshal/*Type.java fromJSONObject ("Expected %s, but got a %s: %s")
    #[error("Expected {what}, but got a {kind}: {json}")]
    JsonExpected {
        what: String,
        kind: &'static str,
        json: String,
    },
    /// JSON text that does not parse.
    /// Origin: Jackson JsonParseException message (cql3/Json.java decodeJson)
    #[error("{message} at character {offset}")]
    JsonSyntax {
        message: &'static str,
        offset: usize,
    },
    /// Origin: db/marshal/DecimalType.java fromJSONObject
    #[error("Value '{text}' is not a valid representation of a decimal value")]
    JsonDecimal { text: String },
    /// A dynamic composite's part without exactly one `@` between its type and value.
    /// Origin: db/marshal/DynamicCompositeType.java fromString (pre-5.0 copy read)
    #[error("Invalid component representation: {part}")]
    CompositeComponent { part: String },
    /// A composite component or class name too long for its 2-byte length.
    /// Origin: ours — wraps the codec's length check (Cassandra's ByteBufferUtil writes fail)
    #[error(transparent)]
    CompositeTooLong(#[from] cql::types::composite::ComponentTooLong),
    /// A type named by its Java class that Cassandra would not load.
    /// Origin: ours — wraps MarshalError, whose messages are db/marshal/TypeParser.java's
    #[error(transparent)]
    Marshal(#[from] cql::types::marshal::MarshalError),
    /// Origin: ours — not found in 5.0; JSON of a custom type
    #[error("JSON is not supported for custom type {class}")]
    JsonCustomType { class: String },
    /// Origin: db/marshal/BytesType.java fromJSONObject
    #[error("String representation of blob is missing 0x prefix: {text}")]
    JsonBlobPrefix { text: String },
    /// Origin: db/marshal/VectorType.java fromJSONObject
    #[error("List had incorrect size: expected {dimension} but given {given}; {json}")]
    JsonListSize {
        dimension: u32,
        given: usize,
        json: String,
    },
    /// Origin: db/marshal/ListType.java / SetType.java fromJSONObject
    #[error("Invalid null element in {kind}")]
    JsonNullElement { kind: &'static str },
    /// Origin: db/marshal/MapType.java fromJSONObject
    #[error("Invalid null key in map")]
    JsonNullKey,
    /// Origin: db/marshal/MapType.java fromJSONObject
    #[error("Invalid null value in map")]
    JsonNullValue,
    /// Origin: db/marshal/TupleType.java fromJSONObject
    #[error("Tuple contains extra items (expected {expected}, got {given})")]
    JsonTupleExtraItems { expected: usize, given: usize },
    /// Origin: db/marshal/TupleType.java fromJSONObject
    #[error("Tuple is missing items (expected {expected}, got {given})")]
    JsonTupleMissingItems { expected: usize, given: usize },
    /// INSERT JSON text that is not UTF-8.
    /// Origin: serializers/UTF8Serializer.java validate
    #[error("String didn't validate.")]
    JsonNotUtf8,
    /// Origin: cql3/Json.java PreparedMarker.getJsonValue
    #[error("Got null for INSERT JSON values")]
    JsonNull,
    /// INSERT JSON text holding a JSON value that is no object.
    /// Origin: cql3/Json.java parseJson
    #[error(
        "Could not decode JSON string as a map: Cannot deserialize a map from a {kind}. (String was: {text})"
    )]
    JsonNotAMap { kind: &'static str, text: String },
    /// INSERT JSON text that does not parse.
    /// Origin: cql3/Json.java parseJson
    #[error(
        "Could not decode JSON string as a map: {message} at character {offset}. (String was: {text})"
    )]
    JsonMapSyntax {
        message: &'static str,
        offset: usize,
        text: String,
    },
    /// An INSERT JSON value that does not fit its column.
    /// Origin: cql3/Json.java RawDelayedColumnValue / handleCaseSensitivity ("Error decoding JSON value for %s: %s")
    #[error("Error decoding JSON value for {column}: {source}")]
    JsonValue {
        column: String,
        #[source]
        source: Box<ValueError>,
    },
    /// Origin: cql3/Json.java parseJson
    #[error("JSON values map contains unrecognized column: {column}")]
    JsonUnknownColumn { column: String },

    // Consistency levels.
    /// Origin: db/ConsistencyLevel.java validateForRead
    #[error("ANY ConsistencyLevel is only supported for writes")]
    AnyForRead,
    /// Origin: db/ConsistencyLevel.java validateCounterForWrite
    #[error("Consistency level ANY is not yet supported for counter table {table}")]
    AnyForCounterWrite { table: String },
    /// Origin: db/ConsistencyLevel.java validateCounterForWrite
    #[error("Counter operations are inherently non-serializable")]
    SerialCounterWrite,
    /// A primary-key value that storage cannot encode (an unsupported key type, or bytes
    /// that are no value of it), in storage's own words. Boxed: redb's errors are large.
    /// Origin: ours — storage's own words for a key it cannot encode
    #[error("{0}")]
    UnencodableKey(Box<storage::StorageError>),
}

impl ValueError {
    /// Whether a literal does not suit its receiver's type (Cassandra's failed
    /// `testAssignment`): inside a collection, tuple or UDT literal the enclosing literal's
    /// message names it instead.
    pub(crate) fn is_not_assignable(&self) -> bool {
        matches!(
            self,
            ValueError::ConstantNotOfType { .. }
                | ValueError::LiteralNotOfType { .. }
                | ValueError::ElementNotOfType { .. }
                | ValueError::EntryNotOfType { .. }
                | ValueError::VectorSize { .. }
                | ValueError::FieldNotOfType { .. }
                | ValueError::NotATuple { .. }
                | ValueError::TooManyTupleElements { .. }
                | ValueError::ComponentNotOfType { .. }
        )
    }
}
