//! Whole frames out: header, optional warnings prefix, body, optional compression.
//!
//! The server calls [`encode_response_frame`] for every answer and event; tests, benches and
//! fuzz seeds use [`encode_request_frame`] to play the client.

use bytes::{BufMut, BytesMut};
use uuid::Uuid;

use super::primitives::write_string_list;
use super::request::Request;
use super::response::Response;
use super::{flags, Compression, FrameHeader, ProtocolVersion, HEADER_LEN};

/// Encodes a complete v4 response frame (version byte 0x84); see
/// [`encode_response_frame_for`].
pub fn encode_response_frame(
    stream: i16,
    response: &Response,
    warnings: &[String],
    compression: Option<Compression>,
) -> BytesMut {
    encode_response_frame_for(ProtocolVersion::V4, stream, response, warnings, compression)
}

/// Encodes a complete response frame (an envelope, in v5) of protocol `version`.
///
/// With `warnings` (v4 and later; v3 has no warnings and drops them), the WARNING flag is set
/// and the body starts with them as a `[string list]`. With `compression`, the whole body
/// (warnings included) is compressed and the COMPRESSION flag set; passing `None` for the
/// answer to STARTUP, and for every v5 envelope (v5 compresses segments instead), is the
/// caller's job.
pub fn encode_response_frame_for(
    version: ProtocolVersion,
    stream: i16,
    response: &Response,
    warnings: &[String],
    compression: Option<Compression>,
) -> BytesMut {
    encode_response_frame_traced(version, stream, response, None, warnings, compression)
}

/// [`encode_response_frame_for`] with the id of the request's trace session: the TRACING
/// flag is set and the body starts with the id as a `[uuid]`, before any warnings (every
/// protocol version has it).
pub fn encode_response_frame_traced(
    version: ProtocolVersion,
    stream: i16,
    response: &Response,
    tracing_id: Option<Uuid>,
    warnings: &[String],
    compression: Option<Compression>,
) -> BytesMut {
    let mut frame_flags = 0;
    let warnings = if version.has_warnings() {
        warnings
    } else {
        &[]
    };
    let warnings_len: usize = warnings.iter().map(|w| 2 + w.len()).sum();
    let id_len = if tracing_id.is_some() { 16 } else { 0 };
    let mut out = start_frame(response.size_hint() + warnings_len + id_len);
    if let Some(id) = tracing_id {
        frame_flags |= flags::TRACING;
        out.extend_from_slice(id.as_bytes());
    }
    if !warnings.is_empty() {
        frame_flags |= flags::WARNING;
        write_string_list(&mut out, warnings);
    }
    response.encode_body_for(version, &mut out);
    finish_frame(
        out,
        version.response_byte(),
        frame_flags,
        stream,
        response.opcode().as_u8(),
        compression,
    )
}

/// Encodes a complete v4 request frame (version byte 0x04); see
/// [`encode_request_frame_for`].
pub fn encode_request_frame(
    stream: i16,
    request: &Request,
    compression: Option<Compression>,
) -> BytesMut {
    encode_request_frame_for(ProtocolVersion::V4, stream, request, compression)
}

/// Encodes a complete request frame of protocol `version`. With `compression` the body is
/// compressed, except a STARTUP body, which the spec says must never be.
pub fn encode_request_frame_for(
    version: ProtocolVersion,
    stream: i16,
    request: &Request,
    compression: Option<Compression>,
) -> BytesMut {
    let mut out = start_frame(256);
    request.encode_for(version, &mut out);
    let compression = compression.filter(|_| !matches!(request, Request::Startup(_)));
    finish_frame(
        out,
        version.request_byte(),
        0,
        stream,
        request.opcode().as_u8(),
        compression,
    )
}

/// A buffer with room reserved for the header, so the body (about `body_len` bytes) is
/// written in place.
fn start_frame(body_len: usize) -> BytesMut {
    let mut out = BytesMut::with_capacity(HEADER_LEN + body_len);
    out.put_bytes(0, HEADER_LEN);
    out
}

/// Compresses the body if asked, then fills in the header.
fn finish_frame(
    mut out: BytesMut,
    version: u8,
    mut frame_flags: u8,
    stream: i16,
    opcode: u8,
    compression: Option<Compression>,
) -> BytesMut {
    if let Some(compression) = compression {
        let packed = compression.compress(out.get(HEADER_LEN..).unwrap_or_default());
        out.truncate(HEADER_LEN);
        out.extend_from_slice(&packed);
        frame_flags |= flags::COMPRESSION;
    }
    let body_len = out.len().saturating_sub(HEADER_LEN);
    let header = FrameHeader {
        version,
        flags: frame_flags,
        stream,
        opcode,
        length: u32::try_from(body_len).unwrap_or(u32::MAX),
    };
    if let Some(slot) = out.get_mut(..HEADER_LEN) {
        slot.copy_from_slice(&header.to_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::request::{Prepare, Startup};
    use crate::frame::response::ResultBody;
    use crate::frame::{decode_request, decode_response, parse_header, Opcode};

    #[test]
    fn ready_frame_is_exact() {
        let frame = encode_response_frame(3, &Response::Ready, &[], None);
        assert_eq!(&frame[..], &[0x84, 0, 0, 3, 0x02, 0, 0, 0, 0]);
    }

    #[test]
    fn warnings_come_first_and_set_the_flag() {
        let warnings = vec!["careful".to_string()];
        let frame = encode_response_frame(1, &Response::Result(ResultBody::Void), &warnings, None);
        let header = parse_header(&frame).unwrap();
        assert_eq!(header.flags, flags::WARNING);
        assert_eq!(header.length as usize, frame.len() - HEADER_LEN);
        assert_eq!(&frame[9..13], &[0, 1, 0, 7]);
        let body = frame.freeze().slice(HEADER_LEN..);
        let decoded = decode_response(&header, &body, None, 1 << 20).unwrap();
        assert_eq!(decoded.warnings, warnings);
        assert_eq!(decoded.response, Response::Result(ResultBody::Void));
    }

    #[test]
    fn tracing_id_comes_before_warnings_in_every_version() {
        let id = Uuid::from_u128(0x0102_0304_0506_1718_8191_a1a2_a3a4_a5a6);
        let warnings = vec!["careful".to_string()];
        for version in [
            ProtocolVersion::V3,
            ProtocolVersion::V4,
            ProtocolVersion::V5,
        ] {
            let response = Response::Result(ResultBody::Void);
            let frame =
                encode_response_frame_traced(version, 2, &response, Some(id), &warnings, None);
            let header = parse_header(&frame).unwrap();
            assert_ne!(header.flags & flags::TRACING, 0);
            assert_eq!(&frame[HEADER_LEN..HEADER_LEN + 16], id.as_bytes());
            let body = frame.freeze().slice(HEADER_LEN..);
            let decoded = decode_response(&header, &body, None, 1 << 20).unwrap();
            assert_eq!(decoded.tracing_id, Some(id));
            assert_eq!(decoded.response, response);
            let expected: &[String] = if version == ProtocolVersion::V3 {
                &[]
            } else {
                &warnings
            };
            assert_eq!(decoded.warnings, expected);
        }
        // Untraced frames are unchanged.
        let plain = encode_response_frame(3, &Response::Ready, &[], None);
        assert_eq!(&plain[..], &[0x84, 0, 0, 3, 0x02, 0, 0, 0, 0]);
    }

    #[test]
    fn compressed_frames_round_trip() {
        for compression in [Compression::Lz4, Compression::Snappy] {
            let warnings = vec!["w".to_string()];
            let response = Response::Result(ResultBody::SetKeyspace("ks".repeat(50)));
            let frame = encode_response_frame(-1, &response, &warnings, Some(compression));
            let header = parse_header(&frame).unwrap();
            assert_eq!(header.flags, flags::WARNING | flags::COMPRESSION);
            assert_eq!(header.stream, -1);
            let body = frame.freeze().slice(HEADER_LEN..);
            assert!(decode_response(&header, &body, None, 1 << 20).is_err());
            let decoded = decode_response(&header, &body, Some(compression), 1 << 20).unwrap();
            assert_eq!(decoded.warnings, warnings);
            assert_eq!(decoded.response, response);

            let request = Request::Prepare(Prepare {
                query: "SELECT 1".repeat(20),
                keyspace: None,
            });
            let frame = encode_request_frame(9, &request, Some(compression));
            let header = parse_header(&frame).unwrap();
            assert_eq!(
                (header.version, header.flags),
                (crate::frame::REQUEST_VERSION_V4, flags::COMPRESSION)
            );
            assert_eq!(header.opcode, Opcode::Prepare.as_u8());
            let body = frame.freeze().slice(HEADER_LEN..);
            assert_eq!(
                decode_request(&header, &body, Some(compression), 1 << 20).unwrap(),
                request
            );
        }
    }

    #[test]
    fn startup_is_never_compressed() {
        let frame = encode_request_frame(
            0,
            &Request::Startup(Startup::default()),
            Some(Compression::Lz4),
        );
        assert_eq!(&frame[..], &[0x04, 0, 0, 0, 0x01, 0, 0, 0, 2, 0, 0]);
    }
}
