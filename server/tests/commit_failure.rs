//! The commit log when things go wrong, with the real binary: damage found at start (the
//! operator's experiment of issue 36: a flipped byte in an acknowledged log), and
//! `commit_failure_policy` when the disk fills up while the server runs.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use cql::frame::response::Response;

mod support;

use support::{
    config_file, free_port, query_request, server_command, start, start_with, Client, KillOnDrop,
    SmallDisk, ONE_AT_A_TIME,
};

const SCHEMA: [&str; 2] = [
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    "CREATE TABLE ks.t (k int, c int, v blob, PRIMARY KEY (k, c))",
];

fn segments(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("commitlog"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    files.sort();
    files
}

fn flip_byte(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 0x5a;
    std::fs::write(path, bytes).unwrap();
}

/// `rows` rows acknowledged in `batch` mode (each fsynced before its answer), then `kill -9`.
fn acknowledged_then_killed(dir: &Path, rows: i32) {
    let port = free_port();
    let mut server = start(dir, port, "batch");
    let mut client = Client::connect(port);
    for statement in SCHEMA {
        client.query(statement);
    }
    for c in 0..rows {
        client.query(&format!(
            "INSERT INTO ks.t (k, c, v) VALUES (1, {c}, 0xcafe)"
        ));
    }
    server.kill().unwrap();
    server.wait().unwrap();
}

/// Runs the server on `dir` until it exits by itself (a refused start); its status and log.
fn refused_start(dir: &Path, port: u16, args: &[OsString]) -> (std::process::ExitStatus, String) {
    let mut server = KillOnDrop(
        server_command(dir, port, "batch", args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run server"),
    );
    let status = wait_exit(&mut server.0, Duration::from_secs(60)).expect("the start is refused");
    let mut log = String::new();
    for pipe in [
        server.0.stdout.take().map(|p| Box::new(p) as Box<dyn Read>),
        server.0.stderr.take().map(|p| Box::new(p) as Box<dyn Read>),
    ]
    .into_iter()
    .flatten()
    {
        let mut pipe = pipe;
        pipe.read_to_string(&mut log).unwrap();
    }
    (status, log)
}

#[test]
fn a_damaged_record_in_the_last_segment_costs_that_record_only() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    acknowledged_then_killed(dir.path(), 5000);
    let files = segments(dir.path());
    let last = files.last().expect("a segment");
    let len = std::fs::metadata(last).unwrap().len() as usize;
    flip_byte(last, len / 2);
    let port = free_port();
    let _server = KillOnDrop(start(dir.path(), port, "batch"));
    let mut client = Client::connect(port);
    // One write per record (one client, each write fsynced before the next): the damaged
    // record held one row, and every record after it is found.
    let served = client.count("SELECT c FROM ks.t WHERE k = 1");
    assert_eq!(served, 4999, "rows served after one flipped byte");
}

#[test]
fn damage_in_an_earlier_segment_refuses_the_start_until_overridden() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    acknowledged_then_killed(dir.path(), 200);
    let first = segments(dir.path())[0].clone();
    let len = std::fs::metadata(&first).unwrap().len() as usize;
    flip_byte(&first, len / 2);
    // A later segment makes the damaged one an earlier segment (an empty file: one that was
    // being created when the process died).
    std::fs::write(
        dir.path()
            .join("commitlog/CommitLog-00000000000000099999.log"),
        b"",
    )
    .unwrap();
    let port = free_port();
    let (status, log) = refused_start(dir.path(), port, &[]);
    assert!(!status.success(), "{log}");
    let name = first.file_name().unwrap().to_string_lossy().into_owned();
    assert!(log.contains(&name), "the message names the file: {log}");
    assert!(log.contains("checksum failure at"), "and the offset: {log}");
    assert!(
        log.contains("specify -Dcassandra.commitlog.ignorereplayerrors=true on the command line"),
        "and the override: {log}"
    );
    assert!(!log.contains("listening for CQL clients"), "{log}");
    let override_flag: OsString = "-Dcassandra.commitlog.ignorereplayerrors=true".into();
    let _server = KillOnDrop(start_with(dir.path(), port, "batch", &[override_flag]));
    let mut client = Client::connect(port);
    let served = client.count("SELECT c FROM ks.t WHERE k = 1");
    assert_eq!(served, 199, "rows served with the override");
}

/// Inserts 16 KiB blobs until one is refused; the acknowledged clustering values and the
/// refusal's message.
fn fill(client: &mut Client) -> (Vec<i32>, String) {
    let blob = "ab".repeat(16 * 1024);
    let mut acked = Vec::new();
    for c in 0..4000 {
        let text = format!("INSERT INTO ks.t (k, c, v) VALUES (1, {c}, 0x{blob})");
        match client.call(&query_request(&text)) {
            Response::Result(_) => acked.push(c),
            Response::Error(err) => return (acked, err.message),
            other => panic!("{other:?}"),
        }
    }
    panic!("the disk never filled");
}

/// A server in batch mode on a 24 MiB tmpfs under `commit_failure_policy: <name>`, with
/// the test table, and a client.
struct Policed {
    disk: SmallDisk,
    port: u16,
    server: KillOnDrop,
    client: Client,
    _config: tempfile::NamedTempFile,
}

impl Policed {
    fn start(name: &str) -> Policed {
        let disk = SmallDisk::mount(24);
        let port = free_port();
        // The data file may meet the full disk too; `ignore` keeps its policy out of the way.
        let config = config_file(&format!(
            "commit_failure_policy: {name}\ndisk_failure_policy: ignore\n"
        ));
        let args: Vec<OsString> = vec!["--config".into(), config.path().into()];
        let server = KillOnDrop(start_with(disk.dir.path(), port, "batch", &args));
        let mut client = Client::connect(port);
        for statement in SCHEMA {
            client.query(statement);
        }
        Policed {
            disk,
            port,
            server,
            client,
            _config: config,
        }
    }
}

/// Every acknowledged row is there after a restart with room on the disk.
fn all_there(disk: &SmallDisk, acked: &[i32]) {
    disk.grow(256);
    let port = free_port();
    let _server = KillOnDrop(start(disk.dir.path(), port, "batch"));
    let mut client = Client::connect(port);
    let stored = client.ints("SELECT c FROM ks.t WHERE k = 1");
    let lost = acked.iter().filter(|c| !stored.contains(c)).count();
    assert_eq!(lost, 0, "{lost} of {} acknowledged rows lost", acked.len());
}

fn wait_exit(server: &mut Child, within: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if let Some(status) = server.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[test]
fn stop_closes_the_port_and_keeps_the_process_up() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Policed {
        disk,
        port,
        mut server,
        mut client,
        ..
    } = Policed::start("stop");
    let (acked, message) = fill(&mut client);
    assert!(message.contains("No space left on device"), "{message}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
        assert!(Instant::now() < deadline, "the port stays open under stop");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        server.0.try_wait().unwrap().is_none(),
        "the process stays up"
    );
    // SIGTERM still stops it cleanly.
    let pid = server.0.id().to_string();
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    let status = wait_exit(&mut server.0, Duration::from_secs(20)).expect("exits on SIGTERM");
    assert!(status.success(), "{status:?}");
    all_there(&disk, &acked);
}

#[test]
fn stop_commit_refuses_writes_and_serves_reads() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Policed {
        disk,
        server,
        mut client,
        ..
    } = Policed::start("stop_commit");
    let (acked, _) = fill(&mut client);
    disk.grow(256);
    // Room again, but the log has stopped: writes stay refused, reads go on.
    let refused = client.call(&query_request(
        "INSERT INTO ks.t (k, c, v) VALUES (2, 0, 0x00)",
    ));
    let Response::Error(err) = refused else {
        panic!("a write after stop_commit: {refused:?}");
    };
    assert!(
        err.message.contains("commit_failure_policy: stop_commit"),
        "{}",
        err.message
    );
    assert_eq!(
        client.ints("SELECT c FROM ks.t WHERE k = 1").len(),
        acked.len()
    );
    drop(server);
    all_there(&disk, &acked);
}

#[test]
fn die_exits_with_cassandras_status() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Policed {
        disk,
        mut server,
        mut client,
        ..
    } = Policed::start("die");
    let blob = "ab".repeat(16 * 1024);
    let mut acked = Vec::new();
    for c in 0..4000 {
        let text = format!("INSERT INTO ks.t (k, c, v) VALUES (1, {c}, 0x{blob})");
        match client.try_call(&query_request(&text)) {
            Ok(Response::Result(_)) => acked.push(c),
            _ => break,
        }
    }
    let status = wait_exit(&mut server.0, Duration::from_secs(20)).expect("the process exits");
    assert_eq!(status.code(), Some(100));
    all_there(&disk, &acked);
}
