//! The `vector<T, n>` type of Cassandra 5.0 (`db/marshal/VectorType`): its value layout and
//! the Java class name it travels as.
//!
//! A vector of an element type with a fixed size (Cassandra's `valueLengthIfFixed`: `boolean`,
//! `int`, `float`, `bigint`, `double`, `timestamp`, `uuid`, `timeuuid`, and vectors of those)
//! is its elements' bytes concatenated; any other element type is written as an unsigned vint
//! length then the element's bytes, `n` times. There is no count and no null element.

use super::codec::ValueError;
use super::ColumnType;

/// The fixed byte size of one value of `ty` inside a vector, or `None` when its elements are
/// length-prefixed (Cassandra's `AbstractType.valueLengthIfFixed`).
pub fn fixed_size(ty: &ColumnType) -> Option<usize> {
    match ty {
        ColumnType::Boolean => Some(1),
        ColumnType::Int | ColumnType::Float => Some(4),
        ColumnType::Bigint | ColumnType::Double | ColumnType::Timestamp => Some(8),
        ColumnType::Uuid | ColumnType::Timeuuid => Some(16),
        ColumnType::Vector { element, dimension } => {
            fixed_size(element).map(|size| size * *dimension as usize)
        }
        _ => None,
    }
}

/// Appends Cassandra's unsigned vint (`VIntCoding.writeUnsignedVInt`): the number of leading
/// one bits of the first byte is the number of bytes that follow.
pub fn write_unsigned_vint(out: &mut Vec<u8>, value: u64) {
    let magnitude = (value | 1).leading_zeros() as usize;
    let size = (639 - magnitude * 9) >> 6;
    let bytes = value.to_be_bytes();
    if size >= 9 {
        out.push(0xFF);
        out.extend_from_slice(&bytes);
        return;
    }
    let extra = size - 1;
    let tail = bytes.get(8 - size..).unwrap_or_default();
    if let Some((first, rest)) = tail.split_first() {
        out.push(first | !(0xFFu8 >> extra));
        out.extend_from_slice(rest);
    }
}

/// Reads an unsigned vint written by [`write_unsigned_vint`]; `None` when cut short.
pub fn read_unsigned_vint(buf: &mut &[u8]) -> Option<u64> {
    let (&first, rest) = buf.split_first()?;
    let extra = first.leading_ones() as usize;
    let more = rest.get(..extra)?;
    let mut value = if extra >= 8 {
        0
    } else {
        u64::from(first & (0xFF >> extra))
    };
    for byte in more {
        value = (value << 8) | u64::from(*byte);
    }
    *buf = rest.get(extra..)?;
    Some(value)
}

/// Splits a serialized vector of `dimension` values of `element` into its elements' bytes.
///
/// # Errors
///
/// Cassandra's messages: `Not enough bytes to read a vector<int, 2>` when the value ends
/// early, `Unexpected 4 extraneous bytes after vector<int, 2> value` when bytes are left.
pub fn split<'a>(
    element: &ColumnType,
    dimension: u32,
    bytes: &'a [u8],
) -> Result<Vec<&'a [u8]>, ValueError> {
    let shown = || {
        ColumnType::Vector {
            element: Box::new(element.clone()),
            dimension,
        }
        .to_string()
    };
    let truncated = || ValueError::VectorTruncated { ty: shown() };
    let mut rest = bytes;
    let mut out = Vec::with_capacity((dimension as usize).min(bytes.len() + 1));
    for _ in 0..dimension {
        let len = match fixed_size(element) {
            Some(size) => size,
            None => read_unsigned_vint(&mut rest)
                .and_then(|len| usize::try_from(len).ok())
                .ok_or_else(truncated)?,
        };
        let item = rest.get(..len).ok_or_else(truncated)?;
        out.push(item);
        rest = &rest[len..];
    }
    if !rest.is_empty() {
        return Err(ValueError::VectorExtraneous {
            count: rest.len(),
            ty: shown(),
        });
    }
    Ok(out)
}

/// Joins elements' serialized bytes into a vector of `element` (the inverse of [`split`]).
pub fn join(element: &ColumnType, items: &[&[u8]]) -> Vec<u8> {
    let fixed = fixed_size(element).is_some();
    let mut out = Vec::with_capacity(items.iter().map(|i| i.len() + 2).sum());
    for item in items {
        if !fixed {
            write_unsigned_vint(&mut out, item.len() as u64);
        }
        out.extend_from_slice(item);
    }
    out
}

/// The `org.apache.cassandra.db.marshal` class of a native type.
fn native_class(ty: &ColumnType) -> Option<&'static str> {
    Some(match ty {
        ColumnType::Ascii => "AsciiType",
        ColumnType::Bigint => "LongType",
        ColumnType::Blob => "BytesType",
        ColumnType::Boolean => "BooleanType",
        ColumnType::Counter => "CounterColumnType",
        ColumnType::Decimal => "DecimalType",
        ColumnType::Double => "DoubleType",
        ColumnType::Float => "FloatType",
        ColumnType::Int => "Int32Type",
        ColumnType::Timestamp => "TimestampType",
        ColumnType::Uuid => "UUIDType",
        ColumnType::Text => "UTF8Type",
        ColumnType::Varint => "IntegerType",
        ColumnType::Timeuuid => "TimeUUIDType",
        ColumnType::Inet => "InetAddressType",
        ColumnType::Date => "SimpleDateType",
        ColumnType::Time => "TimeType",
        ColumnType::Smallint => "ShortType",
        ColumnType::Tinyint => "ByteType",
        ColumnType::Duration => "DurationType",
        _ => return None,
    })
}

const PACKAGE: &str = "org.apache.cassandra.db.marshal.";

fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

impl ColumnType {
    /// The Java class string Cassandra's `AbstractType.toString()` gives this type, e.g.
    /// `org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType,3)`:
    /// what a vector column's `[option]` carries as a custom type.
    pub fn marshal_class(&self) -> String {
        self.marshal_class_with(false)
    }

    /// `toString(ignoreFreezing)`: a frozen collection, tuple or UDT is wrapped in
    /// `FrozenType(...)` unless `ignore_freezing`, and its parameters never are.
    fn marshal_class_with(&self, ignore_freezing: bool) -> String {
        if let Some(class) = native_class(self) {
            return format!("{PACKAGE}{class}");
        }
        let params = |types: &[&ColumnType], ignore: bool| {
            types
                .iter()
                .map(|t| t.marshal_class_with(ignore))
                .collect::<Vec<_>>()
                .join(",")
        };
        let (body, frozen) = match self {
            ColumnType::Custom(class) => return class.clone(),
            ColumnType::Vector { element, dimension } => {
                let inner = element.marshal_class_with(ignore_freezing);
                return format!("{PACKAGE}VectorType({inner},{dimension})");
            }
            ColumnType::List { element, frozen } => (
                format!("ListType({})", params(&[element], *frozen)),
                *frozen,
            ),
            ColumnType::Set { element, frozen } => {
                (format!("SetType({})", params(&[element], *frozen)), *frozen)
            }
            ColumnType::Map { key, value, frozen } => (
                format!("MapType({})", params(&[key, value], *frozen)),
                *frozen,
            ),
            ColumnType::Tuple(items) => {
                let items: Vec<&ColumnType> = items.iter().collect();
                (format!("TupleType({})", params(&items, true)), true)
            }
            ColumnType::Udt {
                keyspace,
                name,
                fields,
                frozen,
            } => {
                let mut body = format!("UserType({keyspace},{}", hex(name));
                for (field, ty) in fields {
                    body.push_str(&format!(
                        ",{}:{}",
                        hex(field),
                        ty.marshal_class_with(*frozen)
                    ));
                }
                body.push(')');
                (body, *frozen)
            }
            _ => (String::new(), false),
        };
        if frozen && !ignore_freezing {
            format!("{PACKAGE}FrozenType({PACKAGE}{body})")
        } else {
            format!("{PACKAGE}{body}")
        }
    }
}

/// Parses `VectorType(<class>,<n>)` back into a vector type, for the native element types
/// (what a driver or test reading an `[option]` needs); `None` for anything else.
pub fn parse_vector_class(class: &str) -> Option<ColumnType> {
    let inner = class
        .strip_prefix(PACKAGE)?
        .strip_prefix("VectorType(")?
        .strip_suffix(')')?;
    let (element, dimension) = inner.rsplit_once(',')?;
    let dimension: u32 = dimension.trim().parse().ok()?;
    let element = element.trim();
    let element = match parse_vector_class(element) {
        Some(vector) => vector,
        None => {
            let name = element.strip_prefix(PACKAGE)?;
            NATIVE_TYPES
                .iter()
                .find(|ty| native_class(ty) == Some(name))?
                .clone()
        }
    };
    Some(ColumnType::Vector {
        element: Box::new(element),
        dimension,
    })
}

const NATIVE_TYPES: [ColumnType; 20] = [
    ColumnType::Ascii,
    ColumnType::Bigint,
    ColumnType::Blob,
    ColumnType::Boolean,
    ColumnType::Counter,
    ColumnType::Decimal,
    ColumnType::Double,
    ColumnType::Float,
    ColumnType::Int,
    ColumnType::Timestamp,
    ColumnType::Uuid,
    ColumnType::Text,
    ColumnType::Varint,
    ColumnType::Timeuuid,
    ColumnType::Inet,
    ColumnType::Date,
    ColumnType::Time,
    ColumnType::Smallint,
    ColumnType::Tinyint,
    ColumnType::Duration,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(element: ColumnType, dimension: u32) -> ColumnType {
        ColumnType::Vector {
            element: Box::new(element),
            dimension,
        }
    }

    #[test]
    fn class_names_are_cassandras() {
        assert_eq!(
            vector(ColumnType::Float, 3).marshal_class(),
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType,3)"
        );
        let set = ColumnType::Set {
            element: Box::new(ColumnType::Int),
            frozen: true,
        };
        assert_eq!(
            vector(set, 2).marshal_class(),
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.SetType(org.apache.cassandra.db.marshal.Int32Type)),2)"
        );
        assert_eq!(
            parse_vector_class(&vector(vector(ColumnType::Text, 2), 4).marshal_class()),
            Some(vector(vector(ColumnType::Text, 2), 4))
        );
    }

    #[test]
    fn fixed_elements_are_concatenated_variable_ones_prefixed() {
        let float = vector(ColumnType::Float, 2);
        assert_eq!(fixed_size(&float), Some(8));
        assert_eq!(fixed_size(&vector(ColumnType::Text, 2)), None);
        let joined = join(&ColumnType::Text, &[b"a", b"bc"]);
        assert_eq!(joined, b"\x01a\x02bc");
        assert_eq!(
            split(&ColumnType::Text, 2, &joined).unwrap(),
            vec![&b"a"[..], &b"bc"[..]]
        );
        assert_eq!(
            split(&ColumnType::Int, 2, &[0; 4]).unwrap_err().to_string(),
            "Not enough bytes to read a vector<int, 2>"
        );
        assert_eq!(
            split(&ColumnType::Int, 2, &[0; 12])
                .unwrap_err()
                .to_string(),
            "Unexpected 4 extraneous bytes after vector<int, 2> value"
        );
    }

    #[test]
    fn unsigned_vints_round_trip() {
        for value in [
            0u64,
            1,
            127,
            128,
            300,
            1 << 20,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut out = Vec::new();
            write_unsigned_vint(&mut out, value);
            let mut buf = out.as_slice();
            assert_eq!(read_unsigned_vint(&mut buf), Some(value));
            assert!(buf.is_empty());
        }
        let mut out = Vec::new();
        write_unsigned_vint(&mut out, 300);
        assert_eq!(out, [0x81, 0x2C]);
    }
}
