//! The `runs` record of one CQL table: its runs, newest first.
//!
//! ```text
//! record := version:u8 (=2) count:u32 run*
//! run    := id:16 rows:u64 deletions:u64 bytes:u64 blocks:u64 partitions:u64
//!           first_len:u32 first_key last_len:u32 last_key
//!           min_expiry:i64 min_deletion:i64
//! ```
//!
//! Version 1 records lack `partitions` and the two times: each run's partitions are taken as
//! its live entries (an upper bound: one partition per row) until compaction rewrites it, and
//! its purge times as [`PurgeTimes::UNKNOWN`] (always due).

use std::ops::Bound;

use redb::ReadableTable;
use redb::TableError;
use uuid::Uuid;

use super::RUNS;
use crate::encoding::row::PurgeTimes;
use crate::error::StorageError;

/// What the manifest says of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunMeta {
    /// Names its redb table and its filter.
    pub(crate) id: Uuid,
    /// Entries, deletions included.
    pub(crate) rows: u64,
    /// Entries that record a deletion.
    pub(crate) deletions: u64,
    /// Bytes of its stored blocks.
    pub(crate) bytes: u64,
    /// Blocks.
    pub(crate) blocks: u64,
    /// Partitions with a live entry (distinct tokens among its rows; two partitions whose
    /// tokens collide count once).
    pub(crate) partitions: u64,
    /// Its smallest key.
    pub(crate) first_key: Vec<u8>,
    /// Its largest key.
    pub(crate) last_key: Vec<u8>,
    /// When its rows first hold something a purge could change.
    pub(crate) purge: PurgeTimes,
}

impl RunMeta {
    /// The entry of run `id` before it holds anything (also names a run to delete that got no
    /// entry of its own).
    pub(crate) fn empty(id: Uuid) -> RunMeta {
        RunMeta {
            id,
            rows: 0,
            deletions: 0,
            bytes: 0,
            blocks: 0,
            partitions: 0,
            first_key: Vec::new(),
            last_key: Vec::new(),
            purge: PurgeTimes::NONE,
        }
    }

    /// Whether `key` lies between its first and last keys.
    pub(crate) fn spans(&self, key: &[u8]) -> bool {
        self.first_key.as_slice() <= key && key <= self.last_key.as_slice()
    }

    /// Whether its span and `start..end` share keys.
    pub(crate) fn overlaps(&self, start: Bound<&[u8]>, end: Bound<&[u8]>) -> bool {
        let below_end = match end {
            Bound::Included(e) => self.first_key.as_slice() <= e,
            Bound::Excluded(e) => self.first_key.as_slice() < e,
            Bound::Unbounded => true,
        };
        let above_start = match start {
            Bound::Included(s) => self.last_key.as_slice() >= s,
            Bound::Excluded(s) => self.last_key.as_slice() > s,
            Bound::Unbounded => true,
        };
        below_end && above_start
    }

    /// The part of `start..end` within its first and last keys. A run serves only the keys of
    /// its span: an input of a merge under way has been clipped to the keys the merge has not
    /// reached, and its table may still hold older copies of those before its first key.
    pub(crate) fn clip<'a>(
        &'a self,
        start: Bound<&'a [u8]>,
        end: Bound<&'a [u8]>,
    ) -> (Bound<&'a [u8]>, Bound<&'a [u8]>) {
        let first = self.first_key.as_slice();
        let last = self.last_key.as_slice();
        let start = match start {
            Bound::Included(s) | Bound::Excluded(s) if s >= first => start,
            _ => Bound::Included(first),
        };
        let end = match end {
            Bound::Included(e) | Bound::Excluded(e) if e <= last => end,
            _ => Bound::Included(last),
        };
        (start, end)
    }

    /// This run once a merge has written every key up to `reached` and taken out `blocks`
    /// of its blocks holding `bytes` (those whose last key is at or before `reached`): its
    /// span starts after `reached`, its figures shrink in proportion (rows, deletions and
    /// partitions are estimates; bytes and blocks exact); `None` when nothing of it is left.
    pub(crate) fn clipped_after(&self, reached: &[u8], bytes: u64, blocks: u64) -> Option<RunMeta> {
        if self.last_key.as_slice() <= reached {
            return None;
        }
        let mut first_key = Vec::with_capacity(reached.len() + 1);
        first_key.extend_from_slice(reached);
        first_key.push(0);
        let first_key = first_key.max(self.first_key.clone());
        let left = self.bytes.saturating_sub(bytes);
        let share = |n: u64| {
            if self.bytes == 0 {
                n
            } else {
                (n as f64 * left as f64 / self.bytes as f64).round() as u64
            }
        };
        Some(RunMeta {
            id: self.id,
            rows: share(self.rows),
            deletions: share(self.deletions),
            bytes: left,
            blocks: self.blocks.saturating_sub(blocks),
            partitions: share(self.partitions),
            first_key,
            last_key: self.last_key.clone(),
            purge: self.purge,
        })
    }
}

/// The version [`encode`] writes.
const VERSION: u8 = 2;

/// The version before runs counted their partitions and kept their purge times.
const VERSION_1: u8 = 1;

/// The stored form of a manifest.
pub(crate) fn encode(runs: &[RunMeta]) -> Vec<u8> {
    let mut out = vec![VERSION];
    out.extend_from_slice(&(runs.len() as u32).to_be_bytes());
    for run in runs {
        out.extend_from_slice(run.id.as_bytes());
        for n in [
            run.rows,
            run.deletions,
            run.bytes,
            run.blocks,
            run.partitions,
        ] {
            out.extend_from_slice(&n.to_be_bytes());
        }
        for key in [&run.first_key, &run.last_key] {
            out.extend_from_slice(&(key.len() as u32).to_be_bytes());
            out.extend_from_slice(key);
        }
        for time in [run.purge.expiry, run.purge.deletion] {
            out.extend_from_slice(&time.to_be_bytes());
        }
    }
    out
}

/// Reads [`encode`] back, and version 1 records.
///
/// # Errors
/// [`StorageError::Corrupt`] for anything else.
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<RunMeta>, StorageError> {
    let mut reader = Reader(bytes);
    let version = match reader.take(1)? {
        [VERSION] => VERSION,
        [VERSION_1] => VERSION_1,
        _ => return Err(StorageError::corrupt("runs record version")),
    };
    let count = reader.u32()?;
    let mut runs = Vec::with_capacity(count.min(1024) as usize);
    for _ in 0..count {
        let id = Uuid::from_slice(reader.take(16)?).map_err(|_| reader.corrupt())?;
        let (rows, deletions, bytes, blocks) =
            (reader.u64()?, reader.u64()?, reader.u64()?, reader.u64()?);
        let partitions = if version == VERSION_1 {
            rows.saturating_sub(deletions)
        } else {
            reader.u64()?
        };
        let first_len = reader.u32()? as usize;
        let first_key = reader.take(first_len)?.to_vec();
        let last_len = reader.u32()? as usize;
        let last_key = reader.take(last_len)?.to_vec();
        let purge = if version == VERSION_1 {
            PurgeTimes::UNKNOWN
        } else {
            PurgeTimes {
                expiry: reader.u64()? as i64,
                deletion: reader.u64()? as i64,
            }
        };
        runs.push(RunMeta {
            id,
            rows,
            deletions,
            bytes,
            blocks,
            partitions,
            first_key,
            last_key,
            purge,
        });
    }
    if !reader.0.is_empty() {
        return Err(reader.corrupt());
    }
    Ok(runs)
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn corrupt(&self) -> StorageError {
        StorageError::corrupt("runs record")
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], StorageError> {
        let (head, rest) = self.0.split_at_checked(n).ok_or_else(|| self.corrupt())?;
        self.0 = rest;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, StorageError> {
        let bytes = self.take(4)?;
        Ok(u32::from_be_bytes(
            bytes.try_into().map_err(|_| self.corrupt())?,
        ))
    }

    fn u64(&mut self) -> Result<u64, StorageError> {
        let bytes = self.take(8)?;
        Ok(u64::from_be_bytes(
            bytes.try_into().map_err(|_| self.corrupt())?,
        ))
    }
}

/// The runs of `table_id` in an open `runs` table.
///
/// # Errors
/// redb errors; a corrupt record.
pub(crate) fn runs_in(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    table_id: Uuid,
) -> Result<Vec<RunMeta>, StorageError> {
    match table.get(table_id.as_bytes().as_slice())? {
        Some(value) => decode(value.value()),
        None => Ok(Vec::new()),
    }
}

/// The runs of `table_id` as a read transaction sees them.
///
/// # Errors
/// redb errors; a corrupt record.
pub(crate) fn read(
    txn: &redb::ReadTransaction,
    table_id: Uuid,
) -> Result<Vec<RunMeta>, StorageError> {
    match txn.open_table(RUNS) {
        Ok(table) => runs_in(&table, table_id),
        Err(TableError::TableDoesNotExist(_)) => Ok(Vec::new()),
        Err(e) => Err(e.into()),
    }
}

/// The runs of `table_id` as a write transaction sees them.
///
/// # Errors
/// redb errors; a corrupt record.
pub(crate) fn read_in(
    txn: &redb::WriteTransaction,
    table_id: Uuid,
) -> Result<Vec<RunMeta>, StorageError> {
    let table = txn.open_table(RUNS)?;
    runs_in(&table, table_id)
}

/// Stores the runs of `table_id` (none: removes its record).
///
/// # Errors
/// redb errors.
pub(crate) fn write(
    txn: &redb::WriteTransaction,
    table_id: Uuid,
    runs: &[RunMeta],
) -> Result<(), StorageError> {
    let mut table = txn.open_table(RUNS)?;
    let key = table_id.as_bytes().as_slice();
    if runs.is_empty() {
        table.remove(key)?;
    } else {
        table.insert(key, encode(runs).as_slice())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_survives_its_stored_form() {
        let runs = vec![
            RunMeta {
                id: Uuid::from_u128(7),
                rows: 10,
                deletions: 2,
                bytes: 4000,
                blocks: 1,
                partitions: 3,
                first_key: b"a".to_vec(),
                last_key: b"zz".to_vec(),
                purge: PurgeTimes {
                    expiry: 1_700_000_000,
                    deletion: -5,
                },
            },
            RunMeta {
                id: Uuid::from_u128(9),
                rows: 1,
                deletions: 0,
                bytes: 30,
                blocks: 1,
                partitions: 1,
                first_key: Vec::new(),
                last_key: Vec::new(),
                purge: PurgeTimes::NONE,
            },
        ];
        let bytes = encode(&runs);
        assert_eq!(decode(&bytes).unwrap(), runs);
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode(&[3, 0, 0, 0, 0]).is_err());
        assert!(runs[0].spans(b"m") && !runs[0].spans(b"zzz"));
    }

    fn spanning(first: &[u8], last: &[u8]) -> RunMeta {
        RunMeta {
            rows: 100,
            deletions: 10,
            bytes: 4000,
            blocks: 4,
            partitions: 50,
            first_key: first.to_vec(),
            last_key: last.to_vec(),
            ..RunMeta::empty(Uuid::from_u128(1))
        }
    }

    #[test]
    fn a_range_is_clipped_to_the_span() {
        use Bound::Excluded;
        use Bound::Included;
        use Bound::Unbounded;
        let run = spanning(b"c", b"m");
        let (c, m) = (b"c".as_slice(), b"m".as_slice());
        assert_eq!(run.clip(Unbounded, Unbounded), (Included(c), Included(m)));
        assert_eq!(
            run.clip(Included(b"a"), Excluded(b"z")),
            (Included(c), Included(m))
        );
        assert_eq!(
            run.clip(Excluded(b"d"), Excluded(b"k")),
            (Excluded(b"d".as_slice()), Excluded(b"k".as_slice()))
        );
        assert_eq!(
            run.clip(Excluded(c), Included(m)),
            (Excluded(c), Included(m))
        );
        assert!(run.overlaps(Included(b"m"), Unbounded));
        assert!(!run.overlaps(Excluded(b"m"), Unbounded));
        assert!(!run.overlaps(Unbounded, Excluded(b"c")));
        assert!(run.overlaps(Unbounded, Included(b"c")));
    }

    #[test]
    fn a_clipped_run_starts_after_the_key_reached_and_shrinks() {
        let run = spanning(b"c", b"m");
        let rest = run.clipped_after(b"f", 1000, 1).unwrap();
        assert_eq!(rest.first_key, b"f\0");
        assert!(!rest.spans(b"f") && rest.spans(b"f\0") && rest.spans(b"m"));
        assert_eq!((rest.bytes, rest.blocks), (3000, 3));
        assert_eq!((rest.rows, rest.deletions, rest.partitions), (75, 8, 38));
        assert_eq!(rest.last_key, run.last_key);
        // Reached before the first key: the span stays.
        assert_eq!(run.clipped_after(b"a", 0, 0).unwrap().first_key, b"c");
        assert_eq!(run.clipped_after(b"m", 4000, 4), None);
        assert_eq!(run.clipped_after(b"n", 4000, 4), None);
    }

    /// A version 1 record (no partition counts, no purge times) decodes, each run's partitions
    /// taken as its live entries and its purge times as always due.
    #[test]
    fn a_version_1_manifest_still_decodes() {
        let mut v1 = vec![1, 0, 0, 0, 1];
        v1.extend_from_slice(Uuid::from_u128(7).as_bytes());
        for n in [10u64, 2, 4000, 1] {
            v1.extend_from_slice(&n.to_be_bytes());
        }
        for key in [b"a".as_slice(), b"zz"] {
            v1.extend_from_slice(&(key.len() as u32).to_be_bytes());
            v1.extend_from_slice(key);
        }
        let runs = decode(&v1).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!((runs[0].rows, runs[0].deletions), (10, 2));
        assert_eq!(runs[0].partitions, 8);
        assert_eq!(runs[0].purge, PurgeTimes::UNKNOWN);
        assert_eq!(runs[0].last_key, b"zz");
        assert_eq!(encode(&runs)[0], VERSION);
        assert!(decode(&v1[..v1.len() - 1]).is_err());
    }
}
