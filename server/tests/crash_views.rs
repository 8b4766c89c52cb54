//! Materialized views across `kill -9`: the view rows of acknowledged base writes are in the
//! same commit-log record as the base rows, so after a crash and replay every view holds
//! exactly what its base rows derive, in `periodic` and `batch` modes.

use std::process::{Child, Command, Stdio};

mod support;

use support::{free_port, Client, ONE_AT_A_TIME};

/// Starts the binary with views enabled through a config file in `dir`.
fn start(dir: &std::path::Path, port: u16, sync: &str) -> Child {
    let config = dir.join("views.yaml");
    std::fs::write(&config, "materialized_views_enabled: true\n").expect("config");
    Command::new(env!("CARGO_BIN_EXE_cqld"))
        .args(["--port", &port.to_string(), "--data-dir"])
        .arg(dir.join("data"))
        .args(["--commitlog-sync", sync, "--config"])
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start server")
}

/// Writes 60 rows, moves a third of them to other view partitions, deletes a third, and
/// deletes one partition; returns the view's expected `v` values, sorted.
fn write_and_move(client: &mut Client) -> Vec<i32> {
    client.query("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    client.query("CREATE TABLE ks.t (k int, c int, v int, PRIMARY KEY (k, c))");
    client.query(
        "CREATE MATERIALIZED VIEW ks.mv AS SELECT * FROM ks.t \
         WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, k, c)",
    );
    let mut expected = std::collections::BTreeMap::new();
    for i in 0..60 {
        let (k, c) = (i % 6, i);
        client.query(&format!(
            "INSERT INTO ks.t (k, c, v) VALUES ({k}, {c}, {i})"
        ));
        expected.insert((k, c), i);
    }
    for i in (0..60).step_by(3) {
        let (k, c) = (i % 6, i);
        client.query(&format!(
            "UPDATE ks.t SET v = {} WHERE k = {k} AND c = {c}",
            1000 + i
        ));
        expected.insert((k, c), 1000 + i);
    }
    for i in (1..60).step_by(3) {
        let (k, c) = (i % 6, i);
        client.query(&format!("DELETE FROM ks.t WHERE k = {k} AND c = {c}"));
        expected.remove(&(k, c));
    }
    client.query("DELETE FROM ks.t WHERE k = 5");
    expected.retain(|(k, _), _| *k != 5);
    let mut values: Vec<i32> = expected.into_values().collect();
    values.sort();
    values
}

fn views_survive(sync: &str) {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut server = start(dir.path(), port, sync);
    let mut client = Client::connect(port);
    let expected = write_and_move(&mut client);
    server.kill().unwrap(); // SIGKILL: no shutdown code runs
    server.wait().unwrap();
    let port = free_port();
    let mut server = start(dir.path(), port, sync);
    let mut client = Client::connect(port);
    let mut got = client.ints("SELECT v FROM ks.mv");
    got.sort();
    assert_eq!(got, expected);
    let mut base = client.ints("SELECT v FROM ks.t");
    base.sort();
    assert_eq!(base, expected);
    // The view is still maintained after the replay.
    client.query("UPDATE ks.t SET v = 5000 WHERE k = 0 AND c = 0");
    assert_eq!(client.ints("SELECT k FROM ks.mv WHERE v = 5000"), [0]);
    server.kill().unwrap();
    server.wait().unwrap();
}

#[test]
fn periodic_mode_view_rows_survive_kill_9() {
    views_survive("periodic");
}

#[test]
fn batch_mode_view_rows_survive_kill_9() {
    views_survive("batch");
}
