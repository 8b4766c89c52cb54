//! STARTUP (native_protocol_v4.spec section 4.1.1): the connection's options as a
//! `[string map]`. Which options are required or understood is the server's business.

use bytes::BytesMut;

use crate::frame::primitives::{read_string_map, write_string_map};
use crate::frame::FrameError;

/// A STARTUP body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Startup {
    /// The options in the order the client sent them (`CQL_VERSION`, `COMPRESSION`, ...).
    pub options: Vec<(String, String)>,
}

impl Startup {
    /// The value of option `key`, if the client sent it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn decode(buf: &mut &[u8]) -> Result<Startup, FrameError> {
        Ok(Startup {
            options: read_string_map(buf, "STARTUP options")?,
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) {
        write_string_map(out, &self.options);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::request::tests::round_trip;
    use crate::frame::request::Request;

    #[test]
    fn startup_body_is_exact() {
        let startup = Startup {
            options: vec![("CQL_VERSION".into(), "3.0.0".into())],
        };
        let body = round_trip(&Request::Startup(startup.clone()));
        let mut expected = vec![0, 1, 0, 11];
        expected.extend_from_slice(b"CQL_VERSION");
        expected.extend_from_slice(&[0, 5]);
        expected.extend_from_slice(b"3.0.0");
        assert_eq!(&body[..], &expected[..]);
        assert_eq!(startup.get("CQL_VERSION"), Some("3.0.0"));
        assert_eq!(startup.get("COMPRESSION"), None);
    }
}
