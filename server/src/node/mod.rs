//! `Node`: the state every connection shares — storage, the schema snapshot, the DDL lock,
//! the prepared-statement cache, the event broadcast, identity (host id, tokens) and the
//! write-timestamp clock.

pub(crate) mod clock;
pub(crate) mod commit_failure;
pub(crate) mod prepared;
pub(crate) mod purge;

use std::path::Path;
use std::sync::{Arc, RwLock};

use cql::frame::response::Event;
use storage::{Catalog, Store};
use tokio::sync::broadcast;
use tracing::info;
use uuid::Uuid;

use crate::config::Config;
use crate::node::clock::Clock;
use crate::node::prepared::PreparedCache;
use crate::schema::Schema;
use crate::transport::inflight::Limits;
use crate::ServerError;

/// A pass of requests whose writes go to storage together ([`Node::write_pass`]); its end
/// applies the writes still waiting.
pub(crate) struct WritePass<'a>(storage::DeferredWrites<'a>);

impl WritePass<'_> {
    /// Applies the pass's writes so far, here if the writer's state is free; whether any
    /// were applied (their requests were then woken).
    pub(crate) fn drive(&self) -> bool {
        self.0.drive()
    }
}

/// Shared server state.
pub struct Node {
    /// The configuration the server started with.
    config: Config,
    /// The row store.
    store: Store,
    schema: RwLock<Arc<Schema>>,
    /// Serialises schema changes so each one sees the result of the previous.
    ddl_lock: tokio::sync::Mutex<()>,
    /// Serialises lightweight transactions: each holds it from its read to its commit
    /// (see `executor::cas`).
    cas_lock: tokio::sync::Mutex<()>,
    /// Prepared statements, shared by all connections (drivers prepare on one connection and
    /// execute on another).
    prepared: PreparedCache,
    /// Events for REGISTERed connections.
    events: broadcast::Sender<Event>,
    /// This node's stable identity (`system.local.host_id`).
    host_id: Uuid,
    /// The token this node owns (`system.local.tokens`).
    token: i64,
    /// Seconds since the epoch at start (`system.local.gossip_generation`).
    started_at_secs: i32,
    /// The node's clock (see [`Clock`]).
    clock: Clock,
    /// Bytes of requests in flight, per client address and in all (see [`Limits`]).
    inflight: Limits,
    /// Slots of the storage writer's queue: a write holds one from submission to
    /// acknowledgement, so at most `Config::write_queue_limit` writes wait for the writer.
    write_queue: Arc<tokio::sync::Semaphore>,
    /// Finished trace sessions, read through `system_traces` (see [`crate::telemetry::trace`]).
    traces: crate::telemetry::trace::TraceLog,
    /// Each table's recent writes by partition (see [`crate::telemetry::hot_partitions`]).
    hot_partitions: crate::telemetry::hot_partitions::HotPartitions,
    /// Request, error, connection and row counters (see [`crate::telemetry::metrics`]).
    metrics: crate::telemetry::metrics::Metrics,
    /// The graphs of the SAI vector indexes queried so far (see [`crate::vector`]).
    vectors: crate::vector::VectorIndexes,
    /// Whether `commit_failure_policy` stopped serving clients (see
    /// [`crate::node::commit_failure`]).
    transports: Arc<crate::node::commit_failure::Transports>,
    /// The open connections' sessions (`system_views.clients`).
    clients: crate::transport::clients::Clients,
    /// The test controls (see [`crate::control`]).
    controls: crate::control::Controls,
    /// The simulated cluster this process presents, if any (see [`crate::cluster`]).
    cluster: Option<Arc<crate::cluster::state::SimulatedCluster>>,
    /// Whether requests pass the coordinator's consistency arithmetic: on a simulated
    /// cluster, or on one node with `strict_consistency` (the request path's one check).
    checks_consistency: bool,
}

/// Read access to the node's parts, for the layers that use them.
impl Node {
    /// See the field `config`.
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// See the field `store`.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// See the field `ddl_lock`.
    pub(crate) fn ddl_lock(&self) -> &tokio::sync::Mutex<()> {
        &self.ddl_lock
    }

    /// See the field `cas_lock`.
    pub(crate) fn cas_lock(&self) -> &tokio::sync::Mutex<()> {
        &self.cas_lock
    }

    /// See the field `prepared`.
    pub(crate) fn prepared(&self) -> &PreparedCache {
        &self.prepared
    }

    /// See the field `events`.
    pub(crate) fn events(&self) -> &broadcast::Sender<Event> {
        &self.events
    }

    /// See the field `host_id`.
    pub(crate) fn host_id(&self) -> Uuid {
        self.host_id
    }

    /// See the field `token`.
    pub(crate) fn token(&self) -> i64 {
        self.token
    }

    /// See the field `started_at_secs`.
    pub(crate) fn started_at_secs(&self) -> i32 {
        self.started_at_secs
    }

    /// See the field `clock`.
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    /// See the field `inflight`.
    pub(crate) fn inflight(&self) -> &Limits {
        &self.inflight
    }

    /// See the field `write_queue`.
    pub(crate) fn write_queue(&self) -> &Arc<tokio::sync::Semaphore> {
        &self.write_queue
    }

    /// See the field `traces`.
    pub(crate) fn traces(&self) -> &crate::telemetry::trace::TraceLog {
        &self.traces
    }

    /// See the field `hot_partitions`.
    pub(crate) fn hot_partitions(&self) -> &crate::telemetry::hot_partitions::HotPartitions {
        &self.hot_partitions
    }

    /// See the field `metrics`.
    pub(crate) fn metrics(&self) -> &crate::telemetry::metrics::Metrics {
        &self.metrics
    }

    /// See the field `vectors`.
    pub(crate) fn vectors(&self) -> &crate::vector::VectorIndexes {
        &self.vectors
    }

    /// See the field `transports`.
    pub(crate) fn transports(&self) -> &Arc<crate::node::commit_failure::Transports> {
        &self.transports
    }

    /// See the field `cluster`.
    pub(crate) fn cluster(&self) -> Option<&Arc<crate::cluster::state::SimulatedCluster>> {
        self.cluster.as_ref()
    }

    /// See the field `checks_consistency`.
    pub(crate) fn checks_consistency(&self) -> bool {
        self.checks_consistency
    }

    /// The cluster's datacenter names: the simulated cluster's, else this node's one.
    pub(crate) fn datacenters(&self) -> Vec<String> {
        match &self.cluster {
            Some(cluster) => cluster
                .spec()
                .datacenters
                .iter()
                .map(|dc| dc.name.clone())
                .collect(),
            None => vec![crate::schema::table_def::options::DATACENTER.to_string()],
        }
    }

    /// See the field `controls`.
    pub(crate) fn controls(&self) -> &crate::control::Controls {
        &self.controls
    }

    /// See the field `clients`.
    pub(crate) fn clients(&self) -> &crate::transport::clients::Clients {
        &self.clients
    }
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
        if config.simulated_cluster.is_some() && !config.listen_address.is_ipv4() {
            return Err(ServerError::Config(
                "a simulated cluster needs an IPv4 listen address (its nodes count up from it)"
                    .into(),
            ));
        }
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
            hot_partitions: crate::telemetry::hot_partitions::HotPartitions::new(
                config.hot_partition_window,
                config.hot_partition_warn_share,
            ),
            transports: crate::node::commit_failure::Transports::follow(&store),
            cluster: simulated_cluster(&config),
            checks_consistency: config.simulated_cluster.is_some() || config.strict_consistency,
            controls: crate::control::Controls::new(
                config.test_controls_enabled(),
                config.query_log_size,
            ),
            schema: RwLock::new(Arc::new(
                Schema::new(catalog).with_controls(config.test_controls_enabled()),
            )),
            config,
            store,
            ddl_lock: tokio::sync::Mutex::new(()),
            cas_lock: tokio::sync::Mutex::new(()),
            events,
            host_id,
            token,
            started_at_secs,
            clock,
            traces: crate::telemetry::trace::TraceLog::default(),
            metrics: crate::telemetry::metrics::Metrics::default(),
            vectors,
            clients: crate::transport::clients::Clients::default(),
        }
    }

    /// The current schema snapshot.
    pub(crate) fn schema(&self) -> Arc<Schema> {
        // Poisoning only means a panic happened while swapping an Arc; the Arc is intact.
        self.schema
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Installs a new user catalog (after it was durably written) and bumps the schema version.
    pub(crate) fn install_catalog(&self, catalog: Catalog) {
        self.vectors.follow_catalog(&self.store, &catalog);
        let tables: std::collections::HashSet<Uuid> = catalog
            .keyspaces
            .values()
            .flat_map(|ks| ks.tables.values().map(|t| t.id))
            .collect();
        self.metrics.tables.retain(|id| tables.contains(id));
        let schema = Arc::new(Schema::new(catalog).with_controls(self.controls.enabled()));
        *self.schema.write().unwrap_or_else(|p| p.into_inner()) = schema;
    }

    /// Starts a pass of a connection's requests: until the pass ends, the writes they hand to
    /// the writer wait and go to storage together, applied on this thread when the writer's
    /// state is free (one commit log append, no hand-off between threads). Not to be held
    /// across an `.await`.
    pub(crate) fn write_pass(&self) -> WritePass<'_> {
        WritePass(self.store.defer_writes())
    }

    /// A write timestamp in microseconds, strictly increasing across the whole server.
    pub(crate) fn next_timestamp(&self) -> i64 {
        self.clock.next_timestamp()
    }

    /// Stops storage after a final durable commit.
    pub fn close(&self) {
        if let Err(err) = self.store.shutdown() {
            tracing::error!(cause = %err, "final durable commit failed");
        }
    }

    /// How many stored rows reads have examined since the start (virtual tables not
    /// counted): lets a test check that key-restricted reads stay narrow.
    pub fn rows_read(&self) -> u64 {
        self.store.rows_read()
    }

    /// Free slots of the storage writer's bounded queue (all of them once writes settle).
    pub fn write_queue_free(&self) -> usize {
        self.write_queue.available_permits()
    }

    /// Where the HTTP endpoint listens, once it does (`http_address`; port 0 resolved).
    pub fn http_address(&self) -> Option<std::net::SocketAddr> {
        self.controls.http_address()
    }

    /// Moves the node's clock forward (TTL expiry, `gc_grace_seconds`) without sleeping.
    pub fn advance_clock(&self, by: std::time::Duration) {
        self.clock.advance(by);
    }

    /// Writes the memtable into storage and makes it durable, as `nodetool flush` does.
    ///
    /// # Errors
    /// Storage fails to write.
    pub fn flush(&self) -> Result<(), storage::StorageError> {
        self.store.flush()
    }

    /// Runs every merge of sorted runs that is due, now and unpaced, as `nodetool compact`
    /// asks; how many merges it made.
    ///
    /// # Errors
    /// Storage fails to read or write.
    pub fn compact(&self) -> Result<usize, storage::StorageError> {
        self.store.compact()
    }

    /// What table `keyspace.table` holds on disk; `None` when there is no such table.
    ///
    /// # Errors
    /// Storage fails to read.
    pub fn table_stats(
        &self,
        keyspace: &str,
        table: &str,
    ) -> Option<Result<storage::TableStats, storage::StorageError>> {
        let schema = self.schema();
        let id = schema
            .catalog
            .keyspaces
            .get(keyspace)?
            .tables
            .get(table)?
            .id;
        Some(self.store.snapshot().and_then(|s| s.table_stats(id)))
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

/// The simulated cluster `config` asks for, its first node on the listen address (IPv4;
/// refused earlier otherwise).
fn simulated_cluster(config: &Config) -> Option<Arc<crate::cluster::state::SimulatedCluster>> {
    let spec = config.simulated_cluster.clone()?;
    let std::net::IpAddr::V4(first) = config.listen_address else {
        return None;
    };
    Some(Arc::new(crate::cluster::state::SimulatedCluster::new(
        spec,
        first,
        config.port,
    )))
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
