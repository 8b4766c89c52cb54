//! Whole frame bodies in: decompression and the optional prefixes a header's flags announce
//! (tracing id, warnings, custom payload), then the message itself.
//!
//! The server reads the header with [`super::parse_header`], checks the version and the
//! length limit, reads the body and calls [`decode_request`]. [`decode_response`] is its mirror
//! for tests and tools.

use bytes::Bytes;
use uuid::Uuid;

use super::primitives::{read_bytes_map, read_string_list, read_uuid};
use super::request::Request;
use super::response::Response;
use super::{
    flags, parse_header, Compression, FrameError, FrameHeader, Opcode, ProtocolVersion, HEADER_LEN,
};

/// A decoded response frame body.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedResponse {
    /// TRACING flag: the id of the session trace.
    pub tracing_id: Option<Uuid>,
    /// WARNING flag: the server's warnings.
    pub warnings: Vec<String>,
    /// CUSTOM_PAYLOAD flag: the payload entries.
    pub custom_payload: Vec<(String, Option<Bytes>)>,
    /// The message.
    pub response: Response,
}

/// Decompresses `body` when the header's COMPRESSION flag is set.
fn plain_body(
    header: &FrameHeader,
    body: &Bytes,
    compression: Option<Compression>,
    max_len: usize,
) -> Result<Bytes, FrameError> {
    if header.flags & flags::COMPRESSION == 0 {
        return Ok(body.clone());
    }
    let compression = compression.ok_or(FrameError::CompressionNotNegotiated)?;
    Ok(Bytes::from(compression.decompress(body, max_len)?))
}

/// The layout a header's version byte announces (the direction bit ignored); v4 for a
/// version this crate does not speak, which the server refuses before decoding.
fn header_version(header: &FrameHeader) -> ProtocolVersion {
    ProtocolVersion::from_request_byte(header.version & 0x7F).unwrap_or(ProtocolVersion::V4)
}

/// Decodes the body of a request frame, laid out as its header's version says.
///
/// Decompresses when the COMPRESSION flag is set (with `compression`, the algorithm chosen in
/// STARTUP, producing at most `max_len` bytes) and skips the custom payload when the
/// CUSTOM_PAYLOAD flag is set (Cassandra's default query handler ignores it too). The TRACING
/// flag adds nothing to a request body.
///
/// # Errors
///
/// An unknown opcode, a compression failure, or any [`Request::decode`] error.
pub fn decode_request(
    header: &FrameHeader,
    body: &Bytes,
    compression: Option<Compression>,
    max_len: usize,
) -> Result<Request, FrameError> {
    let opcode = Opcode::try_from(header.opcode)?;
    let version = header_version(header);
    let body = plain_body(header, body, compression, max_len)?;
    if header.flags & flags::CUSTOM_PAYLOAD == 0 {
        return Request::decode_for(version, opcode, &body);
    }
    let mut buf = &body[..];
    read_bytes_map(&mut buf, &body, "custom payload")?;
    let consumed = body.len() - buf.len();
    Request::decode_for(version, opcode, &body.slice(consumed..))
}

/// Decodes the first complete request frame in `frame` (header and body), for tools and the
/// fuzz target; the server reads header and body separately and calls [`decode_request`].
///
/// Returns `Ok(None)` when `frame` does not yet hold a whole frame. The header's version is
/// not checked; its length is, against `max_len`, before anything is allocated.
///
/// # Errors
///
/// [`FrameError::BodyTooLarge`], or any [`decode_request`] error.
pub fn decode_request_frame(
    frame: &[u8],
    compression: Option<Compression>,
    max_len: usize,
) -> Result<Option<(FrameHeader, Request)>, FrameError> {
    let Some(header) = parse_header(frame) else {
        return Ok(None);
    };
    let length = usize::try_from(header.length).unwrap_or(usize::MAX);
    if length > max_len {
        return Err(FrameError::BodyTooLarge {
            length: header.length,
            max: max_len,
        });
    }
    let Some(body) = frame.get(HEADER_LEN..HEADER_LEN + length) else {
        return Ok(None);
    };
    let body = Bytes::copy_from_slice(body);
    decode_request(&header, &body, compression, max_len).map(|request| Some((header, request)))
}

/// Decodes the body of a response frame, with its tracing id, warnings and custom payload.
///
/// # Errors
///
/// An unknown opcode, a compression failure, a malformed prefix, or any
/// [`Response::decode`] error.
pub fn decode_response(
    header: &FrameHeader,
    body: &Bytes,
    compression: Option<Compression>,
    max_len: usize,
) -> Result<DecodedResponse, FrameError> {
    let opcode = Opcode::try_from(header.opcode)?;
    let body = plain_body(header, body, compression, max_len)?;
    let mut buf = &body[..];
    let has = |flag: u8| header.flags & flag != 0;
    let tracing_id = if has(flags::TRACING) {
        Some(read_uuid(&mut buf, "tracing id")?)
    } else {
        None
    };
    let warnings = if has(flags::WARNING) {
        read_string_list(&mut buf, "warnings")?
    } else {
        Vec::new()
    };
    let custom_payload = if has(flags::CUSTOM_PAYLOAD) {
        read_bytes_map(&mut buf, &body, "custom payload")?
    } else {
        Vec::new()
    };
    let consumed = body.len() - buf.len();
    let response = Response::decode_for(header_version(header), opcode, &body.slice(consumed..))?;
    Ok(DecodedResponse {
        tracing_id,
        warnings,
        custom_payload,
        response,
    })
}

#[cfg(test)]
mod tests {
    use bytes::BytesMut;

    use super::*;
    use crate::frame::primitives::{write_bytes_map, write_string_list, write_uuid};
    use crate::frame::request::Register;
    use crate::frame::{REQUEST_VERSION_V4, RESPONSE_VERSION_V4};

    fn header(flags: u8, opcode: Opcode, version: u8) -> FrameHeader {
        FrameHeader {
            version,
            flags,
            stream: 0,
            opcode: opcode.as_u8(),
            length: 0,
        }
    }

    #[test]
    fn custom_payload_is_skipped_on_requests() {
        let mut body = BytesMut::new();
        write_bytes_map(&mut body, &[("k".into(), Some(Bytes::from_static(b"v")))]);
        let request = Request::Register(Register {
            events: vec!["SCHEMA_CHANGE".into()],
        });
        request.encode(&mut body);
        let header = header(
            flags::CUSTOM_PAYLOAD | flags::TRACING,
            Opcode::Register,
            REQUEST_VERSION_V4,
        );
        assert_eq!(
            decode_request(&header, &body.freeze(), None, 1024),
            Ok(request)
        );
    }

    #[test]
    fn response_prefixes_are_read_in_order() {
        let id = Uuid::from_u128(42);
        let mut body = BytesMut::new();
        write_uuid(&mut body, &id);
        write_string_list(&mut body, &["w"]);
        write_bytes_map(&mut body, &[("p".into(), None)]);
        let flags = flags::TRACING | flags::WARNING | flags::CUSTOM_PAYLOAD;
        let header = header(flags, Opcode::Ready, RESPONSE_VERSION_V4);
        let decoded = decode_response(&header, &body.freeze(), None, 1024).unwrap();
        assert_eq!(decoded.tracing_id, Some(id));
        assert_eq!(decoded.warnings, vec!["w".to_string()]);
        assert_eq!(decoded.custom_payload, vec![("p".to_string(), None)]);
        assert_eq!(decoded.response, Response::Ready);
    }

    /// A small deterministic generator (xorshift64*) for corpus-like inputs.
    struct Noise(u64);

    impl Noise {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn bytes(&mut self, len: usize) -> Vec<u8> {
            (0..len).map(|_| self.next() as u8).collect()
        }
    }

    /// Valid request frames of every opcode: the fuzz target's seed corpus.
    pub(crate) fn seed_frames() -> Vec<Vec<u8>> {
        use crate::frame::encode_request_frame;
        use crate::frame::request::*;
        let params = QueryParameters {
            consistency: 1,
            values: vec![
                Value::Bytes(Bytes::from_static(&[0, 0, 0, 1])),
                Value::Null,
                Value::Unset,
            ],
            value_names: Some(vec!["a".into(), "b".into(), "c".into()]),
            skip_metadata: true,
            page_size: Some(100),
            paging_state: Some(Bytes::from_static(b"p")),
            serial_consistency: Some(8),
            default_timestamp: Some(1),
            keyspace: None,
            now_in_seconds: None,
        };
        let requests = [
            Request::Startup(Startup {
                options: vec![("CQL_VERSION".into(), "3.0.0".into())],
            }),
            Request::Options,
            Request::Query(Query {
                query: "SELECT * FROM t".into(),
                params: params.clone(),
            }),
            Request::Prepare(Prepare {
                query: "SELECT ?".into(),
                keyspace: None,
            }),
            Request::Execute(Execute {
                id: Bytes::from_static(&[1; 16]),
                params,
                result_metadata_id: None,
            }),
            Request::Batch(Batch {
                kind: 0,
                statements: vec![
                    BatchStatement {
                        query: BatchQuery::Text("INSERT".into()),
                        values: vec![Value::Null],
                    },
                    BatchStatement {
                        query: BatchQuery::Prepared(Bytes::from_static(&[2; 16])),
                        values: vec![],
                    },
                ],
                consistency: 4,
                serial_consistency: Some(9),
                default_timestamp: Some(5),
                value_names: false,
                keyspace: None,
                now_in_seconds: None,
            }),
            Request::Register(Register {
                events: vec!["SCHEMA_CHANGE".into()],
            }),
            Request::AuthResponse(AuthResponse {
                token: Some(Bytes::from_static(b"\0u\0p")),
            }),
        ];
        let mut frames = Vec::new();
        for request in &requests {
            for compression in [None, Some(Compression::Lz4), Some(Compression::Snappy)] {
                frames.push(encode_request_frame(3, request, compression).to_vec());
            }
        }
        frames
    }

    /// What the fuzz target does with one input; must never panic.
    fn fuzz_one(data: &[u8]) {
        for compression in [Compression::Lz4, Compression::Snappy] {
            let _ = decode_request_frame(data, Some(compression), 1 << 16);
        }
        if let (Some(header), Some(body)) = (parse_header(data), data.get(HEADER_LEN..)) {
            let body = Bytes::copy_from_slice(body);
            if let Ok(opcode) = Opcode::try_from(header.opcode) {
                let _ = Request::decode(opcode, &body);
                let _ = Response::decode(opcode, &body);
            }
        }
    }

    #[test]
    fn seeds_decode_and_hostile_variants_never_panic() {
        let mut noise = Noise(0x9E37_79B9_7F4A_7C15);
        for seed in seed_frames() {
            let (_, request) = decode_request_frame(&seed, Some(Compression::Lz4), 1 << 16)
                .or_else(|_| decode_request_frame(&seed, Some(Compression::Snappy), 1 << 16))
                .unwrap()
                .unwrap();
            let _ = request;
            // Every truncation, with the header length patched to match, and bit flips.
            for cut in 0..seed.len() {
                let mut short = seed.get(..cut).unwrap().to_vec();
                fuzz_one(&short);
                if let Some(len) = short.get_mut(5..9) {
                    len.copy_from_slice(&(cut.saturating_sub(HEADER_LEN) as u32).to_be_bytes());
                }
                fuzz_one(&short);
            }
            for _ in 0..64 {
                let mut flipped = seed.clone();
                let at = (noise.next() as usize) % flipped.len();
                if let Some(byte) = flipped.get_mut(at) {
                    *byte ^= 1 << (noise.next() % 8);
                }
                fuzz_one(&flipped);
            }
        }
        for opcode in 0..=0x10u8 {
            for _ in 0..200 {
                let len = (noise.next() % 64) as usize;
                let mut data = vec![0x04, (noise.next() % 8) as u8, 0, 1, opcode];
                data.extend_from_slice(&(len as u32).to_be_bytes());
                data.extend(noise.bytes(len));
                fuzz_one(&data);
            }
        }
    }

    #[test]
    fn oversized_and_incomplete_frames() {
        let frame = [0x04, 0, 0, 0, 0x05, 0x7F, 0xFF, 0xFF, 0xFF, 0];
        assert_eq!(
            decode_request_frame(&frame, None, 1024),
            Err(FrameError::BodyTooLarge {
                length: 0x7FFF_FFFF,
                max: 1024
            })
        );
        assert_eq!(decode_request_frame(&frame[..8], None, 1024), Ok(None));
        let frame = [0x04, 0, 0, 0, 0x07, 0, 0, 0, 10, 0];
        assert_eq!(decode_request_frame(&frame, None, 1024), Ok(None));
    }

    #[test]
    fn compressed_without_negotiation_and_unknown_opcodes_fail() {
        let h = header(flags::COMPRESSION, Opcode::Options, REQUEST_VERSION_V4);
        assert_eq!(
            decode_request(&h, &Bytes::new(), None, 1024),
            Err(FrameError::CompressionNotNegotiated)
        );
        let mut h = header(0, Opcode::Options, REQUEST_VERSION_V4);
        h.opcode = 0x04;
        assert_eq!(
            decode_request(&h, &Bytes::new(), None, 1024),
            Err(FrameError::UnknownOpcode(4))
        );
    }
}
