//! Arbitrary bytes as a CQL value of every type: the first byte picks the type, the rest is
//! the value. Decoding must fail cleanly, never panic. A bounded seeded run of the same call
//! is part of `cargo test` (`cql/tests/decoder_fuzz.rs`).

#![no_main]

use cql::types::codec::deserialize_value;
use cql::types::ColumnType;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, value)) = data.split_first() else {
        return;
    };
    let types = [
        ColumnType::Int,
        ColumnType::Bigint,
        ColumnType::Varint,
        ColumnType::Decimal,
        ColumnType::Double,
        ColumnType::Text,
        ColumnType::Ascii,
        ColumnType::Uuid,
        ColumnType::Timeuuid,
        ColumnType::Inet,
        ColumnType::Date,
        ColumnType::Time,
        ColumnType::Duration,
        ColumnType::List {
            element: Box::new(ColumnType::Varint),
            frozen: true,
        },
        // Vectors: fixed-size elements concatenated, others vint-length-prefixed.
        ColumnType::Vector {
            element: Box::new(ColumnType::Float),
            dimension: 3,
        },
        ColumnType::Vector {
            element: Box::new(ColumnType::Text),
            dimension: 2,
        },
        ColumnType::Vector {
            element: Box::new(ColumnType::Vector {
                element: Box::new(ColumnType::Varint),
                dimension: 2,
            }),
            dimension: 2,
        },
    ];
    let ty = &types[usize::from(pick) % types.len()];
    let _ = deserialize_value(ty, value);
});
