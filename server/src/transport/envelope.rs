//! Request envelopes out of a buffer: the 9-byte header, the version and length checks, then
//! the body, split off the buffer without copying (native_protocol_v4.spec section 2). The
//! buffer is the connection's read buffer, or in v5 the payload of a segment.

use bytes::{Buf, Bytes, BytesMut};
use cql::frame::{self, FrameHeader, ProtocolVersion, HEADER_LEN};

use crate::error::{CqlError, ProtocolError};

/// A request envelope: header plus the body as received (possibly compressed).
#[derive(Debug)]
pub(crate) struct Envelope {
    pub(crate) header: FrameHeader,
    pub(crate) body: Bytes,
}

/// What the read buffer holds next.
#[derive(Debug)]
pub(crate) enum Parsed {
    /// Not a whole envelope yet: at least `needed` more bytes must arrive.
    Incomplete { needed: usize },
    /// A whole envelope, removed from the buffer.
    Envelope(Envelope),
    /// A framing fault: answer with this error on this stream, then close.
    Fatal { stream: i16, error: CqlError },
}

/// Takes the next envelope off the front of `input`. The version byte is checked as soon as
/// it arrives (a supported version, and the connection's once one was chosen), a beta
/// version's `USE_BETA` flag with the header, and the length before any body byte is
/// awaited, so a body over `max_frame` is never buffered.
pub(crate) fn parse(
    input: &mut BytesMut,
    max_frame: usize,
    connection: Option<ProtocolVersion>,
) -> Parsed {
    let Some(&version) = input.first() else {
        return Parsed::Incomplete { needed: HEADER_LEN };
    };
    let Some(got) = ProtocolVersion::from_request_byte(version) else {
        // Old versions have shorter headers; reply on stream 0 as Cassandra does.
        return Parsed::Fatal {
            stream: 0,
            error: ProtocolError::UnsupportedVersion { version }.into(),
        };
    };
    if let Some(connection) = connection.filter(|&v| v != got) {
        return Parsed::Fatal {
            stream: 0,
            error: ProtocolError::VersionMismatch { got, connection }.into(),
        };
    }
    let Some(header) = frame::parse_header(input) else {
        return Parsed::Incomplete {
            needed: HEADER_LEN - input.len(),
        };
    };
    if got.is_beta() && header.flags & frame::flags::USE_BETA == 0 {
        return Parsed::Fatal {
            stream: 0,
            error: ProtocolError::BetaWithoutFlag { version: got }.into(),
        };
    }
    let length = usize::try_from(header.length).unwrap_or(usize::MAX);
    if length > max_frame {
        return Parsed::Fatal {
            stream: header.stream,
            error: ProtocolError::RequestTooBig {
                length,
                max: max_frame,
            }
            .into(),
        };
    }
    let total = HEADER_LEN + length;
    if input.len() < total {
        return Parsed::Incomplete {
            needed: total - input.len(),
        };
    }
    input.advance(HEADER_LEN);
    let body = input.split_to(length).freeze();
    Parsed::Envelope(Envelope { header, body })
}

#[cfg(test)]
mod tests {
    use cql::frame::encode_request_frame;
    use cql::frame::request::Request;

    use super::*;

    fn options_frame(stream: i16) -> BytesMut {
        encode_request_frame(stream, &Request::Options, None)
    }

    #[test]
    fn envelopes_come_whole_and_in_order() {
        let mut input = options_frame(1);
        let register = Request::Register(cql::frame::request::Register {
            events: vec!["SCHEMA_CHANGE".into()],
        });
        let second = encode_request_frame(2, &register, None);
        input.extend_from_slice(&second[..HEADER_LEN + 3]);
        let Parsed::Envelope(first) = parse(&mut input, 1024, None) else {
            panic!("a whole OPTIONS envelope");
        };
        assert_eq!((first.header.stream, first.body.len()), (1, 0));
        let Parsed::Incomplete { needed } = parse(&mut input, 1024, None) else {
            panic!("the REGISTER body is cut");
        };
        assert_eq!(needed, second.len() - HEADER_LEN - 3);
        input.extend_from_slice(&second[HEADER_LEN + 3..]);
        let Parsed::Envelope(register) = parse(&mut input, 1024, None) else {
            panic!("a whole REGISTER envelope");
        };
        assert_eq!(register.header.stream, 2);
        assert_eq!(register.body, second[HEADER_LEN..]);
        assert!(input.is_empty());
        assert!(matches!(
            parse(&mut input, 1024, None),
            Parsed::Incomplete { needed: HEADER_LEN }
        ));
    }

    #[test]
    fn a_short_header_waits_for_the_rest() {
        let frame = options_frame(3);
        let mut input = BytesMut::from(&frame[..4]);
        assert!(matches!(
            parse(&mut input, 1024, None),
            Parsed::Incomplete { needed: 5 }
        ));
    }

    #[test]
    fn bad_versions_and_oversized_bodies_are_fatal() {
        for version in [0x02u8, 0x07, 0x42, 0x84] {
            let mut old = BytesMut::from(&[version][..]);
            let Parsed::Fatal { stream, .. } = parse(&mut old, 1024, None) else {
                panic!("version {version:#x} is refused");
            };
            assert_eq!(stream, 0);
        }
        for version in [3u8, 4, 5] {
            let mut frame = options_frame(1);
            frame[0] = version;
            assert!(matches!(parse(&mut frame, 1024, None), Parsed::Envelope(_)));
        }
        let mut beta = options_frame(1);
        beta[0] = 6;
        let Parsed::Fatal { stream: 0, error } = parse(&mut beta, 1024, None) else {
            panic!("v6 without USE_BETA is refused");
        };
        assert_eq!(
            error.to_string(),
            "Beta version of the protocol used (6/v6-beta), but USE_BETA flag is unset"
        );
        let mut beta = options_frame(1);
        (beta[0], beta[1]) = (6, frame::flags::USE_BETA);
        assert!(matches!(parse(&mut beta, 1024, None), Parsed::Envelope(_)));
        let mut v3 = options_frame(1);
        v3[0] = 3;
        let Parsed::Fatal { error, .. } = parse(&mut v3, 1024, Some(ProtocolVersion::V4)) else {
            panic!("a v3 message on a v4 connection is refused");
        };
        assert_eq!(
            error.to_string(),
            "Invalid message version. Got 3/v3 but previous messages on this connection had version 4/v4"
        );
        let mut big = options_frame(9);
        big[5..9].copy_from_slice(&2048u32.to_be_bytes());
        let Parsed::Fatal { stream, error } = parse(&mut big, 1024, None) else {
            panic!("a body over the limit is refused");
        };
        assert_eq!(stream, 9);
        assert_eq!(
            error.to_string(),
            "Request is too big: length 2048 exceeds maximum allowed length 1024."
        );
    }
}
