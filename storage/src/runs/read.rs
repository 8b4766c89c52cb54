//! Reading runs: point lookups, and ordered iteration over a key range.

use std::ops::Bound;

use bytes::Bytes;
use redb::ReadableTable;
use uuid::Uuid;

use super::block::get_stored;
use super::block::is_compressed;
use super::block::Block;
use super::cache::BlockCache;
use crate::error::StorageError;

/// The entry under `key` in a run's table: `None` when the run has none, `Some(None)` for a
/// deletion. A raw block is searched where redb holds it; a compressed one is decoded, through
/// `cache` (the block cache and the run's id) when given.
///
/// # Errors
/// redb errors; a corrupt block.
pub(crate) fn lookup(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    key: &[u8],
    cache: Option<(&BlockCache, Uuid)>,
) -> Result<Option<Option<Bytes>>, StorageError> {
    let mut blocks = table.range::<&[u8]>(key..)?;
    let Some(entry) = blocks.next() else {
        return Ok(None);
    };
    let (block_key, stored) = entry?;
    let stored = stored.value();
    match cache {
        Some((cache, run)) if is_compressed(stored) => cache
            .get(run, block_key.value(), || Block::decode(stored))?
            .get(key),
        _ => get_stored(stored, key),
    }
}

/// An entry of a run or of the merge of several: key and value (`None`: deleted).
pub(crate) type RunEntry = (Vec<u8>, Option<Bytes>);

/// A run's entries in a key range, in key order or reversed.
pub(crate) struct RunIter<'a> {
    blocks: Option<redb::Range<'a, &'static [u8], &'static [u8]>>,
    /// The block being read and the next entry's index in it (counting down when reversed).
    block: Option<(Block, usize)>,
    start: Bound<Vec<u8>>,
    end: Bound<Vec<u8>>,
    reverse: bool,
}

fn owned(bound: Bound<&[u8]>) -> Bound<Vec<u8>> {
    bound.map(<[u8]>::to_vec)
}

/// The bound, on block keys, of the blocks that may hold keys up to `end`: up to the first
/// block whose last key reaches `end` (which may hold keys below it).
///
/// # Errors
/// redb errors.
pub(crate) fn last_block(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    end: Bound<&[u8]>,
) -> Result<Bound<Vec<u8>>, StorageError> {
    Ok(match end {
        Bound::Included(e) | Bound::Excluded(e) => match table.range::<&[u8]>(e..)?.next() {
            Some(entry) => Bound::Included(entry?.0.value().to_vec()),
            None => Bound::Unbounded,
        },
        Bound::Unbounded => Bound::Unbounded,
    })
}

impl<'a> RunIter<'a> {
    /// The entries of `table` (a run's) between `start` and `end`.
    ///
    /// # Errors
    /// redb errors.
    pub(crate) fn new<T: ReadableTable<&'static [u8], &'static [u8]>>(
        table: &'a T,
        start: Bound<&[u8]>,
        end: Bound<&[u8]>,
        reverse: bool,
    ) -> Result<RunIter<'a>, StorageError> {
        let last = last_block(table, end)?;
        let blocks = table.range::<&[u8]>((start, last.as_ref().map(Vec::as_slice)))?;
        Ok(RunIter::over(blocks, start, end, reverse))
    }

    /// The entries between `start` and `end` of `blocks`: a run's blocks from the first whose
    /// last key reaches `start` to [`last_block`].
    pub(crate) fn over(
        blocks: redb::Range<'a, &'static [u8], &'static [u8]>,
        start: Bound<&[u8]>,
        end: Bound<&[u8]>,
        reverse: bool,
    ) -> RunIter<'a> {
        RunIter {
            blocks: Some(blocks),
            block: None,
            start: owned(start),
            end: owned(end),
            reverse,
        }
    }
}

/// Whether `key` is at or after `start`.
fn after_start(start: &Bound<Vec<u8>>, key: &[u8]) -> bool {
    match start {
        Bound::Included(s) => key >= s.as_slice(),
        Bound::Excluded(s) => key > s.as_slice(),
        Bound::Unbounded => true,
    }
}

/// Whether `key` is at or before `end`.
fn before_end(end: &Bound<Vec<u8>>, key: &[u8]) -> bool {
    match end {
        Bound::Included(e) => key <= e.as_slice(),
        Bound::Excluded(e) => key < e.as_slice(),
        Bound::Unbounded => true,
    }
}

impl RunIter<'_> {
    /// Loads the next block; `false` when none is left.
    fn next_block(&mut self) -> Result<bool, StorageError> {
        let Some(blocks) = self.blocks.as_mut() else {
            return Ok(false);
        };
        let next = if self.reverse {
            blocks.next_back()
        } else {
            blocks.next()
        };
        let Some(entry) = next else {
            self.blocks = None;
            return Ok(false);
        };
        let block = Block::decode(entry?.1.value())?;
        let index = if self.reverse { block.len() } else { 0 };
        self.block = Some((block, index));
        Ok(true)
    }

    fn step(&mut self) -> Result<Option<RunEntry>, StorageError> {
        loop {
            let Some((block, index)) = self.block.as_mut() else {
                if !self.next_block()? {
                    return Ok(None);
                }
                continue;
            };
            let i = if self.reverse {
                let Some(i) = index.checked_sub(1) else {
                    self.block = None;
                    continue;
                };
                *index = i;
                i
            } else {
                if *index >= block.len() {
                    self.block = None;
                    continue;
                }
                *index += 1;
                *index - 1
            };
            let (key, value) = block.entry(i)?;
            let (in_start, in_end) = (after_start(&self.start, key), before_end(&self.end, key));
            if in_start && in_end {
                return Ok(Some((key.to_vec(), value)));
            }
            // Past the far end of the range: done; before the near end: keep going.
            if (self.reverse && !in_start) || (!self.reverse && !in_end) {
                self.blocks = None;
                self.block = None;
                return Ok(None);
            }
        }
    }
}

impl Iterator for RunIter<'_> {
    type Item = Result<RunEntry, StorageError>;

    fn next(&mut self) -> Option<Self::Item> {
        let next = self.step();
        if next.is_err() {
            // Past a block that failed, nothing more: a caller going on would miss its keys
            // and see older versions of them from older runs.
            self.blocks = None;
            self.block = None;
        }
        next.transpose()
    }
}
