//! AUTH_RESPONSE (native_protocol_v4.spec section 4.1.2): a SASL token as `[bytes]`. With
//! `PasswordAuthenticator` it is `\0user\0password`; parsing it is the server's job.

use bytes::{Bytes, BytesMut};

use crate::frame::primitives::{read_shared_bytes, write_bytes};
use crate::frame::FrameError;

/// An AUTH_RESPONSE body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthResponse {
    /// The token; `None` when the client sent a null `[bytes]`.
    pub token: Option<Bytes>,
}

impl AuthResponse {
    pub(crate) fn decode(buf: &mut &[u8], body: &Bytes) -> Result<AuthResponse, FrameError> {
        Ok(AuthResponse {
            token: read_shared_bytes(buf, body, "token")?,
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) {
        write_bytes(out, self.token.as_deref());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::request::tests::round_trip;
    use crate::frame::request::Request;

    #[test]
    fn auth_response_round_trips() {
        let body = round_trip(&Request::AuthResponse(AuthResponse {
            token: Some(Bytes::from_static(b"\0cassandra\0cassandra")),
        }));
        assert_eq!(&body[..4], &[0, 0, 0, 20]);
        let body = round_trip(&Request::AuthResponse(AuthResponse { token: None }));
        assert_eq!(&body[..], &[0xFF; 4]);
    }
}
