//! The Cassandra-compatible CQL server.
//!
//! - [`listener`]: accept loop, connection limit, shutdown fan-out.
//! - `connection_threads`: one single-threaded runtime per core, holding connections.
//! - [`connection`]: one task per client socket: reads envelopes, drives their requests,
//!   writes the answers that are ready together.
//! - [`tls`]: client-to-server TLS (`client_encryption_options`), rustls.
//! - [`session`]: per-connection state (STARTUP done, keyspace, compression, events).
//! - [`handler`]: one module per request opcode; each returns a response value.
//! - [`clock`]: the node's time: now, write timestamps, a test offset.
//! - [`node`]: state shared by all connections (storage, schema, prepared cache, clock).
//! - [`schema`]: the schema snapshot (user catalog plus the virtual system keyspaces).
//! - [`planner`]: pure, synchronous planning of statements against a schema snapshot.
//! - [`executor`]: runs plans against storage.
//! - [`system`]: `system.*`, `system_schema.*` and `system_virtual_schema.*` tables.
//! - [`vector`]: the HNSW graphs of SAI vector indexes, for approximate vector search.
//! - [`purge`]: the background purge of expired cells and old tombstones.
//! - [`describe`]: server-side `DESCRIBE`.
//! - [`json`]: `SELECT JSON`, `INSERT JSON`, `toJson`/`fromJson` and JSON text per type.
//! - [`error`]: `CqlError`, the one place that picks CQL error codes.
//! - [`metrics`]: request, error, connection and row counters; the `/metrics` endpoint.
//! - [`spawn`](spawn()): a server on the caller's tokio runtime (tests): any free port, in
//!   memory, its address known.

mod answer;
pub(crate) mod auth;
pub(crate) mod authz;
pub(crate) mod clients;
pub(crate) mod clock;
pub(crate) mod commit_failure;
pub mod config;
pub mod connection;
mod connection_threads;
pub(crate) mod consistency;
pub(crate) mod datetime;
pub(crate) mod describe;
mod describe_internals;
mod describe_table;
mod describe_text;
mod describe_view;
mod envelope;
pub(crate) mod error;
pub(crate) mod executor;
mod framing;
pub(crate) mod functions;
pub mod guardrails;
pub mod handler;
pub(crate) mod hot_partitions;
pub(crate) mod inflight;
pub(crate) mod java_text;
pub(crate) mod json;
pub(crate) mod listener;
pub(crate) mod literals;
pub mod metrics;
pub mod node;
pub mod planner;
pub(crate) mod prepared;
pub(crate) mod prometheus;
pub mod purge;
mod redact;
pub(crate) mod schema;
pub mod session;
pub(crate) mod shutdown;
mod spawn;
pub(crate) mod system;
pub(crate) mod table_def;
pub mod tls;
pub(crate) mod trace;
pub(crate) mod values;
pub(crate) mod vector;
pub(crate) mod warnings;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;

pub use config::Config;
pub use node::Node;
pub use spawn::{spawn, SpawnedServer};

/// What `cqld --version` prints after the name: this build's version and the Cassandra it
/// answers as (the `release_version` and `cql_version` clients read from `system.local`).
pub static VERSION_LINE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "{} (answers as Apache Cassandra {}, CQL {}, native protocol v3, v4 and v5)",
        env!("CARGO_PKG_VERSION"),
        system::local::RELEASE_VERSION,
        system::local::CQL_VERSION
    )
});

/// Errors that stop the server as a whole.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("storage error: {0}")]
    Storage(#[from] storage::StorageError),
    #[error("data directory: {0}")]
    DataDir(String),
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("cannot create the default role: {0}")]
    DefaultRole(String),
    #[error("the server's task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// Opens storage, then serves CQL clients on `listener` until `shutdown` completes. Storage is
/// closed (with a final durable commit) after every connection has stopped.
///
/// # Errors
/// Storage cannot be opened or the listener fails irrecoverably.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    let node = Arc::new(Node::open(config)?);
    serve_node(listener, node, shutdown).await
}

/// Serves CQL clients of an already opened `node` until `shutdown` completes, then closes its
/// storage. Lets an embedding process (the integration tests) keep a handle on the node.
///
/// # Errors
/// The listener fails irrecoverably.
pub async fn serve_node(
    listener: TcpListener,
    node: Arc<Node>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    executor::roles::ensure_default_role(&node)
        .await
        .map_err(|err| ServerError::DefaultRole(err.to_string()))?;
    if let Some(every) = node.config.purge_interval {
        purge::spawn_periodic(&node, every);
    }
    let metrics = match node.config.metrics_address {
        Some(address) => Some(serve_metrics(address, &node).await?),
        None => None,
    };
    tokio::pin!(shutdown);
    let mut signalled = false;
    let stopping = async {
        tokio::select! {
            () = &mut shutdown => signalled = true,
            () = node.transports.wait_stopped() => {}
        }
    };
    let result = listener::serve(listener, node.clone(), stopping).await;
    if !signalled && node.transports.stopped() {
        // Cassandra's `stop`: no client is served, the process stays up to be looked at.
        tracing::warn!(
            "clients are no longer served (commit_failure_policy or disk_failure_policy); stop the server to restart it"
        );
        shutdown.await;
    }
    if let Some(task) = metrics {
        task.abort();
    }
    node.close();
    result
}

/// Binds `address` and answers metrics scrapes there on a task of its own.
async fn serve_metrics(
    address: std::net::SocketAddr,
    node: &Arc<Node>,
) -> Result<tokio::task::JoinHandle<()>, ServerError> {
    let listener = TcpListener::bind(address)
        .await
        .map_err(|err| ServerError::Config(format!("metrics_address {address}: {err}")))?;
    let bound = listener.local_addr()?;
    tracing::info!(address = %bound, "serving metrics at /metrics");
    Ok(tokio::spawn(prometheus::http::serve(
        listener,
        node.clone(),
    )))
}
