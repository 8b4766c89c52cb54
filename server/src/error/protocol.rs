//! `ProtocolError`: a framing, version or message-order fault (code 0x000A) — a request the
//! native protocol does not allow here, before any statement is looked at.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`. Where the words are the `cql`
//! crate's (a [`FrameError`], the version messages), the variant carries the typed value and
//! prints through it.

use cql::frame::{self, FrameError, ProtocolVersion};

/// A framing, version or message-order fault.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProtocolError {
    /// A version byte this server does not speak (the header may be shorter than ours).
    /// Origin: transport/PreV5Handlers.java / ProtocolVersion.decode (message built in the cql crate)
    #[error("{}", frame::unsupported_version_message(*.version))]
    UnsupportedVersion { version: u8 },
    /// An envelope in a beta version (v6) without the `USE_BETA` flag; Cassandra answers it in
    /// that version.
    /// Origin: transport/ProtocolVersion.java decode (message built in the cql crate)
    #[error("{}", frame::beta_without_flag_message(*.version))]
    BetaWithoutFlag { version: ProtocolVersion },
    /// A message whose version differs from the one the connection chose.
    /// Origin: transport/Envelope.java Decoder (message built in the cql crate)
    #[error("{}", frame::version_mismatch_message(*.got, *.connection))]
    VersionMismatch {
        got: ProtocolVersion,
        connection: ProtocolVersion,
    },
    /// A header announcing a body over `native_transport_max_frame_size`.
    /// Origin: transport/Envelope.java Decoder.extractHeader
    #[error("Request is too big: length {length} exceeds maximum allowed length {max}.")]
    RequestTooBig { length: usize, max: usize },
    /// An opcode byte the protocol does not define (printed in decimal, as Cassandra does).
    /// Origin: transport/Message.java Type.fromOpcode
    #[error("Unknown opcode {opcode}")]
    UnknownOpcode { opcode: u8 },
    /// A body (or v5 segment) that does not decode.
    /// Origin: transport/Message.java Decoder (ProtocolException "Invalid or malformed message")
    #[error("Invalid or malformed message: {0}")]
    Malformed(FrameError),
    /// A body with a value Cassandra refuses in its own words (an unknown consistency code or
    /// event type): the decoder's message alone.
    /// Origin: ours — carries a cql crate FrameError, whose text names its origin
    #[error("{0}")]
    RefusedValue(FrameError),
    /// A v5 self-contained segment whose last envelope is cut short.
    /// Origin: ours — a v5 segment cut inside an envelope
    #[error("Invalid or malformed message: a segment ends inside an envelope")]
    SegmentEndsInsideEnvelope,
    /// A message the connection does not take in its state, where only STARTUP or OPTIONS
    /// would do: any request before the handshake, or an AUTH_RESPONSE no authentication
    /// asked for (`opcode` is the message's spec name, e.g. `QUERY`).
    /// Origin: transport/messages/ (ServerConnection.validateNewMessage, "expecting STARTUP or OPTIONS")
    #[error("Unexpected message {opcode}, expecting STARTUP or OPTIONS")]
    ExpectingStartup { opcode: &'static str },
    /// A request other than AUTH_RESPONSE (OPTIONS and STARTUP included, as in Cassandra)
    /// while PasswordAuthenticator awaits credentials.
    /// Origin: transport/ServerConnection.java validateNewMessage
    #[error("Unexpected message {opcode}, expecting SASL_RESPONSE")]
    ExpectingSaslResponse { opcode: &'static str },
    /// A STARTUP on a connection whose handshake is complete.
    /// Origin: transport/ServerConnection.java validateNewMessage
    #[error("Unexpected message STARTUP, the connection is already initialized")]
    AlreadyInitialized,
    /// Origin: transport/messages/StartupMessage.java execute
    #[error("Missing value CQL_VERSION in STARTUP message")]
    MissingCqlVersion,
    /// A STARTUP asking for a CQL version below 3.
    /// Origin: transport/messages/StartupMessage.java execute
    #[error("CQL version {version} is not supported by the binary protocol (supported version are >= 3.0.0)")]
    UnsupportedCqlVersion { version: String },
    /// A STARTUP COMPRESSION option naming no algorithm this server has.
    /// Origin: transport/messages/StartupMessage.java execute
    #[error("Unknown compression algorithm: {name}")]
    UnknownCompression { name: String },
    /// Origin: transport/messages/StartupMessage.java execute
    #[error("Snappy compression is not supported in protocol V5")]
    SnappyInV5,
    /// A paging state this server did not produce for this table.
    /// Origin: service/pager/PagingState.java deserialize
    #[error("Invalid value for the paging state")]
    InvalidPagingState,
}
