//! Key encoding: the full storage key of a `bench.readings` row (`(text, int)` partition key,
//! `(bigint DESC, uuid)` clustering key; token included) and the Murmur3 token of a 16-byte
//! partition key.

use std::hint::black_box;
use std::time::Duration;

use benches::rows::{clustering_values, partition_values};
use benches::schema::readings_table;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use storage::row_key;
use storage::token_of;

fn encode_row_key(c: &mut Criterion) {
    let table = readings_table();
    let pk = partition_values(42);
    let ck = clustering_values(7);
    let mut group = c.benchmark_group("key_encoding");
    group.throughput(Throughput::Elements(1));
    group.bench_function("row_key (text,int)+(bigint DESC,uuid)", |b| {
        b.iter(|| row_key(black_box(&table), black_box(&pk), black_box(&ck)).expect("fits"))
    });
    group.finish();
}

fn token(c: &mut Criterion) {
    let key: [u8; 16] = *b"0123456789abcdef";
    let mut group = c.benchmark_group("key_encoding");
    group.throughput(Throughput::Bytes(key.len() as u64));
    group.bench_function("token_of 16-byte key", |b| {
        b.iter(|| token_of(&[black_box(&key[..])]))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = encode_row_key, token
}
criterion_main!(benches);
