//! [`FrameError`]: why a frame body could not be decoded, naming the field that failed.
//!
//! The server turns every variant into a `PROTOCOL_ERROR` (0x000A) answer; the `Display` text
//! is what the client sees as the message.

use super::Opcode;

/// A frame body (or compressed body) that could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// The body ended before `field` was complete (or a length claimed more bytes than remain).
    /// Origin: ours — transport/CBUtil.java reads fail with its own texts; sent inside "Invalid or malformed message"
    #[error("Not enough bytes to read {field}")]
    Truncated {
        /// The spec name of the field being read.
        field: &'static str,
    },
    /// A `[string]` or `[long string]` was not valid UTF-8.
    /// Origin: ours — sent inside "Invalid or malformed message"
    #[error("Invalid UTF-8 in {field}")]
    InvalidUtf8 {
        /// The spec name of the field being read.
        field: &'static str,
    },
    /// A length prefix that the spec forbids (e.g. a `[value]` length below -2).
    /// Origin: ours — sent inside "Invalid or malformed message"
    #[error("Invalid length {len} for {field}")]
    InvalidLength {
        /// The spec name of the field being read.
        field: &'static str,
        /// The length as sent.
        len: i64,
    },
    /// A numeric field outside its allowed values (batch type, result kind, option id, ...).
    /// Origin: ours — sent inside "Invalid or malformed message"
    #[error("Invalid value {value} for {field}")]
    InvalidValue {
        /// The spec name of the field being read.
        field: &'static str,
        /// The value as sent.
        value: i64,
    },
    /// A string field outside its allowed values (event type, schema change target, ...).
    /// Origin: ours — sent inside "Invalid or malformed message"
    #[error("Unknown {field} {value:?}")]
    UnknownName {
        /// The spec name of the field being read.
        field: &'static str,
        /// The value as sent.
        value: String,
    },
    /// A `[consistency]` code that names no level: Cassandra's `ConsistencyLevel.fromCode`
    /// message.
    /// Origin: db/ConsistencyLevel.java fromCode
    #[error("Unknown code {0} for a consistency level")]
    UnknownConsistency(u16),
    /// A `[string]` that names no constant of a protocol enum (an event type in REGISTER):
    /// Cassandra's `CBUtil.readEnumValue` message, which names the Java enum's simple name.
    /// Origin: transport/CBUtil.java readEnumValue
    #[error("Invalid value '{value}' for {enum_name}")]
    InvalidEnumValue {
        /// The string as sent.
        value: String,
        /// The Java enum's simple name (`Type` for `Event.Type`).
        enum_name: &'static str,
    },
    /// A default timestamp of `i64::MIN`, which Cassandra reserves for "no timestamp".
    /// Origin: cql3/QueryOptions.java Codec.decode (ProtocolException)
    #[error("Out of bound timestamp, must be in [{min}, {max}] (got {got})", min = i64::MIN + 1, max = i64::MAX)]
    TimestampOutOfBounds {
        /// The timestamp as sent.
        got: i64,
    },
    /// An opcode byte the protocol does not define.
    /// Origin: ours — the server answers an unknown opcode with ProtocolError::UnknownOpcode (transport/Message.java Type.fromOpcode)
    #[error("Unknown opcode 0x{0:02X}")]
    UnknownOpcode(u8),
    /// A response opcode where a request was expected.
    /// Origin: ours — a response opcode in a request
    #[error("{0:?} is not a request opcode")]
    NotARequest(Opcode),
    /// A request opcode where a response was expected.
    /// Origin: ours — a request opcode in a response (client side)
    #[error("{0:?} is not a response opcode")]
    NotAResponse(Opcode),
    /// Type options (or values) nested deeper than the decoder accepts.
    /// Origin: ours — a nesting limit of ours
    #[error("{field} nested deeper than {max} levels")]
    TooDeep {
        /// The spec name of the field being read.
        field: &'static str,
        /// The nesting limit.
        max: usize,
    },
    /// A compressed body declared an uncompressed size above the allowed maximum.
    /// Origin: ours — a limit of ours on decompressed bodies
    #[error("Decompressed body of {declared} bytes exceeds the maximum of {max} bytes")]
    DecompressedTooLarge {
        /// The uncompressed length the body declared.
        declared: u64,
        /// The maximum the caller allows.
        max: usize,
    },
    /// The compressed body was malformed.
    /// Origin: ours — the decompressor's failure
    #[error("Cannot decompress {algorithm} body: {reason}")]
    Decompression {
        /// `lz4` or `snappy`.
        algorithm: &'static str,
        /// The decompressor's explanation.
        reason: String,
    },
    /// A frame header announced a body longer than the caller allows.
    /// Origin: transport/Envelope.java Decoder.extractHeader
    #[error("Request is too big: length {length} exceeds maximum allowed length {max}.")]
    BodyTooLarge {
        /// The length in the header.
        length: u32,
        /// The maximum the caller allows.
        max: usize,
    },
    /// The COMPRESSION flag was set but no compression was negotiated.
    /// Origin: ours — a compressed frame without negotiated compression
    #[error("Received compressed frame but no compression was negotiated")]
    CompressionNotNegotiated,
    /// A v5 segment header whose CRC24 does not match its length and flag bits: the lengths
    /// cannot be trusted, so the stream cannot be resynchronised.
    /// Origin: ours — v5 framing (transport/FrameDecoderCrc.java refuses it too, in its own words)
    #[error("CRC mismatch on segment header: read {read:#08x}, computed {computed:#08x}")]
    SegmentHeaderCrc {
        /// The CRC24 as sent.
        read: u32,
        /// The CRC24 of the header bytes as received.
        computed: u32,
    },
    /// A v5 segment payload whose CRC32 does not match (computed over the payload as sent,
    /// compressed or not).
    /// Origin: ours — v5 framing (transport/FrameDecoderCrc.java refuses it too, in its own words)
    #[error("CRC mismatch on segment payload: read {read:#010x}, computed {computed:#010x}")]
    SegmentPayloadCrc {
        /// The CRC32 as sent.
        read: u32,
        /// The CRC32 of the payload as received.
        computed: u32,
    },
    /// The first segment of an envelope split over several segments is too short to hold the
    /// envelope's header, so the envelope's length is unknown.
    /// Origin: ours — v5 framing
    #[error("First segment of a large envelope holds {len} bytes, less than an envelope header")]
    SegmentWithoutEnvelopeHeader {
        /// The segment's payload length.
        len: usize,
    },
    /// The segments of a split envelope carried more bytes than its header announced.
    /// Origin: ours — v5 framing
    #[error("Segments of a large envelope carried {received} bytes but it announced {announced}")]
    SegmentOverflow {
        /// Header plus body length announced by the envelope header.
        announced: u64,
        /// Bytes received so far, the last segment included.
        received: u64,
    },
    /// An envelope split over segments announced more bytes than the caller allows.
    /// Origin: ours — a limit of ours on split envelopes
    #[error("Envelope of {length} bytes exceeds the maximum allowed length of {max} bytes")]
    EnvelopeTooLarge {
        /// Header plus body length announced by the envelope header.
        length: u64,
        /// The maximum the caller allows.
        max: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_field() {
        let err = FrameError::Truncated { field: "query" };
        assert_eq!(err.to_string(), "Not enough bytes to read query");
        let err = FrameError::InvalidLength {
            field: "value",
            len: -3,
        };
        assert_eq!(err.to_string(), "Invalid length -3 for value");
        assert_eq!(
            FrameError::UnknownOpcode(0x04).to_string(),
            "Unknown opcode 0x04"
        );
    }
}
