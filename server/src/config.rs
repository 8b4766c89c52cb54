//! Server configuration: defaults, an optional YAML file with Cassandra's setting names
//! (`cassandra.yaml` subset), and command-line overrides applied by `main`.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use storage::SyncMode;

use crate::guardrails::Threshold;

/// Everything the server needs to start.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address the native transport listens on (`rpc_address` / `native_transport_address`).
    pub listen_address: IpAddr,
    /// Native transport port (`native_transport_port`).
    pub port: u16,
    /// Directory holding the redb file; `None` keeps everything in memory (tests).
    pub data_dir: Option<PathBuf>,
    /// `commitlog_sync`: `periodic`, `batch` or `group`.
    pub commitlog_sync: SyncMode,
    /// `commitlog_sync_period`: in `periodic` mode, how often the commit log is fsynced.
    pub commitlog_sync_period: Duration,
    /// `commitlog_sync_group_window`: in `group` mode, the least time between two fsyncs;
    /// required there, as Cassandra requires it.
    pub commitlog_sync_group_window: Option<Duration>,
    /// `cluster_name` as shown in `system.local`.
    pub cluster_name: String,
    /// `native_transport_max_frame_size`: frames longer than this are refused unread.
    pub max_frame_size: usize,
    /// `native_transport_max_concurrent_connections`.
    pub max_connections: usize,
    /// Requests one connection may have in flight before the server stops reading it.
    pub max_requests_per_connection: usize,
    /// `file_cache_size`: bytes of the storage engine's page cache (redb's read cache and
    /// write buffer; Cassandra's setting sizes its chunk cache). 64 MiB by default; the OS
    /// page cache serves the rest.
    pub file_cache_size: usize,
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
    /// `partition_keys_in_select_{warn,fail}_threshold` (Cassandra's guardrail; off).
    pub partition_keys_in_select: Threshold,
    /// `in_select_cartesian_product_{warn,fail}_threshold` (Cassandra's guardrail; off).
    pub in_select_cartesian_product: Threshold,
    /// Writes submitted to the storage writer and not yet acknowledged, at most; further
    /// writes wait, which pushes back on their connections.
    pub write_queue_limit: usize,
    /// Prepared statements kept before the least recently prepared are evicted.
    pub prepared_cache_size: usize,
    /// How often the background purge drops expired cells and tombstones past
    /// `gc_grace_seconds` (the work compaction does in Cassandra); `None` turns it off.
    pub purge_interval: Option<Duration>,
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
            cluster_name: "Test Cluster".to_string(),
            max_frame_size: 16 * 1024 * 1024,
            max_connections: 1024,
            max_requests_per_connection: 1024,
            write_queue_limit: 4096,
            max_request_data_in_flight_per_ip: 32 << 20,
            max_request_data_in_flight: 256 << 20,
            handshake_timeout: Duration::from_secs(10),
            idle_timeout: Duration::ZERO,
            partition_keys_in_select: Threshold::DISABLED,
            in_select_cartesian_product: Threshold::DISABLED,
            file_cache_size: 64 << 20,
            prepared_cache_size: 10_000,
            purge_interval: Some(Duration::from_secs(300)),
        }
    }
}

/// Errors reading the YAML configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid YAML in {path}: {source}")]
    Yaml {
        path: PathBuf,
        source: serde_yaml::Error,
    },
    #[error("invalid value for {setting}: {value}")]
    Value {
        setting: &'static str,
        value: String,
    },
    /// Settings that contradict each other, with Cassandra's message.
    #[error("{0}")]
    Conflict(&'static str),
}

/// The subset of `cassandra.yaml` settings this server understands.
#[derive(Debug, Default, Deserialize)]
struct YamlSettings {
    cluster_name: Option<String>,
    rpc_address: Option<String>,
    native_transport_address: Option<String>,
    native_transport_port: Option<u16>,
    data_file_directories: Option<Vec<PathBuf>>,
    commitlog_sync: Option<String>,
    commitlog_sync_period: Option<String>,
    commitlog_sync_period_in_ms: Option<u64>,
    commitlog_sync_group_window: Option<String>,
    file_cache_size: Option<String>,
    native_transport_max_request_data_in_flight_per_ip: Option<String>,
    native_transport_max_request_data_in_flight: Option<String>,
    native_transport_handshake_timeout: Option<String>,
    native_transport_idle_timeout: Option<String>,
    partition_keys_in_select_warn_threshold: Option<i64>,
    partition_keys_in_select_fail_threshold: Option<i64>,
    in_select_cartesian_product_warn_threshold: Option<i64>,
    in_select_cartesian_product_fail_threshold: Option<i64>,
    file_cache_size_in_mb: Option<u64>,
    commitlog_sync_group_window_in_ms: Option<u64>,
    native_transport_max_frame_size: Option<String>,
    native_transport_max_frame_size_in_mb: Option<u64>,
    native_transport_max_concurrent_connections: Option<i64>,
    prepared_statements_cache_size: Option<String>,
}

impl Config {
    /// Applies the settings of a YAML file over `self`.
    ///
    /// # Errors
    /// The file cannot be read, is not YAML, or a value is malformed.
    pub fn apply_yaml_file(&mut self, path: &Path) -> Result<(), ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let settings: YamlSettings =
            serde_yaml::from_str(&text).map_err(|source| ConfigError::Yaml {
                path: path.to_path_buf(),
                source,
            })?;
        self.apply(settings)
    }

    fn apply(&mut self, s: YamlSettings) -> Result<(), ConfigError> {
        if let Some(name) = s.cluster_name {
            self.cluster_name = name;
        }
        if let Some(addr) = s.native_transport_address.or(s.rpc_address) {
            self.listen_address = addr.parse().map_err(|_| ConfigError::Value {
                setting: "rpc_address",
                value: addr,
            })?;
        }
        if let Some(port) = s.native_transport_port {
            self.port = port;
        }
        if let Some(dir) = s.data_file_directories.and_then(|d| d.into_iter().next()) {
            self.data_dir = Some(dir);
        }
        let period_given =
            s.commitlog_sync_period.is_some() || s.commitlog_sync_period_in_ms.is_some();
        if let Some(mode) = s.commitlog_sync {
            self.commitlog_sync = parse_sync_mode(&mode).ok_or(ConfigError::Value {
                setting: "commitlog_sync",
                value: mode,
            })?;
        }
        if let Some(ms) = s.commitlog_sync_period_in_ms {
            self.commitlog_sync_period = Duration::from_millis(ms);
        }
        if let Some(period) = s.commitlog_sync_period {
            self.commitlog_sync_period = parse_duration(&period).ok_or(ConfigError::Value {
                setting: "commitlog_sync_period",
                value: period,
            })?;
        }
        if let Some(ms) = s.commitlog_sync_group_window_in_ms {
            self.commitlog_sync_group_window = Some(Duration::from_millis(ms));
        }
        if let Some(window) = s.commitlog_sync_group_window {
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
        let budgets = [
            (
                &mut self.max_request_data_in_flight_per_ip,
                s.native_transport_max_request_data_in_flight_per_ip,
                "native_transport_max_request_data_in_flight_per_ip",
            ),
            (
                &mut self.max_request_data_in_flight,
                s.native_transport_max_request_data_in_flight,
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
                s.native_transport_handshake_timeout,
                "native_transport_handshake_timeout",
            ),
            (
                &mut self.idle_timeout,
                s.native_transport_idle_timeout,
                "native_transport_idle_timeout",
            ),
        ];
        for (slot, value, setting) in timeouts {
            if let Some(value) = value {
                *slot = parse_duration(&value).ok_or(ConfigError::Value { setting, value })?;
            }
        }
        let guards = [
            (
                &mut self.partition_keys_in_select.warn,
                s.partition_keys_in_select_warn_threshold,
            ),
            (
                &mut self.partition_keys_in_select.fail,
                s.partition_keys_in_select_fail_threshold,
            ),
            (
                &mut self.in_select_cartesian_product.warn,
                s.in_select_cartesian_product_warn_threshold,
            ),
            (
                &mut self.in_select_cartesian_product.fail,
                s.in_select_cartesian_product_fail_threshold,
            ),
        ];
        for (slot, value) in guards {
            if let Some(value) = value {
                *slot = value;
            }
        }
        if let Some(mb) = s.file_cache_size_in_mb {
            self.file_cache_size = (mb as usize).saturating_mul(1024 * 1024);
        }
        if let Some(size) = s.file_cache_size {
            self.file_cache_size = parse_size(&size).ok_or(ConfigError::Value {
                setting: "file_cache_size",
                value: size,
            })?;
        }
        if let Some(mb) = s.native_transport_max_frame_size_in_mb {
            self.max_frame_size = (mb as usize).saturating_mul(1024 * 1024);
        }
        if let Some(size) = s.native_transport_max_frame_size {
            self.max_frame_size = parse_size(&size).ok_or(ConfigError::Value {
                setting: "native_transport_max_frame_size",
                value: size,
            })?;
        }
        if let Some(n) = s.native_transport_max_concurrent_connections {
            if n > 0 {
                self.max_connections = n as usize;
            }
        }
        let _ = s.prepared_statements_cache_size;
        Ok(())
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
            cache_size: self.file_cache_size,
        })
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
mod tests {
    use super::*;

    #[test]
    fn yaml_uses_cassandra_names() {
        let yaml = "cluster_name: Prod\nnative_transport_port: 9142\ncommitlog_sync: batch\n\
                    commitlog_sync_period: 2s\nnative_transport_max_frame_size: 8MiB\n\
                    data_file_directories:\n  - /tmp/x\n";
        let settings: YamlSettings = serde_yaml::from_str(yaml).unwrap();
        let mut config = Config::default();
        config.apply(settings).unwrap();
        assert_eq!(config.cluster_name, "Prod");
        assert_eq!(config.port, 9142);
        assert_eq!(config.commitlog_sync, SyncMode::Batch);
        assert_eq!(config.commitlog_sync_period, Duration::from_secs(2));
        assert_eq!(config.max_frame_size, 8 * 1024 * 1024);
        assert_eq!(config.data_dir, Some(PathBuf::from("/tmp/x")));
    }

    #[test]
    fn bad_values_are_reported() {
        let settings: YamlSettings = serde_yaml::from_str("commitlog_sync: sometimes").unwrap();
        assert!(Config::default().apply(settings).is_err());
        assert_eq!(parse_duration("10000ms"), Some(Duration::from_secs(10)));
        assert_eq!(parse_size("16MiB"), Some(16 << 20));
    }
}
