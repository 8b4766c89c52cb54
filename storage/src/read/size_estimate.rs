//! Estimates of how many partitions a table holds on each side of a token, and their bytes:
//! what `system.size_estimates` publishes per token range, computed as Cassandra computes it
//! (from its sstables' metadata, never by reading the data).
//!
//! - **Runs**, which hold nearly everything however large the table: each run's partitions
//!   and bytes, from its manifest entry, shared between the two sides in proportion to the
//!   part of its token span (first key to last) on each side. Tokens are Murmur3 hashes,
//!   spread evenly, so the share of the span is the share of the partitions.
//! - **The head and the memtable**, which are bounded (65,536 entries; the memtable size):
//!   counted from their keys (distinct tokens of live entries; keys only, no row decoded), so
//!   each side gets its exact share.
//!
//! A partition several places hold (rows of it in two runs, or rewritten since a flush) is
//! counted once in each, as Cassandra's estimate sums its sstables' without removing the
//! partitions they share; compaction brings the sum back down. So the total is exact when
//! each partition is in one place (one run, or only the memtable), and above the truth
//! otherwise. Bytes are as stored: compressed in runs, keys and encoded rows in the head and
//! memtable.

use redb::ReadableTable;
use uuid::Uuid;

use crate::encoding::key::token_bytes;
use crate::encoding::key::token_order;
use crate::error::StorageError;
use crate::read::view::TableKind;
use crate::read::Snapshot;
use crate::runs::manifest;
use crate::runs::manifest::RunMeta;
use crate::runs::HEAD_DELETED;

/// Partitions and their bytes in one token range, estimated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RangeEstimate {
    /// Partitions with a live row.
    pub partitions: u64,
    /// Bytes of their rows and keys, as stored.
    pub bytes: u64,
}

/// Each side's share of the runs' figures, before rounding.
#[derive(Default)]
struct RunShares {
    partitions: [f64; 2],
    bytes: [f64; 2],
    total_partitions: u64,
    total_bytes: u64,
}

impl Snapshot {
    /// Estimates of table `table_id`'s partitions with tokens at or below `split` (index 0)
    /// and above it (index 1); see the module documentation.
    ///
    /// # Errors
    /// redb errors; a corrupt manifest record.
    pub fn partition_estimates(
        &self,
        table_id: Uuid,
        split: i64,
    ) -> Result<[RangeEstimate; 2], StorageError> {
        let split = u64::from_be_bytes(token_bytes(split));
        let runs = manifest::read(&self.view.txn, table_id)?;
        let mut sides = runs_split(&runs, split);
        let mut exact = Tokens::default();
        if let Some(head) = self.view.table(TableKind::Data, table_id)? {
            for entry in head.iter()? {
                let (key, value) = entry?;
                if value.value() != HEAD_DELETED {
                    exact.add(key.value(), value.value().len());
                }
            }
        }
        if let Some(rows) = self.layers.visible_rows(table_id) {
            for (key, row) in &rows {
                if let Some(row) = row {
                    exact.add(key, row.len());
                }
            }
        }
        for (side, counted) in sides.iter_mut().zip(exact.split(split)) {
            side.partitions += counted.partitions;
            side.bytes += counted.bytes;
        }
        Ok(sides)
    }
}

/// The runs' partitions and bytes on each side of `split` (token bytes as a number), rounded
/// so that the two sides add up to the runs' totals.
fn runs_split(runs: &[RunMeta], split: u64) -> [RangeEstimate; 2] {
    let mut shares = RunShares::default();
    for run in runs {
        let below = share_at_or_below(
            token_order(&run.first_key),
            token_order(&run.last_key),
            split,
        );
        for (side, share) in [below, 1.0 - below].into_iter().enumerate() {
            shares.partitions[side] += run.partitions as f64 * share;
            shares.bytes[side] += run.bytes as f64 * share;
        }
        shares.total_partitions += run.partitions;
        shares.total_bytes += run.bytes;
    }
    let partitions = (shares.partitions[0].round() as u64).min(shares.total_partitions);
    let bytes = (shares.bytes[0].round() as u64).min(shares.total_bytes);
    [
        RangeEstimate { partitions, bytes },
        RangeEstimate {
            partitions: shares.total_partitions - partitions,
            bytes: shares.total_bytes - bytes,
        },
    ]
}

/// The share of the tokens `first..=last` at or below `split`, from 0 to 1.
fn share_at_or_below(first: u64, last: u64, split: u64) -> f64 {
    if split < first {
        0.0
    } else if split >= last {
        1.0
    } else {
        (split - first + 1) as f64 / ((last - first) as f64 + 1.0)
    }
}

/// The tokens and bytes of live entries, for counting partitions exactly.
#[derive(Default)]
struct Tokens(Vec<(u64, u64)>);

impl Tokens {
    fn add(&mut self, key: &[u8], value_len: usize) {
        self.0
            .push((token_order(key), (key.len() + value_len) as u64));
    }

    /// Distinct tokens (partitions) and bytes at or below `split`, and above it.
    fn split(mut self, split: u64) -> [RangeEstimate; 2] {
        self.0.sort_unstable_by_key(|(token, _)| *token);
        let mut sides = [RangeEstimate::default(); 2];
        let mut last = None;
        for (token, bytes) in self.0 {
            let side = &mut sides[usize::from(token > split)];
            side.bytes += bytes;
            if last != Some(token) {
                side.partitions += 1;
                last = Some(token);
            }
        }
        sides
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::create_schema;
    use crate::store::tests::key;
    use crate::store::tests::open_sized;
    use crate::store::tests::put;
    use crate::store::tests::rows;
    use crate::SyncMode;

    #[test]
    fn a_run_is_shared_by_its_token_span() {
        let run = |first: u64, last: u64, partitions: u64| RunMeta {
            partitions,
            bytes: partitions * 10,
            first_key: first.to_be_bytes().to_vec(),
            last_key: [last.to_be_bytes().as_slice(), b"rest"].concat(),
            ..RunMeta::empty(Uuid::new_v4())
        };
        let runs = [run(0, 999, 100), run(600, 1000, 8), run(2000, 3000, 5)];
        let [below, above] = runs_split(&runs, 500);
        // Half of the first run; none of the others.
        assert_eq!((below.partitions, above.partitions), (50, 63));
        assert_eq!((below.bytes, above.bytes), (501, 629));
        assert_eq!(share_at_or_below(10, 10, 10), 1.0);
        assert_eq!(share_at_or_below(10, 10, 9), 0.0);
    }

    #[test]
    fn exact_counts_split_at_the_token() {
        let mut tokens = Tokens::default();
        for (token, row) in [(5u64, 0u8), (5, 1), (9, 0), (3, 0)] {
            tokens.add(&[token.to_be_bytes().as_slice(), &[row]].concat(), 1);
        }
        let [below, above] = tokens.split(5);
        assert_eq!((below.partitions, below.bytes), (2, 30));
        assert_eq!((above.partitions, above.bytes), (1, 10));
    }

    /// Partitions in the memtable, then in one run, are counted exactly; each side gets its
    /// own when the split falls between their tokens.
    #[test]
    fn estimates_are_exact_for_one_place() {
        let dir = tempfile::tempdir().unwrap();
        let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
        let table = create_schema(&store);
        let writes = (0..2000)
            .map(|i| put(&table, i / 4, i64::from(i % 4), "value"))
            .collect();
        store.write_blocking(rows(writes)).unwrap();
        let tokens: Vec<i64> = (0..500)
            .map(|p| {
                let k = key(&table, p, 0);
                i64::from_be_bytes(k[..8].try_into().unwrap()) ^ i64::MIN
            })
            .collect();
        let split = tokens[0];
        let below = tokens.iter().filter(|t| **t <= split).count() as u64;
        let check = |flushed: bool| {
            let snapshot = store.snapshot().unwrap();
            let [low, high] = snapshot.partition_estimates(table.id, split).unwrap();
            assert_eq!(low.partitions + high.partitions, 500, "flushed: {flushed}");
            assert!(low.bytes > 0 && high.bytes > 0);
            let extremes = [i64::MIN, i64::MAX].map(|t| snapshot.partition_estimates(table.id, t));
            let [all_above, all_below] = extremes.map(Result::unwrap);
            assert_eq!(all_above[0].partitions, 0);
            assert_eq!(all_above[1].partitions, 500);
            assert_eq!(all_below[0].partitions, 500);
            if flushed {
                // Interpolated over the run's span: near the truth, not at it.
                let off = low.partitions.abs_diff(below);
                assert!(off <= 60, "{} below, {below} true", low.partitions);
            } else {
                assert_eq!(low.partitions, below);
            }
        };
        check(false);
        store.flush().unwrap();
        assert_eq!(
            store.snapshot().unwrap().table_runs(table.id).unwrap().runs,
            1
        );
        check(true);
    }
}
