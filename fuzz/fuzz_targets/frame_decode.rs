//! Arbitrary bytes as a request frame: header, decompression (lz4 and snappy), custom payload
//! and body decoding must fail cleanly, never panic, and never allocate past the length limit.
//! The seed corpus and its hostile variants also run as a unit test
//! (`cql::frame::decode` tests, `seeds_decode_and_hostile_variants_never_panic`).

#![no_main]

use cql::frame::{decode_request_frame, Compression};
use libfuzzer_sys::fuzz_target;

/// The body limit: small, so a frame claiming a huge (de)compressed size must fail cleanly
/// rather than exhaust the fuzzer's memory.
const MAX_BODY: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    for compression in [Compression::Lz4, Compression::Snappy] {
        let _ = decode_request_frame(data, Some(compression), MAX_BODY);
    }
});
