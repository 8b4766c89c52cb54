//! Test harness: an in-process server per test, over a fresh temporary data directory (or in
//! memory), plus helpers to open driver sessions, speak raw frames, and read driver errors.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::BytesMut;
use cql::frame::request::{Query, QueryParameters, Request, Startup};
use cql::frame::response::Response;
use cql::frame::{encode_request_frame, parse_header, HEADER_LEN};
use futures::TryStreamExt;
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::deserialize::row::DeserializeRow;
use scylla::errors::{DbError, ExecutionError, PrepareError, RequestAttemptError};
use scylla::serialize::row::SerializeRow;
use scylla::statement::unprepared::Statement;
use server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A server running inside the test process.
pub struct TestServer {
    /// Where clients connect.
    pub addr: SocketAddr,
    node: std::sync::Arc<server::Node>,
    shutdown: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<Result<(), server::ServerError>>>,
}

/// Installs a test tracing subscriber once (respects `RUST_LOG`).
pub fn setup_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
}

impl TestServer {
    /// Starts a server with in-memory storage.
    pub async fn start() -> TestServer {
        TestServer::start_with(Config::default()).await
    }

    /// Starts a server whose data lives in `dir`.
    pub async fn start_in(dir: &Path) -> TestServer {
        let config = Config {
            data_dir: Some(PathBuf::from(dir)),
            ..Config::default()
        };
        TestServer::start_with(config).await
    }

    /// Starts a server with `config` on an ephemeral loopback port.
    pub async fn start_with(config: Config) -> TestServer {
        setup_tracing();
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let (tx, rx) = oneshot::channel::<()>();
        let node = std::sync::Arc::new(server::Node::open(config).expect("open node"));
        let handle = tokio::spawn(server::serve_node(listener, node.clone(), async {
            let _ = rx.await;
        }));
        TestServer {
            addr,
            node,
            shutdown: Some(tx),
            handle: Some(handle),
        }
    }

    /// Starts an in-memory server with its HTTP door (`/ready`, the test controls) on an
    /// ephemeral loopback port; [`TestServer::http`] talks to it.
    pub async fn start_with_http() -> TestServer {
        TestServer::start_with(Config {
            http_address: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
            ..Config::default()
        })
        .await
    }

    /// Sends one HTTP request to the server's HTTP door (started by
    /// [`TestServer::start_with_http`]): its status code and body as JSON (`Null` when the
    /// body is not JSON).
    pub async fn http(&self, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
        http_request(self.http_addr().await, method, path, body).await
    }

    /// Where the HTTP door (started by [`TestServer::start_with_http`]) listens, once it
    /// does: the server task binds it.
    pub async fn http_addr(&self) -> SocketAddr {
        loop {
            if let Some(address) = self.node.http_address() {
                return address;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// How many stored rows reads have examined since the server started (virtual system
    /// tables are not counted), to check that key-restricted reads stay narrow.
    pub fn rows_read(&self) -> u64 {
        self.node.rows_read()
    }

    /// Free slots of the storage writer's bounded queue (all of them once writes settle).
    pub fn write_queue_free(&self) -> usize {
        self.node.write_queue_free()
    }

    /// Moves the server's clock forward (TTL expiry, `gc_grace_seconds`) without sleeping.
    pub fn advance_clock(&self, by: Duration) {
        self.node.advance_clock(by);
    }

    /// Runs a purge of every table now, as the background purge does.
    pub async fn purge(&self) -> server::PurgeReport {
        let node = self.node.clone();
        tokio::task::spawn_blocking(move || node.purge())
            .await
            .expect("purge task")
            .expect("purge")
    }

    /// Writes the memtable into storage and makes it durable, as `nodetool flush` does: a
    /// table's rows become a sorted run (or go into its head when they are few).
    pub async fn flush(&self) {
        let node = self.node.clone();
        tokio::task::spawn_blocking(move || node.flush())
            .await
            .expect("flush task")
            .expect("flush");
    }

    /// Runs every merge of sorted runs that is due, now and unpaced, as `nodetool compact`
    /// asks; how many merges it made.
    pub async fn compact(&self) -> usize {
        let node = self.node.clone();
        tokio::task::spawn_blocking(move || node.compact())
            .await
            .expect("compact task")
            .expect("compact")
    }

    /// What table `keyspace.table` holds on disk.
    pub fn table_stats(&self, keyspace: &str, table: &str) -> storage::TableStats {
        self.node
            .table_stats(keyspace, table)
            .expect("table exists")
            .expect("table stats")
    }

    /// Opens a driver session.
    pub async fn session(&self) -> Session {
        SessionBuilder::new()
            .known_node_addr(self.addr)
            .build()
            .await
            .expect("driver session")
    }

    /// Opens a driver session that uses `compression`.
    pub async fn session_with_compression(
        &self,
        compression: scylla::frame::Compression,
    ) -> Session {
        SessionBuilder::new()
            .known_node_addr(self.addr)
            .compression(Some(compression))
            .build()
            .await
            .expect("driver session")
    }

    /// Stops the server and waits until storage is closed.
    pub async fn stop(mut self) {
        self.stop_inner().await;
    }

    async fn stop_inner(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(handle) = self.handle.take() {
            let result = tokio::time::timeout(Duration::from_secs(30), handle).await;
            match result {
                Ok(Ok(Ok(()))) => {}
                other => panic!("server did not stop cleanly: {other:?}"),
            }
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// A driver session whose current keyspace is a new SimpleStrategy (RF 1) keyspace.
pub async fn session_in(server: &TestServer, keyspace: &str) -> Session {
    let session = server.session().await;
    session
        .query_unpaged(
            format!(
                "CREATE KEYSPACE {keyspace} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}"
            ),
            &[],
        )
        .await
        .expect("create keyspace");
    session
        .use_keyspace(keyspace, false)
        .await
        .expect("use keyspace");
    session
}

/// Every row of an unpaged query, deserialized as `R`; panics on any error.
pub async fn query_rows<R>(
    session: &Session,
    cql: impl Into<Statement>,
    values: impl SerializeRow,
) -> Vec<R>
where
    R: for<'frame> DeserializeRow<'frame, 'frame>,
{
    let result = session.query_unpaged(cql, values).await.expect("query");
    let rows = result.into_rows_result().expect("rows result");
    let typed = rows.rows::<R>().expect("row types");
    typed.map(|row| row.expect("row")).collect()
}

/// The single row of an unpaged query, deserialized as `R`; panics otherwise.
pub async fn query_single_row<R>(
    session: &Session,
    cql: impl Into<Statement>,
    values: impl SerializeRow,
) -> R
where
    R: for<'frame> DeserializeRow<'frame, 'frame>,
{
    let result = session.query_unpaged(cql, values).await.expect("query");
    let rows = result.into_rows_result().expect("rows result");
    rows.single_row::<R>().expect("single row")
}

/// The number of rows an unpaged query returns.
pub async fn query_row_count(
    session: &Session,
    cql: impl Into<Statement>,
    values: impl SerializeRow,
) -> usize {
    let result = session.query_unpaged(cql, values).await.expect("query");
    result.into_rows_result().expect("rows result").rows_num()
}

/// The (code, message) with which the server rejects the unprepared statement `cql`; panics
/// if it succeeds or fails otherwise.
pub async fn query_error(session: &Session, cql: &str) -> (DbError, String) {
    let err = session.query_unpaged(cql, &[]).await.expect_err(cql);
    db_error(&err).unwrap_or_else(|| panic!("{cql}: not a database error: {err}"))
}

/// Every row of the unprepared `cql`, read page by page with `page_size`.
pub async fn query_all_pages<R>(session: &Session, cql: &str, page_size: i32) -> Vec<R>
where
    R: for<'frame, 'metadata> DeserializeRow<'frame, 'metadata>,
{
    let mut statement = Statement::new(cql);
    statement.set_page_size(page_size);
    session
        .query_iter(statement, &[])
        .await
        .expect("paged query")
        .rows_stream::<R>()
        .expect("row types")
        .try_collect()
        .await
        .expect("pages")
}

/// The database error (code and message) inside a driver error, if it is one.
pub fn db_error(err: &ExecutionError) -> Option<(DbError, String)> {
    match err {
        ExecutionError::LastAttemptError(RequestAttemptError::DbError(e, msg)) => {
            Some((e.clone(), msg.clone()))
        }
        ExecutionError::PrepareError(PrepareError::AllAttemptsFailed {
            first_attempt: RequestAttemptError::DbError(e, msg),
        }) => Some((e.clone(), msg.clone())),
        _ => None,
    }
}

/// The database error inside a prepare error.
pub fn prepare_db_error(err: &PrepareError) -> Option<(DbError, String)> {
    match err {
        PrepareError::AllAttemptsFailed {
            first_attempt: RequestAttemptError::DbError(e, msg),
        } => Some((e.clone(), msg.clone())),
        _ => None,
    }
}

/// A raw protocol connection for tests of framing and negotiation.
pub struct RawConnection {
    stream: TcpStream,
}

impl RawConnection {
    /// Connects to `addr`.
    pub async fn connect(addr: SocketAddr) -> RawConnection {
        RawConnection {
            stream: TcpStream::connect(addr).await.expect("connect"),
        }
    }

    /// Reads exactly `buf.len()` bytes; `false` at EOF, on error or after 10 s.
    pub async fn read_exact(&mut self, buf: &mut [u8]) -> bool {
        let read = tokio::time::timeout(Duration::from_secs(10), self.stream.read_exact(buf));
        matches!(read.await, Ok(Ok(_)))
    }

    /// Writes raw bytes.
    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("write");
    }

    /// Sends a v4 request on `stream`.
    pub async fn send(&mut self, stream: i16, request: &Request) {
        let frame = encode_request_frame(stream, request, None);
        self.send_bytes(&frame).await;
    }

    /// Reads one response frame: (header version, stream, response). `None` at EOF.
    pub async fn recv(&mut self) -> Option<(u8, i16, Response)> {
        let mut header = [0u8; HEADER_LEN];
        let read =
            tokio::time::timeout(Duration::from_secs(10), self.stream.read_exact(&mut header))
                .await;
        match read {
            Ok(Ok(_)) => {}
            _ => return None,
        }
        let header = parse_header(&header)?;
        let mut body = BytesMut::zeroed(header.length as usize);
        self.stream.read_exact(&mut body).await.ok()?;
        let decoded =
            cql::frame::decode_response(&header, &body.freeze(), None, usize::MAX).ok()?;
        Some((header.version, header.stream, decoded.response))
    }

    /// STARTUP with CQL_VERSION 3.0.0; panics unless READY comes back.
    pub async fn startup(&mut self) {
        let startup = Startup {
            options: vec![("CQL_VERSION".into(), "3.0.0".into())],
        };
        self.send(0, &Request::Startup(startup)).await;
        match self.recv().await {
            Some((_, 0, Response::Ready)) => {}
            other => panic!("expected READY, got {other:?}"),
        }
    }

    /// Sends a QUERY with default parameters.
    pub async fn query(&mut self, stream: i16, text: &str) {
        let query = Query {
            query: text.to_string(),
            params: default_params(),
        };
        self.send(stream, &Request::Query(query)).await;
    }
}

/// Query parameters with consistency ONE and nothing else.
pub fn default_params() -> QueryParameters {
    QueryParameters {
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
    }
}

/// Sends one HTTP/1.1 request to `address` and reads the whole response (the server closes
/// the connection): its status code and body as JSON (`Null` when the body is not JSON).
pub async fn http_request(
    address: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
) -> (u16, serde_json::Value) {
    let mut stream = TcpStream::connect(address).await.expect("connect HTTP");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .await
        .expect("send HTTP");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.expect("read HTTP");
    let text = String::from_utf8_lossy(&response);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("HTTP status line");
    let body = text.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    (status, serde_json::from_str(body).unwrap_or_default())
}

/// Runs pytest from the project's venv (created by `scripts/python-env.sh` on first use) on
/// `path`, relative to the repository, with `envs` set; fails the test unless pytest passed
/// and ran at least one test. Returns pytest's output.
pub async fn run_pytest(path: &'static str, envs: Vec<(&'static str, String)>) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = tokio::task::spawn_blocking(move || {
        let env = std::process::Command::new("bash")
            .arg(root.join("scripts/python-env.sh"))
            .output()
            .expect("run python-env.sh");
        assert!(
            env.status.success(),
            "venv setup failed: {}",
            String::from_utf8_lossy(&env.stderr)
        );
        let venv = PathBuf::from(String::from_utf8_lossy(&env.stdout).trim().to_string());
        std::process::Command::new(venv.join("bin/python"))
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"])
            .arg(root.join(path))
            .envs(envs)
            .output()
            .expect("run pytest")
    })
    .await
    .expect("pytest task");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}\n{stderr}");
    assert!(
        output.status.success(),
        "python client tests failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains(" passed"), "pytest ran no test:\n{stdout}");
    stdout
}
