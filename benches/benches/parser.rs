//! Statement parsing (lexer, parser, bind markers) of a prepared INSERT, a SELECT with
//! WHERE/ORDER BY/LIMIT, and cassandra-stress's CREATE TABLE.

use std::hint::black_box;
use std::time::Duration;

use benches::statements::{CREATE_STANDARD1, INSERT_PREPARED, SELECT_SLICE};
use cql::statement::parse;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn parse_statements(c: &mut Criterion) {
    let mut group = c.benchmark_group("parser");
    for (name, text) in [
        ("INSERT prepared (6 binds)", INSERT_PREPARED),
        ("SELECT WHERE/ORDER BY/LIMIT", SELECT_SLICE),
        ("CREATE TABLE standard1 (stress)", CREATE_STANDARD1),
    ] {
        parse(text).expect("benchmark statements parse");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| b.iter(|| parse(black_box(text)).expect("parses")));
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = parse_statements
}
criterion_main!(benches);
