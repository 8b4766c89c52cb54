//! Server configuration: defaults, an optional YAML file with Cassandra's setting names
//! (`cassandra.yaml` subset), and command-line overrides applied by `main`.
//!
//! The file is read strictly, as Cassandra reads it: a key that is not a Cassandra 5.0 setting
//! refuses the start with Cassandra's message, a Cassandra setting this server does not act
//! on is accepted and reported, and a security setting asking for what is not implemented
//! yet (authentication, authorization, encryption at rest) refuses the start rather than
//! running without it. Client TLS (`client_encryption_options`) is read by [`encryption`].

mod batch_thresholds;
mod encryption;
mod known;
mod read_thresholds;
mod yaml;

pub use crate::cluster::spec::{ClusterSpec, DatacenterSpec, SpecError};
pub use crate::guardrails::Threshold;
pub use batch_thresholds::BatchThresholds;
pub use encryption::{ClientAuth, ClientEncryption, PemSource, Secret, TlsPolicy, TlsVersion};
pub use read_thresholds::ReadThresholds;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use storage::SyncMode;

/// Everything the server needs to start.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address the native transport listens on (`rpc_address` / `native_transport_address`).
    pub listen_address: IpAddr,
    /// Native transport port (`native_transport_port`).
    pub port: u16,
    /// Directory holding the redb file and the commit log; `None` keeps everything in memory
    /// and creates no file anywhere (`--in-memory`, `in_memory: true`; tests).
    pub data_dir: Option<PathBuf>,
    /// `commitlog_sync`: `periodic`, `batch` or `group`.
    pub commitlog_sync: SyncMode,
    /// `commitlog_sync_period`: in `periodic` mode, how often the commit log is fsynced.
    pub commitlog_sync_period: Duration,
    /// `commitlog_sync_group_window`: in `group` mode, the least time from the start of one
    /// fsync to the start of the next; required there, as Cassandra requires it.
    pub commitlog_sync_group_window: Option<Duration>,
    /// Cassandra's system property `cassandra.commitlog.ignorereplayerrors` (given as
    /// `-Dcassandra.commitlog.ignorereplayerrors=true`): start even when the commit log is
    /// damaged where Cassandra refuses to, skipping what cannot be read.
    pub commitlog_ignore_replay_errors: bool,
    /// `commit_failure_policy`: what a failed commit-log write or fsync does (`stop` by
    /// default, as Cassandra; see [`storage::CommitFailurePolicy`]).
    pub commit_failure_policy: storage::CommitFailurePolicy,
    /// `disk_failure_policy`: what a damaged page or a failed read or write of the data file
    /// does (`stop` by default, as Cassandra; see [`storage::DiskFailurePolicy`]).
    pub disk_failure_policy: storage::DiskFailurePolicy,
    /// `cluster_name` as shown in `system.local`.
    pub cluster_name: String,
    /// `native_transport_max_frame_size`: frames longer than this are refused unread.
    pub max_frame_size: usize,
    /// `native_transport_max_concurrent_connections`.
    pub max_connections: usize,
    /// Requests one connection may have in flight before the server stops reading it.
    pub max_requests_per_connection: usize,
    /// Threads serving client connections, each a single-threaded runtime holding its
    /// connections for their whole life (`--connection-threads`, which takes 0 as 1; our
    /// setting, Cassandra has none). The cores available by default; 0 serves them on the
    /// caller's runtime (an embedding process that sets it).
    pub connection_threads: usize,
    /// `file_cache_size`: bytes of decoded run blocks kept for point reads, as Cassandra's
    /// setting sizes its chunk cache of decompressed chunks. 16 MiB by default: it serves hot
    /// keys, and a uniform read over more data than it holds misses it whatever its size.
    pub file_cache_size: usize,
    /// `key_cache_size`: bytes of the storage engine's page cache (redb's read cache and
    /// write buffer), which holds the B-tree pages that find a key's block, as Cassandra's
    /// key cache finds a key's position. 96 MiB by default: the branch pages of a table of
    /// ten million rows (~40 MB) stay in it, so a read of a cold row waits for one page (its
    /// block) instead of two; uniform reads at 10 M rows took 34-36 us of server CPU each
    /// against 39-45 us with 32 MiB (and a 64 MiB `file_cache_size`). The OS page cache
    /// serves the rest.
    pub key_cache_size: usize,
    /// `compaction_throughput`: bytes per second a background compaction of sorted runs
    /// writes at most (`64MiB/s`; `0MiB/s` removes the limit).
    pub compaction_throughput: u64,
    /// `memtable_heap_space`: bytes the memtables may hold, a full one being flushed and the
    /// one taking writes; the one taking writes is frozen and flushed at half of it. 64 MiB
    /// by default (Cassandra's default is a quarter of its heap): with two memtables of 32 MiB
    /// the server stays within its memory bound under pipelined large writes.
    pub memtable_heap_space: usize,
    /// `native_transport_max_request_data_in_flight_per_ip`: bytes of requests (and their
    /// responses, until written) in flight from one client address.
    pub max_request_data_in_flight_per_ip: u64,
    /// `native_transport_max_request_data_in_flight`: the same for the whole server.
    pub max_request_data_in_flight: u64,
    /// A connection that has not completed STARTUP this long after it opened is closed
    /// (`native_transport_handshake_timeout`, our setting; 10 s).
    pub handshake_timeout: Duration,
    /// `native_transport_idle_timeout`: a connection without traffic this long is closed;
    /// zero (Cassandra's default) never closes one.
    pub idle_timeout: Duration,
    /// `authenticator`: `AllowAllAuthenticator` (default) or `PasswordAuthenticator`.
    pub authenticator: Authenticator,
    /// `authorizer`: `AllowAllAuthorizer` (default) or `CassandraAuthorizer`.
    pub authorizer: Authorizer,
    /// `partition_keys_in_select_{warn,fail}_threshold` (Cassandra's guardrail; off).
    pub partition_keys_in_select: Threshold,
    /// `in_select_cartesian_product_{warn,fail}_threshold` (Cassandra's guardrail; off).
    pub in_select_cartesian_product: Threshold,
    /// `column_value_size_{warn,fail}_threshold` in bytes (Cassandra's guardrail; off).
    pub column_value_size: Threshold,
    /// `collection_size_{warn,fail}_threshold` in bytes (Cassandra's guardrail; off).
    pub collection_size: Threshold,
    /// `items_per_collection_{warn,fail}_threshold` (Cassandra's guardrail; off).
    pub items_per_collection: Threshold,
    /// `partition_size_{warn,fail}_threshold` in bytes (Cassandra's guardrail; off): checked
    /// by the purge pass, Cassandra's compaction, and logged.
    pub partition_size: Threshold,
    /// `hot_partition_window` (ours): a table's partition writes per hot-partition window;
    /// 0 turns the hot-partition warning off (see `crate::telemetry::hot_partitions`).
    pub hot_partition_window: u64,
    /// `hot_partition_warn_share` (ours): the share of a window past which a partition's
    /// writes get a warning; outside (0, 1] it is off.
    pub hot_partition_warn_share: f64,
    /// Writes submitted to the storage writer and not yet acknowledged, at most; further
    /// writes wait, which pushes back on their connections.
    pub write_queue_limit: usize,
    /// Prepared statements kept before the least recently prepared are evicted.
    pub prepared_cache_size: usize,
    /// How often the background purge drops expired cells and tombstones past
    /// `gc_grace_seconds` (the work compaction does in Cassandra); `None` turns it off.
    pub purge_interval: Option<Duration>,
    /// `client_encryption_options`: client-to-server TLS (off by default).
    pub client_encryption: ClientEncryption,
    /// `tombstone_warn_threshold`, `tombstone_failure_threshold` (Cassandra's) and
    /// `filtering_examined_warn_ratio`, `filtering_examined_warn_min_rows` (ours).
    pub read_thresholds: ReadThresholds,
    /// `batch_size_warn_threshold` and `batch_size_fail_threshold` (Cassandra's, 5 KiB and
    /// 50 KiB).
    pub batch_thresholds: BatchThresholds,
    /// Ours: where HTTP is served (`http_address`, or `metrics_address` as before):
    /// `/metrics`, and the test controls' routes when they are on; `None` (the default)
    /// serves none.
    pub http_address: Option<SocketAddr>,
    /// Ours: `test_controls`, whether the test controls (reset, snapshots, faults, the query
    /// log, the clock: see `docs/testing.md`) are on; `None` (the default) turns them on
    /// exactly when the server keeps everything in memory.
    pub test_controls: Option<bool>,
    /// Ours: `query_log_size`, how many requests the test controls' query log keeps.
    pub query_log_size: usize,
    /// Ours: `init_cql`, a CQL file, or a directory of `*.cql` files run in name order,
    /// run before the port opens.
    pub init_cql: Option<PathBuf>,
    /// Ours: `simulated_cluster`, many nodes presented by this one process (see
    /// `docs/testing.md`); `None` (the default) is one node.
    pub simulated_cluster: Option<ClusterSpec>,
    /// Ours: `strict_consistency`, whether one node (no simulated cluster) refuses the
    /// consistency levels its keyspaces' replication factors cannot meet, as a single
    /// Cassandra node does: `QUORUM` on RF 3 is `Unavailable` (required 2, alive 1). Off by
    /// default: every level is met by the one copy, so schemas written for a production
    /// cluster run unchanged in tests. A simulated cluster always does the arithmetic.
    pub strict_consistency: bool,
    /// `read_request_timeout` (Cassandra's, 5 s): on a simulated cluster, how long a read
    /// that needs a paused replica waits before its `ReadTimeout`.
    pub read_request_timeout: Duration,
    /// `write_request_timeout` (Cassandra's, 2 s): the same for writes (`WriteTimeout`).
    pub write_request_timeout: Duration,
    /// `materialized_views_enabled` (Cassandra 5.0's, off by default): whether `CREATE
    /// MATERIALIZED VIEW` is allowed.
    pub materialized_views_enabled: bool,
    /// `user_defined_functions_enabled` (4.0: `enable_user_defined_functions`) set true: this
    /// server runs no user-defined functions or aggregates whatever it says, so the start
    /// logs a warning; CREATE FUNCTION and CREATE AGGREGATE are refused either way.
    pub user_defined_functions_requested: bool,
    /// `vector_search_exact_rows` (ours): an ANN query ranks every row it could return when
    /// there are at most this many (exact, deterministic), and asks the index's HNSW graph for
    /// candidates past it (see `executor::ann_graph`).
    pub vector_search_exact_rows: usize,
    /// `vector_search_ef` (ours): the beam width of a graph search, and the fewest candidates
    /// it asks for (recall against latency; see `docs/benchmarks.md`, vector search).
    pub vector_search_ef: usize,
}

impl Config {
    /// Whether the test controls are on: as `test_controls` says, else when in memory.
    pub fn test_controls_enabled(&self) -> bool {
        self.test_controls.unwrap_or(self.data_dir.is_none())
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen_address: IpAddr::from([127, 0, 0, 1]),
            port: 9042,
            data_dir: None,
            commitlog_sync: SyncMode::Periodic,
            commitlog_sync_period: Duration::from_millis(10_000),
            commitlog_sync_group_window: None,
            commitlog_ignore_replay_errors: false,
            commit_failure_policy: storage::CommitFailurePolicy::Stop,
            disk_failure_policy: storage::DiskFailurePolicy::Stop,
            cluster_name: "Test Cluster".to_string(),
            max_frame_size: 16 * 1024 * 1024,
            max_connections: 1024,
            max_requests_per_connection: 1024,
            connection_threads: std::thread::available_parallelism().map_or(1, usize::from),
            write_queue_limit: 4096,
            max_request_data_in_flight_per_ip: 32 << 20,
            max_request_data_in_flight: 256 << 20,
            handshake_timeout: Duration::from_secs(10),
            idle_timeout: Duration::ZERO,
            authenticator: Authenticator::AllowAll,
            authorizer: Authorizer::AllowAll,
            partition_keys_in_select: Threshold::DISABLED,
            in_select_cartesian_product: Threshold::DISABLED,
            column_value_size: Threshold::DISABLED,
            collection_size: Threshold::DISABLED,
            items_per_collection: Threshold::DISABLED,
            partition_size: Threshold::DISABLED,
            hot_partition_window: 1000,
            hot_partition_warn_share: 0.5,
            file_cache_size: 16 << 20,
            key_cache_size: 96 << 20,
            compaction_throughput: 64 << 20,
            memtable_heap_space: 64 << 20,
            prepared_cache_size: 10_000,
            purge_interval: Some(Duration::from_secs(300)),
            client_encryption: ClientEncryption::default(),
            read_thresholds: ReadThresholds::default(),
            batch_thresholds: BatchThresholds::default(),
            http_address: None,
            test_controls: None,
            query_log_size: 10_000,
            init_cql: None,
            simulated_cluster: None,
            strict_consistency: false,
            read_request_timeout: Duration::from_millis(5_000),
            write_request_timeout: Duration::from_millis(2_000),
            materialized_views_enabled: false,
            user_defined_functions_requested: false,
            vector_search_exact_rows: 1_000,
            vector_search_ef: 600,
        }
    }
}

/// `authenticator`: who may connect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Authenticator {
    /// `AllowAllAuthenticator` (the default): no login; every client is anonymous.
    #[default]
    AllowAll,
    /// `PasswordAuthenticator`: SASL PLAIN against the roles' bcrypt hashes.
    Password,
}

impl Authenticator {
    /// Cassandra's short class name.
    pub fn class_name(self) -> &'static str {
        match self {
            Authenticator::AllowAll => "AllowAllAuthenticator",
            Authenticator::Password => "PasswordAuthenticator",
        }
    }
}
/// `authorizer`: what a logged-in role may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Authorizer {
    /// `AllowAllAuthorizer` (the default): everything.
    #[default]
    AllowAll,
    /// `CassandraAuthorizer`: the permissions granted to the role and the roles it holds.
    Cassandra,
}

impl Authorizer {
    /// Cassandra's short class name.
    pub fn class_name(self) -> &'static str {
        match self {
            Authorizer::AllowAll => "AllowAllAuthorizer",
            Authorizer::Cassandra => "CassandraAuthorizer",
        }
    }
}

/// Errors reading the YAML configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not YAML, or a value has the wrong type.
    #[error("invalid YAML in {path}: {source}")]
    Yaml {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_norway::Error,
    },
    /// Keys that are no Cassandra 5.0 setting, sorted, with the message of Cassandra's
    /// `YamlConfigurationLoader`.
    #[error("Invalid yaml. Please remove properties [{}] from your cassandra.yaml", .0.join(", "))]
    UnknownProperties(Vec<String>),
    /// A security setting asking for what this server does not implement yet.
    #[error(
        "{setting}: {value} is not supported yet (this server runs with {supported} only); \
         refusing to start without the security it asks for"
    )]
    Unsupported {
        /// The setting, e.g. `authenticator`.
        setting: &'static str,
        /// What the file asks for, e.g. `PasswordAuthenticator`.
        value: String,
        /// What this server does, e.g. `AllowAllAuthenticator`.
        supported: &'static str,
    },
    /// A value this server cannot use.
    #[error("invalid value for {setting}: {value}")]
    Value {
        /// The setting.
        setting: &'static str,
        /// The value as written.
        value: String,
    },
    /// Settings that contradict each other, with Cassandra's message.
    #[error("{0}")]
    Conflict(&'static str),
    /// A setting this server cannot use, with the whole message.
    #[error("{0}")]
    Invalid(String),
}

/// A [`ConfigError::Value`] showing `value` as YAML on one line.
fn invalid(setting: &'static str, value: &serde_norway::Value) -> ConfigError {
    let text = serde_norway::to_string(value).unwrap_or_default();
    ConfigError::Value {
        setting,
        value: text.trim().replace('\n', " "),
    }
}

/// Cassandra's name for a commit-log sync mode (`periodic`, `batch`, `group`).
pub fn sync_mode_name(mode: SyncMode) -> &'static str {
    match mode {
        SyncMode::Periodic => "periodic",
        SyncMode::Batch => "batch",
        SyncMode::Group => "group",
    }
}

impl Config {
    /// The storage options these settings ask for.
    ///
    /// # Errors
    /// `group` mode without a positive `commitlog_sync_group_window`, with Cassandra's
    /// message.
    pub fn store_options(&self) -> Result<storage::StoreOptions, ConfigError> {
        let group_window = match (self.commitlog_sync, self.commitlog_sync_group_window) {
            (SyncMode::Group, Some(window)) if !window.is_zero() => window,
            (SyncMode::Group, _) => {
                return Err(ConfigError::Conflict(
                    "Missing value for commitlog_sync_group_window.",
                ))
            }
            (_, window) => window.unwrap_or(storage::StoreOptions::default().group_window),
        };
        Ok(storage::StoreOptions {
            sync: self.commitlog_sync,
            sync_period: self.commitlog_sync_period,
            group_window,
            cache_size: self.key_cache_size,
            block_cache_size: self.file_cache_size,
            // At least a mebibyte, so a tiny setting does not flush after every write.
            memtable_size: (self.memtable_heap_space / 2).max(1 << 20),
            compaction_throughput: self.compaction_throughput,
            ignore_replay_errors: self.commitlog_ignore_replay_errors,
            commit_failure_policy: self.commit_failure_policy,
            disk_failure_policy: self.disk_failure_policy,
        })
    }
}

impl Config {
    /// Applies a Java system property given as `-D<name>=<value>`, as Cassandra takes them on
    /// its command line. The one this server acts on is
    /// `cassandra.commitlog.ignorereplayerrors`; a value is `true` or `false` (any case), as
    /// Java's `Boolean.getBoolean` reads it.
    ///
    /// # Errors
    /// An unknown property or a value that is not a boolean: the start is refused.
    pub fn apply_system_property(&mut self, text: &str) -> Result<(), String> {
        let (name, value) = text.split_once('=').unwrap_or((text, "true"));
        if name != storage::IGNORE_REPLAY_ERRORS {
            return Err(format!(
                "unknown system property -D{name}; this server reads -D{}",
                storage::IGNORE_REPLAY_ERRORS
            ));
        }
        self.commitlog_ignore_replay_errors = match value.to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => return Err(format!("-D{name} takes true or false, not {value}")),
        };
        Ok(())
    }
}

/// Parses `periodic`, `batch` or `group` (Cassandra's `commitlog_sync` values).
pub fn parse_sync_mode(text: &str) -> Option<SyncMode> {
    match text.trim().to_ascii_lowercase().as_str() {
        "periodic" => Some(SyncMode::Periodic),
        "batch" => Some(SyncMode::Batch),
        "group" => Some(SyncMode::Group),
        _ => None,
    }
}

/// Parses Cassandra 4.1+ durations such as `10000ms`, `10s`, `2m`.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = text.split_at(split);
    let n: u64 = num.parse().ok()?;
    let ms = match unit.trim() {
        "ms" | "milliseconds" => n,
        "s" | "seconds" => n.checked_mul(1000)?,
        "m" | "minutes" => n.checked_mul(60_000)?,
        _ => return None,
    };
    Some(Duration::from_millis(ms))
}

/// Parses Cassandra 4.1+ data sizes such as `16MiB`, `256KiB`, `1024B`.
fn parse_size(text: &str) -> Option<usize> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = text.split_at(split);
    let n: usize = num.parse().ok()?;
    let mult = match unit.trim() {
        "B" | "bytes" => 1,
        "KiB" => 1024,
        "MiB" => 1024 * 1024,
        "GiB" => 1024 * 1024 * 1024,
        _ => return None,
    };
    n.checked_mul(mult)
}

#[cfg(test)]
mod tests;
