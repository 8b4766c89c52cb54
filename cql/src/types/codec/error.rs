//! [`ValueError`]: why a serialized value does not fit its type, in the words of Cassandra's
//! `MarshalException`s so clients see the messages they know.

/// Why a serialized value does not fit its type (Cassandra's `MarshalException` messages).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// A fixed-size type with the wrong number of bytes; `expected` is Cassandra's wording
    /// (e.g. `Expected 4 or 0 byte int`).
    /// Origin: serializers/*Serializer.java validate (e.g. Int32Serializer "Expected 4 or 0 byte int (%d)")
    #[error("{expected} ({len})")]
    WrongSize {
        /// Cassandra's message before the size.
        expected: &'static str,
        /// The size received.
        len: usize,
    },
    /// `text` that is not UTF-8 (5.0's validation does not print the bytes; `hex` is kept
    /// for the log).
    /// Origin: serializers/UTF8Serializer.java validate
    #[error("String didn't validate.")]
    InvalidUtf8 {
        /// The value in lower-case hex.
        hex: String,
    },
    /// A `CompositeType` value that is no sequence of components, in Cassandra's words
    /// (`AbstractCompositeType.validate`).
    #[error("{0}")]
    Composite(String),
    /// `ascii` with a byte above 127.
    /// Origin: serializers/AsciiSerializer.java validate
    #[error("Invalid byte for ascii: {byte}")]
    InvalidAscii {
        /// The offending byte, signed as Java prints it.
        byte: i8,
    },
    /// An `inet` that is neither 4 nor 16 bytes.
    /// Origin: serializers/InetAddressSerializer.java validate
    #[error("Expected 4 or 16 byte inetaddress; got {hex}")]
    InvalidInet {
        /// The value in lower-case hex.
        hex: String,
    },
    /// A `timeuuid` whose version is not 1.
    /// Origin: serializers/TimeUUIDSerializer.java validate
    #[error("Invalid version for TimeUUID type.")]
    InvalidTimeuuidVersion,
    /// A `decimal` with a scale but no unscaled digits.
    /// Origin: java.math.BigInteger (NumberFormatException), via serializers/DecimalSerializer.java deserialize
    #[error("Zero length BigInteger")]
    EmptyUnscaled,
    /// A `duration` whose vints end early.
    /// Origin: ours — a duration whose vints end early (serializers/DurationSerializer.java reads them)
    #[error("Not enough bytes to read a duration")]
    DurationTruncated,
    /// A `duration` month or day count outside 32 bits.
    /// Origin: serializers/DurationSerializer.java validate
    #[error("The duration {unit} must be a 32 bits integer but was: {value}")]
    DurationOutOfRange {
        /// `months` or `days`.
        unit: &'static str,
        /// The decoded count.
        value: i64,
    },
    /// A `duration` whose parts have different signs.
    /// Origin: serializers/DurationSerializer.java validate
    #[error(
        "The duration months, days and nanoseconds must be all of the same sign ({months}, {days}, {nanoseconds})"
    )]
    DurationMixedSigns {
        /// Months.
        months: i32,
        /// Days.
        days: i32,
        /// Nanoseconds.
        nanoseconds: i64,
    },
    /// A collection whose count or elements run past the value.
    /// Origin: serializers/ListSerializer.java, SetSerializer.java, MapSerializer.java validate
    #[error("Not enough bytes to read a {kind}")]
    CollectionTruncated {
        /// `list`, `set` or `map`.
        kind: &'static str,
    },
    /// A collection with a negative element count.
    /// Origin: serializers/ListSerializer.java, SetSerializer.java, MapSerializer.java validate
    #[error("The data cannot be deserialized as a {kind}")]
    NegativeCollectionSize {
        /// `list`, `set` or `map`.
        kind: &'static str,
    },
    /// Bytes left after a collection's last element.
    /// Origin: serializers/ListSerializer.java, SetSerializer.java, MapSerializer.java validate
    #[error("Unexpected extraneous bytes after {kind} value")]
    CollectionExtraneous {
        /// `list`, `set` or `map`.
        kind: &'static str,
    },
    /// A null element inside a list value.
    /// Origin: serializers/ListSerializer.java validate
    #[error("null is not supported inside collections")]
    NullInCollection,
    /// A null element of a set, or key or value of a map (`CollectionSerializer.readNonNullValue`).
    /// Origin: serializers/CollectionSerializer.java readNonNullValue
    #[error("Null value read when not allowed")]
    NullValueRead,
    /// A tuple whose component size is cut off.
    /// Origin: db/marshal/TupleType.java validate
    #[error("Not enough bytes to read size of {index}th component")]
    TupleSizeTruncated {
        /// Component index.
        index: usize,
    },
    /// A tuple whose component is cut off.
    /// Origin: db/marshal/TupleType.java validate
    #[error("Not enough bytes to read {index}th component")]
    TupleComponentTruncated {
        /// Component index.
        index: usize,
    },
    /// A tuple with more components than its type.
    /// Origin: db/marshal/TupleType.java validate
    #[error("Invalid remaining data after end of tuple value")]
    TupleExtraneous,
    /// A UDT whose field size is cut off.
    /// Origin: serializers/UserTypeSerializer.java validate
    #[error("Not enough bytes to read size of {index}th field {field}")]
    UdtSizeTruncated {
        /// Field index.
        index: usize,
        /// Field name.
        field: String,
    },
    /// A UDT whose field is cut off.
    /// Origin: serializers/UserTypeSerializer.java validate
    #[error("Not enough bytes to read {index}th field {field}")]
    UdtFieldTruncated {
        /// Field index.
        index: usize,
        /// Field name.
        field: String,
    },
    /// A UDT with more fields than its type.
    /// Origin: serializers/UserTypeSerializer.java validate
    #[error("Invalid remaining data after end of UDT value")]
    UdtExtraneous,
    /// A vector whose elements run past the value.
    /// Origin: db/marshal/VectorType.java VariableLengthSerializer.validate
    #[error("Not enough bytes to read a {ty}")]
    VectorTruncated {
        /// The vector type as CQL writes it.
        ty: String,
    },
    /// Bytes left after a vector's last element.
    /// Origin: db/marshal/VectorType.java FixedLengthSerializer / VariableLengthSerializer validate
    #[error("Unexpected {count} extraneous bytes after {ty} value")]
    VectorExtraneous {
        /// How many bytes are left.
        count: usize,
        /// The vector type as CQL writes it.
        ty: String,
    },
    /// Nested deeper than [`MAX_VALUE_DEPTH`].
    /// Origin: ours — a nesting limit of ours
    #[error("Value nested deeper than {max} levels")]
    TooDeep {
        /// The limit.
        max: usize,
    },
}
