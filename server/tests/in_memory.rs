//! `--in-memory`, the throwaway server for tests: the real binary, started in an empty working
//! directory, serves writes and reads through the scylla driver and creates no file anywhere.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use support::{free_port, Client, KillOnDrop};

/// Connects the driver to `port`, retrying while the server starts (20 s at most).
async fn connect(port: u16) -> Session {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let built = SessionBuilder::new()
            .known_node(format!("127.0.0.1:{port}"))
            .build()
            .await;
        match built {
            Ok(session) => return session,
            Err(err) if Instant::now() > deadline => panic!("server did not start: {err}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

/// The names in `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read the directory")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_server_serves_the_driver_and_creates_no_file() {
    let cwd = tempfile::tempdir().expect("temp dir");
    let tmp = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_cqld"))
        .args(["--in-memory", "--port", &port.to_string()])
        .current_dir(cwd.path())
        .env("TMPDIR", tmp.path())
        .env("HOME", tmp.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start server");
    let mut server = KillOnDrop(child);
    let session = connect(port).await;
    session
        .query_unpaged(
            "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
            &[],
        )
        .await
        .expect("create keyspace");
    session
        .query_unpaged("CREATE TABLE ks.t (k int PRIMARY KEY, v text)", &[])
        .await
        .expect("create table");
    for k in 0..50 {
        session
            .query_unpaged(
                "INSERT INTO ks.t (k, v) VALUES (?, ?)",
                (k, format!("v{k}")),
            )
            .await
            .expect("insert");
    }
    let (v,): (String,) = session
        .query_unpaged("SELECT v FROM ks.t WHERE k = ?", (42,))
        .await
        .expect("select")
        .into_rows_result()
        .expect("rows")
        .single_row()
        .expect("one row");
    assert_eq!(v, "v42");
    let count = session
        .query_unpaged("SELECT k FROM ks.t", &[])
        .await
        .expect("scan")
        .into_rows_result()
        .expect("rows")
        .rows_num();
    assert_eq!(count, 50);
    drop(session);
    // A clean stop (SIGTERM) runs the final commit, which must not reach a file either.
    let pid = server.0.id().to_string();
    let status = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(status.success());
    assert!(server.0.wait().expect("wait").success(), "clean exit");
    assert_eq!(
        entries(cwd.path()),
        Vec::<String>::new(),
        "the working directory"
    );
    assert!(
        !cwd.path().join("data").exists(),
        "the default data directory"
    );
    assert_eq!(entries(tmp.path()), Vec::<String>::new(), "TMPDIR and HOME");
}

#[test]
fn in_memory_and_a_data_directory_are_refused_together() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = Command::new(env!("CARGO_BIN_EXE_cqld"))
        .args(["--in-memory", "--data-dir"])
        .arg(dir.path().join("data"))
        .output()
        .expect("run server");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
    assert_eq!(entries(dir.path()), Vec::<String>::new());
}

#[test]
fn in_memory_from_the_config_file_creates_no_file() {
    let cwd = tempfile::tempdir().expect("temp dir");
    let conf = tempfile::tempdir().expect("temp dir");
    let yaml = conf.path().join("cassandra.yaml");
    std::fs::write(&yaml, "in_memory: true\ncluster_name: Throwaway\n").expect("write config");
    let port = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_cqld"))
        .arg("--config")
        .arg(&yaml)
        .args(["--port", &port.to_string()])
        .current_dir(cwd.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start server");
    let mut server = KillOnDrop(child);
    let mut client = Client::connect(port);
    client.query("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    client.query("CREATE TABLE ks.t (k int PRIMARY KEY)");
    client.query("INSERT INTO ks.t (k) VALUES (7)");
    assert_eq!(client.ints("SELECT k FROM ks.t"), [7]);
    let pid = server.0.id().to_string();
    let status = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(status.success());
    assert!(server.0.wait().expect("wait").success(), "clean exit");
    assert_eq!(entries(cwd.path()), Vec::<String>::new());
    assert_eq!(entries(conf.path()), ["cassandra.yaml"]);
}

#[test]
fn metrics_address_flag_serves_metrics_over_http() {
    use std::io::{Read, Write};
    let cwd = tempfile::tempdir().expect("temp dir");
    let (port, metrics_port) = (free_port(), free_port());
    let child = Command::new(env!("CARGO_BIN_EXE_cqld"))
        .args(["--in-memory", "--port", &port.to_string()])
        .args(["--metrics-address", &format!("127.0.0.1:{metrics_port}")])
        .current_dir(cwd.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start server");
    let _server = KillOnDrop(child);
    let mut client = Client::connect(port);
    client.query("SELECT release_version FROM system.local");
    let mut http = std::net::TcpStream::connect(("127.0.0.1", metrics_port)).expect("connect");
    http.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .expect("send");
    let mut response = String::new();
    http.read_to_string(&mut response).expect("read");
    assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
    let selects = "cql_request_duration_seconds_count{opcode=\"QUERY\",kind=\"select\"} 1\n";
    assert!(response.contains(selects), "{response}");
    assert!(response.contains("cql_connections_open 1\n"), "{response}");
}
