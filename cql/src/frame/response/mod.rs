//! Response messages (native_protocol_v4.spec section 4.2), one file per opcode; RESULT is
//! split into [`result`] (kinds), [`rows`], [`prepared`] and [`schema_change`].
//!
//! The server builds a [`Response`] and [`Response::encode_body`] writes it; whole frames
//! (warnings, compression) are [`crate::frame::encode_response_frame`]'s job.
//! [`Response::decode`] exists for tests and tools; like a driver it ignores trailing bytes.

mod auth;
mod authenticate;
mod encoded_specs;
pub mod error;
mod event;
mod prepared;
mod result;
mod rows;
mod schema_change;
mod supported;

use bytes::{Bytes, BytesMut};

pub use error::{error_code, ErrorBody, ErrorExtra};
pub use event::Event;
pub use prepared::{Prepared, PreparedMetadata};
pub use result::{result_kind, ResultBody};
pub use rows::{ColumnSpec, ResultMetadata, Rows, MAX_UNDESCRIBED_COLUMNS};
pub use schema_change::{SchemaChange, SchemaChangeTarget, SchemaChangeType};

use super::primitives::{read_shared_bytes, write_bytes};
use super::{FrameError, Opcode, ProtocolVersion};

/// A response body.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// ERROR.
    Error(ErrorBody),
    /// READY: the connection is ready for queries (empty body).
    Ready,
    /// AUTHENTICATE: the authenticator's Java class name.
    Authenticate {
        /// e.g. `org.apache.cassandra.auth.PasswordAuthenticator`.
        authenticator: String,
    },
    /// SUPPORTED: a `[string multimap]` of STARTUP options and their values, in order.
    Supported(Vec<(String, Vec<String>)>),
    /// RESULT.
    Result(ResultBody),
    /// EVENT (always sent on stream -1).
    Event(Event),
    /// AUTH_CHALLENGE: a SASL token.
    AuthChallenge(Option<Bytes>),
    /// AUTH_SUCCESS: final SASL token.
    AuthSuccess(Option<Bytes>),
}

impl Response {
    /// The opcode of this response.
    pub fn opcode(&self) -> Opcode {
        match self {
            Response::Error(_) => Opcode::Error,
            Response::Ready => Opcode::Ready,
            Response::Authenticate { .. } => Opcode::Authenticate,
            Response::Supported(_) => Opcode::Supported,
            Response::Result(_) => Opcode::Result,
            Response::Event(_) => Opcode::Event,
            Response::AuthChallenge(_) => Opcode::AuthChallenge,
            Response::AuthSuccess(_) => Opcode::AuthSuccess,
        }
    }

    /// About how many bytes the encoded body takes, for sizing the frame buffer once.
    pub fn size_hint(&self) -> usize {
        match self {
            Response::Result(result) => result.size_hint(),
            Response::Error(_)
            | Response::Ready
            | Response::Authenticate { .. }
            | Response::Supported(_)
            | Response::Event(_)
            | Response::AuthChallenge(_)
            | Response::AuthSuccess(_) => 128,
        }
    }

    /// Appends the v4 body of this response to `out`.
    pub fn encode_body(&self, out: &mut BytesMut) {
        self.encode_body_for(ProtocolVersion::V4, out);
    }

    /// Appends the body of this response to `out` as protocol `version` lays it out.
    pub fn encode_body_for(&self, version: ProtocolVersion, out: &mut BytesMut) {
        match self {
            Response::Error(error) => error.encode(out, version),
            Response::Ready => {}
            Response::Authenticate { authenticator } => authenticate::encode(out, authenticator),
            Response::Supported(options) => supported::encode(out, options),
            Response::Result(result) => result.encode(out, version),
            Response::Event(event) => event.encode(out),
            Response::AuthChallenge(token) | Response::AuthSuccess(token) => {
                write_bytes(out, token.as_deref());
            }
        }
    }

    /// Decodes a response body (without tracing id, warnings or custom payload; see
    /// [`crate::frame::decode_response`]). For tests and tools.
    ///
    /// # Errors
    ///
    /// [`FrameError::NotAResponse`] for a request opcode, otherwise the first field that is
    /// truncated or invalid.
    pub fn decode(opcode: Opcode, body: &Bytes) -> Result<Response, FrameError> {
        Response::decode_for(ProtocolVersion::V4, opcode, body)
    }

    /// Decodes a response body as protocol `version` lays it out. For tests and tools.
    ///
    /// # Errors
    ///
    /// As [`Response::decode`].
    pub fn decode_for(
        version: ProtocolVersion,
        opcode: Opcode,
        body: &Bytes,
    ) -> Result<Response, FrameError> {
        let buf = &mut &body[..];
        Ok(match opcode {
            Opcode::Error => Response::Error(ErrorBody::decode(buf, body)?),
            Opcode::Ready => Response::Ready,
            Opcode::Authenticate => Response::Authenticate {
                authenticator: authenticate::decode(buf)?,
            },
            Opcode::Supported => Response::Supported(supported::decode(buf)?),
            Opcode::Result => Response::Result(ResultBody::decode(buf, body, version)?),
            Opcode::Event => Response::Event(Event::decode(buf)?),
            Opcode::AuthChallenge => {
                Response::AuthChallenge(read_shared_bytes(buf, body, "token")?)
            }
            Opcode::AuthSuccess => Response::AuthSuccess(read_shared_bytes(buf, body, "token")?),
            Opcode::Startup
            | Opcode::Options
            | Opcode::Query
            | Opcode::Prepare
            | Opcode::Execute
            | Opcode::Register
            | Opcode::Batch
            | Opcode::AuthResponse => return Err(FrameError::NotAResponse(opcode)),
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Encodes `response`, decodes it back and checks both agree.
    pub(crate) fn round_trip(response: &Response) -> Bytes {
        let mut out = BytesMut::new();
        response.encode_body(&mut out);
        let body = out.freeze();
        let decoded = Response::decode(response.opcode(), &body).unwrap();
        assert_eq!(&decoded, response);
        body
    }

    #[test]
    fn simple_responses_round_trip() {
        assert!(round_trip(&Response::Ready).is_empty());
        round_trip(&Response::AuthChallenge(Some(Bytes::from_static(b"c"))));
        let body = round_trip(&Response::AuthSuccess(None));
        assert_eq!(&body[..], &[0xFF; 4]);
    }

    #[test]
    fn request_opcodes_are_not_responses() {
        assert_eq!(
            Response::decode(Opcode::Query, &Bytes::new()),
            Err(FrameError::NotAResponse(Opcode::Query))
        );
    }
}
