//! redb-backed wide-row store: the catalog, order-preserving keys, versioned rows and a
//! group-commit writer. Synchronous; the server calls it from blocking threads.
//!
//! Modules:
//! - [`catalog`]: the schema model ([`Catalog`], [`TableDef`], ...) and its persisted form.
//! - [`encoding`]: every on-disk byte layout: [`encoding::token`] (Murmur3 tokens),
//!   [`encoding::key`] (memcomparable row keys), [`encoding::row`] (row values and merge),
//!   [`cell_path`] (the element paths of non-frozen collections and UDTs).
//! - `db`: [`Store`], opening, format version, sync modes, shutdown.
//! - `disk`: the files under a data directory, redb's file checked page by page, and
//!   `disk_failure_policy`.
//! - `mutation`: write requests ([`WriteBatch`], [`RowWrite`], [`CatalogOp`]).
//! - `writer`: the single writer thread and group commit; `stats`: its counters ([`WriterCounts`]).
//! - `purge`: dropping expired cells and old tombstones ([`PurgeRequest`]).
//! - `read`: [`Snapshot`] point reads and range scans.
//! - `run_stats`: each table's runs as their manifest describes them ([`TableRuns`]), and the
//!   merge under way ([`MergeProgress`]), for operators; `size_estimate`: partitions per
//!   token range estimated from them ([`RangeEstimate`]).
//! - `range`: what a read asks for, typed: [`PartitionKey`], [`ClusteringPrefix`],
//!   [`ClusteringRange`], [`KeyRange`] and the scan [`Order`]; callers never join key bytes.
//! - [`index`]: secondary-index entries, maintained in the base write's transaction.
//! - `view`: materialized-view rows, maintained in the base write's transaction.
//! - `tables`: every redb table definition.
//! - `error`: [`StorageError`].
//!
//! The storage format is described in `DESIGN.md`, included below.
#![doc = include_str!("../DESIGN.md")]

mod bloom;
pub mod catalog;
mod combine;
mod commitlog;
mod counter;
mod db;
mod dir_format;
mod disk;
pub mod encoding;
mod error;
pub mod fast_hash;
mod flush;
pub mod index;
mod key_filter;
mod locking;
mod mem_apply;
mod mem_key;
mod memtable;
mod mutation;
mod options;
mod persist;
mod purge;
mod range;
mod read;
mod read_view;
mod request;
mod row_arena;
mod run_stats;
mod runs;
mod size_estimate;
mod slot;
mod space;
mod stats;
mod tables;
mod turns;
mod view;
mod writer;

#[cfg(test)]
mod combine_tests;
#[cfg(test)]
mod index_tests;
#[cfg(test)]
mod memtable_tests;
#[cfg(test)]
mod runs_tests;
#[cfg(test)]
mod store_tests;
#[cfg(test)]
mod view_tests;

pub use catalog::{
    references_type, replace_type, Catalog, ClusteringOrder, ColumnDef, ColumnId, ColumnKind,
    DroppedColumn, IndexDef, IndexTargetKind, KeyspaceDef, RoleDef, TableDef, TableParams,
    UserTypeDef, ViewDef, ViewFilter, ViewFilterOp,
};
pub use combine::DeferredWrites;
pub use commitlog::read::IGNORE_REPLAY_ERRORS;
pub use counter::{CounterChange, CounterWrite};
pub use db::{Store, FORMAT_VERSION};
pub use disk::checked::PageDamage;
pub use encoding::cell_path;
pub use encoding::key::{row_key, DecodedKey, KeyColumn};
pub use encoding::range_tombstone::RangeTombstone;
pub use encoding::row::{Cell, CellValue, DeletionTime, Expiry, Liveness, StoredRow};
pub use error::StorageError;
pub use mutation::{CatalogOp, RangeTombstoneWrite, RowWrite, WriteBatch};
pub use options::{CommitFailurePolicy, DiskFailurePolicy, StoreOptions, SyncMode};
pub use purge::{PurgeProgress, PurgeRequest};
pub use range::{ClusteringPrefix, ClusteringRange, KeyRange, Order, PartitionKey};
pub use read::{RowIter, Snapshot, TableStats};
pub use run_stats::TableRuns;
pub use runs::progress::MergeProgress;
pub use size_estimate::RangeEstimate;
pub use stats::WriterCounts;
