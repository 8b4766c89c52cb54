//! Server metrics: the counters a request records. `crate::telemetry::prometheus` serves them in the
//! Prometheus (OpenMetrics) text format at `/metrics` when `http_address` is set.
//!
//! Requests record into fixed tables of atomics found by index (opcode, statement kind,
//! error code): relaxed atomic additions, no lock and no allocation on the request path.
//! A scrape reads them and hands them to `prometheus-client`'s encoder.
//!
//! - [`labels`]: opcodes, statement kinds, error codes.
//! - [`histogram`]: the latency histogram.
//! - [`table_latency`]: each table's read, scan and write latencies.

mod histogram;
pub(crate) mod labels;
pub(crate) mod table_latency;

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use histogram::LatencyHistogram;
pub(crate) use labels::StatementKind;
use labels::{error_index, opcode_index, ERROR_CODES, KINDS, OPCODES};

/// Every counter the server keeps for its metrics.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    /// Request latencies by opcode and statement kind.
    pub(crate) requests: [[LatencyHistogram; KINDS.len()]; OPCODES.len()],
    /// Error responses by code.
    pub(crate) errors: [AtomicU64; ERROR_CODES.len()],
    /// Client connections open now.
    pub(crate) connections_open: AtomicI64,
    /// Client connections accepted since the start.
    pub(crate) connections_accepted: AtomicU64,
    /// Rows written by client requests (row and counter writes).
    pub(crate) rows_written: AtomicU64,
    /// Client warnings sent with responses.
    pub(crate) warnings: AtomicU64,
    /// Each table's read, scan and write latencies (`system_views.local_*_latency`).
    pub tables: table_latency::TableLatencies,
}

impl Metrics {
    /// Records a request answered after `elapsed`.
    pub(crate) fn request(&self, opcode: u8, kind: StatementKind, elapsed: Duration) {
        if let Some(by_kind) = self.requests.get(opcode_index(opcode)) {
            if let Some(histogram) = by_kind.get(kind as usize) {
                histogram.record(elapsed);
            }
        }
    }

    /// Records an error response with CQL error `code`.
    pub(crate) fn error(&self, code: i32) {
        if let Some(counter) = self.errors.get(error_index(code)) {
            counter.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Records `count` client warnings sent with a response.
    pub(crate) fn warnings(&self, count: usize) {
        if count > 0 {
            self.warnings.fetch_add(count as u64, Ordering::Relaxed);
        }
    }

    /// Records `count` rows written by a client request.
    pub(crate) fn rows_written(&self, count: usize) {
        self.rows_written.fetch_add(count as u64, Ordering::Relaxed);
    }

    /// Records an accepted connection, open until the guard is dropped.
    pub(crate) fn connection_opened(&self) -> OpenConnection<'_> {
        self.connections_accepted.fetch_add(1, Ordering::Relaxed);
        self.connections_open.fetch_add(1, Ordering::Relaxed);
        OpenConnection(self)
    }
}

/// A client connection counted as open (see [`Metrics::connection_opened`]).
#[derive(Debug)]
pub(crate) struct OpenConnection<'a>(&'a Metrics);

impl Drop for OpenConnection<'_> {
    fn drop(&mut self) {
        self.0.connections_open.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_errors_and_connections_are_counted_where_they_belong() {
        let metrics = Metrics::default();
        metrics.request(0x07, StatementKind::Select, Duration::from_micros(80));
        metrics.request(0x07, StatementKind::Select, Duration::from_micros(120));
        metrics.request(0x0A, StatementKind::Insert, Duration::from_micros(10));
        let select = &metrics.requests[opcode_index(0x07)][StatementKind::Select as usize];
        assert_eq!(select.count(), 2);
        let insert = &metrics.requests[opcode_index(0x0A)][StatementKind::Insert as usize];
        assert_eq!(insert.count(), 1);
        metrics.error(0x2200);
        assert_eq!(
            metrics.errors[error_index(0x2200)].load(Ordering::Relaxed),
            1
        );
        let open = metrics.connection_opened();
        let second = metrics.connection_opened();
        assert_eq!(metrics.connections_open.load(Ordering::Relaxed), 2);
        drop((open, second));
        assert_eq!(metrics.connections_open.load(Ordering::Relaxed), 0);
        assert_eq!(metrics.connections_accepted.load(Ordering::Relaxed), 2);
    }
}
