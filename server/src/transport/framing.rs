//! How envelopes travel on a connection: plain, one after another (v3, v4, and v5 until the
//! handshake ends), or in protocol v5's checksummed segments, which both sides switch to
//! once the server has sent READY (native_protocol_v5.spec section 2).
//!
//! Incoming: the segment decoder checks each segment's CRCs and hands back payloads holding
//! whole envelopes (or one large envelope put back together), which are then parsed as
//! plain envelopes. Outgoing: frames queued after the switch are wrapped in segments when
//! the connection writes, lz4-compressed if the client chose lz4.

use bytes::BytesMut;
use cql::frame::segment::{encode_segments, SegmentDecoder};
use cql::frame::{ProtocolVersion, HEADER_LEN};

use crate::error::ProtocolError;
use crate::transport::envelope;
use crate::transport::envelope::Parsed;

/// A connection's framing, in both directions.
#[derive(Default)]
pub(crate) struct Framing {
    segments: Option<Segments>,
    /// Where segment framing starts in the output not yet written: the frames before it (the
    /// READY that ends the handshake) still go out plain.
    output_from: Option<usize>,
}

/// v5 segments, once switched to.
struct Segments {
    decoder: SegmentDecoder,
    lz4: bool,
    /// Envelopes of the last self-contained segment not parsed yet.
    payload: BytesMut,
}

impl Framing {
    /// The next request envelope in `input`, checked against the connection's version.
    pub(crate) fn next(
        &mut self,
        input: &mut BytesMut,
        max_frame: usize,
        connection: Option<ProtocolVersion>,
    ) -> Parsed {
        let Some(segments) = &mut self.segments else {
            return envelope::parse(input, max_frame, connection);
        };
        loop {
            if !segments.payload.is_empty() {
                return match envelope::parse(&mut segments.payload, max_frame, connection) {
                    Parsed::Incomplete { .. } => fatal(ProtocolError::SegmentEndsInsideEnvelope),
                    parsed => parsed,
                };
            }
            match segments.decoder.decode(input) {
                Ok(Some(payload)) => segments.payload = BytesMut::from(&payload[..]),
                // The decoder reserved room for the rest of the segment.
                Ok(None) => return Parsed::Incomplete { needed: 0 },
                Err(err) => return fatal(ProtocolError::Malformed(err)),
            }
        }
    }

    /// Switches both directions to segments: what the client sends from now on, and what
    /// is queued after the first `queued` bytes of output.
    pub(crate) fn start_segments(&mut self, lz4: bool, max_frame: usize, queued: usize) {
        self.segments = Some(Segments {
            decoder: SegmentDecoder::new(lz4, max_frame.saturating_add(HEADER_LEN)),
            lz4,
            payload: BytesMut::new(),
        });
        self.output_from = Some(queued);
    }

    /// The bytes to write for `output`: as queued, or with everything after the switch point
    /// wrapped in segments. Everything queued later is wrapped whole.
    pub(crate) fn wrap(&mut self, output: BytesMut) -> BytesMut {
        let (Some(from), Some(segments)) = (self.output_from, &self.segments) else {
            return output;
        };
        self.output_from = Some(0);
        let Some(envelopes) = output.get(from..).filter(|rest| !rest.is_empty()) else {
            return output;
        };
        let mut framed = BytesMut::with_capacity(output.len() + output.len() / 64 + 16);
        framed.extend_from_slice(&output[..from]);
        encode_segments(envelopes, segments.lz4, &mut framed);
        framed
    }
}

/// A framing fault: Cassandra closes the connection with a protocol error.
fn fatal(error: ProtocolError) -> Parsed {
    Parsed::Fatal {
        stream: 0,
        error: error.into(),
    }
}

#[cfg(test)]
mod tests {
    use cql::frame::request::Request;
    use cql::frame::segment::SegmentDecoder;
    use cql::frame::{encode_request_frame_for, parse_header};

    use super::*;

    fn options(stream: i16) -> BytesMut {
        encode_request_frame_for(ProtocolVersion::V5, stream, &Request::Options, None)
    }

    #[test]
    fn envelopes_arrive_plain_until_the_switch_then_in_segments() {
        let mut framing = Framing::default();
        let mut input = options(1);
        let Parsed::Envelope(first) = framing.next(&mut input, 1024, None) else {
            panic!("a plain envelope");
        };
        assert_eq!(first.header.stream, 1);
        framing.start_segments(false, 1024, 0);
        let mut plain = options(2);
        plain.extend_from_slice(&options(3));
        encode_segments(&plain, false, &mut input);
        for stream in [2, 3] {
            let Parsed::Envelope(next) = framing.next(&mut input, 1024, None) else {
                panic!("an envelope from the segment");
            };
            assert_eq!(next.header.stream, stream);
        }
        assert!(matches!(
            framing.next(&mut input, 1024, None),
            Parsed::Incomplete { .. }
        ));
    }

    #[test]
    fn a_corrupt_segment_is_fatal() {
        let mut framing = Framing::default();
        framing.start_segments(false, 1024, 0);
        let mut input = BytesMut::new();
        encode_segments(&options(1), false, &mut input);
        let last = input.len() - 1;
        input[last] ^= 0xFF;
        let Parsed::Fatal { error, .. } = framing.next(&mut input, 1024, None) else {
            panic!("a bad CRC closes the connection");
        };
        assert!(
            error
                .to_string()
                .starts_with("Invalid or malformed message"),
            "{error}"
        );
    }

    #[test]
    fn output_after_the_switch_point_is_wrapped() {
        let mut framing = Framing::default();
        let ready = [0x85u8, 0, 0, 0, 0x02, 0, 0, 0, 0];
        let mut output = BytesMut::from(&ready[..]);
        framing.start_segments(true, 1024, output.len());
        output.extend_from_slice(&options(7));
        let written = framing.wrap(output);
        assert_eq!(&written[..HEADER_LEN], &ready);
        let mut rest = BytesMut::from(&written[HEADER_LEN..]);
        let mut decoder = SegmentDecoder::new(true, 1 << 20);
        let payload = decoder.decode(&mut rest).expect("valid").expect("whole");
        assert_eq!(parse_header(&payload).map(|h| h.stream), Some(7));
        let later = framing.wrap(options(8));
        assert_ne!(later[0], 0x05, "later output is all segments");
    }
}
