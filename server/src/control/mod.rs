//! Test controls (ours, not Cassandra's): what a test needs beyond a database — readiness,
//! reset, snapshots, injected faults, a query log and a movable clock. One surface with two
//! doors: HTTP/JSON on `http_address` ([`http`]) and CQL on the virtual keyspace
//! [`KEYSPACE`] ([`cql`]); both turn a request into a [`Command`] run by [`command::run`].
//!
//! Off unless asked for on disk (`test_controls: true`); on by default with `--in-memory`,
//! where the server is a test server. When off, the keyspace does not exist and no request
//! pays for any of it.

pub(crate) mod command;
pub(crate) mod cql;
pub(crate) mod error;
pub(crate) mod faults;
pub(crate) mod http;
pub(crate) mod init_script;
pub(crate) mod query_log;
pub(crate) mod snapshots;
pub(crate) mod tables;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

pub(crate) use command::Command;
pub(crate) use error::ControlError;
pub(crate) use tables::keyspace_def;

/// The virtual keyspace of the CQL door.
pub(crate) const KEYSPACE: &str = "test_control";

/// The node's test controls (held by [`crate::node::Node`]).
#[derive(Debug, Default)]
pub(crate) struct Controls {
    /// Whether the controls are on (`test_controls`).
    enabled: bool,
    /// Set once CQL clients are accepted (and the default role exists).
    ready: AtomicBool,
    /// Where CQL clients are accepted, once bound.
    cql_address: OnceLock<SocketAddr>,
    /// Where the HTTP door listens, once bound.
    http_address: OnceLock<SocketAddr>,
    /// Injected faults (see [`faults`]).
    faults: faults::Faults,
    /// The log of requests received (see [`query_log`]).
    queries: query_log::QueryLog,
    /// Whether the `init_cql` scripts ran.
    initialized: AtomicBool,
    /// The HTTP door's accept loop, stopped with the node.
    http_task: std::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Controls {
    /// The controls of a node, on when `enabled`, the query log holding at most
    /// `query_log_size` entries.
    pub(crate) fn new(enabled: bool, query_log_size: usize) -> Controls {
        Controls {
            enabled,
            queries: query_log::QueryLog::new(if enabled { query_log_size } else { 0 }),
            ..Controls::default()
        }
    }

    /// Whether the controls are on.
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// Whether CQL clients are accepted.
    pub(crate) fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// Marks the node ready: CQL clients are accepted on `address`.
    pub(crate) fn mark_ready(&self, address: SocketAddr) {
        let _ = self.cql_address.set(address);
        self.ready.store(true, Ordering::Release);
    }

    /// Where CQL clients are accepted, once they are.
    pub(crate) fn cql_address(&self) -> Option<SocketAddr> {
        self.cql_address.get().copied()
    }

    /// Records where the HTTP door listens.
    pub(crate) fn set_http_address(&self, address: SocketAddr) {
        let _ = self.http_address.set(address);
    }

    /// Where the HTTP door listens, if it does.
    pub(crate) fn http_address(&self) -> Option<SocketAddr> {
        self.http_address.get().copied()
    }

    /// Keeps the HTTP door's accept loop, to stop it with the node.
    pub(crate) fn keep_http_task(&self, task: tokio::task::JoinHandle<()>) {
        let mut slot = self.http_task.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(old) = slot.replace(task) {
            old.abort();
        }
    }

    /// Stops the HTTP door's accept loop.
    pub(crate) fn stop_http(&self) {
        let task = self
            .http_task
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(task) = task {
            task.abort();
        }
    }

    /// Marks the `init_cql` scripts run; whether they had run already.
    pub(crate) fn mark_initialized(&self) -> bool {
        self.initialized.swap(true, Ordering::AcqRel)
    }

    /// The injected faults.
    pub(crate) fn faults(&self) -> &faults::Faults {
        &self.faults
    }

    /// The query log.
    pub(crate) fn queries(&self) -> &query_log::QueryLog {
        &self.queries
    }
}
