//! Native protocol frames (native_protocol_v4.spec, with v3 and v5 differences; v5 segments in
//! [`segment`]).
//!
//! A frame is a 9-byte header ([`FrameHeader`]: version, flags, stream, opcode, length) followed
//! by a body. This module owns the header, the flag and opcode constants, and re-exports the
//! pieces that work on bodies:
//!
//! - [`primitives`]: the spec's notations (`[int]`, `[string]`, `[bytes]`, ...) as symmetric
//!   `read_*`/`write_*` pairs; decoding runs `nom` complete parsers over `&[u8]`.
//! - [`option`]: the `[option]` encoding of a [`ColumnType`](crate::types::ColumnType).
//! - [`request`] and [`response`]: one type per message, with `decode` and `encode`.
//! - [`compression`]: lz4 and snappy bodies; [`version`]: the unsupported-version message.
//! - [`segment`]: protocol v5 framing, envelopes wrapped in CRC-protected (optionally lz4)
//!   segments once the connection is set up.
//! - [`encode`] / [`decode`]: whole frames (warnings, compression, custom payload).
//! - [`error`]: [`FrameError`], every decode failure with the field that failed.
//!
//! What is left to the server: reading bytes from the socket, enforcing the maximum frame size
//! before allocating the body, choosing which version to accept, and answering errors.

pub mod compression;
pub mod decode;
pub mod encode;
pub mod error;
pub mod option;
pub mod primitives;
pub mod request;
pub mod response;
pub mod segment;
pub mod version;

use bytes::BytesMut;

pub use compression::Compression;
pub use decode::{decode_request, decode_request_frame, decode_response, DecodedResponse};
pub use encode::{
    encode_request_frame, encode_request_frame_for, encode_response_frame,
    encode_response_frame_for, encode_response_frame_traced,
};
pub use error::FrameError;
pub use version::{
    beta_without_flag_message, unsupported_version_message, version_mismatch_message,
    ProtocolVersion, SUPPORTED_VERSION_NAMES,
};

/// Length of the v3/v4 frame header in bytes (native_protocol_v4.spec section 2).
pub const HEADER_LEN: usize = 9;

/// Version byte of a v4 response frame (direction bit set).
pub const RESPONSE_VERSION_V4: u8 = 0x84;

/// Version byte of a v4 request frame.
pub const REQUEST_VERSION_V4: u8 = 0x04;

/// Header flags (native_protocol_v4.spec section 2.2).
pub mod flags {
    /// The body is compressed with the algorithm chosen in STARTUP.
    pub const COMPRESSION: u8 = 0x01;
    /// Request: trace this request. Response: the body starts with a tracing id `[uuid]`.
    pub const TRACING: u8 = 0x02;
    /// The body starts (after any tracing id) with a custom payload `[bytes map]`.
    pub const CUSTOM_PAYLOAD: u8 = 0x04;
    /// Response only: the body starts (after any tracing id) with warnings, a `[string list]`.
    pub const WARNING: u8 = 0x08;
    /// The client accepts a beta protocol version (v5 beta in Cassandra 3.x).
    pub const USE_BETA: u8 = 0x10;
}

/// A decoded frame header. The version byte is kept as sent, direction bit included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    /// Protocol version with the direction bit (0x04 request, 0x84 response for v4).
    pub version: u8,
    /// Bit set of [`flags`].
    pub flags: u8,
    /// Stream id: non-negative for requests and their responses, -1 for events.
    pub stream: i16,
    /// Raw opcode; see [`Opcode::try_from`].
    pub opcode: u8,
    /// Length of the body that follows the header.
    pub length: u32,
}

/// Reads a header from the first [`HEADER_LEN`] bytes of `buf`.
///
/// Returns `None` when `buf` is shorter than a header ("not enough bytes yet"). Neither the
/// version nor the opcode is validated: the server decides what to answer to either.
pub fn parse_header(buf: &[u8]) -> Option<FrameHeader> {
    let header: &[u8; HEADER_LEN] = buf.get(..HEADER_LEN)?.try_into().ok()?;
    let [version, flags, s0, s1, opcode, l0, l1, l2, l3] = *header;
    Some(FrameHeader {
        version,
        flags,
        stream: i16::from_be_bytes([s0, s1]),
        opcode,
        length: u32::from_be_bytes([l0, l1, l2, l3]),
    })
}

impl FrameHeader {
    /// Appends the 9 header bytes to `out`.
    pub fn encode(&self, out: &mut BytesMut) {
        out.extend_from_slice(&self.to_bytes());
    }

    /// The 9 header bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let [s0, s1] = self.stream.to_be_bytes();
        let [l0, l1, l2, l3] = self.length.to_be_bytes();
        [
            self.version,
            self.flags,
            s0,
            s1,
            self.opcode,
            l0,
            l1,
            l2,
            l3,
        ]
    }
}

/// Message opcodes (native_protocol_v4.spec section 2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// 0x00, response.
    Error,
    /// 0x01, request.
    Startup,
    /// 0x02, response.
    Ready,
    /// 0x03, response.
    Authenticate,
    /// 0x05, request.
    Options,
    /// 0x06, response.
    Supported,
    /// 0x07, request.
    Query,
    /// 0x08, response.
    Result,
    /// 0x09, request.
    Prepare,
    /// 0x0A, request.
    Execute,
    /// 0x0B, request.
    Register,
    /// 0x0C, response.
    Event,
    /// 0x0D, request.
    Batch,
    /// 0x0E, response.
    AuthChallenge,
    /// 0x0F, request.
    AuthResponse,
    /// 0x10, response.
    AuthSuccess,
}

impl Opcode {
    /// The opcode byte.
    pub fn as_u8(self) -> u8 {
        match self {
            Opcode::Error => 0x00,
            Opcode::Startup => 0x01,
            Opcode::Ready => 0x02,
            Opcode::Authenticate => 0x03,
            Opcode::Options => 0x05,
            Opcode::Supported => 0x06,
            Opcode::Query => 0x07,
            Opcode::Result => 0x08,
            Opcode::Prepare => 0x09,
            Opcode::Execute => 0x0A,
            Opcode::Register => 0x0B,
            Opcode::Event => 0x0C,
            Opcode::Batch => 0x0D,
            Opcode::AuthChallenge => 0x0E,
            Opcode::AuthResponse => 0x0F,
            Opcode::AuthSuccess => 0x10,
        }
    }
}

impl TryFrom<u8> for Opcode {
    type Error = FrameError;

    fn try_from(byte: u8) -> Result<Self, FrameError> {
        Ok(match byte {
            0x00 => Opcode::Error,
            0x01 => Opcode::Startup,
            0x02 => Opcode::Ready,
            0x03 => Opcode::Authenticate,
            0x05 => Opcode::Options,
            0x06 => Opcode::Supported,
            0x07 => Opcode::Query,
            0x08 => Opcode::Result,
            0x09 => Opcode::Prepare,
            0x0A => Opcode::Execute,
            0x0B => Opcode::Register,
            0x0C => Opcode::Event,
            0x0D => Opcode::Batch,
            0x0E => Opcode::AuthChallenge,
            0x0F => Opcode::AuthResponse,
            0x10 => Opcode::AuthSuccess,
            other => return Err(FrameError::UnknownOpcode(other)),
        })
    }
}

impl From<Opcode> for u8 {
    fn from(opcode: Opcode) -> u8 {
        opcode.as_u8()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips() {
        let header = FrameHeader {
            version: RESPONSE_VERSION_V4,
            flags: flags::WARNING | flags::COMPRESSION,
            stream: -1,
            opcode: Opcode::Event.as_u8(),
            length: 0x0102_0304,
        };
        let mut out = BytesMut::new();
        header.encode(&mut out);
        assert_eq!(&out[..], &[0x84, 0x09, 0xFF, 0xFF, 0x0C, 1, 2, 3, 4]);
        assert_eq!(parse_header(&out), Some(header));
    }

    #[test]
    fn short_header_is_none_and_version_is_not_checked() {
        assert_eq!(parse_header(&[0x04, 0, 0, 0, 0x05, 0, 0, 0]), None);
        let header = parse_header(&[0x42, 0, 0, 7, 0xEE, 0, 0, 0, 0, 99]).unwrap();
        assert_eq!(header.version, 0x42);
        assert_eq!(header.opcode, 0xEE);
        assert_eq!(header.stream, 7);
    }

    #[test]
    fn opcodes_round_trip() {
        for byte in 0..=0xFFu8 {
            match Opcode::try_from(byte) {
                Ok(opcode) => assert_eq!(opcode.as_u8(), byte),
                Err(err) => {
                    assert!(byte == 0x04 || byte > 0x10, "{byte}");
                    assert_eq!(err, FrameError::UnknownOpcode(byte));
                }
            }
        }
    }
}
