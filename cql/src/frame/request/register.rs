//! REGISTER (native_protocol_v4.spec section 4.1.8): the event types (`TOPOLOGY_CHANGE`,
//! `STATUS_CHANGE`, `SCHEMA_CHANGE`) as a `[string list]`. Unknown names are the server's to
//! reject.

use bytes::BytesMut;

use crate::frame::primitives::{read_string_list, write_string_list};
use crate::frame::FrameError;

/// A REGISTER body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Register {
    /// Event type names as sent.
    pub events: Vec<String>,
}

impl Register {
    pub(crate) fn decode(buf: &mut &[u8]) -> Result<Register, FrameError> {
        Ok(Register {
            events: read_string_list(buf, "event types")?,
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) {
        write_string_list(out, &self.events);
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
}
