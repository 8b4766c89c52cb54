//! Request messages (native_protocol_v4.spec section 4.1), one file per opcode.
//!
//! [`Request::decode`] reads a complete, already decompressed body whose custom payload (if
//! any) was removed (see [`crate::frame::decode_request`]). Trailing bytes after a well-formed
//! body are ignored, as Cassandra ignores them (the spec lets a peer append fields a later
//! minor revision may define). [`Request::encode`] is the exact inverse, used by tests,
//! benches and fuzz seeds.

mod auth_response;
mod batch;
mod execute;
mod options;
mod prepare;
mod query;
mod register;
mod startup;

use bytes::{Bytes, BytesMut};

pub use super::primitives::Value;
pub use auth_response::AuthResponse;
pub use batch::{Batch, BatchQuery, BatchStatement};
pub use execute::Execute;
pub use prepare::Prepare;
pub use query::{query_flags, Query, QueryParameters};
pub use register::{Register, EVENT_TYPES};
pub use startup::Startup;

use super::{FrameError, Opcode, ProtocolVersion};

/// A decoded request body.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// STARTUP: connection options.
    Startup(Startup),
    /// OPTIONS: asks for SUPPORTED.
    Options,
    /// QUERY: a statement with parameters.
    Query(Query),
    /// PREPARE: a statement to prepare.
    Prepare(Prepare),
    /// EXECUTE: a prepared statement with parameters.
    Execute(Execute),
    /// BATCH: several statements.
    Batch(Batch),
    /// REGISTER: event types to receive.
    Register(Register),
    /// AUTH_RESPONSE: a SASL token.
    AuthResponse(AuthResponse),
}

impl Request {
    /// Decodes the body of a request with `opcode`.
    ///
    /// # Errors
    ///
    /// [`FrameError::NotARequest`] for a response opcode, otherwise the first field that is
    /// truncated or invalid.
    pub fn decode(opcode: Opcode, body: &Bytes) -> Result<Request, FrameError> {
        Request::decode_for(ProtocolVersion::V4, opcode, body)
    }

    /// Decodes the body of a request with `opcode` as protocol `version` lays it out.
    ///
    /// # Errors
    ///
    /// As [`Request::decode`].
    pub fn decode_for(
        version: ProtocolVersion,
        opcode: Opcode,
        body: &Bytes,
    ) -> Result<Request, FrameError> {
        let buf = &mut &body[..];
        Ok(match opcode {
            Opcode::Startup => Request::Startup(Startup::decode(buf)?),
            Opcode::Options => {
                options::decode(buf);
                Request::Options
            }
            Opcode::Query => Request::Query(Query::decode(buf, body, version)?),
            Opcode::Prepare => Request::Prepare(Prepare::decode(buf, version)?),
            Opcode::Execute => Request::Execute(Execute::decode(buf, body, version)?),
            Opcode::Batch => Request::Batch(Batch::decode(buf, body, version)?),
            Opcode::Register => Request::Register(Register::decode(buf)?),
            Opcode::AuthResponse => Request::AuthResponse(AuthResponse::decode(buf, body)?),
            Opcode::Error
            | Opcode::Ready
            | Opcode::Authenticate
            | Opcode::Supported
            | Opcode::Result
            | Opcode::Event
            | Opcode::AuthChallenge
            | Opcode::AuthSuccess => return Err(FrameError::NotARequest(opcode)),
        })
    }

    /// Appends the v4 body of this request to `out`.
    pub fn encode(&self, out: &mut BytesMut) {
        self.encode_for(ProtocolVersion::V4, out);
    }

    /// Appends the body of this request to `out` as protocol `version` lays it out.
    pub fn encode_for(&self, version: ProtocolVersion, out: &mut BytesMut) {
        match self {
            Request::Startup(startup) => startup.encode(out),
            Request::Options => {}
            Request::Query(query) => query.encode(out, version),
            Request::Prepare(prepare) => prepare.encode(out, version),
            Request::Execute(execute) => execute.encode(out, version),
            Request::Batch(batch) => batch.encode(out, version),
            Request::Register(register) => register.encode(out),
            Request::AuthResponse(auth) => auth.encode(out),
        }
    }

    /// The opcode of this request.
    pub fn opcode(&self) -> Opcode {
        match self {
            Request::Startup(_) => Opcode::Startup,
            Request::Options => Opcode::Options,
            Request::Query(_) => Opcode::Query,
            Request::Prepare(_) => Opcode::Prepare,
            Request::Execute(_) => Opcode::Execute,
            Request::Batch(_) => Opcode::Batch,
            Request::Register(_) => Opcode::Register,
            Request::AuthResponse(_) => Opcode::AuthResponse,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Encodes `request`, decodes it back and checks both agree.
    pub(crate) fn round_trip(request: &Request) -> Bytes {
        let mut out = BytesMut::new();
        request.encode(&mut out);
        let body = out.freeze();
        let decoded = Request::decode(request.opcode(), &body).unwrap();
        assert_eq!(&decoded, request);
        body
    }

    #[test]
    fn response_opcodes_are_not_requests() {
        let body = Bytes::new();
        assert_eq!(
            Request::decode(Opcode::Result, &body),
            Err(FrameError::NotARequest(Opcode::Result))
        );
    }

    #[test]
    fn options_ignores_its_body_and_trailing_bytes_are_accepted() {
        assert_eq!(round_trip(&Request::Options).len(), 0);
        let body = Bytes::from_static(&[1, 2, 3]);
        assert_eq!(
            Request::decode(Opcode::Options, &body),
            Ok(Request::Options)
        );
        let mut out = BytesMut::new();
        let prepare = Prepare {
            query: "x".into(),
            keyspace: None,
        };
        Request::Prepare(prepare.clone()).encode(&mut out);
        out.extend_from_slice(b"garbage");
        let decoded = Request::decode(Opcode::Prepare, &out.freeze()).unwrap();
        assert_eq!(decoded, Request::Prepare(prepare));
    }
}
