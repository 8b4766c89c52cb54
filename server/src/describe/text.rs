//! The CQL text pieces `DESCRIBE` prints: its output rows, string maps, table options and
//! type names, shared by the keyspace, table, view and index descriptions.

use cql::types::{maybe_quote, ColumnType};
use storage::{ClusteringOrder, TableDef};

/// One output row: keyspace, type, name and (for elements) the statement.
pub(crate) struct Element {
    pub(crate) keyspace: String,
    pub(crate) kind: &'static str,
    pub(crate) name: String,
    pub(crate) statement: Option<String>,
}

/// A map of strings as CQL writes it: `{'k': 'v', ...}`, quotes doubled.
pub(crate) fn quoted_map<'a>(
    entries: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> String {
    let body: Vec<String> = entries
        .into_iter()
        .map(|(k, v)| format!("'{}': '{}'", k.replace('\'', "''"), v.replace('\'', "''")))
        .collect();
    format!("{{{}}}", body.join(", "))
}

/// The `WITH` options of `CREATE TABLE` (and of `CREATE MATERIALIZED VIEW`), clustering
/// order first, as `TableMetadata.appendTableOptions` writes them.
pub(crate) fn table_options(t: &TableDef) -> Vec<String> {
    let mut options = Vec::new();
    if !t.clustering_key.is_empty() {
        let orders: Vec<String> = t
            .clustering_key
            .iter()
            .map(|&i| {
                let c = &t.columns[i];
                let dir = if c.order == ClusteringOrder::Desc {
                    "DESC"
                } else {
                    "ASC"
                };
                format!("{} {dir}", maybe_quote(&c.name))
            })
            .collect();
        options.push(format!("CLUSTERING ORDER BY ({})", orders.join(", ")));
    }
    let p = &t.params;
    let quote = |s: &str| format!("'{}'", s.replace('\'', "''"));
    options.push(format!(
        "additional_write_policy = {}",
        quote(&p.additional_write_policy)
    ));
    if let Some(v) = p.allow_auto_snapshot {
        options.push(format!("allow_auto_snapshot = {v}"));
    }
    options.push(format!(
        "bloom_filter_fp_chance = {}",
        crate::eval::java_text::java_double(p.bloom_filter_fp_chance)
    ));
    options.push(format!("caching = {}", quoted_map(&p.caching)));
    if let Some(v) = p.cdc {
        options.push(format!("cdc = {v}"));
    }
    options.push(format!("comment = {}", quote(&p.comment)));
    options.push(format!("compaction = {}", quoted_map(&p.compaction)));
    options.push(format!("compression = {}", quoted_map(&p.compression)));
    if let Some(m) = &p.memtable {
        options.push(format!("memtable = {}", quote(m)));
    }
    options.push(format!(
        "crc_check_chance = {}",
        crate::eval::java_text::java_double(p.crc_check_chance)
    ));
    options.push(format!("default_time_to_live = {}", p.default_time_to_live));
    let extensions: Vec<String> = p
        .extensions
        .iter()
        .map(|(k, v)| format!("'{}': 0x{}", k, crate::error::hex(v)))
        .collect();
    options.push(format!("extensions = {{{}}}", extensions.join(", ")));
    options.push(format!("gc_grace_seconds = {}", p.gc_grace_seconds));
    if let Some(v) = p.incremental_backups {
        options.push(format!("incremental_backups = {v}"));
    }
    options.push(format!("max_index_interval = {}", p.max_index_interval));
    options.push(format!(
        "memtable_flush_period_in_ms = {}",
        p.memtable_flush_period_in_ms
    ));
    options.push(format!("min_index_interval = {}", p.min_index_interval));
    options.push(format!("read_repair = {}", quote(&p.read_repair)));
    options.push(format!(
        "speculative_retry = {}",
        quote(&p.speculative_retry)
    ));
    options
}

pub(crate) fn type_text(ty: &ColumnType) -> String {
    ty.to_string()
}
