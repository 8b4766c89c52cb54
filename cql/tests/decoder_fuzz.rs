//! A bounded, seeded fuzz run of the three decoders inside `cargo test`: valid frames,
//! statements and values, mutated (bytes flipped, inserted, removed, truncated) thousands of
//! times from a fixed seed, must decode or fail cleanly, never panic. The `fuzz/` targets
//! run the same entry points without a bound.

use cql::frame::request::{Query, QueryParameters, Register, Request};
use cql::frame::{decode_request_frame, encode_request_frame, Compression};
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
