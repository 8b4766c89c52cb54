//! The server's per-request path, one stage at a time, so a regression shows where it came
//! from: decoding an EXECUTE frame; planning a statement (what every EXECUTE did before plans
//! were cached) and finding a prepared statement's cached plan (what it does now); handling a
//! decoded EXECUTE of a point SELECT (bind, plan, read, shape); a point read from storage;
//! encoding a one-row result; and whole prepared INSERT and SELECT round trips through an
//! in-process node (frame in, frame out, no socket), with the test controls' query log off and
//! on.

use std::hint::black_box;
use std::time::Duration;

use benches::rows::{key, partition_batch};
use benches::schema::readings_table;
use benches::server_path::{
    execute_insert_frame, execute_select_frame, query_frame, InProcess, MAX_FRAME,
};
use benches::statements::{INSERT_PREPARED, SELECT_POINT};
use bytes::Bytes;
use cql::frame::request::Request;
use cql::frame::response::{ColumnSpec, Response, ResultBody, ResultMetadata, Rows};
use cql::frame::{decode_request, encode_response_frame, parse_header, HEADER_LEN};
use cql::types::ColumnType;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use storage::{Store, StoreOptions};
use tokio::runtime::Runtime;

/// Rows the SELECT round trips read among.
const PRELOADED: u64 = 1000;

fn decode(c: &mut Criterion) {
    let id = Bytes::from_static(&[7; 16]);
    let frame = execute_insert_frame(&id, 42);
    let mut group = c.benchmark_group("hot_path");
    group.throughput(Throughput::Elements(1));
    group.bench_function("decode EXECUTE frame (6 values)", |b| {
        b.iter(|| {
            let frame = black_box(&frame);
            let header = parse_header(frame).expect("a whole header");
            let body = frame.slice(HEADER_LEN..);
            decode_request(&header, &body, None, MAX_FRAME).expect("a valid EXECUTE")
        })
    });
    group.finish();
}

fn plan(c: &mut Criterion) {
    let runtime = Runtime::new().expect("tokio runtime");
    let fixture = runtime.block_on(InProcess::start());
    let parse = |text: &str| cql::statement::parse(text).expect("valid CQL").statement;
    let (select, insert) = (parse(SELECT_POINT), parse(INSERT_PREPARED));
    assert!(fixture.node.plan(&select) && fixture.node.plan(&insert));
    let mut group = c.benchmark_group("hot_path");
    group.throughput(Throughput::Elements(1));
    group.bench_function("plan SELECT point", |b| {
        b.iter(|| fixture.node.plan(black_box(&select)))
    });
    group.bench_function("plan INSERT", |b| {
        b.iter(|| fixture.node.plan(black_box(&insert)))
    });
    // What EXECUTE does instead since plans are cached: find the statement, check its plan.
    group.bench_function("prepared lookup + cached plan", |b| {
        b.iter(|| assert!(fixture.node.cached_plan(black_box(&fixture.select_id))))
    });
    group.finish();
    fixture.node.close();
}

fn execute(c: &mut Criterion) {
    let runtime = Runtime::new().expect("tokio runtime");
    let fixture = runtime.block_on(InProcess::start());
    runtime.block_on(async {
        for n in 0..PRELOADED {
            fixture
                .round_trip(&execute_insert_frame(&fixture.insert_id, n))
                .await;
        }
    });
    let requests: Vec<Request> = (0..PRELOADED)
        .map(|n| {
            let frame = execute_select_frame(&fixture.select_id, n.wrapping_mul(7919) % PRELOADED);
            let header = parse_header(&frame).expect("a whole header");
            decode_request(&header, &frame.slice(HEADER_LEN..), None, MAX_FRAME).expect("EXECUTE")
        })
        .collect();
    let mut group = c.benchmark_group("hot_path");
    group.throughput(Throughput::Elements(1));
    let mut i = 0;
    // Bind, plan (cached), point read and shaping; no frame decode or encode.
    group.bench_function("handle EXECUTE SELECT point", |b| {
        b.iter_batched(
            || {
                i = (i + 1) % requests.len();
                requests[i].clone()
            },
            |request| runtime.block_on(fixture.node.handle(request)),
            BatchSize::SmallInput,
        )
    });
    group.finish();
    fixture.node.close();
}

fn storage_read(c: &mut Criterion) {
    let (store, _catalog) = Store::open_in_memory(StoreOptions::default()).expect("store");
    let table = readings_table();
    store
        .write_blocking(benches::rows::create_table(&table))
        .expect("create table");
    for p in 0..100 {
        store
            .write_blocking(partition_batch(&table, p, 0..10))
            .expect("populate");
    }
    let keys: Vec<Vec<u8>> = (0..1000u32).map(|i| key(&table, i % 100, i % 10)).collect();
    let mut group = c.benchmark_group("hot_path");
    group.throughput(Throughput::Elements(1));
    let mut i = 0;
    group.bench_function("storage snapshot + point get", |b| {
        b.iter(|| {
            i = (i + 1) % keys.len();
            let snapshot = store.snapshot().expect("snapshot");
            snapshot.get(table.id, black_box(&keys[i])).expect("read")
        })
    });
    group.finish();
    store.shutdown().expect("shutdown");
}

/// The answer to the point SELECT: one row of a double and a text.
fn one_row(no_metadata: bool) -> Response {
    let column = |name: &str, ty| ColumnSpec {
        keyspace: "bench".into(),
        table: "readings".into(),
        name: name.into(),
        ty,
    };
    Response::Result(ResultBody::Rows(Rows {
        metadata: ResultMetadata {
            columns: vec![
                column("value", ColumnType::Double),
                column("note", ColumnType::Text),
            ]
            .into(),
            paging_state: None,
            no_metadata,
            new_metadata_id: None,
        },
        rows: vec![vec![
            Some(Bytes::copy_from_slice(&10.25f64.to_be_bytes())),
            Some(Bytes::from_static(b"reading 0000000041 within range")),
        ]],
    }))
}

fn encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("hot_path");
    group.throughput(Throughput::Elements(1));
    let full = one_row(false);
    group.bench_function("encode Rows 1x2", |b| {
        b.iter(|| encode_response_frame(1, black_box(&full), &[], None))
    });
    let skipped = one_row(true);
    group.bench_function("encode Rows 1x2 no metadata", |b| {
        b.iter(|| encode_response_frame(1, black_box(&skipped), &[], None))
    });
    group.bench_function("encode Void", |b| {
        b.iter(|| {
            encode_response_frame(1, black_box(&Response::Result(ResultBody::Void)), &[], None)
        })
    });
    group.finish();
}

fn round_trips(c: &mut Criterion) {
    round_trips_logging(c, 0, "");
    // What the test controls' query log costs when it records (in-memory servers, by default).
    round_trips_logging(c, 10_000, ", query log on");
}

/// The prepared INSERT and SELECT round trips with a query log of `log_size` entries.
fn round_trips_logging(c: &mut Criterion, log_size: usize, suffix: &str) {
    let runtime = Runtime::new().expect("tokio runtime");
    let fixture = runtime.block_on(InProcess::start_with_query_log(log_size));
    let inserts: Vec<Bytes> = (0..PRELOADED)
        .map(|n| execute_insert_frame(&fixture.insert_id, n))
        .collect();
    runtime.block_on(async {
        for frame in &inserts {
            fixture.round_trip(frame).await;
        }
    });
    let selects: Vec<Bytes> = (0..PRELOADED)
        .map(|n| execute_select_frame(&fixture.select_id, n.wrapping_mul(7919) % PRELOADED))
        .collect();
    let mut group = c.benchmark_group("hot_path");
    group.throughput(Throughput::Elements(1));
    let mut i = 0;
    group.bench_function(format!("round trip EXECUTE INSERT{suffix}"), |b| {
        b.iter(|| {
            i = (i + 1) % inserts.len();
            runtime.block_on(fixture.round_trip(&inserts[i]))
        })
    });
    group.bench_function(format!("round trip EXECUTE SELECT point{suffix}"), |b| {
        b.iter(|| {
            i = (i + 1) % selects.len();
            runtime.block_on(fixture.round_trip(&selects[i]))
        })
    });
    if log_size > 0 {
        // The log is full by now: reading it renders every entry.
        let read = query_frame("SELECT * FROM test_control.queries");
        group.bench_function(format!("read a full query log of {log_size} (CQL)"), |b| {
            b.iter(|| runtime.block_on(fixture.round_trip(&read)))
        });
    }
    group.finish();
    fixture.node.close();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = decode, plan, execute, storage_read, encode, round_trips
}
criterion_main!(benches);
