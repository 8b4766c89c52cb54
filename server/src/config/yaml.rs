//! Reading `cassandra.yaml`: Cassandra's setting names (and the older `_in_kb`/`_in_ms`
//! spellings), unknown keys refused with Cassandra's message, settings Cassandra has but this
//! server does not act on reported, and the security classes checked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use storage::{CommitFailurePolicy, DiskFailurePolicy, SyncMode};

use super::*;

pub(crate) mod cluster;
mod security;
use security::{authenticator, authorizer, check_security};

/// The `cassandra.yaml` settings this server acts on; every other key lands in `others`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct YamlSettings {
    cluster_name: Option<String>,
    rpc_address: Option<String>,
    native_transport_address: Option<String>,
    native_transport_port: Option<u16>,
    data_file_directories: Option<Vec<PathBuf>>,
    /// Ours, not Cassandra's: `true` keeps everything in memory (no data directory).
    in_memory: Option<bool>,
    /// Ours: `HOST:PORT` of the HTTP endpoint (`/metrics`, test controls); the older name
    /// of `http_address`.
    metrics_address: Option<String>,
    /// Ours: `HOST:PORT` of the HTTP endpoint.
    http_address: Option<String>,
    /// Ours: whether the test controls are on.
    test_controls: Option<bool>,
    /// Ours: how many requests the query log keeps.
    query_log_size: Option<usize>,
    /// Ours: CQL run before the port opens (a file, or a directory of `*.cql`).
    init_cql: Option<PathBuf>,
    /// Ours: a simulated cluster (see [`cluster`]).
    simulated_cluster: Option<cluster::ClusterYaml>,
    /// Ours: see [`Config::strict_consistency`].
    strict_consistency: Option<bool>,
    commitlog_sync: Option<String>,
    commit_failure_policy: Option<String>,
    disk_failure_policy: Option<String>,
    commitlog_sync_period: Option<String>,
    commitlog_sync_period_in_ms: Option<u64>,
    commitlog_sync_group_window: Option<String>,
    file_cache_size: Option<String>,
    key_cache_size: Option<String>,
    key_cache_size_in_mb: Option<u64>,
    batch_size_warn_threshold: Option<String>,
    batch_size_warn_threshold_in_kb: Option<u64>,
    batch_size_fail_threshold: Option<String>,
    batch_size_fail_threshold_in_kb: Option<u64>,
    compaction_throughput: Option<String>,
    compaction_throughput_mb_per_sec: Option<u64>,
    memtable_heap_space: Option<String>,
    memtable_heap_space_in_mb: Option<u64>,
    native_transport_max_request_data_in_flight_per_ip: Option<String>,
    native_transport_max_request_data_in_flight: Option<String>,
    native_transport_handshake_timeout: Option<String>,
    native_transport_idle_timeout: Option<String>,
    read_request_timeout: Option<String>,
    read_request_timeout_in_ms: Option<u64>,
    write_request_timeout: Option<String>,
    write_request_timeout_in_ms: Option<u64>,
    partition_keys_in_select_warn_threshold: Option<i64>,
    partition_keys_in_select_fail_threshold: Option<i64>,
    in_select_cartesian_product_warn_threshold: Option<i64>,
    in_select_cartesian_product_fail_threshold: Option<i64>,
    column_value_size_warn_threshold: Option<String>,
    column_value_size_fail_threshold: Option<String>,
    collection_size_warn_threshold: Option<String>,
    collection_size_fail_threshold: Option<String>,
    items_per_collection_warn_threshold: Option<i64>,
    items_per_collection_fail_threshold: Option<i64>,
    partition_size_warn_threshold: Option<String>,
    partition_size_fail_threshold: Option<String>,
    hot_partition_window: Option<u64>,
    hot_partition_warn_share: Option<f64>,
    file_cache_size_in_mb: Option<u64>,
    commitlog_sync_group_window_in_ms: Option<u64>,
    native_transport_max_frame_size: Option<String>,
    native_transport_max_frame_size_in_mb: Option<u64>,
    native_transport_max_concurrent_connections: Option<i64>,
    tombstone_warn_threshold: Option<i64>,
    tombstone_failure_threshold: Option<i64>,
    materialized_views_enabled: Option<bool>,
    /// The 4.0 name of `materialized_views_enabled`, which 5.0 still reads.
    enable_materialized_views: Option<bool>,
    /// See [`Config::user_defined_functions_requested`].
    user_defined_functions_enabled: Option<bool>,
    /// The 4.0 name of `user_defined_functions_enabled`.
    enable_user_defined_functions: Option<bool>,
    /// Ours, not Cassandra's: see [`Config::vector_search_exact_rows`].
    vector_search_exact_rows: Option<u64>,
    /// Ours, not Cassandra's: see [`Config::vector_search_ef`].
    vector_search_ef: Option<u64>,
    /// Ours, not Cassandra's: see [`ReadThresholds`].
    filtering_examined_warn_ratio: Option<u64>,
    /// Ours, not Cassandra's: see [`ReadThresholds`].
    filtering_examined_warn_min_rows: Option<u64>,
    /// Every other top-level key: the security settings `check_security` reads, Cassandra
    /// settings accepted without acting on them, and unknown keys.
    #[serde(flatten)]
    others: BTreeMap<String, serde_norway::Value>,
}

/// Class-valued security settings and the one value (short class name) this server runs
/// with; a file asking for another class refuses the start.
const SECURITY_CLASSES: [(&str, &str); 3] = [
    ("role_manager", "CassandraRoleManager"),
    ("network_authorizer", "AllowAllNetworkAuthorizer"),
    ("cidr_authorizer", "AllowAllCIDRAuthorizer"),
];

/// Encryption settings this server cannot honour yet, and the flags that would turn them
/// on: the file may only leave them off.
const SECURITY_ENCRYPTION: [(&str, &[&str]); 1] =
    [("transparent_data_encryption_options", &["enabled"])];

/// The package Cassandra prefixes to a short authenticator or authorizer class name.
const AUTH_PACKAGE: &str = "org.apache.cassandra.auth.";

impl Config {
    /// Applies the settings of a YAML file over `self`.
    ///
    /// Returns the Cassandra settings the file sets that this server accepts without acting
    /// on them (e.g. `num_tokens`), sorted, for the caller to report.
    ///
    /// # Errors
    /// The file cannot be read or is not YAML; a key is no Cassandra 5.0 setting (Cassandra's
    /// message, naming every such key); a security setting asks for what is not implemented
    /// yet; or a value is malformed.
    pub fn apply_yaml_file(&mut self, path: &Path) -> Result<Vec<String>, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        self.apply_yaml_text(&text, path)
    }

    /// [`Config::apply_yaml_file`] on the file's text; `path` only names it in errors.
    pub(super) fn apply_yaml_text(
        &mut self,
        text: &str,
        path: &Path,
    ) -> Result<Vec<String>, ConfigError> {
        let mut settings = parse_settings(text, path)?;
        let others = std::mem::take(&mut settings.others);
        check_keys(&others)?;
        check_security(&others)?;
        if let Some(value) = others.get("authenticator") {
            self.authenticator = authenticator(value)?;
        }
        if let Some(value) = others.get("authorizer") {
            self.authorizer = authorizer(value)?;
        }
        if self.authenticator == Authenticator::AllowAll && self.authorizer != Authorizer::AllowAll
        {
            return Err(ConfigError::Unsupported {
                setting: "authorizer",
                value: format!(
                    "AllowAllAuthenticator can't be used with {}",
                    self.authorizer.class_name()
                ),
                supported: "PasswordAuthenticator with CassandraAuthorizer",
            });
        }
        let mut ignored = Vec::new();
        if let Some(section) = others.get(encryption::SECTION) {
            let (options, not_acted_on) = encryption::parse(section)?;
            self.client_encryption = options;
            ignored = not_acted_on;
        }
        self.apply(settings)?;
        ignored.extend(others.into_keys().filter(|key| !is_security_setting(key)));
        ignored.sort();
        Ok(ignored)
    }

    pub(super) fn apply(&mut self, mut s: YamlSettings) -> Result<(), ConfigError> {
        self.apply_node(&mut s)?;
        self.apply_commitlog(&mut s)?;
        self.apply_transport(&mut s)?;
        self.apply_guardrails(&mut s)?;
        self.apply_memory(&mut s)?;
        self.apply_features(&mut s)?;
        Ok(())
    }

    /// The cluster name, the addresses and port, and where data lives (or `in_memory`).
    fn apply_node(&mut self, s: &mut YamlSettings) -> Result<(), ConfigError> {
        if let Some(name) = s.cluster_name.take() {
            self.cluster_name = name;
        }
        if let Some(addr) = s.native_transport_address.take().or(s.rpc_address.take()) {
            self.listen_address = addr.parse().map_err(|_| ConfigError::Value {
                setting: "rpc_address",
                value: addr,
            })?;
        }
        if let Some(port) = s.native_transport_port.take() {
            self.port = port;
        }
        for (setting, address) in [
            ("metrics_address", s.metrics_address.take()),
            ("http_address", s.http_address.take()),
        ] {
            if let Some(address) = address {
                let parsed = address.parse().map_err(|_| ConfigError::Value {
                    setting,
                    value: address,
                })?;
                self.http_address = Some(parsed);
            }
        }
        if let Some(on) = s.test_controls.take() {
            self.test_controls = Some(on);
        }
        if let Some(size) = s.query_log_size.take() {
            self.query_log_size = size;
        }
        if let Some(path) = s.init_cql.take() {
            self.init_cql = Some(path);
        }
        let data_dir = s
            .data_file_directories
            .take()
            .and_then(|d| d.into_iter().next());
        match (s.in_memory.take(), data_dir) {
            (Some(true), Some(_)) => {
                return Err(ConfigError::Conflict(
                    "in_memory: true keeps no data; remove data_file_directories",
                ))
            }
            (Some(true), None) => self.data_dir = None,
            (_, Some(dir)) => self.data_dir = Some(dir),
            (_, None) => {}
        }
        Ok(())
    }

    /// `commitlog_sync` and its period or group window, checked together as Cassandra does.
    fn apply_commitlog(&mut self, s: &mut YamlSettings) -> Result<(), ConfigError> {
        let period_given =
            s.commitlog_sync_period.is_some() || s.commitlog_sync_period_in_ms.is_some();
        if let Some(mode) = s.commitlog_sync.take() {
            self.commitlog_sync = parse_sync_mode(&mode).ok_or(ConfigError::Value {
                setting: "commitlog_sync",
                value: mode,
            })?;
        }
        if let Some(policy) = s.commit_failure_policy.take() {
            self.commit_failure_policy =
                CommitFailurePolicy::parse(&policy).ok_or(ConfigError::Value {
                    setting: "commit_failure_policy",
                    value: policy,
                })?;
        }
        if let Some(policy) = s.disk_failure_policy.take() {
            self.disk_failure_policy =
                DiskFailurePolicy::parse(&policy).ok_or(ConfigError::Value {
                    setting: "disk_failure_policy",
                    value: policy,
                })?;
        }
        if let Some(ms) = s.commitlog_sync_period_in_ms.take() {
            self.commitlog_sync_period = Duration::from_millis(ms);
        }
        if let Some(period) = s.commitlog_sync_period.take() {
            self.commitlog_sync_period = parse_duration(&period).ok_or(ConfigError::Value {
                setting: "commitlog_sync_period",
                value: period,
            })?;
        }
        if let Some(ms) = s.commitlog_sync_group_window_in_ms.take() {
            self.commitlog_sync_group_window = Some(Duration::from_millis(ms));
        }
        if let Some(window) = s.commitlog_sync_group_window.take() {
            let parsed = parse_duration(&window).ok_or(ConfigError::Value {
                setting: "commitlog_sync_group_window",
                value: window,
            })?;
            self.commitlog_sync_group_window = Some(parsed);
        }
        if self.commitlog_sync == SyncMode::Group && period_given {
            return Err(ConfigError::Conflict(
                "Group sync specified, but commitlog_sync_period found. Only specify commitlog_sync_group_window when using group sync",
            ));
        }
        Ok(())
    }

    /// The native transport's in-flight budgets and timeouts.
    fn apply_transport(&mut self, s: &mut YamlSettings) -> Result<(), ConfigError> {
        let budgets = [
            (
                &mut self.max_request_data_in_flight_per_ip,
                s.native_transport_max_request_data_in_flight_per_ip.take(),
                "native_transport_max_request_data_in_flight_per_ip",
            ),
            (
                &mut self.max_request_data_in_flight,
                s.native_transport_max_request_data_in_flight.take(),
                "native_transport_max_request_data_in_flight",
            ),
        ];
        for (slot, value, setting) in budgets {
            if let Some(value) = value {
                *slot = parse_size(&value).ok_or(ConfigError::Value { setting, value })? as u64;
            }
        }
        let timeouts = [
            (
                &mut self.handshake_timeout,
                s.native_transport_handshake_timeout.take(),
                "native_transport_handshake_timeout",
            ),
            (
                &mut self.idle_timeout,
                s.native_transport_idle_timeout.take(),
                "native_transport_idle_timeout",
            ),
            (
                &mut self.read_request_timeout,
                s.read_request_timeout.take().or(s
                    .read_request_timeout_in_ms
                    .take()
                    .map(|ms| format!("{ms}ms"))),
                "read_request_timeout",
            ),
            (
                &mut self.write_request_timeout,
                s.write_request_timeout.take().or(s
                    .write_request_timeout_in_ms
                    .take()
                    .map(|ms| format!("{ms}ms"))),
                "write_request_timeout",
            ),
        ];
        for (slot, value, setting) in timeouts {
            if let Some(value) = value {
                *slot = parse_duration(&value).ok_or(ConfigError::Value { setting, value })?;
            }
        }
        Ok(())
    }

    /// The guardrails' warn and fail thresholds, and the hot-partition warning.
    fn apply_guardrails(&mut self, s: &mut YamlSettings) -> Result<(), ConfigError> {
        let guards = [
            (
                &mut self.partition_keys_in_select.warn,
                s.partition_keys_in_select_warn_threshold.take(),
            ),
            (
                &mut self.partition_keys_in_select.fail,
                s.partition_keys_in_select_fail_threshold.take(),
            ),
            (
                &mut self.in_select_cartesian_product.warn,
                s.in_select_cartesian_product_warn_threshold.take(),
            ),
            (
                &mut self.in_select_cartesian_product.fail,
                s.in_select_cartesian_product_fail_threshold.take(),
            ),
            (
                &mut self.items_per_collection.warn,
                s.items_per_collection_warn_threshold.take(),
            ),
            (
                &mut self.items_per_collection.fail,
                s.items_per_collection_fail_threshold.take(),
            ),
        ];
        for (slot, value) in guards {
            if let Some(value) = value {
                *slot = value;
            }
        }
        if let Some(window) = s.hot_partition_window.take() {
            self.hot_partition_window = window;
        }
        if let Some(share) = s.hot_partition_warn_share.take() {
            self.hot_partition_warn_share = share;
        }
        let size_guards = [
            (
                &mut self.column_value_size.warn,
                s.column_value_size_warn_threshold.take(),
                "column_value_size_warn_threshold",
            ),
            (
                &mut self.column_value_size.fail,
                s.column_value_size_fail_threshold.take(),
                "column_value_size_fail_threshold",
            ),
            (
                &mut self.collection_size.warn,
                s.collection_size_warn_threshold.take(),
                "collection_size_warn_threshold",
            ),
            (
                &mut self.collection_size.fail,
                s.collection_size_fail_threshold.take(),
                "collection_size_fail_threshold",
            ),
            (
                &mut self.partition_size.warn,
                s.partition_size_warn_threshold.take(),
                "partition_size_warn_threshold",
            ),
            (
                &mut self.partition_size.fail,
                s.partition_size_fail_threshold.take(),
                "partition_size_fail_threshold",
            ),
        ];
        for (slot, value, setting) in size_guards {
            if let Some(value) = value {
                let bytes = parse_size(&value).and_then(|b| i64::try_from(b).ok());
                *slot = bytes.ok_or(ConfigError::Value { setting, value })?;
            }
        }
        Ok(())
    }

    /// Cache, memtable and frame sizes, and the connection limit.
    fn apply_memory(&mut self, s: &mut YamlSettings) -> Result<(), ConfigError> {
        if let Some(mb) = s.file_cache_size_in_mb.take() {
            self.file_cache_size = (mb as usize).saturating_mul(1024 * 1024);
        }
        if let Some(size) = s.file_cache_size.take() {
            self.file_cache_size = parse_size(&size).ok_or(ConfigError::Value {
                setting: "file_cache_size",
                value: size,
            })?;
        }
        self.batch_thresholds.apply(
            (
                s.batch_size_warn_threshold.take(),
                s.batch_size_warn_threshold_in_kb.take(),
            ),
            (
                s.batch_size_fail_threshold.take(),
                s.batch_size_fail_threshold_in_kb.take(),
            ),
        )?;
        if let Some(mb) = s.key_cache_size_in_mb.take() {
            self.key_cache_size = (mb as usize).saturating_mul(1024 * 1024);
        }
        if let Some(size) = s.key_cache_size.take() {
            self.key_cache_size = parse_size(&size).ok_or(ConfigError::Value {
                setting: "key_cache_size",
                value: size,
            })?;
        }
        if let Some(mb) = s.compaction_throughput_mb_per_sec.take() {
            self.compaction_throughput = mb.saturating_mul(1024 * 1024);
        }
        if let Some(rate) = s.compaction_throughput.take() {
            let bytes = rate.trim().strip_suffix("/s").and_then(parse_size);
            self.compaction_throughput = bytes.ok_or(ConfigError::Value {
                setting: "compaction_throughput",
                value: rate,
            })? as u64;
        }
        if let Some(mb) = s.memtable_heap_space_in_mb.take() {
            self.memtable_heap_space = (mb as usize).saturating_mul(1024 * 1024);
        }
        if let Some(size) = s.memtable_heap_space.take() {
            self.memtable_heap_space = parse_size(&size).ok_or(ConfigError::Value {
                setting: "memtable_heap_space",
                value: size,
            })?;
        }
        if let Some(mb) = s.native_transport_max_frame_size_in_mb.take() {
            self.max_frame_size = (mb as usize).saturating_mul(1024 * 1024);
        }
        if let Some(size) = s.native_transport_max_frame_size.take() {
            self.max_frame_size = parse_size(&size).ok_or(ConfigError::Value {
                setting: "native_transport_max_frame_size",
                value: size,
            })?;
        }
        if let Some(n) = s.native_transport_max_concurrent_connections.take() {
            if n > 0 {
                self.max_connections = n as usize;
            }
        }
        Ok(())
    }

    /// The simulated cluster, strict consistency, materialized views, vector search, and the
    /// read thresholds.
    fn apply_features(&mut self, s: &mut YamlSettings) -> Result<(), ConfigError> {
        if let Some(cluster) = s.simulated_cluster.take() {
            self.simulated_cluster = Some(cluster.spec()?);
        }
        if let Some(strict) = s.strict_consistency.take() {
            self.strict_consistency = strict;
        }
        if let Some(enabled) = s.enable_materialized_views.take() {
            self.materialized_views_enabled = enabled;
        }
        if let Some(enabled) = s.materialized_views_enabled.take() {
            self.materialized_views_enabled = enabled;
        }
        let udfs = [
            s.enable_user_defined_functions.take(),
            s.user_defined_functions_enabled.take(),
        ];
        if let Some(enabled) = udfs.into_iter().flatten().last() {
            self.user_defined_functions_requested = enabled;
        }
        if let Some(rows) = s.vector_search_exact_rows.take() {
            self.vector_search_exact_rows = usize::try_from(rows).unwrap_or(usize::MAX);
        }
        if let Some(ef) = s.vector_search_ef.take() {
            self.vector_search_ef = usize::try_from(ef).unwrap_or(usize::MAX).clamp(1, 100_000);
        }
        let read = &mut self.read_thresholds;
        read.tombstone_warn = s
            .tombstone_warn_threshold
            .take()
            .unwrap_or(read.tombstone_warn);
        read.tombstone_failure = s
            .tombstone_failure_threshold
            .unwrap_or(read.tombstone_failure);
        read.filtering_ratio = s
            .filtering_examined_warn_ratio
            .unwrap_or(read.filtering_ratio);
        read.filtering_min_rows = s
            .filtering_examined_warn_min_rows
            .unwrap_or(read.filtering_min_rows);
        Ok(())
    }
}

/// Parses the file's text; an empty file (or one of comments only) sets nothing, as in
/// Cassandra.
fn parse_settings(text: &str, path: &Path) -> Result<YamlSettings, ConfigError> {
    let yaml_error = |source| ConfigError::Yaml {
        path: path.to_path_buf(),
        source,
    };
    let document: serde_norway::Value = serde_norway::from_str(text).map_err(yaml_error)?;
    if document.is_null() {
        return Ok(YamlSettings::default());
    }
    serde_norway::from_str(text).map_err(yaml_error)
}

/// Refuses keys that are no Cassandra 5.0 setting (those this server acts on are not in
/// `others`), naming them all as Cassandra does.
fn check_keys(others: &BTreeMap<String, serde_norway::Value>) -> Result<(), ConfigError> {
    let unknown: Vec<String> = others
        .keys()
        .filter(|key| {
            known::CASSANDRA_SETTINGS
                .binary_search(&key.as_str())
                .is_err()
        })
        .cloned()
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::UnknownProperties(unknown))
    }
}

/// Whether `key` is one of the security settings [`check_security`] reads.
fn is_security_setting(key: &str) -> bool {
    key == "authenticator"
        || key == "authorizer"
        || key == encryption::SECTION
        || SECURITY_CLASSES.iter().any(|(setting, _)| *setting == key)
        || SECURITY_ENCRYPTION
            .iter()
            .any(|(setting, _)| *setting == key)
}
