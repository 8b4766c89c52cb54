//! Durability of the real binary: in `batch` sync mode an acknowledged write survives
//! `kill -9`; in both modes a SIGTERM shutdown keeps everything.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use cql::frame::request::{Query, QueryParameters, Request, Startup};
use cql::frame::response::{Response, ResultBody};
use cql::frame::{decode_response, encode_request_frame, parse_header, HEADER_LEN};

/// The tests start real server processes on ports found free a moment before; running them
/// one at a time keeps one test from picking a port another test's server is about to take.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start(dir: &std::path::Path, port: u16, sync: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_server"))
        .args(["--port", &port.to_string(), "--data-dir"])
        .arg(dir)
        .args(["--commitlog-sync", sync])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start server")
}

/// A minimal blocking client speaking raw v4 frames.
struct Client {
    stream: TcpStream,
}

impl Client {
    fn connect(port: u16) -> Client {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match TcpStream::connect(("127.0.0.1", port)) {
                Ok(stream) => {
                    let mut client = Client { stream };
                    let startup = Startup {
                        options: vec![("CQL_VERSION".into(), "3.0.0".into())],
                    };
                    assert!(matches!(
                        client.call(&Request::Startup(startup)),
                        Response::Ready
                    ));
                    return client;
                }
                Err(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Err(err) => panic!("server did not start: {err}"),
            }
        }
    }

    fn call(&mut self, request: &Request) -> Response {
        self.stream
            .write_all(&encode_request_frame(1, request, None))
            .unwrap();
        let mut header = [0u8; HEADER_LEN];
        self.stream.read_exact(&mut header).unwrap();
        let header = parse_header(&header).unwrap();
        let mut body = BytesMut::zeroed(header.length as usize);
        self.stream.read_exact(&mut body).unwrap();
        decode_response(&header, &body.freeze(), None, usize::MAX)
            .unwrap()
            .response
    }

    fn query(&mut self, text: &str) -> Response {
        let params = QueryParameters {
            consistency: 1,
            values: Vec::new(),
            value_names: None,
            skip_metadata: false,
            page_size: None,
            paging_state: None,
            serial_consistency: None,
            default_timestamp: None,
        };
        let response = self.call(&Request::Query(Query {
            query: text.into(),
            params,
        }));
        assert!(
            matches!(response, Response::Result(_)),
            "{text}: {response:?}"
        );
        response
    }

    fn count(&mut self, text: &str) -> usize {
        match self.query(text) {
            Response::Result(ResultBody::Rows(rows)) => rows.rows.len(),
            other => panic!("{other:?}"),
        }
    }
}

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
