//! PREPARE (native_protocol_v4.spec section 4.1.5): in v4 the body is just the statement as a
//! `[long string]` (v5 adds flags and a keyspace).

use bytes::BytesMut;

use crate::frame::primitives::{read_long_string, write_long_string};
use crate::frame::FrameError;

/// A PREPARE body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepare {
    /// The statement text.
    pub query: String,
}

impl Prepare {
    pub(crate) fn decode(buf: &mut &[u8]) -> Result<Prepare, FrameError> {
        Ok(Prepare {
            query: read_long_string(buf, "query")?.to_owned(),
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) {
        write_long_string(out, &self.query);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::request::tests::round_trip;
    use crate::frame::request::Request;

    #[test]
    fn prepare_round_trips() {
        let body = round_trip(&Request::Prepare(Prepare {
            query: "SELECT * FROM t WHERE k = ?".into(),
        }));
        assert_eq!(&body[..4], &[0, 0, 0, 27]);
    }
}
