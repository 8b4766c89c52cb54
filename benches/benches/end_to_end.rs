//! The whole server in-process, driven over loopback TCP by the scylla driver: a prepared
//! INSERT and a prepared point SELECT of `bench.readings`, one request at a time (latency)
//! and 64 in flight on one session (throughput).
//!
//! Client and server share one tokio runtime and the machine's cores, so these numbers
//! include the driver's own cost.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use benches::statements::{CREATE_KEYSPACE, CREATE_READINGS, INSERT_PREPARED, SELECT_POINT};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use futures::future::join_all;
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::statement::prepared::PreparedStatement;
use server::{Config, ServerError};
use tokio::net::TcpListener;
use tokio::runtime::Runtime;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use uuid::Uuid;

/// Requests in flight per iteration of the concurrent benchmarks.
const IN_FLIGHT: usize = 64;

/// Rows written before the SELECT benchmarks; SELECTs cycle through them.
const PRELOADED: u64 = 10_000;

/// A server on an ephemeral loopback port over a temporary data directory (periodic sync,
/// the server's defaults otherwise), with a driver session and the prepared statements.
struct Fixture {
    session: Session,
    insert: PreparedStatement,
    select: PreparedStatement,
    shutdown: oneshot::Sender<()>,
    server: JoinHandle<Result<(), ServerError>>,
    /// Holds the data directory; removed on drop.
    _dir: tempfile::TempDir,
}

/// The bound values of row `n`: a partition per `n % 100`, a distinct clustering key per `n`.
fn row_values(n: u64) -> (String, i32, i64, Uuid, f64, String) {
    (
        format!("sensor-{:06}", n % 100),
        (n % 16) as i32,
        n as i64,
        Uuid::from_u128(u128::from(n) | 0x4000 << 64),
        n as f64 * 0.25,
        format!("reading {n:010} within range"),
    )
}

/// The bound primary key of row `n`.
fn key_values(n: u64) -> (String, i32, i64, Uuid) {
    let (sensor, bucket, at, id, _, _) = row_values(n);
    (sensor, bucket, at, id)
}

async fn start() -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config {
        data_dir: Some(dir.path().to_path_buf()),
        ..Config::default()
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr: SocketAddr = listener.local_addr().expect("local addr");
    let (shutdown, stop) = oneshot::channel::<()>();
    let server = tokio::spawn(server::run(listener, config, async {
        let _ = stop.await;
    }));
    let session = SessionBuilder::new()
        .known_node_addr(addr)
        .build()
        .await
        .expect("driver session");
    for ddl in [CREATE_KEYSPACE, CREATE_READINGS] {
        session.query_unpaged(ddl, ()).await.expect("DDL");
    }
    let insert = session
        .prepare(INSERT_PREPARED)
        .await
        .expect("prepare INSERT");
    let select = session.prepare(SELECT_POINT).await.expect("prepare SELECT");
    Fixture {
        session,
        insert,
        select,
        shutdown,
        server,
        _dir: dir,
    }
}

impl Fixture {
    async fn insert(&self, n: u64) {
        self.session
            .execute_unpaged(&self.insert, row_values(n))
            .await
            .expect("INSERT");
    }

    async fn select(&self, n: u64) {
        self.session
            .execute_unpaged(&self.select, key_values(n % PRELOADED))
            .await
            .expect("SELECT");
    }

    async fn stop(self) {
        drop(self.session);
        let _ = self.shutdown.send(());
        self.server
            .await
            .expect("server task")
            .expect("clean shutdown");
    }
}

fn end_to_end(c: &mut Criterion) {
    let runtime = Runtime::new().expect("tokio runtime");
    let owned = runtime.block_on(start());
    runtime.block_on(preload(&owned));
    let fixture = &owned;
    let mut group = c.benchmark_group("end_to_end");
    group.sample_size(30);

    let mut next = PRELOADED;
    group.throughput(Throughput::Elements(1));
    group.bench_function("INSERT prepared, 1 in flight", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    next += 1;
                    fixture.insert(next).await;
                }
                start.elapsed()
            })
        })
    });
    group.bench_function("SELECT point prepared, 1 in flight", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let start = Instant::now();
                for n in 0..iters {
                    fixture.select(n.wrapping_mul(7919)).await;
                }
                start.elapsed()
            })
        })
    });

    group.throughput(Throughput::Elements(IN_FLIGHT as u64));
    group.bench_function("INSERT prepared, 64 in flight", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let first = next;
                    next += IN_FLIGHT as u64;
                    join_all((first..next).map(|n| fixture.insert(n))).await;
                }
                start.elapsed()
            })
        })
    });
    group.bench_function("SELECT point prepared, 64 in flight", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let start = Instant::now();
                for i in 0..iters {
                    let first = i * IN_FLIGHT as u64;
                    let ns = first..first + IN_FLIGHT as u64;
                    join_all(ns.map(|n| fixture.select(n.wrapping_mul(7919)))).await;
                }
                start.elapsed()
            })
        })
    });
    group.finish();
    runtime.block_on(owned.stop());
}

/// Writes rows `0..PRELOADED` and checks a point SELECT finds one, so the SELECT benchmarks
/// measure hits.
async fn preload(fixture: &Fixture) {
    for first in (0..PRELOADED).step_by(IN_FLIGHT) {
        let last = (first + IN_FLIGHT as u64).min(PRELOADED);
        join_all((first..last).map(|n| fixture.insert(n))).await;
    }
    let result = fixture
        .session
        .execute_unpaged(&fixture.select, key_values(PRELOADED - 1))
        .await
        .expect("SELECT");
    let rows = result.into_rows_result().expect("a Rows result").rows_num();
    assert_eq!(rows, 1, "a preloaded row is found");
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = end_to_end
}
criterion_main!(benches);
