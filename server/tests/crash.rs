//! Durability of the real binary: in every sync mode an acknowledged write survives `kill -9`
//! (concurrent writers on several connections, several rounds); a SIGTERM shutdown keeps
//! everything; clients that reset their connections leave no sockets behind.

use std::process::{Child, Command};
use std::time::{Duration, Instant};

use cql::frame::request::Request;
use cql::frame::response::{Response, ResultBody};

mod support;

use support::{
    free_port, query_request, start, start_with, Client, KillOnDrop, SmallDisk, ONE_AT_A_TIME,
};

fn write_rows(client: &mut Client, n: usize) {
    client.query("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    client.query("CREATE TABLE ks.t (k int, c int, v blob, PRIMARY KEY (k, c))");
    for i in 0..n {
        client.query(&format!(
            "INSERT INTO ks.t (k, c, v) VALUES ({}, {i}, 0xcafe)",
            i % 7
        ));
    }
}

#[test]
fn batch_mode_acknowledged_writes_survive_kill_9() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut server = start(dir.path(), port, "batch");
    let mut client = Client::connect(port);
    write_rows(&mut client, 200);
    server.kill().unwrap(); // SIGKILL: no shutdown code runs
    server.wait().unwrap();
    let port = free_port();
    let mut server = start(dir.path(), port, "batch");
    let mut client = Client::connect(port);
    assert_eq!(client.count("SELECT k, c FROM ks.t"), 200);
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn periodic_mode_keeps_everything_across_sigterm() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut server = start(dir.path(), port, "periodic");
    let mut client = Client::connect(port);
    write_rows(&mut client, 100);
    let pid = server.id().to_string();
    let status = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(status.success());
    assert!(server.wait().unwrap().success(), "clean exit on SIGTERM");
    let port = free_port();
    let mut server = start(dir.path(), port, "periodic");
    let mut client = Client::connect(port);
    assert_eq!(client.count("SELECT k, c FROM ks.t"), 100);
    server.kill().unwrap();
    server.wait().unwrap();
}

/// A SIGINT sent the moment the port accepts connections (as a test harness stopping a server
/// it has just seen start does) gets the orderly shutdown: the signal handlers are in place
/// before the port is bound. Before, the process died of the signal in every such attempt.
#[test]
fn a_sigint_as_soon_as_the_port_accepts_shuts_down_cleanly() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let mut server = start(dir.path(), port, "periodic");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the server never listened");
            std::thread::sleep(Duration::from_micros(200));
        }
        let pid = server.id().to_string();
        let status = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(status.success());
        let exit = server.wait().unwrap();
        assert!(exit.success(), "SIGINT right after start: {exit}");
    }
}

/// Writers on `writers` connections insert rows of their own partition until the server is
/// killed; returns each writer's acknowledged clustering values.
fn write_until_killed(server: &mut Child, port: u16, partition_base: i32) -> Vec<(i32, Vec<i32>)> {
    let writers: Vec<_> = (0..6)
        .map(|w| {
            let mut client = Client::connect(port);
            let k = partition_base + w;
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                for c in 0..100_000 {
                    let text = format!("INSERT INTO ks.t (k, c, v) VALUES ({k}, {c}, 0xcafe)");
                    match client.try_call(&query_request(&text)) {
                        Ok(Response::Result(_)) => acked.push(c),
                        _ => break,
                    }
                }
                (k, acked)
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(400));
    server.kill().unwrap(); // SIGKILL: no shutdown code runs
    server.wait().unwrap();
    writers.into_iter().map(|w| w.join().unwrap()).collect()
}

/// Three rounds of: concurrent writers, `kill -9`, restart, every acknowledged row read back.
fn acknowledged_writes_survive_kill_9(sync: &str) {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let mut port = free_port();
    let mut server = start(dir.path(), port, sync);
    let mut client = Client::connect(port);
    client.query("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    client.query("CREATE TABLE ks.t (k int, c int, v blob, PRIMARY KEY (k, c))");
    let mut written: Vec<(i32, Vec<i32>)> = Vec::new();
    for round in 0..3 {
        written.extend(write_until_killed(&mut server, port, round * 100));
        port = free_port();
        server = start(dir.path(), port, sync);
        let mut client = Client::connect(port);
        let mut total = 0;
        for (k, acked) in &written {
            let stored = client.ints(&format!("SELECT c FROM ks.t WHERE k = {k}"));
            let stored: std::collections::HashSet<i32> = stored.into_iter().collect();
            let lost = acked.iter().filter(|c| !stored.contains(c)).count();
            assert_eq!(
                lost,
                0,
                "{sync} round {round}: partition {k} lost {lost} of {} acknowledged rows",
                acked.len()
            );
            total += acked.len();
        }
        assert!(total > 0, "{sync} round {round}: no write was acknowledged");
        eprintln!("{sync} round {round}: {total} acknowledged rows, all there after kill -9");
    }
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn periodic_mode_acknowledged_writes_survive_kill_9() {
    acknowledged_writes_survive_kill_9("periodic");
}

#[test]
fn batch_mode_acknowledged_writes_survive_kill_9_under_concurrency() {
    acknowledged_writes_survive_kill_9("batch");
}

#[test]
fn group_mode_acknowledged_writes_survive_kill_9() {
    acknowledged_writes_survive_kill_9("group");
}

fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count()
}

/// Connect, STARTUP, REGISTER for events, then close with a TCP reset.
fn register_and_reset(port: u16) {
    let mut client = Client::connect(port);
    let register = Request::Register(cql::frame::request::Register {
        events: vec!["STATUS_CHANGE".into(), "SCHEMA_CHANGE".into()],
    });
    assert!(matches!(client.call(&register), Response::Ready));
    // SO_LINGER 0: close() sends RST instead of FIN.
    socket2::SockRef::from(&client.stream)
        .set_linger(Some(Duration::ZERO))
        .unwrap();
}

#[test]
fn connections_reset_by_clients_leave_no_sockets_behind() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut server = start(dir.path(), port, "periodic");
    drop(Client::connect(port));
    std::thread::sleep(Duration::from_millis(100));
    let before = open_fds(server.id());
    for _ in 0..2000 {
        register_and_reset(port);
    }
    // The server notices each reset on its own schedule; give it a moment.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut after = open_fds(server.id());
    while after > before + 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        after = open_fds(server.id());
    }
    assert!(
        after <= before + 2,
        "fds before {before}, after 2000 resets {after}"
    );
    // And the server still serves.
    let mut client = Client::connect(port);
    assert_eq!(client.count("SELECT key FROM system.local"), 1);
    server.kill().unwrap();
    server.wait().unwrap();
}

fn config_args(config: &tempfile::NamedTempFile) -> Vec<std::ffi::OsString> {
    vec!["--config".into(), config.path().into()]
}

fn insert_blob(client: &mut Client, k: i32, c: i32) -> Response {
    let blob = "ab".repeat(16 * 1024);
    let text = format!("INSERT INTO ks.t (k, c, v) VALUES ({k}, {c}, 0x{blob})");
    client.call(&query_request(&text))
}

/// A full disk refuses writes with an error and loses nothing acknowledged; reads go on; once
/// space is freed writes resume without a restart (`commit_failure_policy: ignore`; the
/// other policies are `commit_failure.rs`'s).
fn full_disk_never_eats_an_acknowledgement(sync: &str) {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let disk = SmallDisk::mount(24);
    let port = free_port();
    let config =
        support::config_file("commit_failure_policy: ignore\ndisk_failure_policy: ignore\n");
    let server = KillOnDrop(start_with(
        disk.dir.path(),
        port,
        sync,
        &config_args(&config),
    ));
    let mut client = Client::connect(port);
    client.query("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    client.query("CREATE TABLE ks.t (k int, c int, v blob, PRIMARY KEY (k, c))");
    let mut acked = Vec::new();
    let mut refused = 0;
    for c in 0..4000 {
        match insert_blob(&mut client, 1, c) {
            Response::Result(_) => acked.push(c),
            Response::Error(err) => {
                assert!(
                    err.message.contains("No space left on device"),
                    "{}",
                    err.message
                );
                refused += 1;
                if refused == 20 {
                    break;
                }
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(
        refused == 20,
        "{sync}: the disk never filled ({} writes)",
        acked.len()
    );
    // Reads go on.
    assert_eq!(
        client.ints("SELECT c FROM ks.t WHERE k = 1").len(),
        acked.len()
    );
    // A schema change needs a durable commit, which the full disk refuses too.
    let ddl = client.call(&query_request("CREATE TABLE ks.t2 (k int PRIMARY KEY)"));
    assert!(matches!(ddl, Response::Error(_)), "{sync}: {ddl:?}");
    let reads = client.call(&query_request("SELECT c FROM ks.t WHERE k = 1"));
    eprintln!(
        "{sync}: read after a failed DDL: {}",
        matches!(reads, Response::Result(_))
    );
    // Space comes back: writes resume without a restart.
    disk.grow(256);
    let mut resumed = false;
    for c in 10_000..10_050 {
        if let Response::Result(_) = insert_blob(&mut client, 1, c) {
            acked.push(c);
            resumed = true;
        }
    }
    assert!(
        resumed,
        "{sync}: writes did not resume after space was freed"
    );
    client.query("CREATE TABLE ks.t2 (k int PRIMARY KEY)");
    client.query("INSERT INTO ks.t2 (k) VALUES (1)");
    drop(server);
    let port = free_port();
    let server = KillOnDrop(start_with(
        disk.dir.path(),
        port,
        sync,
        &config_args(&config),
    ));
    let mut client = Client::connect(port);
    let stored: std::collections::HashSet<i32> = client
        .ints("SELECT c FROM ks.t WHERE k = 1")
        .into_iter()
        .collect();
    let lost = acked.iter().filter(|c| !stored.contains(c)).count();
    assert_eq!(
        lost,
        0,
        "{sync}: {lost} of {} acknowledged rows lost",
        acked.len()
    );
    drop(server);
}

#[test]
fn periodic_mode_full_disk_never_eats_an_acknowledgement() {
    full_disk_never_eats_an_acknowledgement("periodic");
}

#[test]
fn batch_mode_full_disk_never_eats_an_acknowledgement() {
    full_disk_never_eats_an_acknowledgement("batch");
}

/// Repeats `statement(i)` for i = 0.. until the server dies; returns (attempted, acknowledged).
fn repeat_until_killed(
    port: u16,
    statement: impl Fn(i32) -> String + Send + 'static,
) -> std::thread::JoinHandle<(i32, Vec<i32>)> {
    let mut client = Client::connect(port);
    std::thread::spawn(move || {
        let mut acked = Vec::new();
        let mut attempted = 0;
        for i in 0..1_000_000 {
            attempted += 1;
            match client.try_call(&query_request(&statement(i))) {
                Ok(Response::Result(_)) => acked.push(i),
                _ => break,
            }
        }
        (attempted, acked)
    })
}

/// After kill -9 under counter increments and two-row logged batches on an indexed table:
/// the counter holds every acknowledged increment and no more than were sent, no batch is
/// half there, every acknowledged batch is, and the index agrees with the table.
#[test]
fn kill_9_keeps_counters_batches_and_indexes_consistent() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut server = start(dir.path(), port, "periodic");
    let mut client = Client::connect(port);
    client.query("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    client.query("CREATE TABLE ks.c (k int PRIMARY KEY, n counter)");
    client.query("CREATE TABLE ks.b (k int, c int, v int, PRIMARY KEY (k, c))");
    client.query("CREATE INDEX ON ks.b (v)");
    let counter = repeat_until_killed(port, |_| {
        "UPDATE ks.c SET n = n + 1 WHERE k = 1".to_string()
    });
    let batches = repeat_until_killed(port, |i| {
        format!(
            "BEGIN BATCH INSERT INTO ks.b (k, c, v) VALUES ({i}, 0, {i}); \
             INSERT INTO ks.b (k, c, v) VALUES ({i}, 1, {i}); APPLY BATCH"
        )
    });
    std::thread::sleep(Duration::from_millis(400));
    server.kill().unwrap();
    server.wait().unwrap();
    let (sent, acked_increments) = counter.join().unwrap();
    let (_, acked_batches) = batches.join().unwrap();
    assert!(!acked_increments.is_empty() && !acked_batches.is_empty());

    let port = free_port();
    let mut server = start(dir.path(), port, "periodic");
    let mut client = Client::connect(port);
    let n = match client.query("SELECT n FROM ks.c WHERE k = 1") {
        Response::Result(ResultBody::Rows(rows)) => {
            let cell = rows.rows[0][0].clone().expect("a counter value");
            i64::from_be_bytes(cell.as_ref().try_into().unwrap())
        }
        other => panic!("{other:?}"),
    };
    let acked = acked_increments.len() as i64;
    assert!(
        n >= acked && n <= i64::from(sent),
        "counter {n}: {acked} acknowledged, {sent} sent"
    );
    let mut rows_per_partition = std::collections::HashMap::<i32, usize>::new();
    for k in client.ints("SELECT k FROM ks.b") {
        *rows_per_partition.entry(k).or_default() += 1;
    }
    assert!(
        rows_per_partition.values().all(|&rows| rows == 2),
        "a batch is half applied"
    );
    for i in &acked_batches {
        assert_eq!(
            rows_per_partition.get(i),
            Some(&2),
            "acknowledged batch {i} lost"
        );
    }
    for i in acked_batches.iter().step_by(acked_batches.len() / 20 + 1) {
        let found = client.ints(&format!("SELECT k FROM ks.b WHERE v = {i}"));
        assert_eq!(found, vec![*i, *i], "index entries of batch {i}");
    }
    server.kill().unwrap();
    server.wait().unwrap();
}
