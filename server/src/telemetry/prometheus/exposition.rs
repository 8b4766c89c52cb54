//! The metric families a scrape writes, read from a node's [`Metrics`](crate::telemetry::metrics::Metrics) and
//! storage, and encoded by `prometheus-client` in the OpenMetrics text format.

use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};

use super::table_bytes::TableBytesCache;
use crate::node::Node;
use crate::telemetry::metrics::labels::{ERROR_CODES, KINDS, OPCODES};
use crate::telemetry::metrics::Metrics;

/// The `Content-Type` of [`render`]'s text.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A node's metrics as one `prometheus-client` collector, with the last reading of the
/// tables' sizes (see [`TableBytesCache`]).
struct NodeCollector {
    node: Arc<Node>,
    table_bytes: TableBytesCache,
}

impl fmt::Debug for NodeCollector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NodeCollector")
    }
}

/// A registry holding `node`'s metrics; [`render`] encodes it on each scrape.
pub(crate) fn registry(node: Arc<Node>) -> Registry {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(NodeCollector {
        node,
        table_bytes: TableBytesCache::default(),
    }));
    registry
}

/// The metrics text of `registry` now.
///
/// # Errors
/// The encoder failed (it writes to a `String`, so only a bug makes it fail).
pub(crate) fn render(registry: &Registry) -> Result<String, fmt::Error> {
    let mut text = String::with_capacity(16 * 1024);
    prometheus_client::encoding::text::encode(&mut text, registry)?;
    Ok(text)
}

impl Collector for NodeCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> fmt::Result {
        let node = &self.node;
        let metrics = &node.metrics();
        let writer = node.store().writer_stats();
        encode_requests(&mut encoder, metrics)?;
        encode_errors(&mut encoder, metrics)?;
        encode_table_bytes(&mut encoder, &self.table_bytes, node)?;
        super::table_runs::encode(&mut encoder, node)?;
        let counters = [
            (
                "cql_connections_accepted",
                "Client connections accepted since the start",
                metrics.connections_accepted.load(Ordering::Relaxed),
            ),
            (
                "cql_rows_written",
                "Rows written by client requests (row and counter writes)",
                metrics.rows_written.load(Ordering::Relaxed),
            ),
            (
                "cql_rows_read",
                "Stored rows examined by reads of user tables",
                node.store().rows_read(),
            ),
            (
                "cql_client_warnings",
                "Warnings sent to clients with their responses",
                metrics.warnings.load(Ordering::Relaxed),
            ),
            (
                "storage_write_groups",
                "Groups the storage writer handled (one commit-log append and one apply each)",
                writer.groups,
            ),
            (
                "storage_write_group_requests",
                "Write requests in those groups (divided by the groups: the mean group size)",
                writer.requests,
            ),
        ];
        for (name, help, value) in counters {
            let counter = ConstCounter::new(value);
            counter.encode(encoder.encode_descriptor(
                name,
                help,
                None,
                counter.metric_type(),
            )?)?;
        }
        let seconds = ConstCounter::new(writer.micros as f64 / 1e6);
        seconds.encode(encoder.encode_descriptor(
            "storage_write_group",
            "Time the storage writer spent on groups (append, apply, commit; not the fsync \
             batch and group modes wait for)",
            Some(&Unit::Seconds),
            seconds.metric_type(),
        )?)?;
        let open = ConstGauge::new(metrics.connections_open.load(Ordering::Relaxed));
        open.encode(encoder.encode_descriptor(
            "cql_connections_open",
            "Client connections open now",
            None,
            open.metric_type(),
        )?)
    }
}

/// `cql_request_duration_seconds{opcode, kind}`: the series that saw requests.
fn encode_requests(encoder: &mut DescriptorEncoder, metrics: &Metrics) -> fmt::Result {
    let mut family = encoder.encode_descriptor(
        "cql_request_duration",
        "CQL requests by opcode and statement kind: time from the request's frame read to \
         its response encoded",
        Some(&Unit::Seconds),
        MetricType::Histogram,
    )?;
    for ((_, opcode), by_kind) in OPCODES.iter().zip(&metrics.requests) {
        for (kind, histogram) in KINDS.iter().zip(by_kind) {
            if histogram.count() == 0 {
                continue;
            }
            let snapshot = histogram.snapshot();
            let labels = [("opcode", *opcode), ("kind", kind.name())];
            family
                .encode_family(&labels)?
                .encode_histogram::<NoLabelSet>(
                    snapshot.sum_seconds,
                    snapshot.count,
                    &snapshot.buckets,
                    None,
                )?;
        }
    }
    Ok(())
}

/// `storage_table_bytes{keyspace, table}`: each user table's stored bytes (keys and rows),
/// as of the last reading (at most 30 s old).
fn encode_table_bytes(
    encoder: &mut DescriptorEncoder,
    cache: &TableBytesCache,
    node: &Node,
) -> fmt::Result {
    let mut family = encoder.encode_descriptor(
        "storage_table",
        "Bytes each user table stores (keys and encoded rows), read at most every 30 s",
        Some(&Unit::Bytes),
        MetricType::Gauge,
    )?;
    for table in cache.get(node) {
        let labels = [
            ("keyspace", table.keyspace.as_str()),
            ("table", table.table.as_str()),
        ];
        let bytes = i64::try_from(table.bytes).unwrap_or(i64::MAX);
        ConstGauge::new(bytes).encode(family.encode_family(&labels)?)?;
    }
    Ok(())
}

/// `cql_errors_total{code, error}`: the codes that were answered.
fn encode_errors(encoder: &mut DescriptorEncoder, metrics: &Metrics) -> fmt::Result {
    let mut family = encoder.encode_descriptor(
        "cql_errors",
        "Error responses by CQL error code",
        None,
        MetricType::Counter,
    )?;
    for ((code, name), counter) in ERROR_CODES.iter().zip(&metrics.errors) {
        let count = counter.load(Ordering::Relaxed);
        if count > 0 {
            let code = format!("0x{code:04X}");
            let labels = [("code", code.as_str()), ("error", *name)];
            ConstCounter::new(count).encode(family.encode_family(&labels)?)?;
        }
    }
    Ok(())
}
