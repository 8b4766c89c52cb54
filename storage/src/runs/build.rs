//! Writing a run: entries in key order become blocks, a filter and a manifest entry.

use redb::WriteTransaction;
use uuid::Uuid;

use super::block::is_compressed;
use super::block::BlockBuilder;
use super::block::BLOCK_CAP;
use super::manifest::RunMeta;
use super::run_table_name;
use super::RUN_FILTERS;
use crate::encoding::key::token_order;
use crate::encoding::row;
use crate::encoding::row::PurgeTimes;
use crate::error::StorageError;
use crate::hash::bloom::stored_key_hash;
use crate::hash::bloom::Bloom;
use crate::store::tables::data_table;

/// A run being built: entries go in, finished blocks come out to be stored.
pub(crate) struct RunBuilder {
    id: Uuid,
    block: BlockBuilder,
    /// Finished blocks not yet stored: last key and stored bytes.
    ready: Vec<(Vec<u8>, Vec<u8>)>,
    filter: Bloom,
    /// Stored size over raw size of the last block cut, to cut the next near [`BLOCK_CAP`].
    ratio: f64,
    /// The token of the last live entry, to count partitions as tokens change.
    last_token: Option<u64>,
    lz4: Lz4Probe,
    meta: RunMeta,
}

/// What a block expected to compress is filled to, as its predicted stored size: the cap
/// less a margin for the compression ratio's drift from block to block (about 0.5 % on
/// cassandra-stress rows; the margin is 1.6 %), so that a block is compressed once.
const COMPRESSED_TARGET: f64 = (BLOCK_CAP - BLOCK_CAP / 64) as f64;

/// The most blocks cut without trying lz4 after one it did not shrink.
const MAX_LZ4_SKIP: u32 = 64;

/// When to try compressing a block. Random values never compress, and compressing them is
/// pure cost to a merge or a flush; so after a block that did not shrink, the next one,
/// two, four, ... up to [`MAX_LZ4_SKIP`] blocks are stored raw untried, and the first block
/// that shrinks again brings back trying every block.
#[derive(Default)]
struct Lz4Probe {
    /// Blocks still to cut without trying.
    skip: u32,
    /// Blocks to skip after the next that does not shrink: doubled each time.
    backoff: u32,
    /// Blocks tried so far.
    #[cfg(test)]
    tries: u32,
}

impl Lz4Probe {
    /// Whether to try compressing the next block.
    fn try_now(&mut self) -> bool {
        if self.skip == 0 {
            #[cfg(test)]
            {
                self.tries += 1;
            }
            return true;
        }
        self.skip -= 1;
        false
    }

    /// Learns whether a block it tried shrank.
    fn tried(&mut self, shrank: bool) {
        if shrank {
            self.backoff = 0;
        } else {
            self.backoff = (self.backoff * 2).clamp(1, MAX_LZ4_SKIP);
            self.skip = self.backoff;
        }
    }
}

impl RunBuilder {
    /// A new run for about `capacity` keys (its filter's size).
    pub(crate) fn new(capacity: usize) -> RunBuilder {
        let id = Uuid::new_v4();
        RunBuilder {
            id,
            block: BlockBuilder::default(),
            ready: Vec::new(),
            filter: Bloom::new(capacity.max(1)),
            ratio: 1.0,
            last_token: None,
            lz4: Lz4Probe::default(),
            meta: RunMeta::empty(id),
        }
    }

    /// The run's id.
    pub(crate) fn id(&self) -> Uuid {
        self.id
    }

    /// Appends an entry (`None`: a deletion); keys must come in strictly increasing order.
    pub(crate) fn add(&mut self, key: &[u8], value: Option<&[u8]>) {
        if self.meta.rows == 0 {
            self.meta.first_key = key.to_vec();
        }
        self.meta.rows += 1;
        self.meta.deletions += u64::from(value.is_none());
        if let Some(value) = value {
            self.count_partition(key);
            // A row that does not scan is never skipped by a purge pass.
            let times = row::purge_times(value).unwrap_or(PurgeTimes::UNKNOWN);
            self.meta.purge = self.meta.purge.min(times);
        }
        self.filter.add(stored_key_hash(key));
        let len = BlockBuilder::entry_len(key, value);
        if len > BLOCK_CAP {
            self.add_alone(key, value);
            return;
        }
        if !self.block.is_empty() && !self.fits(len) {
            self.cut();
        }
        self.block.add(key, value);
    }

    /// Whether the block being filled, with an entry of `len` more bytes (and its offset),
    /// is predicted to fit the cap once stored. Cutting before the entry that would not,
    /// rather than after it, matters: a block cut after it overshot the cap about every time
    /// and was compressed a second time with one entry fewer, which doubled the lz4 time
    /// of flushes and merges.
    fn fits(&self, len: usize) -> bool {
        let raw = self.block.raw_len() + len + 4;
        if self.ratio < 1.0 {
            raw as f64 * self.ratio <= COMPRESSED_TARGET
        } else {
            BlockBuilder::fits_raw(raw)
        }
    }

    /// Stores an entry larger than a block in a raw block of its own, after cutting the
    /// entries before it. Added to the others, it went through the cut's lz4 tries and
    /// retries: two compressions and half a dozen copies of a 15 MB row, in the flusher and in
    /// every merge, which fell seconds behind a burst of such rows while writers waited for
    /// them. Its size does not count in the compression ratio that sizes the next blocks, nor
    /// in the lz4 tries.
    fn add_alone(&mut self, key: &[u8], value: Option<&[u8]>) {
        self.seal_block();
        let mut alone = BlockBuilder::default();
        alone.add(key, value);
        let (last, stored, _) = alone.cut(false);
        self.push_block(last, stored);
    }

    /// Counts a finished block (its last key and stored bytes) in the run and queues it to
    /// be stored.
    fn push_block(&mut self, last: Vec<u8>, stored: Vec<u8>) {
        self.meta.bytes += stored.len() as u64;
        self.meta.blocks += 1;
        self.meta.last_key.clone_from(&last);
        self.ready.push((last, stored));
    }

    /// Counts `key`'s partition if the last live entry was of another: keys come in order,
    /// so a partition's rows are adjacent, and they share its token.
    fn count_partition(&mut self, key: &[u8]) {
        let token = token_order(key);
        if self.last_token != Some(token) {
            self.meta.partitions += 1;
            self.last_token = Some(token);
        }
    }

    fn cut(&mut self) {
        let block = std::mem::take(&mut self.block);
        let raw = block.raw_len();
        let try_lz4 = self.lz4.try_now();
        let (last, stored, rest) = block.cut(try_lz4);
        if try_lz4 {
            self.lz4.tried(is_compressed(&stored));
        }
        let used = raw - rest.raw_len() + 4 * usize::from(!rest.is_empty());
        self.ratio = (stored.len() as f64 / used.max(1) as f64).clamp(0.05, 1.0);
        self.push_block(last, stored);
        self.block = rest;
        crate::store::turns::between_blocks();
    }

    /// Cuts the block being filled, so that every entry added so far is in a finished block:
    /// a merge does so at the end of each chunk, whose last key then bounds what is stored.
    pub(crate) fn seal_block(&mut self) {
        while !self.block.is_empty() {
            self.cut();
        }
    }

    /// The run's manifest entry for the blocks cut so far.
    pub(crate) fn meta(&self) -> &RunMeta {
        &self.meta
    }

    /// Entries added so far.
    #[cfg(test)]
    pub(crate) fn rows(&self) -> u64 {
        self.meta.rows
    }

    /// Bytes of the blocks finished and not yet stored.
    pub(crate) fn ready_bytes(&self) -> u64 {
        self.ready.iter().map(|(_, block)| block.len() as u64).sum()
    }

    /// Stores the blocks finished so far in the run's table.
    ///
    /// # Errors
    /// redb errors.
    pub(crate) fn store_ready(&mut self, txn: &WriteTransaction) -> Result<(), StorageError> {
        if self.ready.is_empty() {
            return Ok(());
        }
        let name = run_table_name(self.id);
        let mut table = txn.open_table(data_table(&name))?;
        for (last, block) in self.ready.drain(..) {
            table.insert(last.as_slice(), block.as_slice())?;
        }
        Ok(())
    }

    /// Stores the rest of the run and its filter; returns its manifest entry, or `None` for
    /// a run that got no entry (nothing was stored).
    ///
    /// # Errors
    /// redb errors.
    pub(crate) fn finish(
        mut self,
        txn: &WriteTransaction,
    ) -> Result<Option<RunMeta>, StorageError> {
        self.seal_block();
        if self.meta.rows == 0 {
            return Ok(None);
        }
        self.store_ready(txn)?;
        store_filter(txn, self.id, &self.filter.to_bytes())?;
        super::filter::remember(self.id, self.filter);
        Ok(Some(self.meta))
    }

    /// Stores the filter of the keys added so far, in place of a stand-in: a merge stopped
    /// between two chunks leaves its output listed with exactly those keys (every chunk ends
    /// with [`RunBuilder::seal_block`]), and a real filter keeps its lookups cheap after the
    /// inputs' filters the stand-in named are gone.
    ///
    /// # Errors
    /// redb errors.
    pub(crate) fn store_filter_so_far(&self, txn: &WriteTransaction) -> Result<(), StorageError> {
        store_filter(txn, self.id, &self.filter.to_bytes())?;
        super::filter::remember(self.id, self.filter.clone());
        Ok(())
    }

    /// Stores, in place of the filter a finished run gets, the stand-in of a merge's output
    /// whose inputs are `inputs` ([`super::filter::stand_in`]), so that the run can be listed
    /// while the merge still writes it (`compact.rs`).
    ///
    /// # Errors
    /// redb errors.
    pub(crate) fn store_stand_in_filter(
        &self,
        txn: &WriteTransaction,
        inputs: &[Uuid],
    ) -> Result<(), StorageError> {
        store_filter(txn, self.id, &super::filter::stand_in(inputs))
    }
}

/// Stores `filter` (a Bloom filter's bytes, or a stand-in's) as run `id`'s.
pub(super) fn store_filter(
    txn: &WriteTransaction,
    id: Uuid,
    filter: &[u8],
) -> Result<(), StorageError> {
    let mut filters = txn.open_table(RUN_FILTERS)?;
    filters.insert(id.as_bytes().as_slice(), filter)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks come out close to the cap whether entries compress well, a little, or not.
    #[test]
    fn blocks_are_cut_near_the_cap() {
        let shapes: [fn(u32) -> Vec<u8>; 3] = [
            |i| vec![(i % 3) as u8; 200],
            |i| {
                let noise = crate::hash::fast::fmix64(u64::from(i)).to_be_bytes();
                [noise.as_slice(), &[0; 40]].concat()
            },
            |i| {
                (0..30)
                    .flat_map(|j| crate::hash::fast::fmix64(u64::from(i * 30 + j)).to_be_bytes())
                    .collect()
            },
        ];
        for value in shapes {
            let mut run = RunBuilder::new(20_000);
            for i in 0..20_000u32 {
                run.add(&i.to_be_bytes(), Some(&value(i)));
            }
            let sizes: Vec<usize> = run.ready.iter().map(|(_, b)| b.len()).collect();
            assert!(sizes.iter().all(|&s| s <= BLOCK_CAP));
            let average = sizes.iter().sum::<usize>() / sizes.len();
            assert!(
                average > BLOCK_CAP * 85 / 100,
                "blocks of {average} bytes on average"
            );
            assert_eq!(run.rows(), 20_000);
        }
    }

    /// Rows shaped like cassandra-stress's (five random 34-byte values, each with the same
    /// timestamp and a cell header) compress at a ratio that barely moves from block to
    /// block: each block is compressed once, and filled to within a few percent of the cap.
    #[test]
    fn blocks_of_steady_rows_are_compressed_once() {
        let row = |i: u32| -> Vec<u8> {
            let mut value = Vec::new();
            for column in 0..5u64 {
                value.extend_from_slice(&[1, column as u8, 0, 0, 0, 34]);
                value.extend_from_slice(&1_764_000_000_000_000u64.to_be_bytes());
                for word in 0..5u64 {
                    let noise = crate::hash::fast::fmix64(u64::from(i) * 8 + column * 5 + word);
                    value.extend_from_slice(&noise.to_be_bytes()[..if word < 4 { 8 } else { 2 }]);
                }
            }
            value
        };
        super::super::block::COMPRESSIONS.with(|c| c.set(0));
        let mut run = RunBuilder::new(20_000);
        for i in 0..20_000u32 {
            let key = [(u64::from(i) << 32).to_be_bytes(), [7; 8]].concat();
            run.add(&key, Some(&row(i)));
        }
        run.seal_block();
        let compressions = super::super::block::COMPRESSIONS.with(|c| c.get());
        let sizes: Vec<usize> = run.ready.iter().map(|(_, b)| b.len()).collect();
        assert!(run.ready.iter().all(|(_, b)| is_compressed(b)));
        assert!(
            compressions * 100 <= sizes.len() as u64 * 105,
            "{compressions} compressions for {} blocks",
            sizes.len()
        );
        let average = sizes.iter().sum::<usize>() / sizes.len();
        assert!(average > BLOCK_CAP * 94 / 100, "blocks of {average} bytes");
    }

    /// Incompressible rows are tried now and then, not block by block; rows that compress
    /// again are compressed within a few dozen blocks.
    #[test]
    fn lz4_is_tried_rarely_on_rows_that_do_not_shrink() {
        let noise = |i: u32| -> Vec<u8> {
            (0..25)
                .flat_map(|j| crate::hash::fast::fmix64(u64::from(i * 25 + j)).to_be_bytes())
                .collect()
        };
        let mut run = RunBuilder::new(40_000);
        for i in 0..20_000u32 {
            run.add(&i.to_be_bytes(), Some(&noise(i)));
        }
        let raw_blocks = run.ready.len();
        assert!(raw_blocks > 1000, "{raw_blocks} blocks");
        assert!(run.ready.iter().all(|(_, b)| !is_compressed(b)));
        let tries = run.lz4.tries;
        assert!(tries < 40, "{tries} tries over {raw_blocks} blocks");
        for i in 20_000..40_000u32 {
            run.add(&i.to_be_bytes(), Some(&[(i % 5) as u8; 200]));
        }
        let later = &run.ready[raw_blocks..];
        let compressed = later.iter().filter(|(_, b)| is_compressed(b)).count();
        assert!(
            compressed + 70 >= later.len(),
            "{compressed} of {}",
            later.len()
        );
    }

    /// A row larger than a block gets a raw block of its own, between the blocks of the rows
    /// around it, and leaves the compression of the next blocks as it was.
    #[test]
    fn a_row_larger_than_a_block_is_stored_alone_and_raw() {
        let mut run = RunBuilder::new(2_000);
        let small = |i: u32| vec![(i % 3) as u8; 200];
        for i in 0..1_000u32 {
            run.add(&i.to_be_bytes(), Some(&small(i)));
        }
        let big = vec![9u8; 100_000];
        run.add(&1_000u32.to_be_bytes(), Some(&big));
        for i in 1_001..2_000u32 {
            run.add(&i.to_be_bytes(), Some(&small(i)));
        }
        let alone: Vec<_> = run
            .ready
            .iter()
            .filter(|(_, b)| b.len() > BLOCK_CAP)
            .collect();
        assert_eq!(alone.len(), 1);
        let (last, stored) = alone[0];
        assert_eq!(last.as_slice(), 1_000u32.to_be_bytes());
        assert!(!is_compressed(stored));
        let block = super::super::block::Block::decode(stored).unwrap();
        assert_eq!(block.len(), 1);
        assert_eq!(
            block.get(&1_000u32.to_be_bytes()).unwrap(),
            Some(Some(bytes::Bytes::from(big)))
        );
        let before = run.ready.iter().position(|(l, _)| l == last).unwrap();
        assert_eq!(run.ready[before - 1].0, 999u32.to_be_bytes());
        assert!(run.ready[..before].iter().all(|(_, b)| is_compressed(b)));
        assert!(run.ready[before + 1..]
            .iter()
            .all(|(_, b)| is_compressed(b)));
        assert_eq!(run.meta.blocks as usize, run.ready.len());
        assert_eq!(run.rows(), 2_000);
    }

    /// A run counts the partitions of its live entries: keys sharing a token are one.
    #[test]
    fn partitions_are_counted_by_token() {
        let mut run = RunBuilder::new(16);
        let key = |token: u64, row: u8| [token.to_be_bytes().as_slice(), &[1, row]].concat();
        run.add(&key(1, 0), Some(b"a"));
        run.add(&key(1, 1), Some(b"b"));
        run.add(&key(2, 0), None);
        run.add(&key(3, 0), Some(b"c"));
        run.add(&key(3, 1), None);
        run.add(&key(3, 2), Some(b"d"));
        assert_eq!(run.meta.partitions, 2);
        assert_eq!((run.meta.rows, run.meta.deletions), (6, 2));
    }
}
