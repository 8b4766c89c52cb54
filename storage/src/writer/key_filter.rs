//! Which row keys a table may hold: per-table Bloom filters that let the writer skip looking
//! up the previous version of a row that was never written.
//!
//! A write is merged with the row's newest version (`crate::memtable::apply`), which for a new key
//! means a lookup in both memtable layers and in redb that finds nothing: most of a plain
//! INSERT's cost in the writer. A table's filter holds every key written to it since it was
//! known to be empty (created, truncated, or empty when the store opened), so a key the
//! filter has never seen is certainly absent. A table without a filter is *unknown*: every
//! key may be there. The writer keeps the filters exact in that one direction: keys written
//! through the memtable are added; any other write to a table (a redb transaction) forgets
//! its filter. A false "may hold" only costs the lookup.
//!
//! (A memtable layer needs no filter: it finds a key's newest version, or learns it has none,
//! with one hash probe; see `crate::memtable`.)
//!
//! Each filter grows as a chain of Bloom filters, each twice the size of the one before
//! (a scalable Bloom filter), so a table of a thousand rows costs about a kilobyte and one of
//! a million rows about two and a half megabytes. Each block is *blocked*: a key's bits all
//! lie in one 64-byte line chosen by its hash, so testing a block costs one cache miss and a
//! multiplication instead of seven of each and seven divisions.

use std::collections::HashMap;

use uuid::Uuid;

use crate::hash::bloom::Bloom as Block;
use crate::hash::fast::hash_bytes;
use crate::hash::fast::BuildFastHasher;
use crate::hash::fast::TableIds;

/// Keys the first block of a filter holds before the next one starts.
const FIRST_CAPACITY: usize = 1024;

/// Filters by table id; a table without one is unknown.
#[derive(Default)]
pub(crate) struct KeyFilters {
    tables: HashMap<Uuid, KeyFilter, BuildFastHasher>,
}

impl KeyFilters {
    /// Whether `table` may hold `key`: always for an unknown table.
    pub(crate) fn may_hold(&self, table: Uuid, key: &[u8]) -> bool {
        self.may_hold_hashed(table, key_hash(key))
    }

    /// [`KeyFilters::may_hold`] for a key whose [`key_hash`] is `hash`.
    pub(crate) fn may_hold_hashed(&self, table: Uuid, hash: u64) -> bool {
        self.tables
            .get(&table)
            .is_none_or(|filter| filter.may_hold(hash))
    }

    /// Records that `table` now holds `key` (nothing to do for an unknown table).
    pub(crate) fn add(&mut self, table: Uuid, key: &[u8]) {
        if let Some(filter) = self.tables.get_mut(&table) {
            filter.add(key_hash(key));
        }
    }

    /// `table` may hold anything from now on.
    pub(crate) fn forget(&mut self, table: Uuid) {
        self.tables.remove(&table);
    }

    /// Drops the filters of tables not in `live` (dropped tables).
    pub(crate) fn retain(&mut self, live: &TableIds) {
        self.tables.retain(|table, _| live.contains(table));
    }

    /// `table` is known to hold no row.
    pub(crate) fn start_empty(&mut self, table: Uuid) {
        self.tables.insert(table, KeyFilter::default());
    }

    /// Whether `table` has a filter (tests).
    #[cfg(test)]
    pub(crate) fn knows(&self, table: Uuid) -> bool {
        self.tables.contains_key(&table)
    }
}

/// A key's 64-bit hash, with a fixed seed (filters never leave the process).
pub(crate) fn key_hash(key: &[u8]) -> u64 {
    hash_bytes(key)
}

/// One table's chain of blocks; keys go into the newest.
#[derive(Default)]
struct KeyFilter {
    blocks: Vec<Block>,
}

impl KeyFilter {
    fn may_hold(&self, hash: u64) -> bool {
        // Newest first: the largest block holds most keys, so a key present is found sooner.
        self.blocks.iter().rev().any(|block| block.may_hold(hash))
    }

    fn add(&mut self, hash: u64) {
        let full = self.blocks.last().is_none_or(|b| b.keys >= b.capacity);
        if full {
            let capacity = self
                .blocks
                .last()
                .map_or(FIRST_CAPACITY, |b| b.capacity * 2);
            self.blocks.push(Block::new(capacity));
        }
        if let Some(block) = self.blocks.last_mut() {
            block.add(hash);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_unknown_table_may_hold_anything() {
        let filters = KeyFilters::default();
        assert!(filters.may_hold(Uuid::new_v4(), b"k"));
    }

    #[test]
    fn an_empty_table_holds_nothing_until_written() {
        let mut filters = KeyFilters::default();
        let table = Uuid::new_v4();
        filters.start_empty(table);
        assert!(!filters.may_hold(table, b"k"));
        filters.add(table, b"k");
        assert!(filters.may_hold(table, b"k"));
        filters.forget(table);
        assert!(!filters.knows(table));
        assert!(filters.may_hold(table, b"other"));
    }

    #[test]
    fn false_positives_stay_rare_as_the_filter_grows() {
        let mut filters = KeyFilters::default();
        let table = Uuid::new_v4();
        filters.start_empty(table);
        for i in 0u32..100_000 {
            filters.add(table, &i.to_be_bytes());
        }
        let false_positives = (100_000u32..200_000)
            .filter(|i| filters.may_hold(table, &i.to_be_bytes()))
            .count();
        // Seven blocks of about 1 % each.
        assert!(
            false_positives < 10_000,
            "{false_positives} false positives"
        );
    }

    proptest! {
        /// Never a false "absent": every key added is held, in any number of blocks.
        #[test]
        fn every_added_key_is_held(keys in proptest::collection::vec(
            proptest::collection::vec(any::<u8>(), 0..24), 0..3000)) {
            let mut filters = KeyFilters::default();
            let table = Uuid::new_v4();
            filters.start_empty(table);
            for key in &keys {
                filters.add(table, key);
            }
            for key in &keys {
                prop_assert!(filters.may_hold(table, key));
            }
        }
    }
}
