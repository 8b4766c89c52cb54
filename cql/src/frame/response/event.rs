//! EVENT (native_protocol_v4.spec section 4.2.6): a `[string]` event type then its body.
//! Events go out on stream -1 to connections that REGISTERed for the type; deciding who gets
//! what is the server's job.

use std::net::SocketAddr;

use bytes::BytesMut;

use super::SchemaChange;
use crate::frame::primitives::{read_inet, read_string, write_inet, write_string};
use crate::frame::FrameError;

/// A server-pushed event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// `SCHEMA_CHANGE`, with the same body as a Schema_change result.
    SchemaChange(SchemaChange),
    /// `TOPOLOGY_CHANGE`: `NEW_NODE` or `REMOVED_NODE` and the node's address.
    TopologyChange {
        /// `NEW_NODE` or `REMOVED_NODE`.
        change: String,
        /// The node's native-protocol address.
        address: SocketAddr,
    },
    /// `STATUS_CHANGE`: `UP` or `DOWN` and the node's address.
    StatusChange {
        /// `UP` or `DOWN`.
        change: String,
        /// The node's native-protocol address.
        address: SocketAddr,
    },
}

impl Event {
    /// The event type name clients REGISTER for.
    pub fn event_type(&self) -> &'static str {
        match self {
            Event::SchemaChange(_) => "SCHEMA_CHANGE",
            Event::TopologyChange { .. } => "TOPOLOGY_CHANGE",
            Event::StatusChange { .. } => "STATUS_CHANGE",
        }
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) {
        write_string(out, self.event_type());
        match self {
            Event::SchemaChange(change) => change.encode(out),
            Event::TopologyChange { change, address } | Event::StatusChange { change, address } => {
                write_string(out, change);
                write_inet(out, address);
            }
        }
    }

    pub(crate) fn decode(buf: &mut &[u8]) -> Result<Event, FrameError> {
        let kind = read_string(buf, "event type")?;
        Ok(match kind {
            "SCHEMA_CHANGE" => Event::SchemaChange(SchemaChange::decode(buf)?),
            "TOPOLOGY_CHANGE" | "STATUS_CHANGE" => {
                let change = read_string(buf, "change")?.to_owned();
                let address = read_inet(buf, "address")?;
                if kind == "TOPOLOGY_CHANGE" {
                    Event::TopologyChange { change, address }
                } else {
                    Event::StatusChange { change, address }
                }
            }
            other => {
                return Err(FrameError::UnknownName {
                    field: "event type",
                    value: other.to_owned(),
                })
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::response::tests::round_trip;
    use crate::frame::response::{Response, SchemaChangeTarget, SchemaChangeType};

    #[test]
    fn every_event_round_trips() {
        let address: SocketAddr = "127.0.0.1:9042".parse().unwrap();
        let body = round_trip(&Response::Event(Event::StatusChange {
            change: "UP".into(),
            address,
        }));
        let mut expected = vec![0, 13];
        expected.extend_from_slice(b"STATUS_CHANGE");
        expected.extend_from_slice(&[0, 2, b'U', b'P', 4, 127, 0, 0, 1, 0, 0, 0x23, 0x52]);
        assert_eq!(&body[..], &expected[..]);
        round_trip(&Response::Event(Event::TopologyChange {
            change: "NEW_NODE".into(),
            address: "[::1]:9042".parse().unwrap(),
        }));
        round_trip(&Response::Event(Event::SchemaChange(SchemaChange {
            change: SchemaChangeType::Dropped,
            target: SchemaChangeTarget::Keyspace {
                keyspace: "ks".into(),
            },
        })));
    }
}
