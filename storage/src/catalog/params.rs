//! `TableParams`: a table's `WITH` options, defaulting to what Cassandra 5.0 writes to
//! `system_schema.tables` for a table created without options.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A table's options, as `system_schema.tables` shows them.
///
/// Persisted as JSON with these field names; unknown fields are ignored and missing fields take
/// the defaults, so options can be added without a format-version change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TableParams {
    /// `additional_write_policy` (default `99p`).
    pub additional_write_policy: String,
    /// `allow_auto_snapshot` (null unless set).
    pub allow_auto_snapshot: Option<bool>,
    /// `bloom_filter_fp_chance` (default 0.01).
    pub bloom_filter_fp_chance: f64,
    /// `caching` (default `{'keys': 'ALL', 'rows_per_partition': 'NONE'}`).
    pub caching: BTreeMap<String, String>,
    /// `cdc` (null unless set).
    pub cdc: Option<bool>,
    /// `comment` (default empty).
    pub comment: String,
    /// `compaction` (default SizeTieredCompactionStrategy with thresholds 32/4).
    pub compaction: BTreeMap<String, String>,
    /// `compression` (default LZ4Compressor with 16 KiB chunks).
    pub compression: BTreeMap<String, String>,
    /// `memtable` (null unless set).
    pub memtable: Option<String>,
    /// `crc_check_chance` (default 1.0).
    pub crc_check_chance: f64,
    /// `default_time_to_live` in seconds (default 0 = none).
    pub default_time_to_live: i32,
    /// `extensions` (default empty).
    pub extensions: BTreeMap<String, Vec<u8>>,
    /// `gc_grace_seconds` (default 864000 = 10 days).
    pub gc_grace_seconds: i32,
    /// `incremental_backups` (null unless set).
    pub incremental_backups: Option<bool>,
    /// `max_index_interval` (default 2048).
    pub max_index_interval: i32,
    /// `memtable_flush_period_in_ms` (default 0).
    pub memtable_flush_period_in_ms: i32,
    /// `min_index_interval` (default 128).
    pub min_index_interval: i32,
    /// `read_repair` (default `BLOCKING`).
    pub read_repair: String,
    /// `speculative_retry` (default `99p`).
    pub speculative_retry: String,
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

impl Default for TableParams {
    /// Cassandra 5.0's values for a table created without options.
    fn default() -> TableParams {
        TableParams {
            additional_write_policy: "99p".into(),
            allow_auto_snapshot: None,
            bloom_filter_fp_chance: 0.01,
            caching: map(&[("keys", "ALL"), ("rows_per_partition", "NONE")]),
            cdc: None,
            comment: String::new(),
            compaction: map(&[
                (
                    "class",
                    "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy",
                ),
                ("max_threshold", "32"),
                ("min_threshold", "4"),
            ]),
            compression: map(&[
                ("chunk_length_in_kb", "16"),
                ("class", "org.apache.cassandra.io.compress.LZ4Compressor"),
            ]),
            memtable: None,
            crc_check_chance: 1.0,
            default_time_to_live: 0,
            extensions: BTreeMap::new(),
            gc_grace_seconds: 864_000,
            incremental_backups: None,
            max_index_interval: 2048,
            memtable_flush_period_in_ms: 0,
            min_index_interval: 128,
            read_repair: "BLOCKING".into(),
            speculative_retry: "99p".into(),
        }
    }
}
