//! `Node`: the state every connection shares — storage, the schema snapshot, the DDL lock,
//! the prepared-statement cache, the event broadcast, identity (host id, tokens) and the
//! write-timestamp clock.

use std::path::Path;
use std::sync::{Arc, RwLock};

use cql::frame::response::Event;
use storage::{Catalog, Store};
use tokio::sync::broadcast;
use tracing::info;
use uuid::Uuid;

use crate::clock::Clock;
use crate::config::Config;
use crate::inflight::Limits;
use crate::prepared::PreparedCache;
use crate::schema::Schema;
use crate::ServerError;

/// Shared server state.
pub struct Node {
    /// The configuration the server started with.
    pub config: Config,
    /// The row store.
    pub store: Store,
    schema: RwLock<Arc<Schema>>,
    /// Serialises schema changes so each one sees the result of the previous.
    pub ddl_lock: tokio::sync::Mutex<()>,
    /// Serialises lightweight transactions: each holds it from its read to its commit
    /// (see `executor::cas`).
    pub cas_lock: tokio::sync::Mutex<()>,
    /// Prepared statements, shared by all connections (drivers prepare on one connection and
    /// execute on another).
    pub prepared: PreparedCache,
    /// Events for REGISTERed connections.
    pub events: broadcast::Sender<Event>,
    /// This node's stable identity (`system.local.host_id`).
    pub host_id: Uuid,
    /// The token this node owns (`system.local.tokens`).
    pub token: i64,
    /// Seconds since the epoch at start (`system.local.gossip_generation`).
    pub started_at_secs: i32,
    /// The node's clock (see [`Clock`]).
    pub clock: Clock,
    /// Bytes of requests in flight, per client address and in all (see [`Limits`]).
    pub inflight: Limits,
    /// Slots of the storage writer's queue: a write holds one from submission to
    /// acknowledgement, so at most `Config::write_queue_limit` writes wait for the writer.
    pub write_queue: Arc<tokio::sync::Semaphore>,
    /// Finished trace sessions, read through `system_traces` (see [`crate::trace`]).
    pub traces: crate::trace::TraceLog,
    /// Each table's recent writes by partition (see [`crate::hot_partitions`]).
    pub hot_partitions: crate::hot_partitions::HotPartitions,
    /// Request, error, connection and row counters (see [`crate::metrics`]).
    pub metrics: crate::metrics::Metrics,
    /// The graphs of the SAI vector indexes queried so far (see [`crate::vector`]).
    pub vectors: crate::vector::VectorIndexes,
    /// Whether `commit_failure_policy` stopped serving clients (see
    /// [`crate::commit_failure`]).
    pub(crate) transports: Arc<crate::commit_failure::Transports>,
    /// The open connections' sessions (`system_views.clients`).
    pub clients: crate::clients::Clients,
}

impl Node {
    /// Opens (or creates) the data directory and loads the schema.
    ///
    /// # Errors
    /// The data directory or the store cannot be opened.
    pub fn open(config: Config) -> Result<Node, ServerError> {
        let options = config
            .store_options()
            .map_err(|e| ServerError::Config(e.to_string()))?;
        let (store, catalog, host_id) = match &config.data_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| ServerError::DataDir(format!("{}: {e}", dir.display())))?;
                let (store, catalog) = Store::open(&dir.join("data.redb"), options)?;
                (store, catalog, load_host_id(dir)?)
            }
            None => {
                let (store, catalog) = Store::open_in_memory(options)?;
                (store, catalog, Uuid::new_v4())
            }
        };
        info!(%host_id, keyspaces = catalog.keyspaces.len(), "storage opened");
        Ok(Node::with_store(config, store, catalog, host_id))
    }

    fn with_store(config: Config, store: Store, catalog: Catalog, host_id: Uuid) -> Node {
        let (events, _) = broadcast::channel(256);
        let token = token_for_host(&host_id);
        let clock = Clock::default();
        let started_at_secs = i32::try_from(clock.now_seconds()).unwrap_or(i32::MAX);
        let vectors = crate::vector::VectorIndexes::default();
        vectors.follow_catalog(&store, &catalog);
        Node {
            prepared: PreparedCache::new(config.prepared_cache_size),
            inflight: Limits::new(
                config.max_request_data_in_flight,
                config.max_request_data_in_flight_per_ip,
            ),
            write_queue: Arc::new(tokio::sync::Semaphore::new(config.write_queue_limit.max(1))),
            hot_partitions: crate::hot_partitions::HotPartitions::new(
                config.hot_partition_window,
                config.hot_partition_warn_share,
            ),
            transports: crate::commit_failure::Transports::follow(&store),
            config,
            store,
            schema: RwLock::new(Arc::new(Schema::new(catalog))),
            ddl_lock: tokio::sync::Mutex::new(()),
            cas_lock: tokio::sync::Mutex::new(()),
            events,
            host_id,
            token,
            started_at_secs,
            clock,
            traces: crate::trace::TraceLog::default(),
            metrics: crate::metrics::Metrics::default(),
            vectors,
            clients: crate::clients::Clients::default(),
        }
    }

    /// The current schema snapshot.
    pub fn schema(&self) -> Arc<Schema> {
        // Poisoning only means a panic happened while swapping an Arc; the Arc is intact.
        self.schema
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Installs a new user catalog (after it was durably written) and bumps the schema version.
    pub fn install_catalog(&self, catalog: Catalog) {
        self.vectors.follow_catalog(&self.store, &catalog);
        let tables: std::collections::HashSet<Uuid> = catalog
            .keyspaces
            .values()
            .flat_map(|ks| ks.tables.values().map(|t| t.id))
            .collect();
        self.metrics.tables.retain(|id| tables.contains(id));
        let schema = Arc::new(Schema::new(catalog));
        *self.schema.write().unwrap_or_else(|p| p.into_inner()) = schema;
    }

    /// A write timestamp in microseconds, strictly increasing across the whole server.
    pub fn next_timestamp(&self) -> i64 {
        self.clock.next_timestamp()
    }

    /// Stops storage after a final durable commit.
    pub fn close(&self) {
        if let Err(err) = self.store.shutdown() {
            tracing::error!(cause = %err, "final durable commit failed");
        }
    }
}

/// Reads the host id kept in the data directory, creating it on first start.
fn load_host_id(dir: &Path) -> Result<Uuid, ServerError> {
    let path = dir.join("host_id");
    match std::fs::read_to_string(&path) {
        Ok(text) => Uuid::parse_str(text.trim())
            .map_err(|e| ServerError::DataDir(format!("{}: {e}", path.display()))),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let id = Uuid::new_v4();
            std::fs::write(&path, id.to_string())
                .map_err(|e| ServerError::DataDir(format!("{}: {e}", path.display())))?;
            Ok(id)
        }
        Err(err) => Err(ServerError::DataDir(format!("{}: {err}", path.display()))),
    }
}

/// A token derived from the host id, so it is stable across restarts.
fn token_for_host(host_id: &Uuid) -> i64 {
    let bytes = host_id.as_bytes();
    let mut token = [0u8; 8];
    token.copy_from_slice(&bytes[..8]);
    i64::from_be_bytes(token).max(i64::MIN + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_id_is_stable_in_a_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let a = load_host_id(dir.path()).unwrap();
        let b = load_host_id(dir.path()).unwrap();
        assert_eq!(a, b);
    }
}
