//! redb-backed wide-row store: the catalog, order-preserving keys, versioned rows and a
//! group-commit writer. Synchronous; the server calls it from blocking threads.
//!
//! Modules, from the request inward:
//! - `writer`: what a write goes through: requests ([`WriteBatch`], [`RowWrite`],
//!   [`CatalogOp`]), the queue and combining, counters, the single writer thread, group
//!   commit and flushes.
//! - `commitlog`: the commit log, its sync modes and its replay.
//! - `memtable`: rows written since the last flush, in memory.
//! - `read`: [`Snapshot`] point reads and range scans over memtable, runs and redb; estimates
//!   of partitions per token range ([`RangeEstimate`]).
//! - `runs`: sorted runs, their merges and what they hold ([`TableRuns`], [`MergeProgress`]).
//! - `range`: what a read asks for, typed: [`PartitionKey`], [`ClusteringPrefix`],
//!   [`ClusteringRange`], [`KeyRange`] and the scan [`Order`]; callers never join key bytes.
//! - [`catalog`]: the schema model ([`Catalog`], [`TableDef`], ...) and its persisted form.
//! - [`index`]: secondary-index entries; `view`: materialized-view rows; both maintained in
//!   the base write's transaction.
//! - `encoding`: every on-disk byte layout (tokens, memcomparable keys, rows and their
//!   merge); what callers need of it is exported by name below.
//! - `store`: [`Store`]: opening, the format version, options ([`StoreOptions`],
//!   [`SyncMode`]), redb's tables, purging ([`PurgeRequest`]), the writer's counters.
//! - `disk`: the files under a data directory, redb's file checked page by page, and
//!   `disk_failure_policy`; `hash`: fast hashing and Bloom filters; `error`: [`StorageError`].
//!
//! The storage format is described in `DESIGN.md`, included below.
#![doc = include_str!("../DESIGN.md")]

pub mod catalog;
pub mod index;

mod commitlog;
mod disk;
mod encoding;
mod error;
mod hash;
mod memtable;
mod range;
mod read;
mod runs;
mod snapshot;
mod store;
mod view;
mod writer;

pub use catalog::references_type;
pub use catalog::replace_type;
pub use catalog::Catalog;
pub use catalog::ClusteringOrder;
pub use catalog::ColumnDef;
pub use catalog::ColumnId;
pub use catalog::ColumnKind;
pub use catalog::DroppedColumn;
pub use catalog::IndexDef;
pub use catalog::IndexTargetKind;
pub use catalog::KeyspaceDef;
pub use catalog::RoleDef;
pub use catalog::TableDef;
pub use catalog::TableParams;
pub use catalog::UserTypeDef;
pub use catalog::ViewDef;
pub use catalog::ViewFilter;
pub use catalog::ViewFilterOp;
pub use commitlog::read::IGNORE_REPLAY_ERRORS;
pub use disk::checked::PageDamage;
pub use encoding::cell_path;
pub use encoding::key::row_key;
pub use encoding::key::DecodedKey;
pub use encoding::key::KeyColumn;
pub use encoding::key::{decode_row_key, token_bytes};
pub use encoding::range_tombstone::RangeTombstone;
pub use encoding::row::Cell;
pub use encoding::row::CellValue;
pub use encoding::row::DeletionTime;
pub use encoding::row::Expiry;
pub use encoding::row::Liveness;
pub use encoding::row::StoredRow;
pub use encoding::row::{encode as encode_row, reconcile};
pub use encoding::token::token_of;
pub use error::StorageError;
pub use hash::fast::{BuildFastHasher, FastHasher, SeededFastHasher};
pub use range::ClusteringPrefix;
pub use range::ClusteringRange;
pub use range::KeyRange;
pub use range::Order;
pub use range::PartitionKey;
pub use read::size_estimate::RangeEstimate;
pub use read::RowIter;
pub use read::Snapshot;
pub use read::TableStats;
pub use runs::progress::MergeProgress;
pub use runs::stats::TableRuns;
pub use snapshot::SnapshotSummary;
pub use store::db::Store;
pub use store::db::FORMAT_VERSION;
pub use store::options::CommitFailurePolicy;
pub use store::options::DiskFailurePolicy;
pub use store::options::StoreOptions;
pub use store::options::SyncMode;
pub use store::purge::PurgeProgress;
pub use store::purge::PurgeRequest;
pub use store::stats::WriterCounts;
pub use writer::combine::DeferredWrites;
pub use writer::counter::CounterChange;
pub use writer::counter::CounterWrite;
pub use writer::mutation::CatalogOp;
pub use writer::mutation::RangeTombstoneWrite;
pub use writer::mutation::RowWrite;
pub use writer::mutation::WriteBatch;
