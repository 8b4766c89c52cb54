//! Schema_change (native_protocol_v4.spec sections 4.2.5.5 and 4.2.6): the body shared by the
//! RESULT kind and the `SCHEMA_CHANGE` event: `<change_type><target><options>`.

use bytes::BytesMut;

use crate::frame::primitives::{read_string, read_string_list, write_string, write_string_list};
use crate::frame::FrameError;

/// What happened to the schema object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaChangeType {
    /// `CREATED`.
    Created,
    /// `UPDATED` (also CREATE/DROP INDEX and ALTER on a table).
    Updated,
    /// `DROPPED`.
    Dropped,
}

/// The object that changed, with the options its target carries.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SchemaChangeTarget {
    /// `KEYSPACE <keyspace>`.
    Keyspace {
        /// The keyspace.
        keyspace: String,
    },
    /// `TABLE <keyspace> <table>` (also materialized views).
    Table {
        /// The keyspace.
        keyspace: String,
        /// The table.
        table: String,
    },
    /// `TYPE <keyspace> <name>`.
    Type {
        /// The keyspace.
        keyspace: String,
        /// The user type.
        name: String,
    },
    /// `FUNCTION <keyspace> <name> <argument types>`.
    Function {
        /// The keyspace.
        keyspace: String,
        /// The function.
        name: String,
        /// Argument types as CQL types.
        arg_types: Vec<String>,
    },
    /// `AGGREGATE <keyspace> <name> <argument types>`.
    Aggregate {
        /// The keyspace.
        keyspace: String,
        /// The aggregate.
        name: String,
        /// Argument types as CQL types.
        arg_types: Vec<String>,
    },
}

/// A schema change, as a RESULT or inside an EVENT.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SchemaChange {
    /// What happened.
    pub change: SchemaChangeType,
    /// To what.
    pub target: SchemaChangeTarget,
}

impl SchemaChangeType {
    /// The wire spelling (`CREATED`, `UPDATED`, `DROPPED`).
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaChangeType::Created => "CREATED",
            SchemaChangeType::Updated => "UPDATED",
            SchemaChangeType::Dropped => "DROPPED",
        }
    }
}

impl SchemaChangeTarget {
    /// The wire spelling of the target (`KEYSPACE`, `TABLE`, ...).
    pub fn as_str(&self) -> &'static str {
        match self {
            SchemaChangeTarget::Keyspace { .. } => "KEYSPACE",
            SchemaChangeTarget::Table { .. } => "TABLE",
            SchemaChangeTarget::Type { .. } => "TYPE",
            SchemaChangeTarget::Function { .. } => "FUNCTION",
            SchemaChangeTarget::Aggregate { .. } => "AGGREGATE",
        }
    }

    fn encode(&self, out: &mut BytesMut) {
        write_string(out, self.as_str());
        match self {
            SchemaChangeTarget::Keyspace { keyspace } => write_string(out, keyspace),
            SchemaChangeTarget::Table {
                keyspace,
                table: name,
            }
            | SchemaChangeTarget::Type { keyspace, name } => {
                write_string(out, keyspace);
                write_string(out, name);
            }
            SchemaChangeTarget::Function {
                keyspace,
                name,
                arg_types,
            }
            | SchemaChangeTarget::Aggregate {
                keyspace,
                name,
                arg_types,
            } => {
                write_string(out, keyspace);
                write_string(out, name);
                write_string_list(out, arg_types);
            }
        }
    }

    fn decode(buf: &mut &[u8]) -> Result<SchemaChangeTarget, FrameError> {
        let target = read_string(buf, "schema change target")?;
        let mut text = |field| read_string(buf, field).map(str::to_owned);
        Ok(match target {
            "KEYSPACE" => SchemaChangeTarget::Keyspace {
                keyspace: text("keyspace")?,
            },
            "TABLE" => SchemaChangeTarget::Table {
                keyspace: text("keyspace")?,
                table: text("table")?,
            },
            "TYPE" => SchemaChangeTarget::Type {
                keyspace: text("keyspace")?,
                name: text("type name")?,
            },
            "FUNCTION" | "AGGREGATE" => {
                let keyspace = text("keyspace")?;
                let name = text("function name")?;
                let arg_types = read_string_list(buf, "argument types")?;
                if target == "FUNCTION" {
                    SchemaChangeTarget::Function {
                        keyspace,
                        name,
                        arg_types,
                    }
                } else {
                    SchemaChangeTarget::Aggregate {
                        keyspace,
                        name,
                        arg_types,
                    }
                }
            }
            other => {
                return Err(FrameError::UnknownName {
                    field: "schema change target",
                    value: other.to_owned(),
                })
            }
        })
    }
}

impl SchemaChange {
    pub(crate) fn encode(&self, out: &mut BytesMut) {
        write_string(out, self.change.as_str());
        self.target.encode(out);
    }

    pub(crate) fn decode(buf: &mut &[u8]) -> Result<SchemaChange, FrameError> {
        let change = match read_string(buf, "schema change type")? {
            "CREATED" => SchemaChangeType::Created,
            "UPDATED" => SchemaChangeType::Updated,
            "DROPPED" => SchemaChangeType::Dropped,
            other => {
                return Err(FrameError::UnknownName {
                    field: "schema change type",
                    value: other.to_owned(),
                })
            }
        };
        let target = SchemaChangeTarget::decode(buf)?;
        Ok(SchemaChange { change, target })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::response::tests::round_trip;
    use crate::frame::response::{Response, ResultBody};

    #[test]
    fn every_target_round_trips() {
        let targets = [
            SchemaChangeTarget::Keyspace {
                keyspace: "ks".into(),
            },
            SchemaChangeTarget::Table {
                keyspace: "ks".into(),
                table: "t".into(),
            },
            SchemaChangeTarget::Type {
                keyspace: "ks".into(),
                name: "addr".into(),
            },
            SchemaChangeTarget::Function {
                keyspace: "ks".into(),
                name: "f".into(),
                arg_types: vec!["int".into(), "frozen<list<text>>".into()],
            },
            SchemaChangeTarget::Aggregate {
                keyspace: "ks".into(),
                name: "a".into(),
                arg_types: vec![],
            },
        ];
        for change in [
            SchemaChangeType::Created,
            SchemaChangeType::Updated,
            SchemaChangeType::Dropped,
        ] {
            for target in targets.clone() {
                round_trip(&Response::Result(ResultBody::SchemaChange(SchemaChange {
                    change,
                    target,
                })));
            }
        }
    }

    #[test]
    fn table_change_is_exact_and_unknown_targets_fail() {
        let change = SchemaChange {
            change: SchemaChangeType::Created,
            target: SchemaChangeTarget::Table {
                keyspace: "k".into(),
                table: "t".into(),
            },
        };
        let mut out = BytesMut::new();
        change.encode(&mut out);
        let mut expected = vec![0, 7];
        expected.extend_from_slice(b"CREATED");
        expected.extend_from_slice(&[0, 5]);
        expected.extend_from_slice(b"TABLE");
        expected.extend_from_slice(&[0, 1, b'k', 0, 1, b't']);
        assert_eq!(&out[..], &expected[..]);
        let mut buf: &[u8] = &[0, 7, b'C', b'R', b'E', b'A', b'T', b'E', b'D', 0, 1, b'X'];
        assert_eq!(
            SchemaChange::decode(&mut buf).unwrap_err().to_string(),
            "Unknown schema change target \"X\""
        );
    }
}
