//! cqld: a Cassandra-compatible CQL server in one process.
//!
//! A request's path, folder by folder (`docs/architecture.md` draws it):
//! - `transport/`: the listener, the connection threads, each connection's framing
//!   (envelopes, v5 segments, compression), TLS, in-flight limits, the session it carries.
//! - `handler/`: one module per request opcode (STARTUP, AUTH_RESPONSE, QUERY, PREPARE,
//!   EXECUTE, BATCH, REGISTER, OPTIONS); `auth/` checks who a client is and what it may do.
//! - `planner/`: pure, synchronous planning of a statement against a schema snapshot, by
//!   family: `select/`, `modify/`, `ddl/`, `access/`, and `common/` (restrictions, bind
//!   markers) they share.
//! - `executor/`: runs plans against storage: `read/`, `write/`, `schema/`, `access/`.
//! - `eval/`: values, literals, functions, JSON and dates; `schema/`: the schema snapshot
//!   and table definitions; `system/`: the virtual `system*` tables; `describe/`: DESCRIBE;
//!   `vector/`: the HNSW graphs of vector indexes.
//! - `control/`: the test controls (ours): readiness, reset, snapshots, faults, the query
//!   log and the clock, over HTTP and the `test_control` keyspace.
//! - `node/`: what all connections share (storage, schema, prepared statements, the clock,
//!   the background purge); `telemetry/`: metrics, tracing, warnings; `guardrails/`:
//!   Cassandra's guardrails; `error/`: `CqlError`, the one place that picks error codes.
//!
//! An embedder needs [`run`] or [`serve_node`] (or [`spawn`] for a test server), a
//! [`Config`] and the [`Node`] handle.

#[cfg(feature = "bench-internals")]
pub mod bench;
pub mod config;

pub(crate) mod auth;
pub(crate) mod cluster;
pub(crate) mod control;
pub(crate) mod describe;
pub(crate) mod error;
pub(crate) mod eval;
pub(crate) mod executor;
pub(crate) mod guardrails;
pub(crate) mod handler;
pub(crate) mod node;
pub(crate) mod planner;
pub(crate) mod schema;
mod spawn;
pub(crate) mod system;
pub(crate) mod telemetry;
pub(crate) mod transport;
pub(crate) mod vector;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;

pub use config::Config;
pub use node::purge::PurgeReport;
pub use node::Node;
pub use spawn::{spawn, SpawnedServer};
pub use transport::tls::TlsError;

/// Checks the client TLS key material `config` names (`client_encryption_options`), so that
/// a start can be refused before any port is bound.
///
/// # Errors
/// A keystore or truststore cannot be read or does not hold what TLS needs.
pub fn check_client_tls(config: &Config) -> Result<(), TlsError> {
    transport::tls::load(&config.client_encryption).map(|_| ())
}

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
    #[error("invalid configuration: {0}")]
    Tls(#[from] TlsError),
    #[error("cannot create the default role: {0}")]
    DefaultRole(String),
    #[error("init_cql: {0}")]
    InitCql(String),
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

/// Makes an opened `node` ready for clients, before its CQL port opens: creates the default
/// role (with `PasswordAuthenticator`) and runs the `init_cql` scripts. Idempotent;
/// [`serve_node`] calls it too.
///
/// # Errors
/// The default role cannot be created; an `init_cql` script fails (the error names the
/// file, the line and Cassandra's message).
pub async fn prepare(node: &Arc<Node>) -> Result<(), ServerError> {
    executor::access::roles::ensure_default_role(node)
        .await
        .map_err(|err| ServerError::DefaultRole(err.to_string()))?;
    control::init_script::run_once(node)
        .await
        .map_err(ServerError::InitCql)
}

/// Starts the HTTP endpoint (`/metrics`, `/ready`, the test controls) on `http_address`
/// when one is set and it is not started yet; the address it is bound to.
///
/// # Errors
/// The address cannot be bound.
pub async fn start_http(node: &Arc<Node>) -> Result<Option<std::net::SocketAddr>, ServerError> {
    if let Some(bound) = node.controls().http_address() {
        return Ok(Some(bound));
    }
    let Some(address) = node.config().http_address else {
        return Ok(None);
    };
    let listener = TcpListener::bind(address)
        .await
        .map_err(|err| ServerError::Config(format!("http_address {address}: {err}")))?;
    let bound = listener.local_addr()?;
    node.controls().set_http_address(bound);
    tracing::info!(address = %bound, "serving HTTP (/metrics, /ready, test controls)");
    let task = tokio::spawn(control::http::serve(listener, node.clone()));
    node.controls().keep_http_task(task);
    Ok(Some(bound))
}

/// On a simulated cluster, binds every node but the first (whose listener is `first`) on
/// `first`'s port, so that all accept connections once the first does. Idempotent;
/// [`serve_node`] calls it too.
///
/// # Errors
/// A node's address cannot be bound.
pub async fn bind_simulated_nodes(
    node: &Arc<Node>,
    first: &TcpListener,
) -> Result<(), ServerError> {
    if let Some(cluster) = node.cluster() {
        cluster
            .bind_others(first.local_addr()?.port())
            .await
            .map_err(|err| ServerError::Config(err.to_string()))?;
    }
    Ok(())
}

/// Serves CQL clients of an already opened `node` on `listener` until `shutdown`
/// completes, then closes its storage. [`prepare`]s the node and starts its HTTP endpoint
/// first, if the caller did not. Lets an embedding process (the integration tests) keep a
/// handle on the node.
///
/// # Errors
/// Preparing the node fails, the HTTP address cannot be bound, or the listener fails
/// irrecoverably.
pub async fn serve_node(
    listener: TcpListener,
    node: Arc<Node>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    prepare(&node).await?;
    start_http(&node).await?;
    if let Some(every) = node.config().purge_interval {
        node::purge::spawn_periodic(&node, every);
    }
    bind_simulated_nodes(&node, &listener).await?;
    node.controls().mark_ready(listener.local_addr()?);
    tokio::pin!(shutdown);
    let mut signalled = false;
    let stopping = async {
        tokio::select! {
            () = &mut shutdown => signalled = true,
            () = node.transports().wait_stopped() => {}
        }
    };
    let result = transport::listener::serve(listener, node.clone(), stopping).await;
    if !signalled && node.transports().stopped() {
        // Cassandra's `stop`: no client is served, the process stays up to be looked at.
        tracing::warn!(
            "clients are no longer served (commit_failure_policy or disk_failure_policy); stop the server to restart it"
        );
        shutdown.await;
    }
    node.controls().stop_http();
    node.close();
    result
}
