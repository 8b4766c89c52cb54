//! When a stored row first holds something a purge pass could change, read from its encoding
//! without decoding it. Flushes and compactions record the earliest such times of each run
//! (`runs::manifest`), so a purge pass can leave out runs that hold nothing due, as
//! Cassandra's compaction reads an SSTable's `maxLocalDeletionTime` before looking inside.

use super::codec::CELL_EXPIRY;
use super::codec::CELL_PATH;
use super::codec::CELL_TOMBSTONE;
use super::codec::ROW_DELETION;
use super::codec::ROW_LIVENESS;
use super::codec::ROW_LIVENESS_TTL;
use super::ROW_FORMAT_VERSION;
use crate::encoding::input::Input;
use crate::error::StorageError;

/// The earliest times, in seconds since the epoch, at which some rows hold something to purge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PurgeTimes {
    /// The earliest `expires_at` of an expiring cell or row marker (`i64::MAX`: none).
    pub expiry: i64,
    /// The earliest local deletion time of a tombstone or row deletion (`i64::MAX`: none).
    pub deletion: i64,
}

impl PurgeTimes {
    /// Nothing that expires and no tombstone.
    pub(crate) const NONE: PurgeTimes = PurgeTimes {
        expiry: i64::MAX,
        deletion: i64::MAX,
    };

    /// Not known (a run written before these times were recorded): always due.
    pub(crate) const UNKNOWN: PurgeTimes = PurgeTimes {
        expiry: i64::MIN,
        deletion: i64::MIN,
    };

    /// The earlier of each time.
    #[must_use]
    pub(crate) fn min(self, other: PurgeTimes) -> PurgeTimes {
        PurgeTimes {
            expiry: self.expiry.min(other.expiry),
            deletion: self.deletion.min(other.deletion),
        }
    }

    /// Whether a purge at `now_seconds` with `gc_grace_seconds` could change something: an
    /// expiring value has expired, or a tombstone is older than the grace period (the rules
    /// of `purge::purge_row`, rounded towards "due").
    pub(crate) fn due(&self, now_seconds: i64, gc_grace_seconds: i32) -> bool {
        let gc_before = now_seconds.saturating_sub(i64::from(gc_grace_seconds));
        self.expiry <= now_seconds || self.deletion <= gc_before
    }
}

/// The purge times of one encoded row (see `codec`).
///
/// # Errors
/// [`StorageError::Corrupt`] for an unknown version or truncation.
pub(crate) fn purge_times(bytes: &[u8]) -> Result<PurgeTimes, StorageError> {
    let mut input = Input::new(bytes, "row value");
    if input.u8()? != ROW_FORMAT_VERSION {
        return Err(input.corrupt("unknown row format version"));
    }
    let flags = input.u8()?;
    let mut times = PurgeTimes::NONE;
    if flags & ROW_LIVENESS != 0 {
        input.i64()?;
        if flags & ROW_LIVENESS_TTL != 0 {
            input.u32()?;
            times.expiry = times.expiry.min(input.i64()?);
        }
    }
    if flags & ROW_DELETION != 0 {
        input.i64()?;
        times.deletion = times.deletion.min(input.i64()?);
    }
    for _ in 0..input.u32()? {
        input.take(4)?;
        let cell_flags = input.u8()?;
        input.i64()?;
        if cell_flags & CELL_PATH != 0 {
            input.prefixed()?;
        }
        if cell_flags & CELL_EXPIRY != 0 {
            input.u32()?;
            times.expiry = times.expiry.min(input.i64()?);
        }
        if cell_flags & CELL_TOMBSTONE != 0 {
            times.deletion = times.deletion.min(input.i64()?);
        } else {
            input.prefixed()?;
        }
    }
    Ok(times)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::encoding::row::encode;
    use crate::encoding::row::CellValue;
    use crate::encoding::row::StoredRow;

    /// The times read from a decoded row, the slow way.
    fn expected(row: &StoredRow) -> PurgeTimes {
        let mut times = PurgeTimes::NONE;
        if let Some(e) = row.liveness.as_ref().and_then(|l| l.ttl.as_ref()) {
            times.expiry = times.expiry.min(e.expires_at_seconds);
        }
        if let Some(d) = &row.deletion {
            times.deletion = times.deletion.min(d.local_deletion_seconds);
        }
        for (_, cell) in &row.cells {
            if let Some(e) = &cell.expiry {
                times.expiry = times.expiry.min(e.expires_at_seconds);
            }
            if let CellValue::Tombstone {
                local_deletion_seconds,
            } = cell.value
            {
                times.deletion = times.deletion.min(local_deletion_seconds);
            }
        }
        times
    }

    proptest! {
        #[test]
        fn scanning_the_encoding_agrees_with_decoding(row in crate::encoding::row::row_strategy()) {
            prop_assert_eq!(purge_times(&encode(&row)).unwrap(), expected(&row));
        }
    }

    #[test]
    fn a_truncated_row_is_corrupt() {
        let row = StoredRow {
            liveness: None,
            deletion: None,
            cells: Vec::new(),
        };
        let bytes = encode(&row);
        assert!(purge_times(&bytes[..bytes.len() - 1]).is_err());
    }

    #[test]
    fn due_follows_expiry_and_gc_grace() {
        let times = PurgeTimes {
            expiry: 1_000,
            deletion: 500,
        };
        assert!(!times.due(999, 600));
        assert!(times.due(1_000, 600));
        assert!(times.due(900, 400));
        assert!(!PurgeTimes::NONE.due(i64::MAX - 1, 0));
        assert!(PurgeTimes::UNKNOWN.due(0, 864_000));
    }
}
