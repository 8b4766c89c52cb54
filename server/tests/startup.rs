//! What a program starting `cqld` relies on: `--port 0` and the first stdout line that
//! names the port, `/ready`, and `--init-cql` scripts run before the port opens.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use support::{Client, KillOnDrop};

/// Starts the binary in memory on any free port with `args`, stdout piped.
fn start(args: &[&str]) -> KillOnDrop {
    let child = Command::new(env!("CARGO_BIN_EXE_cqld"))
        .args(["--in-memory", "--port", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start cqld");
    KillOnDrop(child)
}

/// The next line of the server's stdout.
fn next_line(stdout: &mut BufReader<ChildStdout>) -> String {
    let mut line = String::new();
    stdout.read_line(&mut line).expect("read stdout");
    line
}

/// The address a line `<prefix> <address>` names.
fn address_after(line: &str, prefix: &str) -> SocketAddr {
    line.trim_end()
        .strip_prefix(prefix)
        .and_then(|rest| rest.trim().parse().ok())
        .unwrap_or_else(|| panic!("expected `{prefix} <address>`, got {line:?}"))
}

/// One HTTP request; the status line and body.
fn http(address: SocketAddr, method: &str, path: &str) -> (String, String) {
    let mut stream = std::net::TcpStream::connect(address).expect("connect HTTP");
    write!(stream, "{method} {path} HTTP/1.1\r\nHost: x\r\n\r\n").expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head.lines().next().unwrap_or_default().to_string();
    (status, body.to_string())
}

/// With `--port 0` the first stdout line names the port taken, and clients connect there at
/// once; the HTTP door's line follows, and `/ready` is 200.
#[test]
fn port_zero_is_announced_on_the_first_stdout_line() {
    let mut server = start(&["--http-address", "127.0.0.1:0"]);
    let mut stdout = BufReader::new(server.0.stdout.take().expect("stdout"));
    let cql = address_after(&next_line(&mut stdout), "listening for CQL clients on");
    assert_ne!(cql.port(), 0);
    let mut client = Client::try_connect(cql.port()).expect("connects at once");
    client.query("SELECT release_version FROM system.local");
    let http_address = address_after(&next_line(&mut stdout), "serving HTTP on");
    let (status, body) = http(http_address, "GET", "/ready");
    assert_eq!(status, "HTTP/1.1 200 OK", "{body}");
    assert!(
        body.contains(&format!("\"cql_address\":\"{cql}\"")),
        "{body}"
    );
}

/// Two servers started with `--port 0` at once take two ports.
#[test]
fn parallel_servers_never_collide() {
    let mut first = start(&[]);
    let mut second = start(&[]);
    let port = |server: &mut KillOnDrop| {
        let mut stdout = BufReader::new(server.0.stdout.take().expect("stdout"));
        address_after(&next_line(&mut stdout), "listening for CQL clients on").port()
    };
    let (a, b) = (port(&mut first), port(&mut second));
    assert_ne!(a, b);
    for port in [a, b] {
        Client::try_connect(port).expect("each serves");
    }
}

/// Writes `files` (name, text) into `dir`.
fn write_scripts(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write script");
    }
}

/// A directory's `*.cql` files run in name order before the port opens: what they wrote is
/// there for the first client; other files are skipped.
#[test]
fn init_scripts_run_in_name_order_before_the_port_opens() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_scripts(
        dir.path(),
        &[
            (
                "10-schema.cql",
                "CREATE KEYSPACE app WITH replication = \
                 {'class': 'SimpleStrategy', 'replication_factor': 1};\n\
                 USE app;\n-- the table the seed file fills\n\
                 CREATE TABLE users (id int PRIMARY KEY, name text);\n",
            ),
            (
                "20-seed.cql",
                "INSERT INTO app.users (id, name) VALUES (1, 'ada');\n\
                 INSERT INTO app.users (id, name) VALUES (2, 'bob');",
            ),
            ("README.txt", "not CQL; skipped"),
        ],
    );
    let script_dir = dir.path().to_str().expect("utf-8 path");
    let mut server = start(&["--init-cql", script_dir]);
    let mut stdout = BufReader::new(server.0.stdout.take().expect("stdout"));
    let cql = address_after(&next_line(&mut stdout), "listening for CQL clients on");
    let mut client = Client::try_connect(cql.port()).expect("connects");
    let mut ids = client.ints("SELECT id FROM app.users");
    ids.sort_unstable();
    assert_eq!(ids, [1, 2]);
}

/// A failing statement stops the start, naming the file, the line the statement starts on
/// and Cassandra's message; the port never opens.
#[test]
fn a_failing_init_script_stops_the_start_naming_file_and_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_scripts(
        dir.path(),
        &[(
            "schema.cql",
            "CREATE KEYSPACE app WITH replication = \
             {'class': 'SimpleStrategy', 'replication_factor': 1};\n\n\
             CREATE TABLE app.t (k int PRIMARY KEY);\n\
             INSERT INTO app.missing (k) VALUES (1);\n",
        )],
    );
    let file = dir.path().join("schema.cql");
    let child = Command::new(env!("CARGO_BIN_EXE_cqld"))
        .args(["--in-memory", "--port", "0", "--init-cql"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start cqld");
    let output = wait_exit(child);
    assert!(!output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("listening"), "{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let expected = format!("{}:4: table missing does not exist", file.display());
    assert!(
        stderr.to_lowercase().contains(&expected.to_lowercase()),
        "expected {expected:?} in {stderr}"
    );
}

/// Waits (at most 30 s) for a server to exit by itself; its output.
fn wait_exit(mut child: Child) -> std::process::Output {
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "the start is refused");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}
