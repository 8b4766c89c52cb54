//! The `/metrics` endpoint: a node's [`Metrics`](crate::metrics::Metrics) and storage
//! figures in the Prometheus (OpenMetrics) text format, served when `metrics_address` is set.
//! It reads the whole [`Node`](crate::node::Node), so it sits above it; the counters it reads
//! (`crate::metrics`) sit below.
//!
//! - [`exposition`]: the metric families a scrape writes.
//! - [`http`]: the plain-HTTP responder.
//! - [`table_bytes`]: each table's stored bytes, read at most every 30 s.
//! - [`table_runs`]: each table's sorted runs and running compaction, from their manifest.

pub(crate) mod exposition;
pub(crate) mod http;
mod table_bytes;
mod table_runs;
