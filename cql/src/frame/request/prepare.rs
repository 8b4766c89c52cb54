//! PREPARE (native_protocol_v4.spec section 4.1.5): in v3 and v4 the body is just the
//! statement as a `[long string]`; v5 adds `[int]` flags and, with flag 0x01, a keyspace.

use bytes::BytesMut;

use crate::frame::primitives::{
    read_int, read_long_string, read_string, write_int, write_long_string, write_string,
};
use crate::frame::{FrameError, ProtocolVersion};

/// v5 PREPARE flag: a `[string]` keyspace follows.
const WITH_KEYSPACE: i32 = 0x01;

/// A PREPARE body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepare {
    /// The statement text.
    pub query: String,
    /// v5: the keyspace to prepare in instead of the connection's.
    pub keyspace: Option<String>,
}

impl Prepare {
    pub(crate) fn decode(buf: &mut &[u8], version: ProtocolVersion) -> Result<Prepare, FrameError> {
        let query = read_long_string(buf, "query")?.to_owned();
        let mut keyspace = None;
        if version.is_v5() && read_int(buf, "flags")? & WITH_KEYSPACE != 0 {
            keyspace = Some(read_string(buf, "keyspace")?.to_owned());
        }
        Ok(Prepare { query, keyspace })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        write_long_string(out, &self.query);
        if version.is_v5() {
            write_int(
                out,
                if self.keyspace.is_some() {
                    WITH_KEYSPACE
                } else {
                    0
                },
            );
            if let Some(keyspace) = &self.keyspace {
                write_string(out, keyspace);
            }
        }
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
            keyspace: None,
        }));
        assert_eq!(&body[..4], &[0, 0, 0, 27]);
    }
}
