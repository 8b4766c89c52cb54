//! [`LatencyHistogram`]: request latencies in fixed buckets of atomics. Recording is two
//! relaxed atomic additions: no lock and no allocation on the request path.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the buckets, in microseconds (inclusive, as Prometheus's `le`); a last
/// bucket takes everything longer.
pub(crate) const BOUNDS_MICROS: [u64; 16] = [
    50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 2_500_000, 10_000_000,
];

/// How many buckets a histogram has: one per bound, then `+Inf`.
const BUCKETS: usize = BOUNDS_MICROS.len() + 1;

/// A histogram of durations.
#[derive(Debug, Default)]
pub(crate) struct LatencyHistogram {
    /// Observations per bucket (not cumulative).
    buckets: [AtomicU64; BUCKETS],
    /// The sum of every observation, in microseconds.
    sum_micros: AtomicU64,
}

/// What a histogram held at one moment, as the exposition wants it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HistogramSnapshot {
    /// Observations.
    pub(crate) count: u64,
    /// Their sum, in seconds.
    pub(crate) sum_seconds: f64,
    /// (upper bound in seconds, observations in that bucket alone); the last bound is
    /// infinite.
    pub(crate) buckets: Vec<(f64, u64)>,
}

impl LatencyHistogram {
    /// Records one observation.
    pub(crate) fn record(&self, elapsed: Duration) {
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        let bucket = BOUNDS_MICROS.partition_point(|&bound| bound < micros);
        if let Some(slot) = self.buckets.get(bucket) {
            slot.fetch_add(1, Ordering::Relaxed);
        }
        self.sum_micros.fetch_add(micros, Ordering::Relaxed);
    }

    /// Observations so far (a scrape reads this before it reads the rest).
    pub(crate) fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.load(Ordering::Relaxed)).sum()
    }

    /// The histogram now. Recording goes on meanwhile, so the count and the sum may be one
    /// observation apart, as Prometheus allows.
    pub(crate) fn snapshot(&self) -> HistogramSnapshot {
        let bounds = BOUNDS_MICROS
            .iter()
            .map(|&micros| micros as f64 / 1e6)
            .chain(std::iter::once(f64::INFINITY));
        let buckets: Vec<(f64, u64)> = bounds
            .zip(&self.buckets)
            .map(|(bound, n)| (bound, n.load(Ordering::Relaxed)))
            .collect();
        HistogramSnapshot {
            count: buckets.iter().map(|(_, n)| n).sum(),
            sum_seconds: self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6,
            buckets,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_the_first_bucket_that_holds_them() {
        let histogram = LatencyHistogram::default();
        histogram.record(Duration::from_micros(50)); // le 50 us, inclusive
        histogram.record(Duration::from_micros(51)); // le 100 us
        histogram.record(Duration::from_millis(3)); // le 5 ms
        histogram.record(Duration::from_secs(60)); // +Inf
        let snapshot = histogram.snapshot();
        assert_eq!(snapshot.count, 4);
        assert_eq!(histogram.count(), 4);
        assert!((snapshot.sum_seconds - 60.003101).abs() < 1e-9);
        let held: Vec<(f64, u64)> = snapshot
            .buckets
            .iter()
            .copied()
            .filter(|(_, n)| *n > 0)
            .collect();
        assert_eq!(
            held,
            [(0.00005, 1), (0.0001, 1), (0.005, 1), (f64::INFINITY, 1)]
        );
        assert_eq!(snapshot.buckets.len(), BUCKETS);
    }
}
