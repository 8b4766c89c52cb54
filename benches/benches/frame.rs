//! Frame codec: decoding a QUERY request frame (header, then body) and encoding a Rows
//! result of 100 rows × 5 columns into a complete response frame, plain and lz4-compressed.

use std::hint::black_box;
use std::time::Duration;

use benches::frames::{query_request_frame, rows_result};
use cql::frame::{decode_request, encode_response_frame, parse_header, Compression, HEADER_LEN};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// The server's default `native_transport_max_frame_size`.
const MAX_FRAME: usize = 16 * 1024 * 1024;

fn decode_query(c: &mut Criterion) {
    let frame = query_request_frame().freeze();
    let mut group = c.benchmark_group("frame");
    group.throughput(Throughput::Bytes(frame.len() as u64));
    group.bench_function("decode QUERY request", |b| {
        b.iter(|| {
            let frame = black_box(&frame);
            let header = parse_header(frame).expect("a whole header");
            let body = frame.slice(HEADER_LEN..);
            decode_request(&header, &body, None, MAX_FRAME).expect("a valid QUERY")
        })
    });
    group.finish();
}

fn encode_rows(c: &mut Criterion) {
    let response = rows_result(100);
    let plain_len = encode_response_frame(0, &response, &[], None).len();
    let mut group = c.benchmark_group("frame");
    group.throughput(Throughput::Bytes(plain_len as u64));
    group.bench_function("encode Rows 100x5", |b| {
        b.iter(|| encode_response_frame(1, black_box(&response), &[], None))
    });
    group.bench_function("encode Rows 100x5 lz4", |b| {
        b.iter(|| encode_response_frame(1, black_box(&response), &[], Some(Compression::Lz4)))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = decode_query, encode_rows
}
criterion_main!(benches);
