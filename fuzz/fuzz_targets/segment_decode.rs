//! Arbitrary bytes as protocol v5 segments, twice: as raw wire bytes (mostly refused by the
//! header CRC24), and re-wrapped with valid CRCs so that the flags, lengths, lz4 blocks and
//! large-envelope reassembly behind the CRCs are reached. Decoding must fail cleanly, never
//! panic, never allocate past the envelope limit; encoding then decoding must give the bytes
//! back. A bounded seeded run of the same calls is part of `cargo test`
//! (`cql/tests/decoder_fuzz.rs`).

#![no_main]

use bytes::BytesMut;
use cql::frame::segment::{crc32, encode_segments, SegmentDecoder, SegmentHeader};
use libfuzzer_sys::fuzz_target;

/// The split-envelope limit: small, so a lying envelope header fails cleanly.
const MAX_ENVELOPE: usize = 1 << 20;

/// Decodes `wire` fed in two parts at `cut`; returns the concatenated chunks.
fn decode(wire: &[u8], lz4: bool, cut: usize) -> Result<Vec<u8>, cql::frame::FrameError> {
    let mut decoder = SegmentDecoder::new(lz4, MAX_ENVELOPE);
    let mut input = BytesMut::new();
    let mut out = Vec::new();
    let cut = cut.min(wire.len());
    for part in [&wire[..cut], &wire[cut..]] {
        input.extend_from_slice(part);
        while let Some(chunk) = decoder.decode(&mut input)? {
            out.extend_from_slice(&chunk);
        }
    }
    Ok(out)
}

/// Reads `data` as records `[flags][len: u16 LE][payload]` and writes each as a segment with
/// valid CRCs: flag bit 0 is self-contained, bits 1.. pick a claimed uncompressed length.
fn rewrap(data: &[u8], lz4: bool) -> Vec<u8> {
    let mut out = BytesMut::new();
    let mut rest = data;
    while let [flags, l0, l1, tail @ ..] = rest {
        let len = usize::from(u16::from_le_bytes([*l0, *l1])).min(tail.len());
        let (payload, next) = tail.split_at(len);
        let uncompressed_len = match flags >> 1 {
            0 => 0,
            n => usize::from(n) * 1024 % 131_072,
        };
        let header = SegmentHeader {
            payload_len: payload.len(),
            uncompressed_len: if lz4 { uncompressed_len } else { 0 },
            self_contained: flags & 1 == 1,
        };
        header.encode(lz4, &mut out);
        out.extend_from_slice(payload);
        out.extend_from_slice(&crc32(payload).to_le_bytes());
        rest = next;
    }
    out.to_vec()
}

/// Well-formed envelopes built from `data`: its bytes cut into bodies, each repeated up to
/// `repeat` times so that some cross the segment limit.
fn envelopes(data: &[u8], repeat: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for (stream, piece) in data.chunks(64).enumerate() {
        let body = piece.repeat((repeat * 1024 / piece.len()).clamp(1, 300_000 / piece.len()));
        out.extend_from_slice(&[0x85, 0]);
        out.extend_from_slice(&(stream as u16).to_be_bytes());
        out.push(0x08);
        out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        out.extend_from_slice(&body);
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let cut = usize::from(first) * 4;
    for lz4 in [false, true] {
        let _ = decode(data, lz4, cut);
        let _ = decode(&rewrap(rest, lz4), lz4, cut);
        let mut wire = BytesMut::new();
        encode_segments(data, lz4, &mut wire);
        let _ = decode(&wire, lz4, cut);

        let envelopes = envelopes(rest, usize::from(first));
        let mut wire = BytesMut::new();
        encode_segments(&envelopes, lz4, &mut wire);
        let decoded = decode(&wire, lz4, cut);
        assert_eq!(decoded.as_deref(), Ok(&envelopes[..]), "round trip");
    }
});
