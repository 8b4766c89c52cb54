//! The server a fixture is written and read with: the real binary with roles, permissions,
//! materialized views and the test controls (snapshots) enabled, clients that log in, and
//! the two ways it stops.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use bytes::Bytes;
use cql::frame::request::{AuthResponse, Request, Startup};
use cql::frame::response::Response;

use crate::render::{self, Entry};
use crate::support::{config_file, free_port, query_request, start_with, Client, KillOnDrop};

/// The configuration every fixture is written and read with.
const CONFIG: &str = "\
authenticator: PasswordAuthenticator
authorizer: CassandraAuthorizer
materialized_views_enabled: true
test_controls: true
";

/// The superuser's login (created by the server on a directory's first start).
pub(crate) const SUPERUSER: &str = "cassandra/cassandra";

/// A running server on a data directory.
pub(crate) struct Server {
    process: KillOnDrop,
    port: u16,
    dir: PathBuf,
    /// One logged-in client per login (bcrypt makes each login slow in a debug build).
    clients: RefCell<HashMap<String, Client>>,
    _config: tempfile::NamedTempFile,
}

impl Server {
    /// Starts the binary on `dir` and waits until the superuser can log in.
    pub(crate) fn start(dir: &Path) -> Server {
        let config = config_file(CONFIG);
        let args: Vec<OsString> = vec!["--config".into(), config.path().into()];
        let port = free_port();
        let process = KillOnDrop(start_with(dir, port, "periodic", &args));
        let server = Server {
            process,
            port,
            dir: dir.to_owned(),
            clients: RefCell::new(HashMap::new()),
            _config: config,
        };
        server.run(SUPERUSER, "SELECT release_version FROM system.local");
        server
    }

    /// A client logged in as `login` (`user/password`), trying until the server answers.
    pub(crate) fn login(&self, login: &str) -> Client {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match try_login(self.port, login) {
                Ok(client) => return client,
                Err(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                Err(err) => panic!("cannot log in as {login}: {err}"),
            }
        }
    }

    /// Runs `query` as `login` and renders the answer.
    pub(crate) fn run(&self, login: &str, query: &str) -> Vec<String> {
        render::response(&self.call(login, query))
    }

    /// The answer to `query` run as `login`.
    fn call(&self, login: &str, query: &str) -> Response {
        let mut clients = self.clients.borrow_mut();
        let client = clients
            .entry(login.to_owned())
            .or_insert_with(|| self.login(login));
        client.call(&query_request(query))
    }

    /// Runs each entry's query and returns the entries with the results found.
    pub(crate) fn check(&self, entries: &[Entry]) -> Vec<Entry> {
        entries
            .iter()
            .map(|entry| Entry {
                lines: self.run(&entry.login, &entry.query),
                ..entry.clone()
            })
            .collect()
    }

    /// Runs `statement` as the superuser; it must succeed.
    pub(crate) fn execute(&self, statement: &str) {
        let answer = self.call(SUPERUSER, statement);
        assert!(
            matches!(answer, Response::Result(_)),
            "{statement}: {answer:?}"
        );
    }

    /// SIGTERM, and the orderly shutdown that checkpoints the log into the data file.
    pub(crate) fn stop(mut self) -> PathBuf {
        let pid = self.process.0.id().to_string();
        let status = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(status.expect("run kill").success());
        let exit = self.process.0.wait().expect("wait for the server");
        assert!(exit.success(), "clean exit on SIGTERM: {exit}");
        self.dir.clone()
    }

    /// SIGKILL: no shutdown code runs, what was written since the last checkpoint is only
    /// in the commit log.
    pub(crate) fn kill(mut self) -> PathBuf {
        self.process.0.kill().expect("kill -9");
        self.process.0.wait().expect("wait for the server");
        self.dir.clone()
    }
}

/// Connects, starts up and answers the password challenge.
fn try_login(port: u16, login: &str) -> std::io::Result<Client> {
    let (user, password) = login.split_once('/').expect("user/password");
    let stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    if stream.local_addr()? == stream.peer_addr()? {
        return Err(std::io::ErrorKind::AddrInUse.into());
    }
    let mut client = Client { stream };
    let startup = Startup {
        options: vec![("CQL_VERSION".into(), "3.0.0".into())],
    };
    match client.try_call(&Request::Startup(startup))? {
        Response::Authenticate { .. } => {}
        other => return Err(std::io::Error::other(format!("{other:?}"))),
    }
    let token = Bytes::from(format!("\0{user}\0{password}"));
    let answer = AuthResponse { token: Some(token) };
    match client.try_call(&Request::AuthResponse(answer))? {
        Response::AuthSuccess(_) => Ok(client),
        other => Err(std::io::Error::other(format!("{other:?}"))),
    }
}
