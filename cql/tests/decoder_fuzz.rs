//! A bounded, seeded fuzz run of the decoders inside `cargo test`: valid frames, v5 segments,
//! statements and values, mutated (bytes flipped, inserted, removed, truncated) thousands of
//! times from a fixed seed, must decode or fail cleanly, never panic. The `fuzz/` targets
//! run the same entry points without a bound.

use bytes::BytesMut;
use cql::frame::request::{Query, QueryParameters, Register, Request};
use cql::frame::segment::{
    crc32, encode_segments, header_len, SegmentDecoder, SegmentHeader, TRAILER_LEN,
};
use cql::frame::{decode_request_frame, encode_request_frame, Compression, FrameError};
use cql::types::codec::{deserialize_value, serialize_value};
use cql::types::{ColumnType, CqlValue};

/// A xorshift generator: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One random edit of `input`.
fn mutate(rng: &mut Rng, input: &mut Vec<u8>) {
    let at = rng.below(input.len() + 1);
    match rng.below(5) {
        0 if at < input.len() => input[at] ^= 1 << rng.below(8),
        1 => input.insert(at, rng.next() as u8),
        2 if at < input.len() => {
            input.remove(at);
        }
        3 => input.truncate(at),
        _ if at < input.len() => input[at] = [0x00, 0x7F, 0x80, 0xFF][rng.below(4)],
        _ => input.push(0xFF),
    }
}

/// Runs `check` on `rounds` mutants of each seed, each a few edits away from it.
fn fuzz(seeds: &[Vec<u8>], rounds: usize, mut check: impl FnMut(&[u8])) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for seed in seeds {
        check(seed);
        for _ in 0..rounds {
            let mut input = seed.clone();
            for _ in 0..=rng.below(4) {
                mutate(&mut rng, &mut input);
            }
            check(&input);
        }
    }
}

fn params(consistency: u16) -> QueryParameters {
    QueryParameters {
        consistency,
        values: Vec::new(),
        value_names: None,
        skip_metadata: false,
        page_size: Some(100),
        paging_state: None,
        serial_consistency: Some(8),
        default_timestamp: Some(1),
        keyspace: None,
        now_in_seconds: None,
    }
}

#[test]
fn mutated_frames_never_panic() {
    let requests = [
        Request::Query(Query {
            query: "SELECT * FROM ks.t WHERE k = 1".into(),
            params: params(1),
        }),
        Request::Register(Register {
            events: vec!["SCHEMA_CHANGE".into()],
        }),
    ];
    let seeds: Vec<Vec<u8>> = requests
        .iter()
        .map(|r| encode_request_frame(1, r, None).to_vec())
        .collect();
    let mut decoded = 0;
    fuzz(&seeds, 3_000, |bytes| {
        for compression in [None, Some(Compression::Lz4), Some(Compression::Snappy)] {
            if let Ok(Some(_)) = decode_request_frame(bytes, compression, 1 << 20) {
                decoded += 1;
            }
        }
    });
    assert!(decoded >= seeds.len(), "the seeds themselves decode");
}

#[test]
fn mutated_statements_never_panic() {
    let seeds: Vec<Vec<u8>> = [
        "SELECT a, b FROM ks.t WHERE k = 1 AND c > 2 LIMIT 3 ALLOW FILTERING",
        "INSERT INTO t (k, v, m) VALUES (1, 123456789012345678901234567890.5e-3, {1: 'x'}) USING TTL 5",
        "UPDATE t SET l = l + [1, 2], u.f = ? WHERE k = 0x0a IF EXISTS",
        "BEGIN BATCH DELETE FROM t WHERE k = 1; APPLY BATCH",
        "CREATE TABLE t (k int, c frozen<list<int>>, PRIMARY KEY ((k), c)) WITH CLUSTERING ORDER BY (c DESC)",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let mut parsed = 0;
    fuzz(&seeds, 1_000, |bytes| {
        if let Ok(text) = std::str::from_utf8(bytes) {
            if cql::statement::parse(text).is_ok() {
                parsed += 1;
            }
        }
    });
    assert!(parsed >= seeds.len(), "the seeds themselves parse");
}

#[test]
fn mutated_values_of_every_type_never_panic() {
    let list = ColumnType::List {
        element: Box::new(ColumnType::Int),
        frozen: true,
    };
    let cases = [
        (ColumnType::Int, CqlValue::Int(7)),
        (ColumnType::Varint, CqlValue::Varint(vec![0x01, 0x00, 0x00])),
        (
            ColumnType::Decimal,
            CqlValue::Decimal {
                unscaled: vec![0x30, 0x39],
                scale: 2,
            },
        ),
        (ColumnType::Text, CqlValue::Text("héllo".into())),
        (ColumnType::Double, CqlValue::Double(1.5)),
        (
            ColumnType::Duration,
            CqlValue::Duration {
                months: 1,
                days: 2,
                nanoseconds: 3,
            },
        ),
        (
            list.clone(),
            CqlValue::List(vec![CqlValue::Int(1), CqlValue::Int(2)]),
        ),
        (
            ColumnType::Vector {
                element: Box::new(ColumnType::Float),
                dimension: 2,
            },
            CqlValue::Vector(vec![CqlValue::Float(1.5), CqlValue::Float(-2.0)]),
        ),
        (
            ColumnType::Vector {
                element: Box::new(ColumnType::Text),
                dimension: 2,
            },
            CqlValue::Vector(vec![
                CqlValue::Text("a".into()),
                CqlValue::Text("bc".into()),
            ]),
        ),
    ];
    for (ty, value) in &cases {
        let mut seed = Vec::new();
        serialize_value(value, &mut seed);
        assert_eq!(deserialize_value(ty, &seed).as_ref(), Ok(value));
        fuzz(&[seed], 500, |bytes| {
            let _ = deserialize_value(ty, bytes);
        });
    }
}

/// Feeds `wire` to a fresh decoder; returns how many chunks came out before it needed more
/// bytes or failed.
fn decode_segments(wire: &[u8], lz4: bool) -> Result<usize, FrameError> {
    let mut decoder = SegmentDecoder::new(lz4, 1 << 20);
    let mut input = BytesMut::from(wire);
    let mut chunks = 0;
    while decoder.decode(&mut input)?.is_some() {
        chunks += 1;
    }
    Ok(chunks)
}

/// A v5 request envelope around `body`.
fn v5_envelope(stream: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![0x05, 0, 0, stream, 0x07];
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(body);
    out
}

/// One segment with valid CRCs, whatever its header claims.
fn wrap_segment(header: SegmentHeader, payload: &[u8], lz4: bool, out: &mut BytesMut) {
    header.encode(lz4, out);
    out.extend_from_slice(payload);
    out.extend_from_slice(&crc32(payload).to_le_bytes());
}

/// Segment streams: small envelopes in one segment (plain and lz4), and an envelope split
/// over two segments with a self-contained one between them.
fn segment_seeds() -> Vec<(bool, Vec<u8>)> {
    let small: Vec<u8> = (0..4)
        .flat_map(|s| v5_envelope(s, b"SELECT * FROM ks.t WHERE k = 'aaaaaaaaaaaaaaaa'"))
        .collect();
    let mut seeds = Vec::new();
    for lz4 in [false, true] {
        let mut wire = BytesMut::new();
        encode_segments(&small, lz4, &mut wire);
        seeds.push((lz4, wire.to_vec()));
    }
    let big = v5_envelope(9, &[0x61; 300]);
    let mut wire = BytesMut::new();
    for (part, self_contained) in [
        (&big[..100], false),
        (&small[..], true),
        (&big[100..], false),
    ] {
        let header = SegmentHeader {
            payload_len: part.len(),
            uncompressed_len: 0,
            self_contained,
        };
        wrap_segment(header, part, false, &mut wire);
    }
    seeds.push((false, wire.to_vec()));
    seeds
}

#[test]
fn mutated_segments_never_panic() {
    let seeds = segment_seeds();
    for (lz4, seed) in &seeds {
        assert!(
            decode_segments(seed, *lz4).unwrap() >= 1,
            "the seed decodes"
        );
    }
    let mut decoded = 0;
    let wires: Vec<Vec<u8>> = seeds.iter().map(|(_, wire)| wire.clone()).collect();
    fuzz(&wires, 3_000, |bytes| {
        for lz4 in [false, true] {
            if let Ok(n) = decode_segments(bytes, lz4) {
                decoded += n;
            }
        }
    });
    assert!(decoded >= seeds.len());
}

/// Mutations behind valid CRCs: payload bytes, the self-contained flag and the uncompressed
/// length are edited and the segment re-wrapped, so that lz4 and reassembly see them.
#[test]
fn mutated_segment_contents_never_panic() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for (lz4, seed) in segment_seeds() {
        let mut parts = Vec::new();
        let mut rest = &seed[..];
        while let Ok(Some(header)) = SegmentHeader::parse(rest, lz4) {
            let start = header_len(lz4);
            let payload = rest[start..start + header.payload_len].to_vec();
            rest = &rest[start + header.payload_len + TRAILER_LEN..];
            parts.push((header, payload));
        }
        for _ in 0..2_000 {
            let mut parts = parts.clone();
            let at = rng.below(parts.len());
            let (header, payload) = &mut parts[at];
            match rng.below(3) {
                0 => header.self_contained = !header.self_contained,
                1 => header.uncompressed_len = rng.below(1 << 17),
                _ => mutate(&mut rng, payload),
            }
            let mut wire = BytesMut::new();
            for (header, payload) in &parts {
                let header = SegmentHeader {
                    payload_len: payload.len(),
                    ..*header
                };
                wrap_segment(header, payload, lz4, &mut wire);
            }
            let _ = decode_segments(&wire, lz4);
        }
    }
}
