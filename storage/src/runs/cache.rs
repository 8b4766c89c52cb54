//! Decoded blocks kept in memory, as Cassandra's chunk cache keeps decompressed chunks
//! (`file_cache_size`): a point read of a hot row then skips the checksum, the decompression
//! and the copy of its block.
//!
//! Sharded by hash; each shard evicts in insertion order (FIFO) once it holds more than its
//! share of the capacity. Blocks never change (a run is immutable and its id never reused), so
//! an entry is never stale; entries of deleted runs age out.

use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasher;
use std::sync::{Mutex, MutexGuard};

use uuid::Uuid;

use super::block::Block;
use crate::error::StorageError;
use crate::hash::fast::BuildFastHasher;

const SHARDS: usize = 16;

/// A block's identity: its run and the hash of its key (its last row key).
type BlockId = (Uuid, u64);

#[derive(Default)]
struct Shard {
    blocks: HashMap<BlockId, Block, BuildFastHasher>,
    order: VecDeque<BlockId>,
    bytes: usize,
}

/// The cache.
pub(crate) struct BlockCache {
    shards: Vec<Mutex<Shard>>,
    /// Bytes each shard holds at most.
    shard_capacity: usize,
    hasher: BuildFastHasher,
}

impl BlockCache {
    /// A cache of about `capacity` bytes of decoded blocks (0: none kept).
    pub(crate) fn new(capacity: usize) -> BlockCache {
        BlockCache {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            shard_capacity: capacity / SHARDS,
            hasher: BuildFastHasher::default(),
        }
    }

    fn shard(&self, id: &BlockId) -> MutexGuard<'_, Shard> {
        let index = (id.1 as usize) % SHARDS;
        self.shards[index]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The block of run `run` stored under `key`, decoded by `decode` unless cached.
    ///
    /// # Errors
    /// `decode`'s.
    pub(crate) fn get(
        &self,
        run: Uuid,
        key: &[u8],
        decode: impl FnOnce() -> Result<Block, StorageError>,
    ) -> Result<Block, StorageError> {
        if self.shard_capacity == 0 {
            return decode();
        }
        let id = (run, self.hasher.hash_one(key));
        if let Some(block) = self.shard(&id).blocks.get(&id) {
            // A different block whose key hashes alike is not this one.
            if block.last_key()? == key {
                return Ok(block.clone());
            }
        }
        let block = decode()?;
        let size = block.memory();
        if size <= self.shard_capacity {
            let mut shard = self.shard(&id);
            if let Some(old) = shard.blocks.insert(id, block.clone()) {
                shard.bytes -= old.memory();
            } else {
                shard.order.push_back(id);
            }
            shard.bytes += size;
            while shard.bytes > self.shard_capacity {
                let Some(oldest) = shard.order.pop_front() else {
                    break;
                };
                if let Some(gone) = shard.blocks.remove(&oldest) {
                    shard.bytes -= gone.memory();
                }
            }
        }
        Ok(block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::block::BlockBuilder;

    fn block(key: &[u8], value_len: usize) -> (Vec<u8>, Block) {
        let mut builder = BlockBuilder::default();
        builder.add(key, Some(&vec![7; value_len]));
        let (last, stored, _) = builder.cut(true);
        (last, Block::decode(&stored).unwrap())
    }

    #[test]
    fn a_cached_block_is_not_decoded_again_and_old_ones_go() {
        let cache = BlockCache::new(SHARDS * 10_000);
        let run = Uuid::new_v4();
        let (key, decoded) = block(b"k1", 100);
        let got = cache.get(run, &key, || Ok(decoded.clone())).unwrap();
        assert_eq!(got.last_key().unwrap(), b"k1");
        let again = cache.get(run, &key, || panic!("decoded twice")).unwrap();
        assert_eq!(again.last_key().unwrap(), b"k1");
        // Another run's block of the same key is its own entry.
        let mut decodes = 0;
        cache
            .get(Uuid::new_v4(), &key, || {
                decodes += 1;
                Ok(decoded.clone())
            })
            .unwrap();
        assert_eq!(decodes, 1);
        // Filling the cache evicts the oldest blocks: memory stays bounded.
        for i in 0u32..2000 {
            let (key, decoded) = block(&i.to_be_bytes(), 1000);
            cache.get(run, &key, || Ok(decoded)).unwrap();
        }
        let held: usize = cache.shards.iter().map(|s| s.lock().unwrap().bytes).sum();
        assert!(held <= SHARDS * 10_000, "{held} bytes held");
    }

    #[test]
    fn a_zero_capacity_keeps_nothing() {
        let cache = BlockCache::new(0);
        let (key, decoded) = block(b"k", 10);
        let mut decodes = 0;
        for _ in 0..2 {
            cache
                .get(Uuid::nil(), &key, || {
                    decodes += 1;
                    Ok(decoded.clone())
                })
                .unwrap();
        }
        assert_eq!(decodes, 2);
    }
}
