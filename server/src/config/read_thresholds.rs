//! The read thresholds' settings (Cassandra's `tombstone_*_threshold` and our filtering
//! warning); `crate::executor::read::thresholds` applies them to reads.

/// The thresholds, from the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadThresholds {
    /// `tombstone_warn_threshold`: more tombstones than this in one read give Cassandra's
    /// client warning; negative turns it off.
    pub tombstone_warn: i64,
    /// `tombstone_failure_threshold`: more than this aborts the read with a read failure;
    /// negative turns it off.
    pub tombstone_failure: i64,
    /// `filtering_examined_warn_ratio` (ours): a filtering read that examines at least this
    /// many times the rows it returns gets a warning; 0 turns it off.
    pub filtering_ratio: u64,
    /// `filtering_examined_warn_min_rows` (ours): reads examining fewer rows never warn.
    pub filtering_min_rows: u64,
}

impl Default for ReadThresholds {
    /// Cassandra's tombstone defaults (1,000 and 100,000); filtering reads warn from 1,000
    /// rows examined at 100 per row returned.
    fn default() -> Self {
        ReadThresholds {
            tombstone_warn: 1000,
            tombstone_failure: 100_000,
            filtering_ratio: 100,
            filtering_min_rows: 1000,
        }
    }
}
