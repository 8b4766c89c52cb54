//! REGISTER (native_protocol_v4.spec section 4.1.8): the event types (`TOPOLOGY_CHANGE`,
//! `STATUS_CHANGE`, `SCHEMA_CHANGE`) as a `[string list]`. Decoding reads each name as
//! Cassandra's `CBUtil.readEnumValue(Event.Type.class, ...)` does: upper-cased, and refused
//! with its protocol error when it names no event type.

use bytes::BytesMut;

use crate::frame::primitives::{read_string_list, write_string_list};
use crate::frame::FrameError;

/// The constants of Cassandra's `Event.Type`; each is valid from protocol v3 or v4 on, so
/// all of them on v4 (`TRACE_COMPLETE` is never sent: the server does no query tracing).
pub const EVENT_TYPES: [&str; 4] = [
    "TOPOLOGY_CHANGE",
    "STATUS_CHANGE",
    "SCHEMA_CHANGE",
    "TRACE_COMPLETE",
];

/// A REGISTER body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Register {
    /// Event type names; decoded ones are upper case and among [`EVENT_TYPES`].
    pub events: Vec<String>,
}

impl Register {
    pub(crate) fn decode(buf: &mut &[u8]) -> Result<Register, FrameError> {
        let events = read_string_list(buf, "event types")?
            .into_iter()
            .map(event_type)
            .collect::<Result<_, _>>()?;
        Ok(Register { events })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) {
        write_string_list(out, &self.events);
    }
}

/// `Enum.valueOf(Event.Type.class, name.toUpperCase())`, with Cassandra's message on failure.
fn event_type(name: String) -> Result<String, FrameError> {
    let upper = name.to_uppercase();
    if EVENT_TYPES.contains(&upper.as_str()) {
        Ok(upper)
    } else {
        Err(FrameError::InvalidEnumValue {
            value: name,
            enum_name: "Type",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::request::tests::round_trip;
    use crate::frame::request::Request;

    #[test]
    fn register_round_trips() {
        let body = round_trip(&Request::Register(Register {
            events: vec!["SCHEMA_CHANGE".into(), "STATUS_CHANGE".into()],
        }));
        assert_eq!(&body[..4], &[0, 2, 0, 13]);
    }

    fn decode(names: &[&str]) -> Result<Register, FrameError> {
        let mut body = BytesMut::new();
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        write_string_list(&mut body, &names);
        Register::decode(&mut &body[..])
    }

    #[test]
    fn event_types_are_read_as_cassandras_enum() {
        assert_eq!(
            decode(&["schema_change", "Topology_Change", "TRACE_COMPLETE"]),
            Ok(Register {
                events: vec![
                    "SCHEMA_CHANGE".into(),
                    "TOPOLOGY_CHANGE".into(),
                    "TRACE_COMPLETE".into()
                ]
            })
        );
        let err = decode(&["SCHEMA_CHANGE", "FOO"]).unwrap_err();
        assert_eq!(err.to_string(), "Invalid value 'FOO' for Type");
        assert_eq!(
            decode(&[""]).unwrap_err().to_string(),
            "Invalid value '' for Type"
        );
    }
}
