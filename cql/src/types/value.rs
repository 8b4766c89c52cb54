//! `CqlValue`: a decoded CQL value. Stored cells and result rows keep values in their
//! serialized wire form; this type exists for literals, functions, system tables and tests.

use std::net::IpAddr;

use uuid::Uuid;

/// A CQL value of any type. `null` is represented outside this type (`Option<CqlValue>`).
#[derive(Debug, Clone, PartialEq)]
pub enum CqlValue {
    Ascii(String),
    Bigint(i64),
    Blob(Vec<u8>),
    Boolean(bool),
    Counter(i64),
    /// `unscaled * 10^-scale`; `unscaled` is a big-endian two's-complement integer.
    Decimal {
        unscaled: Vec<u8>,
        scale: i32,
    },
    Double(f64),
    Float(f32),
    Int(i32),
    /// Milliseconds since the Unix epoch.
    Timestamp(i64),
    Uuid(Uuid),
    Text(String),
    /// Big-endian two's-complement integer, minimal length.
    Varint(Vec<u8>),
    Timeuuid(Uuid),
    Inet(IpAddr),
    /// Days since the epoch with 2^31 as the epoch (the wire form of `date`).
    Date(u32),
    /// Nanoseconds since midnight.
    Time(i64),
    Smallint(i16),
    Tinyint(i8),
    Duration {
        months: i32,
        days: i32,
        nanoseconds: i64,
    },
    List(Vec<CqlValue>),
    Set(Vec<CqlValue>),
    Map(Vec<(CqlValue, CqlValue)>),
    /// Field values in declaration order; a missing trailing field is `None`.
    Udt(Vec<(String, Option<CqlValue>)>),
    Tuple(Vec<Option<CqlValue>>),
    /// A `vector<T, n>` value: exactly `n` elements, none null.
    Vector(Vec<CqlValue>),
    /// The zero-length value that Cassandra allows for most non-collection types.
    Empty,
}
