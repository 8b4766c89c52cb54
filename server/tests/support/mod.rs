//! What the process-level tests share: starting the real server binary on a free port, and
//! a minimal blocking client speaking raw v4 frames.

#![allow(dead_code)] // each test binary uses its own part

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use cql::frame::request::{Query, QueryParameters, Request, Startup};
use cql::frame::response::{Response, ResultBody};
use cql::frame::{decode_response, encode_request_frame, parse_header, HEADER_LEN};

pub(crate) mod pytest;
pub(crate) mod snippets;

/// The tests start real server processes on ports found free a moment before; running them
/// one at a time keeps one test from picking a port another test's server is about to take.
pub(crate) static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(crate) fn start(dir: &std::path::Path, port: u16, sync: &str) -> Child {
    start_with(dir, port, sync, &[])
}

/// [`start`] with more arguments (`--config FILE`, `-Dname=value`).
pub(crate) fn start_with(
    dir: &std::path::Path,
    port: u16,
    sync: &str,
    args: &[std::ffi::OsString],
) -> Child {
    let mut command = server_command(dir, port, sync, args);
    // `TEST_SERVER_LOG=<file>` keeps the server's log, to see what a failing test's server did.
    let log = std::env::var_os("TEST_SERVER_LOG")
        .and_then(|path| std::fs::File::create(path).ok())
        .map_or(Stdio::null(), Stdio::from);
    command
        .stdout(log)
        .stderr(Stdio::null())
        .spawn()
        .expect("start server")
}

/// The command that starts the server binary on `dir` and `port` in sync mode `sync`.
pub(crate) fn server_command(
    dir: &std::path::Path,
    port: u16,
    sync: &str,
    args: &[std::ffi::OsString],
) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cqld"));
    command
        .args(["--port", &port.to_string(), "--data-dir"])
        .arg(dir)
        .args(["--commitlog-sync", sync])
        .args(args);
    if sync == "group" {
        command.args(["--commitlog-sync-group-window", "5ms"]);
    }
    command
}

/// A YAML configuration file holding `yaml`.
pub(crate) fn config_file(yaml: &str) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), yaml).unwrap();
    file
}

/// A tmpfs of `mib` MiB mounted on a new temporary directory; unmounted on drop.
pub(crate) struct SmallDisk {
    pub(crate) dir: tempfile::TempDir,
}

impl SmallDisk {
    pub(crate) fn mount(mib: u32) -> SmallDisk {
        let dir = tempfile::tempdir().unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={mib}m"), "tmpfs"])
            .arg(dir.path())
            .status()
            .expect("run mount");
        assert!(
            status.success(),
            "this test mounts a small tmpfs and needs root"
        );
        SmallDisk { dir }
    }

    pub(crate) fn grow(&self, mib: u32) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,size={mib}m")])
            .arg(self.dir.path())
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// A minimal blocking client speaking raw v4 frames.
pub(crate) struct Client {
    pub(crate) stream: TcpStream,
}

impl Client {
    pub(crate) fn connect(port: u16) -> Client {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match Client::try_connect(port) {
                Ok(client) => return client,
                Err(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Err(err) => panic!("server did not start: {err}"),
            }
        }
    }

    /// One attempt to connect and complete STARTUP.
    pub(crate) fn try_connect(port: u16) -> std::io::Result<Client> {
        // Before the server listens, a connection to an ephemeral port can connect the
        // socket to itself (TCP simultaneous open), or meet a socket on its way out: such a
        // connection is refused here, and the caller tries again.
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        if stream.local_addr()? == stream.peer_addr()? {
            return Err(std::io::ErrorKind::AddrInUse.into());
        }
        let mut client = Client { stream };
        let startup = Startup {
            options: vec![("CQL_VERSION".into(), "3.0.0".into())],
        };
        match client.try_call(&Request::Startup(startup))? {
            Response::Ready => Ok(client),
            other => Err(std::io::Error::other(format!("{other:?}"))),
        }
    }

    pub(crate) fn call(&mut self, request: &Request) -> Response {
        self.try_call(request).expect("server answers")
    }

    /// Sends a request and reads its answer; `Err` once the server is gone.
    pub(crate) fn try_call(&mut self, request: &Request) -> std::io::Result<Response> {
        self.stream
            .write_all(&encode_request_frame(1, request, None))?;
        let mut header = [0u8; HEADER_LEN];
        self.stream.read_exact(&mut header)?;
        let header = parse_header(&header).ok_or(std::io::ErrorKind::InvalidData)?;
        let mut body = BytesMut::zeroed(header.length as usize);
        self.stream.read_exact(&mut body)?;
        decode_response(&header, &body.freeze(), None, usize::MAX)
            .map(|frame| frame.response)
            .map_err(|_| std::io::ErrorKind::InvalidData.into())
    }

    pub(crate) fn query(&mut self, text: &str) -> Response {
        let response = self.call(&query_request(text));
        assert!(
            matches!(response, Response::Result(_)),
            "{text}: {response:?}"
        );
        response
    }

    pub(crate) fn count(&mut self, text: &str) -> usize {
        match self.query(text) {
            Response::Result(ResultBody::Rows(rows)) => rows.rows.len(),
            other => panic!("{other:?}"),
        }
    }

    /// The int values of the first column of a query's rows.
    pub(crate) fn ints(&mut self, text: &str) -> Vec<i32> {
        match self.query(text) {
            Response::Result(ResultBody::Rows(rows)) => rows
                .rows
                .iter()
                .map(|row| {
                    let cell = row[0].as_ref().expect("non-null");
                    i32::from_be_bytes(cell.as_ref().try_into().expect("an int"))
                })
                .collect(),
            other => panic!("{other:?}"),
        }
    }
}

pub(crate) fn query_request(text: &str) -> Request {
    let params = QueryParameters {
        consistency: 1,
        values: Vec::new(),
        value_names: None,
        skip_metadata: false,
        page_size: None,
        paging_state: None,
        serial_consistency: None,
        default_timestamp: None,
        keyspace: None,
        now_in_seconds: None,
    };
    Request::Query(Query {
        query: text.into(),
        params,
    })
}

/// Kills the server when the test ends, a failing assertion's unwinding included.
pub(crate) struct KillOnDrop(pub(crate) Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
