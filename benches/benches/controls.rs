//! The test controls' reset and snapshot restore with 20 tables and 100,000 rows, in memory
//! and on disk, through the CQL door of an in-process node (parse, plan, the control command,
//! storage, the catalog installed and the schema events sent; no socket). Not criterion:
//! each figure is the median and the 99th percentile of timed runs, printed for
//! `docs/benchmarks.md`.
//!
//! `cargo bench -p benches --bench controls`

use std::time::{Duration, Instant};

use cql::frame::request::{Query, QueryParameters, Request, Startup};
use server::bench::BenchNode;
use server::Config;
use tokio::runtime::Runtime;

const TABLES: usize = 20;
const ROWS: usize = 100_000;
/// Rows per UNLOGGED BATCH while loading.
const BATCH: usize = 100;
/// Timed restores and resets per mode.
const RUNS: usize = 100;
/// Fresh loads reset without a snapshot holding their rows, per mode.
const FRESH_RUNS: usize = 10;

fn query(text: &str) -> Request {
    Request::Query(Query {
        query: text.to_string(),
        params: QueryParameters {
            consistency: 0x0001,
            ..QueryParameters::default()
        },
    })
}

async fn run(node: &BenchNode, text: &str) {
    assert!(node.handle(query(text)).await, "{text}");
}

/// A node (on disk in `dir`, else in memory) holding keyspace `ks` with [`TABLES`] tables
/// and [`ROWS`] rows among them.
async fn loaded(dir: Option<&std::path::Path>, indexed: bool) -> BenchNode {
    let node = BenchNode::open(Config {
        data_dir: dir.map(std::path::Path::to_path_buf),
        test_controls: Some(true),
        ..Config::default()
    })
    .expect("a node");
    let startup = Startup {
        options: vec![("CQL_VERSION".into(), "3.0.0".into())],
    };
    assert!(node.handle(Request::Startup(startup)).await);
    load(&node, indexed).await;
    node
}

/// Creates the tables (each with a secondary index on `v` when `indexed`) and loads them.
async fn load(node: &BenchNode, indexed: bool) {
    run(
        node,
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    )
    .await;
    for t in 0..TABLES {
        let ddl = format!("CREATE TABLE ks.t{t} (k int, c int, v text, PRIMARY KEY (k, c))");
        run(node, &ddl).await;
        if indexed {
            run(node, &format!("CREATE INDEX ON ks.t{t} (v)")).await;
        }
    }
    let per_table = ROWS / TABLES;
    for t in 0..TABLES {
        for first in (0..per_table).step_by(BATCH) {
            let mut batch = String::from("BEGIN UNLOGGED BATCH ");
            for n in first..first + BATCH {
                batch.push_str(&format!(
                    "INSERT INTO ks.t{t} (k, c, v) VALUES ({}, {}, 'value {n:08} of table {t:02}'); ",
                    n / 100,
                    n % 100
                ));
            }
            batch.push_str("APPLY BATCH");
            run(node, &batch).await;
        }
    }
}

/// A test's writes between two restores: ten rows in one table.
async fn some_writes(node: &BenchNode, round: usize) {
    for c in 0..10 {
        let text = format!(
            "INSERT INTO ks.t{} (k, c, v) VALUES (999, {c}, 'x')",
            round % TABLES
        );
        run(node, &text).await;
    }
}

async fn timed(node: &BenchNode, text: &str) -> Duration {
    let started = Instant::now();
    run(node, text).await;
    started.elapsed()
}

fn report(what: &str, mode: &str, mut runs: Vec<Duration>) {
    runs.sort_unstable();
    let median = runs[runs.len() / 2];
    let p99 = runs[(runs.len() * 99).div_ceil(100) - 1];
    println!(
        "{what:<44} {mode:<9} median {:>8.2} ms   p99 {:>8.2} ms   ({} runs)",
        median.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        runs.len()
    );
}

const RESTORE: &str =
    "INSERT INTO test_control.commands (command, name) VALUES ('restore', 'base')";
const RESET: &str = "INSERT INTO test_control.commands (command) VALUES ('reset')";

async fn measure(mode: &str, dir: Option<&std::path::Path>) {
    let node = loaded(dir, false).await;
    let take = timed(
        &node,
        "INSERT INTO test_control.snapshots (name) VALUES ('base')",
    )
    .await;
    report("take a snapshot (after the load)", mode, vec![take]);
    report(
        "restore (20 tables, 100,000 rows)",
        mode,
        restores(&node).await,
    );
    let mut resets = Vec::with_capacity(RUNS);
    for round in 0..RUNS {
        run(&node, RESTORE).await;
        some_writes(&node, round).await;
        resets.push(timed(&node, RESET).await);
    }
    report("reset (after a restore: rows in a snapshot)", mode, resets);
    node.close();
    drop(node);
    let (mut fresh, mut settled) = (Vec::new(), Vec::new());
    for round in 0..2 * FRESH_RUNS {
        let sub = dir.map(|d| d.join(format!("fresh{round}")));
        let node = loaded(sub.as_deref(), false).await;
        if round % 2 == 0 {
            fresh.push(timed(&node, RESET).await);
        } else {
            // A flush the load started is done by now: the reset only frees what is stored.
            tokio::time::sleep(Duration::from_millis(500)).await;
            settled.push(timed(&node, RESET).await);
        }
        node.close();
    }
    report("reset (right after loading, no snapshot)", mode, fresh);
    report("reset (0.5 s after loading, no snapshot)", mode, settled);
}

/// [`RUNS`] restores of snapshot `base`, each after [`some_writes`].
async fn restores(node: &BenchNode) -> Vec<Duration> {
    let mut restores = Vec::with_capacity(RUNS);
    for round in 0..RUNS {
        some_writes(node, round).await;
        restores.push(timed(node, RESTORE).await);
    }
    restores
}

/// Restores when every table has a secondary index: its 100,000 entries are copied back.
async fn measure_indexed(mode: &str, dir: Option<&std::path::Path>) {
    let node = loaded(dir, true).await;
    run(
        &node,
        "INSERT INTO test_control.snapshots (name) VALUES ('base')",
    )
    .await;
    report(
        "restore, 20 indexes (100,000 entries)",
        mode,
        restores(&node).await,
    );
    node.close();
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is taken.
    let runtime = Runtime::new().expect("tokio runtime");
    runtime.block_on(async {
        measure("in memory", None).await;
        let dir = tempfile::tempdir().expect("a directory");
        measure("on disk", Some(dir.path())).await;
        measure_indexed("in memory", None).await;
        let dir = tempfile::tempdir().expect("a directory");
        measure_indexed("on disk", Some(dir.path())).await;
    });
}
