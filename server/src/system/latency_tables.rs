//! `system_views.local_read_latency`, `local_scan_latency` and `local_write_latency`: per user
//! table, the operations timed since the start with their count, longest, median, 99th
//! percentile and rate, as Cassandra 5.0 shows them (`crate::telemetry::metrics::table_latency`).

use cql::types::CqlValue;

use super::{bigint, text, NamedRow};
use crate::node::Node;
use crate::schema::Schema;
use crate::telemetry::metrics::table_latency::LatencyKind;

/// One row per user table.
pub(crate) fn rows(node: &Node, schema: &Schema, kind: LatencyKind) -> Vec<NamedRow> {
    let mut rows = Vec::new();
    for keyspace in schema.user_keyspaces() {
        for table in keyspace.tables.values() {
            let summary = node.metrics().tables.summary(table.id, kind);
            rows.push(vec![
                ("keyspace_name", text(&table.keyspace)),
                ("table_name", text(&table.name)),
                ("count", bigint(summary.count)),
                ("max_ms", Some(CqlValue::Double(summary.max_ms))),
                ("p50th_ms", Some(CqlValue::Double(summary.p50th_ms))),
                ("p99th_ms", Some(CqlValue::Double(summary.p99th_ms))),
                ("per_second", Some(CqlValue::Double(summary.per_second))),
            ]);
        }
    }
    rows
}
