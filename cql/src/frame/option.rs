//! The `[option]` encoding of a column type (native_protocol_v4.spec section 4.2.5.2), used by
//! the column specs of Rows and Prepared results.
//!
//! An `[option]` does not say whether a collection or UDT is frozen. The reader marks nested
//! collections and UDTs frozen (CQL requires it) and the outermost one not frozen; callers
//! that know better (the server, from its schema) never need to read options back.

use bytes::BytesMut;

use super::primitives::{
    bounded_vec, read_short, read_string, short_len, write_short, write_string,
};
use super::{FrameError, ProtocolVersion};
use crate::types::ColumnType;

/// How deeply type options may nest (`list<frozen<map<...>>>` is three levels).
pub const MAX_TYPE_DEPTH: usize = 32;

const FIELD: &str = "column type";

/// Writes `ty` as an `[option]`, recursively for collections, UDTs and tuples.
pub fn write_column_type_option(out: &mut BytesMut, ty: &ColumnType) {
    write_column_type_option_for(out, ty, ProtocolVersion::V4);
}

/// The Java class a type travels as in protocol v3, which has no option id for it
/// (Cassandra's `DataType` sends types newer than the version as CUSTOM).
fn v3_custom_class(ty: &ColumnType) -> Option<&'static str> {
    Some(match ty {
        ColumnType::Date => "org.apache.cassandra.db.marshal.SimpleDateType",
        ColumnType::Time => "org.apache.cassandra.db.marshal.TimeType",
        ColumnType::Smallint => "org.apache.cassandra.db.marshal.ShortType",
        ColumnType::Tinyint => "org.apache.cassandra.db.marshal.ByteType",
        ColumnType::Duration => "org.apache.cassandra.db.marshal.DurationType",
        _ => return None,
    })
}

/// Writes the `[option]` of `ty` as protocol `version` names it.
pub fn write_column_type_option_for(out: &mut BytesMut, ty: &ColumnType, version: ProtocolVersion) {
    if version == ProtocolVersion::V3 {
        if let Some(class) = v3_custom_class(ty) {
            write_short(out, 0x0000);
            write_string(out, class);
            return;
        }
    }
    write_short(out, ty.option_id());
    match ty {
        ColumnType::Custom(class) => write_string(out, class),
        ColumnType::Vector { .. } => write_string(out, &ty.marshal_class()),
        ColumnType::List { element, .. } | ColumnType::Set { element, .. } => {
            write_column_type_option_for(out, element, version);
        }
        ColumnType::Map { key, value, .. } => {
            write_column_type_option_for(out, key, version);
            write_column_type_option_for(out, value, version);
        }
        ColumnType::Udt {
            keyspace,
            name,
            fields,
            ..
        } => {
            write_string(out, keyspace);
            write_string(out, name);
            let count = short_len(fields.len());
            write_short(out, count);
            for (field, field_type) in fields.iter().take(usize::from(count)) {
                write_string(out, field);
                write_column_type_option_for(out, field_type, version);
            }
        }
        ColumnType::Tuple(items) => {
            let count = short_len(items.len());
            write_short(out, count);
            for item in items.iter().take(usize::from(count)) {
                write_column_type_option_for(out, item, version);
            }
        }
        _ => {}
    }
}

/// Reads an `[option]` describing a column type.
///
/// # Errors
///
/// Truncated input, an unknown option id, or nesting deeper than [`MAX_TYPE_DEPTH`].
pub fn read_column_type_option(buf: &mut &[u8]) -> Result<ColumnType, FrameError> {
    read_option(buf, 0)
}

fn read_option(buf: &mut &[u8], depth: usize) -> Result<ColumnType, FrameError> {
    if depth >= MAX_TYPE_DEPTH {
        return Err(FrameError::TooDeep {
            field: FIELD,
            max: MAX_TYPE_DEPTH,
        });
    }
    let id = read_short(buf, FIELD)?;
    let nested = depth > 0;
    let inner = |buf: &mut &[u8]| read_option(buf, depth + 1).map(Box::new);
    let ty = match id {
        0x0000 => {
            let class = read_string(buf, FIELD)?;
            crate::types::vector::parse_vector_class(class)
                .unwrap_or_else(|| ColumnType::Custom(class.to_owned()))
        }
        0x0020 => ColumnType::List {
            element: inner(buf)?,
            frozen: nested,
        },
        0x0021 => ColumnType::Map {
            key: inner(buf)?,
            value: inner(buf)?,
            frozen: nested,
        },
        0x0022 => ColumnType::Set {
            element: inner(buf)?,
            frozen: nested,
        },
        0x0030 => read_udt(buf, depth)?,
        0x0031 => {
            let count = usize::from(read_short(buf, FIELD)?);
            let mut items = bounded_vec(count, buf, 2);
            for _ in 0..count {
                items.push(read_option(buf, depth + 1)?);
            }
            ColumnType::Tuple(items)
        }
        other => native_type(other).ok_or(FrameError::InvalidValue {
            field: FIELD,
            value: i64::from(other),
        })?,
    };
    Ok(ty)
}

fn read_udt(buf: &mut &[u8], depth: usize) -> Result<ColumnType, FrameError> {
    let keyspace = read_string(buf, FIELD)?.to_owned();
    let name = read_string(buf, FIELD)?.to_owned();
    let count = usize::from(read_short(buf, FIELD)?);
    let mut fields = bounded_vec(count, buf, 4);
    for _ in 0..count {
        let field = read_string(buf, FIELD)?.to_owned();
        fields.push((field, read_option(buf, depth + 1)?));
    }
    Ok(ColumnType::Udt {
        keyspace,
        name,
        fields,
        frozen: depth > 0,
    })
}

fn native_type(id: u16) -> Option<ColumnType> {
    Some(match id {
        0x0001 => ColumnType::Ascii,
        0x0002 => ColumnType::Bigint,
        0x0003 => ColumnType::Blob,
        0x0004 => ColumnType::Boolean,
        0x0005 => ColumnType::Counter,
        0x0006 => ColumnType::Decimal,
        0x0007 => ColumnType::Double,
        0x0008 => ColumnType::Float,
        0x0009 => ColumnType::Int,
        0x000B => ColumnType::Timestamp,
        0x000C => ColumnType::Uuid,
        0x000D => ColumnType::Text,
        0x000E => ColumnType::Varint,
        0x000F => ColumnType::Timeuuid,
        0x0010 => ColumnType::Inet,
        0x0011 => ColumnType::Date,
        0x0012 => ColumnType::Time,
        0x0013 => ColumnType::Smallint,
        0x0014 => ColumnType::Tinyint,
        0x0015 => ColumnType::Duration,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(ty: &ColumnType) -> ColumnType {
        let mut out = BytesMut::new();
        write_column_type_option(&mut out, ty);
        let mut buf = &out[..];
        let read = read_column_type_option(&mut buf).unwrap();
        assert!(buf.is_empty());
        read
    }

    #[test]
    fn every_native_type_round_trips() {
        for id in 0x0001..=0x0015u16 {
            if let Some(ty) = native_type(id) {
                assert_eq!(ty.option_id(), id);
                assert_eq!(round_trip(&ty), ty);
            }
        }
        let custom = ColumnType::Custom("org.apache.cassandra.db.marshal.BytesType".into());
        assert_eq!(round_trip(&custom), custom);
    }

    #[test]
    fn nested_types_round_trip_with_inner_ones_frozen() {
        let ty = ColumnType::Map {
            key: Box::new(ColumnType::Text),
            value: Box::new(ColumnType::List {
                element: Box::new(ColumnType::Tuple(vec![
                    ColumnType::Int,
                    ColumnType::Udt {
                        keyspace: "ks".into(),
                        name: "addr".into(),
                        fields: vec![("street".into(), ColumnType::Text)],
                        frozen: true,
                    },
                ])),
                frozen: true,
            }),
            frozen: false,
        };
        assert_eq!(round_trip(&ty), ty);
    }

    #[test]
    fn vectors_travel_as_cassandras_custom_class() {
        let ty = ColumnType::Vector {
            element: Box::new(ColumnType::Float),
            dimension: 3,
        };
        let mut out = BytesMut::new();
        write_column_type_option(&mut out, &ty);
        let class = "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType,3)";
        let mut expected = vec![0x00, 0x00, 0x00, class.len() as u8];
        expected.extend_from_slice(class.as_bytes());
        assert_eq!(&out[..], &expected[..]);
        let mut buf: &[u8] = &out;
        assert_eq!(read_column_type_option(&mut buf).unwrap(), ty);
    }

    #[test]
    fn udt_bytes_are_exact() {
        let ty = ColumnType::Udt {
            keyspace: "k".into(),
            name: "t".into(),
            fields: vec![("f".into(), ColumnType::Int)],
            frozen: false,
        };
        let mut out = BytesMut::new();
        write_column_type_option(&mut out, &ty);
        assert_eq!(
            &out[..],
            &[0, 0x30, 0, 1, b'k', 0, 1, b't', 0, 1, 0, 1, b'f', 0, 9]
        );
    }

    #[test]
    fn unknown_ids_and_deep_nesting_are_rejected() {
        let mut buf: &[u8] = &[0, 0x0A];
        assert_eq!(
            read_column_type_option(&mut buf),
            Err(FrameError::InvalidValue {
                field: FIELD,
                value: 10
            })
        );
        let deep: Vec<u8> = std::iter::repeat_n([0u8, 0x20], 100).flatten().collect();
        let mut buf = &deep[..];
        assert!(matches!(
            read_column_type_option(&mut buf),
            Err(FrameError::TooDeep { .. })
        ));
    }
}
