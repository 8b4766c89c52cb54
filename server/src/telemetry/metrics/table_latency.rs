//! Each table's latencies of local reads (one partition), scans (partition ranges) and
//! writes, for `system_views.local_read_latency`, `local_scan_latency` and
//! `local_write_latency` (Cassandra 5.0's `LatencyTableMetric` columns). Recording finds the
//! table under a read lock and adds to its histogram's atomics.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;
use std::time::{Duration, Instant};

use storage::BuildFastHasher;
use uuid::Uuid;

use super::histogram::{LatencyHistogram, BOUNDS_MICROS};

/// What was timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LatencyKind {
    /// A read of one partition (`local_read_latency`).
    Read = 0,
    /// A read of a range of partitions (`local_scan_latency`).
    Scan = 1,
    /// A write (`local_write_latency`).
    Write = 2,
}

/// One table's histograms and longest observations, by [`LatencyKind`].
#[derive(Debug, Default)]
struct TableLatency {
    histograms: [LatencyHistogram; 3],
    max_micros: [AtomicU64; 3],
}

impl TableLatency {
    fn record(&self, kind: LatencyKind, elapsed: Duration) {
        let i = kind as usize;
        self.histograms[i].record(elapsed);
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        self.max_micros[i].fetch_max(micros, Ordering::Relaxed);
    }
}

/// Every table's latencies since the start.
#[derive(Debug)]
pub(crate) struct TableLatencies {
    /// By table id (server-made, so the fast hash is safe).
    tables: RwLock<HashMap<Uuid, TableLatency, BuildFastHasher>>,
    started: Instant,
}

impl Default for TableLatencies {
    fn default() -> TableLatencies {
        TableLatencies {
            tables: RwLock::default(),
            started: Instant::now(),
        }
    }
}

/// A table's latencies of one kind, as the view shows them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct LatencySummary {
    pub count: u64,
    pub max_ms: f64,
    /// The upper bound of the bucket holding the median (at most `max_ms`).
    pub p50th_ms: f64,
    /// The upper bound of the bucket holding the 99th percentile (at most `max_ms`).
    pub p99th_ms: f64,
    /// Observations per second since the server started.
    pub per_second: f64,
}

impl TableLatencies {
    /// Records one operation of `kind` on `table` that took `elapsed`.
    pub(crate) fn record(&self, table: Uuid, kind: LatencyKind, elapsed: Duration) {
        // Under the read lock, without taking a reference: the table's entry is only added
        // under the write lock, the first time.
        {
            let tables = self.tables.read().unwrap_or_else(|e| e.into_inner());
            if let Some(latency) = tables.get(&table) {
                latency.record(kind, elapsed);
                return;
            }
        }
        self.tables
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .entry(table)
            .or_default()
            .record(kind, elapsed);
    }

    /// `table`'s latencies of `kind` so far (all zero when none was recorded).
    pub(crate) fn summary(&self, table: Uuid, kind: LatencyKind) -> LatencySummary {
        let tables = self.tables.read().unwrap_or_else(|e| e.into_inner());
        let Some(latency) = tables.get(&table) else {
            return LatencySummary::default();
        };
        let i = kind as usize;
        let snapshot = latency.histograms[i].snapshot();
        let max_ms = latency.max_micros[i].load(Ordering::Relaxed) as f64 / 1e3;
        let quantile = |q: f64| {
            let wanted = (snapshot.count as f64 * q).ceil().max(1.0) as u64;
            let mut seen = 0;
            for (bucket, (_, n)) in snapshot.buckets.iter().enumerate() {
                seen += n;
                if seen >= wanted {
                    let bound = BOUNDS_MICROS
                        .get(bucket)
                        .map_or(max_ms, |&b| b as f64 / 1e3);
                    return bound.min(max_ms);
                }
            }
            max_ms
        };
        let elapsed = self.started.elapsed().as_secs_f64().max(1.0);
        LatencySummary {
            count: snapshot.count,
            max_ms,
            p50th_ms: quantile(0.5),
            p99th_ms: quantile(0.99),
            per_second: snapshot.count as f64 / elapsed,
        }
    }

    /// Keeps only the tables `exists` holds (dropped tables are forgotten).
    pub(crate) fn retain(&self, exists: impl Fn(&Uuid) -> bool) {
        self.tables
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|id, _| exists(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_take_quantiles_from_the_buckets_and_cap_them_at_the_maximum() {
        let latencies = TableLatencies::default();
        let table = Uuid::new_v4();
        for _ in 0..98 {
            latencies.record(table, LatencyKind::Read, Duration::from_micros(40));
        }
        latencies.record(table, LatencyKind::Read, Duration::from_micros(700));
        latencies.record(table, LatencyKind::Read, Duration::from_micros(900));
        let read = latencies.summary(table, LatencyKind::Read);
        assert_eq!(read.count, 100);
        assert!((read.max_ms - 0.9).abs() < 1e-9);
        assert!((read.p50th_ms - 0.05).abs() < 1e-9);
        assert!((read.p99th_ms - 0.9).abs() < 1e-9, "{read:?}");
        assert_eq!(latencies.summary(table, LatencyKind::Write).count, 0);
        latencies.retain(|id| *id != table);
        assert_eq!(latencies.summary(table, LatencyKind::Read).count, 0);
    }
}
