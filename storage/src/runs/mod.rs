//! Sorted runs: the on-disk rows of a table beyond its small mutable head.
//!
//! A CQL table's rows live in three places, newest first: the memtable, the *head* (the redb
//! table `data_<id>`, written in place by writer transactions) and the table's *runs*, each
//! an immutable redb table `run_<run id>` of blocks (`block.rs`) keyed by their last row key,
//! with a Bloom filter of its keys in `run_filters`. The `runs` table lists each CQL table's
//! runs, newest first (`manifest.rs`). A flush writes its rows as a new run: sequential
//! inserts into a fresh table, whose cost does not grow with the data already stored. A
//! background compaction (`compact.rs`) merges runs, and `progress.rs` tracks the merge under
//! way for operators. See `storage/DESIGN.md` for the
//! invariants and the recovery argument.

pub(crate) mod stats;
#[cfg(test)]
pub(crate) mod store_tests;

pub(crate) mod block;
pub(crate) mod build;
pub(crate) mod cache;
pub(crate) mod compact;
pub(crate) mod filter;
pub(crate) mod manifest;
pub(crate) mod merge;
pub(crate) mod pins;
pub(crate) mod progress;
pub(crate) mod read;
pub(crate) mod stored;

use redb::TableDefinition;
use uuid::Uuid;

/// `runs`: per CQL table id (16 bytes), its runs newest first ([`manifest::encode`]).
pub(crate) const RUNS: TableDefinition<'static, &[u8], &[u8]> = TableDefinition::new("runs");

/// `run_filters`: per run id (16 bytes), the Bloom filter of its keys (`Bloom::to_bytes`),
/// or the stand-in of a merge's output being written ([`filter::stand_in`]).
pub(crate) const RUN_FILTERS: TableDefinition<'static, &[u8], &[u8]> =
    TableDefinition::new("run_filters");

/// The redb table of run `id`: `run_<uuid simple>`.
pub(crate) fn run_table_name(id: Uuid) -> String {
    format!("run_{}", id.simple())
}

/// The run id named by a redb table name, if it is a run's.
pub(crate) fn run_id_of(table_name: &str) -> Option<Uuid> {
    table_name
        .strip_prefix("run_")
        .and_then(|hex| Uuid::try_parse(hex).ok())
}

/// The head's value for a row deleted over older runs (no stored row is empty).
pub(crate) const HEAD_DELETED: &[u8] = &[];
