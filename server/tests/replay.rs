//! Replaying a large commit log in bounded memory, with the real binary: acknowledged writes
//! that were never checkpointed come back after `kill -9`, and the start that replays them
//! stays within the server's memory bound (the one `limits.rs` holds it to) whatever the
//! log's size. `REPLAY_LOG_MIB` sets the log's size (320 MiB by default; 1024 for the
//! gigabyte of the integrity issue).

use std::ffi::OsString;
use std::time::Instant;

use bytes::Bytes;
use cql::frame::primitives::Value;
use cql::frame::request::Request;
use cql::frame::response::Response;

mod support;

use support::{
    config_file, free_port, query_request, start_with, Client, KillOnDrop, ONE_AT_A_TIME,
};

/// The memory bound of the hardening tests (`limits.rs`).
const BOUND: u64 = 512 << 20;

fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kib << 10
}

fn log_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir.join("commitlog"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum()
}

fn insert(k: i32, value: &Bytes) -> Request {
    let mut request = query_request("INSERT INTO ks.t (k, v) VALUES (?, ?)");
    if let Request::Query(query) = &mut request {
        query.params.values = vec![
            Value::Bytes(Bytes::copy_from_slice(&k.to_be_bytes())),
            Value::Bytes(value.clone()),
        ];
    }
    request
}

#[test]
fn a_large_commit_log_replays_in_bounded_memory() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mib: i32 = std::env::var("REPLAY_LOG_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(320);
    let dir = tempfile::tempdir().unwrap();
    // Memtables large enough that no checkpoint by size empties the log while it is written
    // (one by time comes after 30 s; the size check below sees it if it did).
    let big = config_file("memtable_heap_space: 8GiB\n");
    let args: Vec<OsString> = vec!["--config".into(), big.path().into()];
    let port = free_port();
    let mut server = KillOnDrop(start_with(dir.path(), port, "periodic", &args));
    let mut client = Client::connect(port);
    client.query("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    client.query("CREATE TABLE ks.t (k int PRIMARY KEY, v blob)");
    let value = Bytes::from(vec![0xab; 1 << 20]);
    let started = Instant::now();
    for k in 0..mib {
        let answer = client.call(&insert(k, &value));
        assert!(matches!(answer, Response::Result(_)), "{answer:?}");
    }
    let written = started.elapsed();
    server.0.kill().unwrap();
    server.0.wait().unwrap();
    let logged = log_bytes(dir.path());
    assert!(
        logged >= (mib as u64) << 20,
        "the log holds {logged} bytes: a checkpoint ran while it was written ({written:?})"
    );
    let port = free_port();
    let server = KillOnDrop(start_with(dir.path(), port, "periodic", &[]));
    let started = Instant::now();
    let mut client = Client::connect(port);
    let replayed_in = started.elapsed();
    let peak = peak_rss(server.0.id());
    eprintln!(
        "{} MiB of log replayed in {replayed_in:?}; peak RSS {} MiB",
        logged >> 20,
        peak >> 20
    );
    assert!(peak < BOUND, "replay peaked at {} MiB", peak >> 20);
    assert_eq!(client.count("SELECT k FROM ks.t"), mib as usize);
    let answer = client.call(&query_request("SELECT v FROM ks.t WHERE k = 7"));
    assert!(matches!(answer, Response::Result(_)), "{answer:?}");
}
