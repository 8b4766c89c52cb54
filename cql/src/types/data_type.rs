//! `ColumnType`: every CQL type, with its protocol option id (native_protocol_v4.spec
//! section 6 "[option]") and its CQL spelling as `system_schema.columns.type` shows it.

use std::fmt;

use crate::ident::maybe_quote;

/// A CQL data type.
///
/// Collections and UDTs carry `frozen`: a frozen value is stored and compared as one blob,
/// a non-frozen one is a set of cells. Tuples are always frozen. `text` and `varchar` are the
/// same type (`Text`), spelled `text` as Cassandra does.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ColumnType {
    /// A custom type named by its Java class (option id 0x0000).
    Custom(String),
    Ascii,
    Bigint,
    Blob,
    Boolean,
    Counter,
    Decimal,
    Double,
    Float,
    Int,
    Timestamp,
    Uuid,
    Text,
    Varint,
    Timeuuid,
    Inet,
    Date,
    Time,
    Smallint,
    Tinyint,
    Duration,
    List {
        element: Box<ColumnType>,
        frozen: bool,
    },
    Set {
        element: Box<ColumnType>,
        frozen: bool,
    },
    Map {
        key: Box<ColumnType>,
        value: Box<ColumnType>,
        frozen: bool,
    },
    /// A user-defined type with its resolved fields.
    Udt {
        keyspace: String,
        name: String,
        fields: Vec<(String, ColumnType)>,
        frozen: bool,
    },
    Tuple(Vec<ColumnType>),
    /// `vector<element, dimension>` (Cassandra 5.0): always frozen, its element type frozen
    /// too; it travels as a custom type named by its Java class (see [`marshal_class`]).
    ///
    /// [`marshal_class`]: ColumnType::marshal_class
    Vector {
        element: Box<ColumnType>,
        dimension: u32,
    },
}

impl ColumnType {
    /// The protocol option id of this type (native_protocol_v4.spec section 4.2.5.2).
    pub fn option_id(&self) -> u16 {
        match self {
            ColumnType::Custom(_) | ColumnType::Vector { .. } => 0x0000,
            ColumnType::Ascii => 0x0001,
            ColumnType::Bigint => 0x0002,
            ColumnType::Blob => 0x0003,
            ColumnType::Boolean => 0x0004,
            ColumnType::Counter => 0x0005,
            ColumnType::Decimal => 0x0006,
            ColumnType::Double => 0x0007,
            ColumnType::Float => 0x0008,
            ColumnType::Int => 0x0009,
            ColumnType::Timestamp => 0x000B,
            ColumnType::Uuid => 0x000C,
            ColumnType::Text => 0x000D,
            ColumnType::Varint => 0x000E,
            ColumnType::Timeuuid => 0x000F,
            ColumnType::Inet => 0x0010,
            ColumnType::Date => 0x0011,
            ColumnType::Time => 0x0012,
            ColumnType::Smallint => 0x0013,
            ColumnType::Tinyint => 0x0014,
            ColumnType::Duration => 0x0015,
            ColumnType::List { .. } => 0x0020,
            ColumnType::Map { .. } => 0x0021,
            ColumnType::Set { .. } => 0x0022,
            ColumnType::Udt { .. } => 0x0030,
            ColumnType::Tuple(_) => 0x0031,
        }
    }

    /// Whether this is a collection (list, set or map).
    pub fn is_collection(&self) -> bool {
        matches!(
            self,
            ColumnType::List { .. } | ColumnType::Set { .. } | ColumnType::Map { .. }
        )
    }

    /// Whether values of this type are stored as several cells (non-frozen collection or UDT).
    pub fn is_multi_cell(&self) -> bool {
        match self {
            ColumnType::List { frozen, .. }
            | ColumnType::Set { frozen, .. }
            | ColumnType::Map { frozen, .. }
            | ColumnType::Udt { frozen, .. } => !frozen,
            _ => false,
        }
    }

    /// The same type marked frozen (tuples and scalars are returned unchanged).
    pub fn frozen(self) -> ColumnType {
        match self {
            ColumnType::List { element, .. } => ColumnType::List {
                element,
                frozen: true,
            },
            ColumnType::Set { element, .. } => ColumnType::Set {
                element,
                frozen: true,
            },
            ColumnType::Map { key, value, .. } => ColumnType::Map {
                key,
                value,
                frozen: true,
            },
            ColumnType::Udt {
                keyspace,
                name,
                fields,
                ..
            } => ColumnType::Udt {
                keyspace,
                name,
                fields,
                frozen: true,
            },
            other => other,
        }
    }

    /// Whether `duration` appears anywhere in the type (Cassandra's `referencesDuration`): such
    /// a type cannot be part of a primary key.
    pub fn references_duration(&self) -> bool {
        match self {
            ColumnType::Duration => true,
            ColumnType::List { element, .. } | ColumnType::Set { element, .. } => {
                element.references_duration()
            }
            ColumnType::Map { key, value, .. } => {
                key.references_duration() || value.references_duration()
            }
            ColumnType::Tuple(items) => items.iter().any(ColumnType::references_duration),
            ColumnType::Vector { element, .. } => element.references_duration(),
            ColumnType::Udt { fields, .. } => fields.iter().any(|(_, ty)| ty.references_duration()),
            _ => false,
        }
    }

    /// Whether the type is `counter`.
    pub fn is_counter(&self) -> bool {
        matches!(self, ColumnType::Counter)
    }

    /// Looks up a native (non-parameterised) type by its CQL name, case-insensitively.
    pub fn native_from_name(name: &str) -> Option<ColumnType> {
        let ty = match name.to_ascii_lowercase().as_str() {
            "ascii" => ColumnType::Ascii,
            "bigint" => ColumnType::Bigint,
            "blob" => ColumnType::Blob,
            "boolean" => ColumnType::Boolean,
            "counter" => ColumnType::Counter,
            "decimal" => ColumnType::Decimal,
            "double" => ColumnType::Double,
            "float" => ColumnType::Float,
            "int" => ColumnType::Int,
            "timestamp" => ColumnType::Timestamp,
            "uuid" => ColumnType::Uuid,
            "text" | "varchar" => ColumnType::Text,
            "varint" => ColumnType::Varint,
            "timeuuid" => ColumnType::Timeuuid,
            "inet" => ColumnType::Inet,
            "date" => ColumnType::Date,
            "time" => ColumnType::Time,
            "smallint" => ColumnType::Smallint,
            "tinyint" => ColumnType::Tinyint,
            "duration" => ColumnType::Duration,
            _ => return None,
        };
        Some(ty)
    }
}

fn write_frozen(
    f: &mut fmt::Formatter<'_>,
    frozen: bool,
    body: impl FnOnce(&mut fmt::Formatter<'_>) -> fmt::Result,
) -> fmt::Result {
    if frozen {
        f.write_str("frozen<")?;
        body(f)?;
        f.write_str(">")
    } else {
        body(f)
    }
}

impl fmt::Display for ColumnType {
    /// The CQL spelling used by `system_schema.columns.type` and DESCRIBE.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColumnType::Custom(class) => write!(f, "'{}'", class.replace('\'', "''")),
            ColumnType::Ascii => f.write_str("ascii"),
            ColumnType::Bigint => f.write_str("bigint"),
            ColumnType::Blob => f.write_str("blob"),
            ColumnType::Boolean => f.write_str("boolean"),
            ColumnType::Counter => f.write_str("counter"),
            ColumnType::Decimal => f.write_str("decimal"),
            ColumnType::Double => f.write_str("double"),
            ColumnType::Float => f.write_str("float"),
            ColumnType::Int => f.write_str("int"),
            ColumnType::Timestamp => f.write_str("timestamp"),
            ColumnType::Uuid => f.write_str("uuid"),
            ColumnType::Text => f.write_str("text"),
            ColumnType::Varint => f.write_str("varint"),
            ColumnType::Timeuuid => f.write_str("timeuuid"),
            ColumnType::Inet => f.write_str("inet"),
            ColumnType::Date => f.write_str("date"),
            ColumnType::Time => f.write_str("time"),
            ColumnType::Smallint => f.write_str("smallint"),
            ColumnType::Tinyint => f.write_str("tinyint"),
            ColumnType::Duration => f.write_str("duration"),
            ColumnType::List { element, frozen } => {
                write_frozen(f, *frozen, |f| write!(f, "list<{element}>"))
            }
            ColumnType::Set { element, frozen } => {
                write_frozen(f, *frozen, |f| write!(f, "set<{element}>"))
            }
            ColumnType::Map { key, value, frozen } => {
                write_frozen(f, *frozen, |f| write!(f, "map<{key}, {value}>"))
            }
            ColumnType::Udt { name, frozen, .. } => {
                write_frozen(f, *frozen, |f| f.write_str(&maybe_quote(name)))
            }
            ColumnType::Vector { element, dimension } => {
                write!(f, "vector<{element}, {dimension}>")
            }
            ColumnType::Tuple(items) => {
                f.write_str("frozen<tuple<")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(">>")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_cassandra_spelling() {
        let t = ColumnType::Map {
            key: Box::new(ColumnType::Text),
            value: Box::new(ColumnType::List {
                element: Box::new(ColumnType::Int),
                frozen: true,
            }),
            frozen: false,
        };
        assert_eq!(t.to_string(), "map<text, frozen<list<int>>>");
        assert_eq!(
            ColumnType::native_from_name("VARCHAR"),
            Some(ColumnType::Text)
        );
        assert_eq!(ColumnType::Text.to_string(), "text");
    }

    #[test]
    fn finds_nested_durations() {
        let list = |element| ColumnType::List {
            element: Box::new(element),
            frozen: true,
        };
        assert!(ColumnType::Duration.references_duration());
        assert!(
            ColumnType::Tuple(vec![ColumnType::Int, list(ColumnType::Duration)])
                .references_duration()
        );
        assert!(!list(ColumnType::Int).references_duration());
    }

    #[test]
    fn quotes_identifiers_like_cassandra() {
        assert_eq!(maybe_quote("abc_1"), "abc_1");
        assert_eq!(maybe_quote("C0"), "\"C0\"");
        assert_eq!(maybe_quote("select"), "\"select\"");
        assert_eq!(maybe_quote("a\"b"), "\"a\"\"b\"");
    }
}
