//! A damaged byte in the data file, with the real binary (issue 36, point 2): the read that
//! meets it is refused with a server error naming the file, the table and the key, never
//! answered with a wrong value; `disk_failure_policy` decides the rest (Cassandra's rules:
//! `stop` goes on serving what is readable, `stop_paranoid` stops serving clients, `die`
//! exits; damage met during start-up refuses the start under `stop`).

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cql::frame::response::Response;

mod support;

use support::{
    config_file, free_port, query_request, server_command, start_with, Client, KillOnDrop,
    ONE_AT_A_TIME,
};

const ROWS: i32 = 400;

/// A value no other row shares, long enough to find in the file.
fn value(k: i32) -> String {
    format!("row-{k:05}-{}", "0123456789abcdef".repeat(4))
}

/// Writes [`ROWS`] rows (one partition each) and stops the server cleanly, so every row is
/// in `data.redb`.
fn written(dir: &Path, args: &[OsString]) {
    let port = free_port();
    let server = KillOnDrop(start_with(dir, port, "batch", args));
    let mut client = Client::connect(port);
    client.query(
        "CREATE KEYSPACE damage_ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    );
    client.query("CREATE TABLE damage_ks.t (k int PRIMARY KEY, v text)");
    for k in 0..ROWS {
        client.query(&format!(
            "INSERT INTO damage_ks.t (k, v) VALUES ({k}, '{}')",
            value(k)
        ));
    }
    stop(server);
}

fn stop(mut server: KillOnDrop) {
    let pid = server.0.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.0.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the server stops on SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Flips a byte inside the first copy of `needle` in the data file; its offset.
fn damage(dir: &Path, needle: &str) -> usize {
    let path = dir.join("data.redb");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .unwrap_or_else(|| panic!("{needle:?} is in the data file"));
    bytes[at + needle.len() / 2] ^= 0x20;
    std::fs::write(&path, bytes).unwrap();
    at
}

fn policy(name: &str) -> (tempfile::NamedTempFile, Vec<OsString>) {
    let config = config_file(&format!("disk_failure_policy: {name}\n"));
    let args = vec!["--config".into(), config.path().into()];
    (config, args)
}

/// The answer to reading row `k`: its value, or the error's code and message.
fn read(client: &mut Client, k: i32) -> Result<String, (i32, String)> {
    let text = format!("SELECT v FROM damage_ks.t WHERE k = {k}");
    match client.try_call(&query_request(&text)) {
        Ok(Response::Result(cql::frame::response::ResultBody::Rows(rows))) => {
            let cell = rows.rows[0][0].as_ref().expect("a value");
            Ok(String::from_utf8(cell.to_vec()).unwrap())
        }
        Ok(Response::Error(err)) => Err((err.code, err.message)),
        Ok(other) => panic!("{other:?}"),
        Err(e) => Err((-1, e.to_string())),
    }
}

/// Reads row `k` until it answers (a damaged page makes the engine reopen its file, and
/// reads meanwhile are refused as recovering).
fn read_eventually(client: &mut Client, k: i32) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match read(client, k) {
            Ok(v) => return v,
            Err(e) if Instant::now() < deadline => {
                assert!(e.1.contains("recovering"), "{e:?}");
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("row {k} never readable again: {e:?}"),
        }
    }
}

#[test]
fn a_damaged_row_is_refused_and_the_rest_served_under_stop() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    written(dir.path(), &[]);
    damage(dir.path(), &value(123));
    let port = free_port();
    let _server = KillOnDrop(start_with(dir.path(), port, "batch", &[]));
    let mut client = Client::connect(port);
    let (code, message) = read(&mut client, 123).expect_err("the damaged row is refused");
    assert_eq!(code, 0x0000, "a server error: {message}");
    assert!(message.contains("Corrupted: "), "{message}");
    assert!(message.contains("data.redb"), "names the file: {message}");
    assert!(message.contains("fails its checksum"), "{message}");
    assert!(
        message.contains("reading table"),
        "names the table: {message}"
    );
    // Every other row is still served, each with its own value.
    for k in (0..ROWS).step_by(37).filter(|&k| k != 123) {
        assert_eq!(read_eventually(&mut client, k), value(k));
    }
    // The damaged one is refused every time, never answered wrong.
    assert!(read(&mut client, 123).is_err());
}

#[test]
fn stop_paranoid_stops_serving_clients_after_damage() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let (_config, args) = policy("stop_paranoid");
    written(dir.path(), &args);
    damage(dir.path(), &value(200));
    let port = free_port();
    let mut server = KillOnDrop(start_with(dir.path(), port, "batch", &args));
    let mut client = Client::connect(port);
    assert!(read(&mut client, 200).is_err());
    let deadline = Instant::now() + Duration::from_secs(10);
    while Client::try_connect(port).is_ok() {
        assert!(Instant::now() < deadline, "the port closes");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        server.0.try_wait().unwrap().is_none(),
        "the process stays up"
    );
}

#[test]
fn die_exits_after_damage() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let (_config, args) = policy("die");
    written(dir.path(), &args);
    damage(dir.path(), &value(300));
    let port = free_port();
    let mut server = KillOnDrop(start_with(dir.path(), port, "batch", &args));
    let mut client = Client::connect(port);
    let _ = read(&mut client, 300);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = server.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the process exits");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(100));
}

#[test]
fn damage_met_at_start_refuses_the_start_in_cassandras_words() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    written(dir.path(), &[]);
    // The schema records are read before the port opens.
    damage(dir.path(), "\"damage_ks\"");
    let port = free_port();
    let mut server = KillOnDrop(
        server_command(dir.path(), port, "batch", &[])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = server.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the start is refused");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut log = String::new();
    server
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    server
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(!status.success(), "{log}");
    assert!(
        log.contains(
            "Exiting forcefully due to file system exception on startup, disk failure policy \"stop\""
        ),
        "{log}"
    );
    assert!(log.contains("data.redb"), "{log}");
    assert!(!log.contains("listening for CQL clients"), "{log}");
}
