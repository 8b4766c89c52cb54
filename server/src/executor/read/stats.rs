//! `ReadStats`: what one read request examined, counted by the scan in `select::run` with
//! plain integer increments. EXPLAIN ANALYZE reports it and the read-side warnings
//! (`crate::executor::read::thresholds`) judge it.

/// Counts of one SELECT's read (one page when paged).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ReadStats {
    /// Partitions the scan entered.
    pub partitions: u64,
    /// Stored rows the scan examined, live or not (static rows included).
    pub rows_examined: u64,
    /// Rows found live (with a live cell or row marker), before filtering.
    pub live_rows: u64,
    /// Tombstones met: rows found deleted or expired, dead cells (deleted, null or expired)
    /// of the rows read, and range tombstones of the partitions entered.
    pub tombstones: u64,
    /// Rows in the result.
    pub rows_returned: u64,
    /// The token of the last partition entered (Cassandra names it in its tombstone
    /// warning).
    pub last_token: Option<i64>,
}

impl ReadStats {
    /// Notes entering the partition whose storage key prefix is `prefix` (token first).
    pub(crate) fn enter_partition(&mut self, prefix: &[u8]) {
        self.partitions += 1;
        self.last_token = prefix
            .get(..8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map(|b| (u64::from_be_bytes(b) ^ (1 << 63)) as i64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_prefix_gives_its_token_back() {
        let mut stats = ReadStats::default();
        for token in [i64::MIN, -1, 0, 42, i64::MAX] {
            let mut prefix = storage::token_bytes(token).to_vec();
            prefix.push(7);
            stats.enter_partition(&prefix);
            assert_eq!(stats.last_token, Some(token));
        }
        assert_eq!(stats.partitions, 5);
    }
}
