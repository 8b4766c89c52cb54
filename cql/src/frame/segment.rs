//! Protocol v5 framing: envelopes carried in CRC-protected segments (native_protocol_v5.spec
//! section 2, Cassandra 4.0+).
//!
//! Once STARTUP has been answered with READY or AUTHENTICATE, every byte on a v5 connection is
//! a segment: a header, a payload of at most [`MAX_SEGMENT_PAYLOAD`] bytes, and the payload's
//! CRC32, all integers little-endian.
//!
//! - Without compression the header is 6 bytes: 3 bytes holding the 17-bit payload length and,
//!   at bit 17, the self-contained flag; then the CRC24 of those 3 bytes.
//! - With lz4 (the only compression v5 allows) it is 8 bytes: 5 bytes holding the 17-bit
//!   payload (compressed) length, the 17-bit uncompressed length and, at bit 34, the
//!   self-contained flag; then the CRC24 of those 5 bytes. The payload is a raw lz4 block; an
//!   uncompressed length of 0 means it was sent as-is because compressing did not shrink it.
//!   The CRC32 covers the payload as sent.
//!
//! A self-contained segment carries one or more whole envelopes. An envelope too big for one
//! segment is cut into non-self-contained segments, sent in order, each carrying part of that
//! envelope only; the envelope header at the start of the first tells the total length.
//!
//! The CRCs are Cassandra's (`org.apache.cassandra.net.Crc`): [`crc24`] starts at `0x875060`
//! with polynomial `0x1974F0B`, fed least significant byte first; [`crc32`] is the standard
//! CRC32 (zlib's) primed with the 4 bytes `FA 2D 55 CA`.
//!
//! This module is a pure codec: [`encode_segments`] wraps outgoing envelopes, and
//! [`SegmentDecoder`] takes segments off the front of a read buffer and hands back whole
//! envelopes. Switching a connection to segments is the server's job.

use bytes::{BufMut, Bytes, BytesMut};

use super::{parse_header, FrameError, HEADER_LEN};

/// The largest payload a segment can carry: 2^17 - 1 bytes, the 17-bit length fields' limit.
pub const MAX_SEGMENT_PAYLOAD: usize = 131_071;

/// Header length of an uncompressed segment: 3 bytes of lengths and flag, 3 of CRC24.
pub const UNCOMPRESSED_HEADER_LEN: usize = 6;

/// Header length of an lz4 segment: 5 bytes of lengths and flag, 3 of CRC24.
pub const COMPRESSED_HEADER_LEN: usize = 8;

/// Length of the CRC32 trailer after the payload.
pub const TRAILER_LEN: usize = 4;

const CRC24_INIT: u32 = 0x87_5060;
const CRC24_POLY: u32 = 0x197_4F0B;
const CRC32_PRIMER: [u8; 4] = [0xFA, 0x2D, 0x55, 0xCA];

const LENGTH_BITS: u32 = 17;
const LENGTH_MASK: u64 = (1 << LENGTH_BITS) - 1;

/// Cassandra's CRC24 of the `len` low bytes of `bytes` (at most 8), least significant first.
///
/// The segment header's lengths and flag are read as one little-endian integer, so the CRC is
/// computed over the bytes in the order they travel.
pub fn crc24(bytes: u64, len: usize) -> u32 {
    let mut crc = CRC24_INIT;
    let mut rest = bytes;
    for _ in 0..len.min(8) {
        crc ^= ((rest & 0xFF) as u32) << 16;
        rest >>= 8;
        for _ in 0..8 {
            crc <<= 1;
            if crc & 0x100_0000 != 0 {
                crc ^= CRC24_POLY;
            }
        }
    }
    crc
}

/// Cassandra's CRC32 of a segment payload: the standard CRC32 primed with `FA 2D 55 CA`.
pub fn crc32(payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&CRC32_PRIMER);
    hasher.update(payload);
    hasher.finalize()
}

/// A decoded segment header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentHeader {
    /// Length of the payload as sent (compressed, for an lz4 segment that was compressed).
    pub payload_len: usize,
    /// Length after decompression; 0 when the payload is not compressed (always 0 without lz4).
    pub uncompressed_len: usize,
    /// The payload holds whole envelopes (rather than a part of one large envelope).
    pub self_contained: bool,
}

/// The header length for a connection with (`lz4`) or without compression.
pub fn header_len(lz4: bool) -> usize {
    if lz4 {
        COMPRESSED_HEADER_LEN
    } else {
        UNCOMPRESSED_HEADER_LEN
    }
}

impl SegmentHeader {
    /// The lengths and flag as the little-endian integer the header carries.
    fn packed(&self, lz4: bool) -> u64 {
        let mut packed = self.payload_len as u64 & LENGTH_MASK;
        let mut flag_bit = LENGTH_BITS;
        if lz4 {
            packed |= (self.uncompressed_len as u64 & LENGTH_MASK) << LENGTH_BITS;
            flag_bit += LENGTH_BITS;
        }
        if self.self_contained {
            packed |= 1 << flag_bit;
        }
        packed
    }

    /// Appends the header, CRC24 included, to `out`. Lengths above
    /// [`MAX_SEGMENT_PAYLOAD`] are the caller's bug and are truncated to 17 bits.
    pub fn encode(&self, lz4: bool, out: &mut BytesMut) {
        let fields_len = header_len(lz4) - 3;
        let packed = self.packed(lz4);
        out.put_slice(&packed.to_le_bytes()[..fields_len]);
        out.put_slice(&crc24(packed, fields_len).to_le_bytes()[..3]);
    }

    /// Reads a header from the front of `buf`: `Ok(None)` when fewer than
    /// [`header_len`]`(lz4)` bytes are there yet.
    ///
    /// # Errors
    ///
    /// [`FrameError::SegmentHeaderCrc`] when the CRC24 does not match.
    pub fn parse(buf: &[u8], lz4: bool) -> Result<Option<SegmentHeader>, FrameError> {
        let fields_len = header_len(lz4) - 3;
        let Some(header) = buf.get(..fields_len + 3) else {
            return Ok(None);
        };
        let packed = le_uint(&header[..fields_len]);
        let read = le_uint(&header[fields_len..]) as u32;
        let computed = crc24(packed, fields_len);
        if read != computed {
            return Err(FrameError::SegmentHeaderCrc { read, computed });
        }
        let payload_len = (packed & LENGTH_MASK) as usize;
        let (uncompressed_len, flags) = if lz4 {
            let rest = packed >> LENGTH_BITS;
            ((rest & LENGTH_MASK) as usize, rest >> LENGTH_BITS)
        } else {
            (0, packed >> LENGTH_BITS)
        };
        Ok(Some(SegmentHeader {
            payload_len,
            uncompressed_len,
            self_contained: flags & 1 == 1,
        }))
    }
}

/// Reads up to 8 bytes as a little-endian unsigned integer.
fn le_uint(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .take(8)
        .rev()
        .fold(0, |acc, &byte| (acc << 8) | u64::from(byte))
}

/// Wraps `envelopes`, the concatenated bytes of one or more whole envelopes, in segments
/// appended to `out`, compressing each payload with lz4 when `lz4` is set.
///
/// Consecutive envelopes are packed into self-contained segments of up to
/// [`MAX_SEGMENT_PAYLOAD`] bytes; an envelope longer than that gets non-self-contained
/// segments of its own, full ones and then the remainder (as the Python driver cuts them).
/// Envelope boundaries come from the 9-byte headers; bytes after the last whole envelope are
/// treated as one more envelope, so nothing is dropped.
pub fn encode_segments(envelopes: &[u8], lz4: bool, out: &mut BytesMut) {
    let mut run_start = 0;
    let mut pos = 0;
    while pos < envelopes.len() {
        let len = envelope_len(&envelopes[pos..]);
        if len > MAX_SEGMENT_PAYLOAD {
            encode_run(&envelopes[run_start..pos], lz4, out);
            for chunk in envelopes[pos..pos + len].chunks(MAX_SEGMENT_PAYLOAD) {
                encode_segment(chunk, false, lz4, out);
            }
            run_start = pos + len;
        } else if pos + len - run_start > MAX_SEGMENT_PAYLOAD {
            encode_run(&envelopes[run_start..pos], lz4, out);
            run_start = pos;
        }
        pos += len;
    }
    encode_run(&envelopes[run_start..], lz4, out);
}

/// Length of the envelope at the front of `bytes`, capped at what `bytes` holds.
fn envelope_len(bytes: &[u8]) -> usize {
    match parse_header(bytes) {
        Some(header) => usize::try_from(header.length)
            .ok()
            .and_then(|body| body.checked_add(HEADER_LEN))
            .map_or(bytes.len(), |len| len.min(bytes.len())),
        None => bytes.len(),
    }
}

/// One self-contained segment holding `run` (whole envelopes), unless `run` is empty.
fn encode_run(run: &[u8], lz4: bool, out: &mut BytesMut) {
    if !run.is_empty() {
        encode_segment(run, true, lz4, out);
    }
}

/// One segment around `payload` (at most [`MAX_SEGMENT_PAYLOAD`] bytes). With lz4 the payload
/// is sent compressed only when that makes it shorter, as Cassandra's `FrameEncoderLZ4` and the
/// Python driver do; otherwise as-is with an uncompressed length of 0.
fn encode_segment(payload: &[u8], self_contained: bool, lz4: bool, out: &mut BytesMut) {
    debug_assert!(payload.len() <= MAX_SEGMENT_PAYLOAD);
    let compressed = if lz4 {
        Some(lz4_flex::block::compress(payload)).filter(|block| block.len() < payload.len())
    } else {
        None
    };
    let (sent, uncompressed_len) = match &compressed {
        Some(block) => (block.as_slice(), payload.len()),
        None => (payload, 0),
    };
    let header = SegmentHeader {
        payload_len: sent.len(),
        uncompressed_len,
        self_contained,
    };
    out.reserve(header_len(lz4) + sent.len() + TRAILER_LEN);
    header.encode(lz4, out);
    out.put_slice(sent);
    out.put_slice(&crc32(sent).to_le_bytes());
}

/// Takes segments off the front of a connection's read buffer and returns whole envelopes.
///
/// A self-contained segment comes back as its payload (one or more whole envelopes, which the
/// caller splits and checks: a payload ending in a partial envelope breaks the protocol, and
/// the version and length limits are the caller's); an empty one is skipped. The segments of
/// a large envelope are collected until it is whole, and it comes back alone. As in Cassandra's `AbstractMessageHandler`, a self-contained segment may
/// arrive between the parts of a large envelope; it is returned at once and the large
/// envelope keeps collecting.
///
/// Any error should end the connection: after a bad header CRC the segment boundaries are
/// lost (nothing is consumed); after a bad payload the segment has been consumed and any
/// partly collected large envelope dropped.
#[derive(Debug)]
pub struct SegmentDecoder {
    lz4: bool,
    max_envelope: usize,
    large: Option<LargeEnvelope>,
}

/// A large envelope being collected from non-self-contained segments.
#[derive(Debug)]
struct LargeEnvelope {
    /// The bytes so far; its capacity never exceeds `total`.
    bytes: Vec<u8>,
    /// Header plus body length, from the envelope header.
    total: usize,
}

impl SegmentDecoder {
    /// A decoder for a connection that negotiated `lz4` compression (or none), accepting split
    /// envelopes of at most `max_envelope` bytes, header included.
    pub fn new(lz4: bool, max_envelope: usize) -> SegmentDecoder {
        SegmentDecoder {
            lz4,
            max_envelope,
            large: None,
        }
    }

    /// Whether part of a large envelope has been received and the rest is awaited.
    pub fn is_collecting(&self) -> bool {
        self.large.is_some()
    }

    /// Takes whole segments off the front of `input` until it can return whole envelopes:
    /// `Ok(None)` when `input` needs more bytes (room for the rest of a segment whose header
    /// has arrived is reserved in `input`).
    ///
    /// # Errors
    ///
    /// [`FrameError::SegmentHeaderCrc`], [`FrameError::SegmentPayloadCrc`],
    /// [`FrameError::Decompression`] for a malformed lz4 block or one that does not hold the
    /// announced length, and for split envelopes [`FrameError::SegmentWithoutEnvelopeHeader`],
    /// [`FrameError::EnvelopeTooLarge`] and [`FrameError::SegmentOverflow`].
    pub fn decode(&mut self, input: &mut BytesMut) -> Result<Option<Bytes>, FrameError> {
        loop {
            let Some((self_contained, payload)) = self.next_segment(input)? else {
                return Ok(None);
            };
            if self_contained {
                if payload.is_empty() {
                    continue;
                }
                return Ok(Some(payload));
            }
            if let Some(envelope) = self.add_part(payload)? {
                return Ok(Some(envelope));
            }
        }
    }

    /// The next whole segment's flag and (decompressed) payload, removed from `input`.
    fn next_segment(&mut self, input: &mut BytesMut) -> Result<Option<(bool, Bytes)>, FrameError> {
        let Some(header) = SegmentHeader::parse(input, self.lz4)? else {
            return Ok(None);
        };
        let payload_start = header_len(self.lz4);
        let payload_end = payload_start + header.payload_len;
        let total = payload_end + TRAILER_LEN;
        if input.len() < total {
            input.reserve(total - input.len());
            return Ok(None);
        }
        let segment = input.split_to(total).freeze();
        let sent = segment.slice(payload_start..payload_end);
        let read = le_uint(&segment[payload_end..]) as u32;
        let computed = crc32(&sent);
        if read != computed {
            self.large = None;
            return Err(FrameError::SegmentPayloadCrc { read, computed });
        }
        let payload = if header.uncompressed_len == 0 {
            sent
        } else {
            decompress(&sent, header.uncompressed_len).inspect_err(|_| self.large = None)?
        };
        Ok(Some((header.self_contained, payload)))
    }

    /// Adds a non-self-contained payload to the large envelope; returns it once whole.
    fn add_part(&mut self, payload: Bytes) -> Result<Option<Bytes>, FrameError> {
        let mut large = match self.large.take() {
            Some(large) => large,
            None => {
                let total = self.announced_len(&payload)?;
                if payload.len() == total {
                    return Ok(Some(payload));
                }
                LargeEnvelope {
                    bytes: Vec::new(),
                    total,
                }
            }
        };
        let received = large.bytes.len() + payload.len();
        if received > large.total {
            return Err(FrameError::SegmentOverflow {
                announced: large.total as u64,
                received: received as u64,
            });
        }
        if received > large.bytes.capacity() {
            // Grow geometrically, but never past the announced length.
            let capacity = received.max(large.bytes.capacity() * 2).min(large.total);
            large.bytes.reserve_exact(capacity - large.bytes.len());
        }
        large.bytes.extend_from_slice(&payload);
        if received == large.total {
            return Ok(Some(Bytes::from(large.bytes)));
        }
        self.large = Some(large);
        Ok(None)
    }

    /// The total length announced by the envelope header opening a large envelope.
    fn announced_len(&self, payload: &[u8]) -> Result<usize, FrameError> {
        let header = parse_header(payload)
            .ok_or(FrameError::SegmentWithoutEnvelopeHeader { len: payload.len() })?;
        let length = u64::from(header.length) + HEADER_LEN as u64;
        match usize::try_from(length) {
            Ok(total) if total <= self.max_envelope => Ok(total),
            _ => Err(FrameError::EnvelopeTooLarge {
                length,
                max: self.max_envelope,
            }),
        }
    }
}

/// Decompresses an lz4 block that must hold exactly `len` (at most 2^17 - 1) bytes.
fn decompress(block: &[u8], len: usize) -> Result<Bytes, FrameError> {
    let malformed = |reason: String| FrameError::Decompression {
        algorithm: "lz4",
        reason,
    };
    let out = lz4_flex::block::decompress(block, len).map_err(|err| malformed(err.to_string()))?;
    if out.len() != len {
        return Err(malformed(format!(
            "segment announced {len} uncompressed bytes but the block holds {}",
            out.len()
        )));
    }
    Ok(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::frame::FrameHeader;

    const MAX_ENVELOPE: usize = 1 << 20;

    /// A v5 request envelope with a `body_len`-byte body, repetitive (lz4 shrinks it) or not.
    fn envelope(stream: i16, body_len: usize, compressible: bool) -> Vec<u8> {
        let header = FrameHeader {
            version: 0x05,
            flags: 0,
            stream,
            opcode: 0x07,
            length: u32::try_from(body_len).unwrap(),
        };
        let mut out = header.to_bytes().to_vec();
        let mut state = 0x2545_F491_u32.wrapping_add(body_len as u32);
        out.extend((0..body_len).map(|i| {
            if compressible {
                (i % 251) as u8
            } else {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state as u8
            }
        }));
        out
    }

    fn encode(envelopes: &[u8], lz4: bool) -> BytesMut {
        let mut out = BytesMut::new();
        encode_segments(envelopes, lz4, &mut out);
        out
    }

    /// Feeds `wire` to a decoder `step` bytes at a time; returns every chunk it hands back.
    fn decode_in_steps(wire: &[u8], lz4: bool, step: usize) -> Result<Vec<Bytes>, FrameError> {
        let mut decoder = SegmentDecoder::new(lz4, MAX_ENVELOPE);
        let mut input = BytesMut::new();
        let mut chunks = Vec::new();
        for piece in wire.chunks(step.max(1)) {
            input.extend_from_slice(piece);
            while let Some(chunk) = decoder.decode(&mut input)? {
                chunks.push(chunk);
            }
        }
        assert!(input.is_empty(), "{} bytes left over", input.len());
        assert!(!decoder.is_collecting());
        Ok(chunks)
    }

    /// The segments of `wire`: (header, payload as sent), walked without the decoder.
    fn segments(wire: &[u8], lz4: bool) -> Vec<(SegmentHeader, &[u8])> {
        let mut out = Vec::new();
        let mut rest = wire;
        while !rest.is_empty() {
            let header = SegmentHeader::parse(rest, lz4).unwrap().unwrap();
            let start = header_len(lz4);
            let end = start + header.payload_len;
            out.push((header, &rest[start..end]));
            rest = &rest[end + TRAILER_LEN..];
        }
        out
    }

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Reference values from the DataStax Python driver 3.29.2 (`cassandra.segment`:
    /// `compute_crc24`, `compute_crc32(data, CRC32_INITIAL)`).
    #[test]
    fn crcs_match_the_python_driver() {
        for (bytes, len, crc) in [
            (0, 3, 0x7D_E777),
            (0x2_0009, 3, 0xC1_C8A4),
            (0x1_FFFF, 3, 0xFE_9138),
            (0x3_FFFF, 3, 0x47_4025),
            (0x1_2345, 3, 0x8B_C640),
            (0, 5, 0xAA_AC0A),
            (0x4_0004_0010, 5, 0x5C_B5D8),
            (0x7_FFFF_FFFF, 5, 0x57_6593),
        ] {
            assert_eq!(crc24(bytes, len), crc, "crc24({bytes:#x}, {len})");
        }
        assert_eq!(crc32(b""), 0x4477_7ED3);
        assert_eq!(crc32(b"a"), 0xF729_4A53);
        assert_eq!(crc32(b"123456789"), 0xE2A2_61A7);
        assert_eq!(crc32(&(0..=255).collect::<Vec<u8>>()), 0x214D_E79B);
    }

    const OPTIONS: [u8; 9] = [5, 0, 0, 1, 5, 0, 0, 0, 0];

    /// `SegmentCodec.encode` of the Python driver, without and with lz4.
    #[test]
    fn encodes_like_the_python_driver() {
        assert_eq!(
            encode(&OPTIONS, false)[..],
            hex("090002a4c8c1050000010500000000b5557486")[..]
        );
        // Nine bytes do not compress: sent as-is, uncompressed length 0.
        assert_eq!(
            encode(&OPTIONS, true)[..],
            hex("0900000004c2b895050000010500000000b5557486")[..]
        );
        let query = hex(QUERY);
        let mut expected = hex("780002e5c911");
        expected.extend_from_slice(&query);
        expected.extend_from_slice(&hex("60bf481d"));
        assert_eq!(encode(&query, false)[..], expected[..]);
    }

    /// A QUERY envelope and its lz4 segment as the Python driver (lz4 4.3.3) compresses it.
    const QUERY: &str = "\
        05000002070000006f0000006853454c454354206b65792c2076616c75652046524f4d20\
        6b732e7461626c65205748455245206b6579203d20276161616161616161616161616161\
        616161616161616161616161616161616161616161616161616161616161616161616161\
        616161616161616127000100";
    const LZ4_QUERY: &str = "\
        4600f000049d96efff2c05000002070000006f0000006853454c454354206b65792c2076\
        616c75652046524f4d206b732e7461626c65205748455245206b6579203d202761010025\
        5061270001004b6ff6eb";

    #[test]
    fn decodes_the_python_drivers_segments() {
        let chunks = decode_in_steps(&hex(LZ4_QUERY), true, 1).unwrap();
        assert_eq!(chunks, [Bytes::from(hex(QUERY))]);
        let segment = SegmentHeader::parse(&hex(LZ4_QUERY), true)
            .unwrap()
            .unwrap();
        assert_eq!(
            segment,
            SegmentHeader {
                payload_len: 70,
                uncompressed_len: 120,
                self_contained: true
            }
        );
        let plain = hex("090002a4c8c1050000010500000000b5557486");
        assert_eq!(decode_in_steps(&plain, false, 4).unwrap(), [&OPTIONS[..]]);
        let stored = hex("0900000004c2b895050000010500000000b5557486");
        assert_eq!(decode_in_steps(&stored, true, 100).unwrap(), [&OPTIONS[..]]);
    }

    /// A 140,000-byte envelope: the Python driver cuts it into 131,071 + 8,929 bytes.
    #[test]
    fn large_envelope_is_cut_like_the_python_driver() {
        let big = envelope(3, 140_000 - HEADER_LEN, true);
        let wire = encode(&big, false);
        assert_eq!(wire.len(), 140_020);
        let second = UNCOMPRESSED_HEADER_LEN + MAX_SEGMENT_PAYLOAD + TRAILER_LEN;
        assert_eq!(wire[..6], hex("ffff013891fe")[..]);
        assert_eq!(wire[second - 4..second], hex("0b0fb9e3")[..]);
        assert_eq!(wire[second..second + 6], hex("e1220060052d")[..]);
        assert_eq!(wire[wire.len() - 4..], hex("e4a4c7ea")[..]);
        assert_eq!(decode_in_steps(&wire, false, 7_000).unwrap(), [big]);
    }

    #[test]
    fn envelopes_are_packed_up_to_the_limit() {
        for lz4 in [false, true] {
            // Exactly one full segment.
            let full = envelope(1, MAX_SEGMENT_PAYLOAD - HEADER_LEN, false);
            let wire = encode(&full, lz4);
            let segs = segments(&wire, lz4);
            assert_eq!(segs.len(), 1);
            assert!(segs[0].0.self_contained);
            assert_eq!(segs[0].0.uncompressed_len, 0, "random bytes do not shrink");
            assert_eq!(decode_in_steps(&wire, lz4, 50_000).unwrap(), [&full[..]]);

            // One byte more: a full non-self-contained segment and a 1-byte one.
            let over = envelope(1, MAX_SEGMENT_PAYLOAD + 1 - HEADER_LEN, false);
            let wire = encode(&over, lz4);
            let segs = segments(&wire, lz4);
            let lens: Vec<_> = segs
                .iter()
                .map(|(h, _)| (h.payload_len, h.self_contained))
                .collect();
            assert_eq!(lens, [(MAX_SEGMENT_PAYLOAD, false), (1, false)]);
            assert_eq!(decode_in_steps(&wire, lz4, 1 << 20).unwrap(), [&over[..]]);

            // Three 60,000-byte envelopes: two share a segment, the third starts another.
            let three: Vec<u8> = (0..3)
                .flat_map(|s| envelope(s, 60_000 - 9, false))
                .collect();
            let wire = encode(&three, lz4);
            let chunks = decode_in_steps(&wire, lz4, 3_000).unwrap();
            assert_eq!(chunks.len(), 2);
            assert_eq!(chunks[0][..], three[..120_000]);
            assert_eq!(chunks[1][..], three[120_000..]);
        }
    }

    #[test]
    fn small_envelopes_share_one_segment_and_lz4_shrinks_them() {
        let many: Vec<u8> = (0..20).flat_map(|s| envelope(s, 300, true)).collect();
        for lz4 in [false, true] {
            let wire = encode(&many, lz4);
            let segs = segments(&wire, lz4);
            assert_eq!(segs.len(), 1);
            if lz4 {
                assert_eq!(segs[0].0.uncompressed_len, many.len());
                assert!(segs[0].0.payload_len < many.len() / 2);
            }
            assert_eq!(decode_in_steps(&wire, lz4, 1).unwrap(), [&many[..]]);
        }
    }

    #[test]
    fn large_envelope_between_small_ones_gets_its_own_segments() {
        let mut input = envelope(1, 10, true);
        input.extend(envelope(2, 300_000, true));
        input.extend(envelope(3, 20, true));
        for lz4 in [false, true] {
            let wire = encode(&input, lz4);
            let flags: Vec<bool> = segments(&wire, lz4)
                .iter()
                .map(|(h, _)| h.self_contained)
                .collect();
            assert_eq!(flags, [true, false, false, false, true]);
            let chunks = decode_in_steps(&wire, lz4, 4096).unwrap();
            assert_eq!(chunks.len(), 3);
            assert_eq!(chunks.concat(), input);
            assert_eq!(chunks[1].len(), 300_009);
        }
    }

    #[test]
    fn empty_input_makes_no_segment_and_trailing_bytes_are_kept() {
        assert!(encode(&[], false).is_empty());
        // A cut envelope still travels, in its own segment.
        let mut input = envelope(1, 40, true);
        input.extend_from_slice(&OPTIONS[..5]);
        let wire = encode(&input, false);
        assert_eq!(decode_in_steps(&wire, false, 9).unwrap(), [input]);
    }

    #[test]
    fn partial_segments_need_more_bytes() {
        let wire = encode(&OPTIONS, false);
        let mut decoder = SegmentDecoder::new(false, MAX_ENVELOPE);
        for len in 0..wire.len() {
            let mut input = BytesMut::from(&wire[..len]);
            assert_eq!(decoder.decode(&mut input), Ok(None));
            assert_eq!(input.len(), len, "nothing consumed");
        }
    }

    #[test]
    fn corrupted_headers_and_payloads_are_errors() {
        for lz4 in [false, true] {
            let wire = encode(&envelope(1, 200, true), lz4);
            for bit in 0..header_len(lz4) * 8 {
                let mut bad = BytesMut::from(&wire[..]);
                bad[bit / 8] ^= 1 << (bit % 8);
                let err = SegmentDecoder::new(lz4, MAX_ENVELOPE).decode(&mut bad);
                assert!(
                    matches!(err, Err(FrameError::SegmentHeaderCrc { .. })),
                    "{bit}"
                );
            }
            for at in header_len(lz4)..wire.len() {
                let mut bad = BytesMut::from(&wire[..]);
                bad[at] ^= 0x10;
                let err = SegmentDecoder::new(lz4, MAX_ENVELOPE).decode(&mut bad);
                assert!(
                    matches!(err, Err(FrameError::SegmentPayloadCrc { .. })),
                    "{at}"
                );
                assert!(bad.is_empty(), "the bad segment is consumed");
            }
        }
    }

    /// One segment around `payload` as sent, with valid CRCs and the given header fields.
    fn raw_segment(
        payload: &[u8],
        uncompressed_len: usize,
        self_contained: bool,
        lz4: bool,
    ) -> BytesMut {
        let mut out = BytesMut::new();
        let header = SegmentHeader {
            payload_len: payload.len(),
            uncompressed_len,
            self_contained,
        };
        header.encode(lz4, &mut out);
        out.put_slice(payload);
        out.put_slice(&crc32(payload).to_le_bytes());
        out
    }

    #[test]
    fn bad_lz4_blocks_are_errors() {
        let garbage = raw_segment(&[0xF0, 0xFF, 0xFF, 1, 2], 1000, true, true);
        let err = SegmentDecoder::new(true, MAX_ENVELOPE).decode(&mut garbage.clone());
        assert!(matches!(
            err,
            Err(FrameError::Decompression {
                algorithm: "lz4",
                ..
            })
        ));
        // A valid block of 300 bytes announced as 400.
        let block = lz4_flex::block::compress(&[7u8; 300]);
        let short = raw_segment(&block, 400, true, true);
        let err = SegmentDecoder::new(true, MAX_ENVELOPE).decode(&mut short.clone());
        assert!(
            matches!(err, Err(FrameError::Decompression { .. })),
            "{err:?}"
        );
        // ... and as 200.
        let long = raw_segment(&block, 200, true, true);
        let err = SegmentDecoder::new(true, MAX_ENVELOPE).decode(&mut long.clone());
        assert!(
            matches!(err, Err(FrameError::Decompression { .. })),
            "{err:?}"
        );
    }

    #[test]
    fn split_envelopes_are_checked() {
        let decode = |wire: &BytesMut, max: usize| {
            let mut decoder = SegmentDecoder::new(false, max);
            let mut input = wire.clone();
            loop {
                match decoder.decode(&mut input) {
                    Ok(Some(_)) => continue,
                    other => return other,
                }
            }
        };
        // First part shorter than an envelope header.
        let wire = raw_segment(&OPTIONS[..5], 0, false, false);
        assert_eq!(
            decode(&wire, MAX_ENVELOPE),
            Err(FrameError::SegmentWithoutEnvelopeHeader { len: 5 })
        );
        // Announced length over the limit, refused before any byte is kept.
        let big = envelope(1, 5000, true);
        let wire = raw_segment(&big[..1000], 0, false, false);
        assert_eq!(
            decode(&wire, 4096),
            Err(FrameError::EnvelopeTooLarge {
                length: 5009,
                max: 4096
            })
        );
        assert_eq!(decode(&wire, 5009), Ok(None));
        // More bytes than announced, in the first part and in a later one.
        let small = envelope(1, 20, true);
        let mut padded = small.clone();
        padded.push(0);
        assert_eq!(
            decode(&raw_segment(&padded, 0, false, false), MAX_ENVELOPE),
            Err(FrameError::SegmentOverflow {
                announced: 29,
                received: 30
            })
        );
        let mut wire = raw_segment(&small[..20], 0, false, false);
        wire.extend_from_slice(&raw_segment(&padded[20..], 0, false, false));
        assert_eq!(
            decode(&wire, MAX_ENVELOPE),
            Err(FrameError::SegmentOverflow {
                announced: 29,
                received: 30
            })
        );
        // The exact bytes, even when the first part already holds it all.
        assert_eq!(
            decode_in_steps(&raw_segment(&small, 0, false, false), false, 3).unwrap(),
            [&small[..]]
        );
    }

    #[test]
    fn empty_self_contained_segments_are_skipped() {
        let mut wire = raw_segment(&[], 0, true, true);
        wire.extend_from_slice(&encode(&OPTIONS, true));
        assert_eq!(decode_in_steps(&wire, true, 1).unwrap(), [&OPTIONS[..]]);
    }

    #[test]
    fn self_contained_segments_may_come_between_the_parts_of_a_large_envelope() {
        let big = envelope(1, 1000, true);
        let mut wire = raw_segment(&big[..400], 0, false, false);
        wire.extend_from_slice(&encode(&OPTIONS, false));
        wire.extend_from_slice(&raw_segment(&big[400..], 0, false, false));
        let chunks = decode_in_steps(&wire, false, 1).unwrap();
        assert_eq!(chunks, [&OPTIONS[..], &big[..]]);
    }

    #[test]
    fn collecting_never_allocates_past_the_announced_length() {
        let big = envelope(1, 300_000, true);
        let wire = encode(&big, false);
        let mut decoder = SegmentDecoder::new(false, MAX_ENVELOPE);
        let mut input = BytesMut::from(&wire[..]);
        let first = UNCOMPRESSED_HEADER_LEN + MAX_SEGMENT_PAYLOAD + TRAILER_LEN;
        let mut head = input.split_to(first * 2);
        assert_eq!(decoder.decode(&mut head), Ok(None));
        let large = decoder.large.as_ref().unwrap();
        assert_eq!(large.bytes.len(), 2 * MAX_SEGMENT_PAYLOAD);
        assert!(large.bytes.capacity() <= big.len());
        assert_eq!(decoder.decode(&mut input).unwrap().unwrap(), big);
        // A lying header with a tiny first part reserves only what arrived.
        let lie = envelope(1, 900_000, true);
        let mut input = raw_segment(&lie[..100], 0, false, false);
        assert_eq!(decoder.decode(&mut input), Ok(None));
        assert!(decoder.large.as_ref().unwrap().bytes.capacity() <= 100);
    }

    /// Envelope sizes that cross the segment limit now and then.
    fn envelope_sizes() -> impl Strategy<Value = Vec<(usize, bool)>> {
        let size = prop_oneof![
            6 => 0usize..2_000,
            2 => 2_000usize..140_000,
            1 => 130_000usize..280_000,
        ];
        proptest::collection::vec((size, any::<bool>()), 0..6)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn segments_round_trip(
            sizes in envelope_sizes(),
            lz4 in any::<bool>(),
            step in 1usize..200_000,
        ) {
            let envelopes: Vec<Vec<u8>> = sizes
                .iter()
                .enumerate()
                .map(|(i, &(len, compressible))| envelope(i as i16, len, compressible))
                .collect();
            let input = envelopes.concat();
            let wire = encode(&input, lz4);
            for (header, _) in segments(&wire, lz4) {
                prop_assert!(header.payload_len <= MAX_SEGMENT_PAYLOAD);
            }
            let chunks = decode_in_steps(&wire, lz4, step).unwrap();
            prop_assert_eq!(chunks.concat(), input);
            // Every chunk is whole envelopes.
            for chunk in &chunks {
                let mut rest = &chunk[..];
                while !rest.is_empty() {
                    let len = envelope_len(rest);
                    prop_assert!(parse_header(rest).is_some());
                    prop_assert_eq!(len, HEADER_LEN + parse_header(rest).unwrap().length as usize);
                    rest = &rest[len..];
                }
            }
        }
    }
}
