//! [`WriterStats`]: what the writer did, in counters a metrics scrape reads. Relaxed atomic
//! additions, once per group (not per write).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Counters of the writer's groups, shared by the store's handles.
#[derive(Debug, Default)]
pub(crate) struct WriterStats {
    groups: AtomicU64,
    requests: AtomicU64,
    micros: AtomicU64,
}

/// The writer's counters at one moment (see [`crate::Store::writer_stats`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriterCounts {
    /// Groups handled: each one commit-log append and one apply (memtable or redb commit).
    pub groups: u64,
    /// Requests in those groups; `requests / groups` is the mean group size.
    pub requests: u64,
    /// Microseconds spent handling them (the append, the apply, the commit; not the fsync
    /// that `batch` and `group` modes wait for on the sync thread).
    pub micros: u64,
}

impl WriterStats {
    /// Records a group of `requests` handled in `took`.
    pub(crate) fn group(&self, requests: usize, took: Duration) {
        self.groups.fetch_add(1, Ordering::Relaxed);
        self.requests.fetch_add(requests as u64, Ordering::Relaxed);
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.micros.fetch_add(micros, Ordering::Relaxed);
    }

    /// The counters now.
    pub(crate) fn counts(&self) -> WriterCounts {
        WriterCounts {
            groups: self.groups.load(Ordering::Relaxed),
            requests: self.requests.load(Ordering::Relaxed),
            micros: self.micros.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_add_up() {
        let stats = WriterStats::default();
        stats.group(3, Duration::from_micros(40));
        stats.group(1, Duration::from_micros(2));
        let counts = stats.counts();
        assert_eq!(
            counts,
            WriterCounts {
                groups: 2,
                requests: 4,
                micros: 42
            }
        );
    }
}
