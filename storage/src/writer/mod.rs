//! The writer: group commit, the commit log and the sync modes.
//!
//! Every write goes through one writer state, held by one thread at a time: the writer thread,
//! or a thread that queued plain writes and applies them itself (`crate::writer::combine`). Its holder
//! takes every request already queued (up to `request::MAX_GROUP`: the group grows with the
//! load) and handles them as one group:
//!
//! - **Logged groups** (data writes only, on a store with a commit log): the group is appended
//!   to the commit log as one record with one `write(2)`, applied to the memtable (plain row
//!   writes; see `crate::memtable`) or else in ONE redb write transaction committed with
//!   `Durability::None`, then acknowledged: at once in `periodic`
//!   mode (the record is in the OS, so a killed process loses nothing; the log is fsynced every
//!   `sync_period`), after the sync thread's next fsync in `batch` and `group` modes
//!   ([`crate::commitlog::sync`]). If the append fails (a full disk) nothing is applied and
//!   every request of the group gets the error; once space is freed the next append works.
//! - **Durable groups** (any catalog change, a flush, or a store without a commit log): applied
//!   and committed with `Durability::Immediate` when they must be durable, which is also a
//!   checkpoint.
//!
//! A *checkpoint* is a durable redb commit: it makes every logged record redundant, so the
//! log starts a new segment and deletes the old ones. One happens after `memtable_size` of log
//! or of memtable (32 MiB by default), after 30 s with unflushed writes, with every durable group and purge
//! chunk, and at shutdown. A checkpoint with rows in the memtable freezes it and hands it to
//! the flusher thread (`crate::writer::flush`), so writes go on meanwhile; every other writer
//! transaction takes the memtable's rows with it (`Writer::begin`). Every write transaction stores the sequence number of the last record it holds
//! in `meta`, which is where replay starts (`Store::open`).
//!
//! A request that fails validation (unknown table id, corrupt stored row) gets its own error
//! and changes nothing; a redb error fails the whole group (`GroupFailed`) and its record is
//! taken back out of the log.
//!
//! Files, by job (each holds the `impl Writer` methods of its job):
//! - `mod.rs`: the writer's state, its start and its final checkpoint.
//! - `group`: the group commit loop: sorting a group's requests, logging and acknowledging.
//! - `apply`: applying a group to the memtable or in a redb transaction; purge chunks.
//! - `checkpoint`: timed work (the periodic log fsync, checkpoints by size and time).
//! - `layers`: freezing the memtable for the flusher, its outcome, the clean layer.
//! - `failure`: failing callbacks, the free-space check, reopening after an engine failure.

pub(crate) mod combine;
#[cfg(test)]
pub(crate) mod combine_tests;
pub(crate) mod counter;
pub(crate) mod flush;
pub(crate) mod key_filter;
pub(crate) mod mutation;
pub(crate) mod request;

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use redb::Database;
use redb::ReadableDatabase;
use tracing::debug;

use crate::commitlog::failures::CommitFailures;
use crate::commitlog::sync::Syncer;
use crate::commitlog::CommitLog;
use crate::disk::DataFile;
use crate::error::StorageError;
use crate::hash::fast::TableIds;
use crate::index::IndexFeed;
use crate::memtable::apply::IndexedTables;
use crate::memtable::arena::RowArena;
use crate::memtable::Memtables;
use crate::read::view::ViewCache;
use crate::store::options::StoreOptions;
use crate::store::options::SyncMode;
use crate::store::slot::current;
use crate::store::slot::DbSlot;
use crate::store::stats::WriterStats;
use crate::writer::flush::Flusher;
use crate::writer::key_filter::KeyFilters;

mod apply;
mod checkpoint;
mod failure;
mod group;
mod layers;
mod snapshot;

/// The least time between two attempts to reopen the database after an engine failure.
const REOPEN_PAUSE: Duration = Duration::from_secs(1);

/// What the writer publishes to readers: the shared redb view and the memtable layers.
pub(crate) struct Published {
    pub(crate) views: Arc<ViewCache>,
    pub(crate) memtables: Arc<Memtables>,
    pub(crate) stats: Arc<WriterStats>,
    pub(crate) feed: Arc<IndexFeed>,
    pub(crate) failures: Arc<CommitFailures>,
    /// Held shared by a reader while it takes its memtable layers and read view, and
    /// exclusively by a restore while it commits and publishes them (see `crate::snapshot`).
    pub(crate) gate: Arc<RwLock<()>>,
}

/// The writer thread's state.
pub(crate) struct Writer {
    /// The database as readers see it; emptied while the file is reopened.
    slot: DbSlot,
    /// The database this thread writes to; `None` after a failed reopen.
    db: Option<Arc<Database>>,
    /// redb failed an I/O operation and refuses work until the file is reopened.
    needs_reopen: bool,
    /// When a reopen was last tried (they are at least a second apart).
    last_reopen: Option<Instant>,
    /// Sync mode and periods.
    options: StoreOptions,
    /// Ids of tables rows may be written to: the catalog's tables. Keeps a write racing a
    /// `DROP TABLE` from recreating the dropped data table.
    live_tables: TableIds,
    /// The commit log; `None` for an in-memory store.
    log: Option<CommitLog>,
    /// The fsync thread of `batch` and `group` modes.
    syncer: Option<Syncer>,
    /// Whether redb holds commits since the last durable one, or the memtable holds rows.
    dirty: bool,
    /// When the last durable commit (checkpoint) happened, or was last tried.
    last_durable: Instant,
    /// `periodic` mode: records appended since the last fsync of the log.
    log_unsynced: bool,
    /// `periodic` mode: when the log was last fsynced.
    last_log_sync: Instant,
    /// The database file (none in memory): reopened after an I/O error, and checked for free
    /// space before durable commits.
    db_path: Option<DataFile>,
    /// The readers' shared view, invalidated after every commit before it is acknowledged.
    views: Arc<ViewCache>,
    /// The memtable layers readers consult before redb (logged stores only).
    memtables: Arc<Memtables>,
    /// The thread making frozen memtables durable (logged stores only).
    flusher: Option<Flusher>,
    /// While the flusher works: the first commit-log segment its commit does not cover.
    flushing: Option<u64>,
    /// After a failed flush, none starts again before this (a full disk must not make every
    /// group retry one).
    flush_pause_until: Option<Instant>,
    /// Which tables have secondary indexes (their writes go through redb transactions).
    indexed: IndexedTables,
    /// Which keys each table cannot hold (see `crate::writer::key_filter`).
    key_filters: KeyFilters,
    /// Where the rows it puts in the memtable are encoded.
    row_arena: RowArena,
    /// Counters of the groups handled, for metrics.
    stats: Arc<WriterStats>,
    /// The index change feed, given each commit's entry changes once it is visible.
    feed: Arc<IndexFeed>,
    /// `commit_failure_policy`, and whether the commit log has stopped.
    failures: Arc<CommitFailures>,
    /// The readers' gate (see [`Published::gate`]).
    gate: Arc<RwLock<()>>,
    /// The snapshot the store holds as it was taken or restored, and what changed since
    /// (see `snapshot::Installed`).
    installed: Option<snapshot::Installed>,
}

impl Writer {
    /// A writer over `db`; starts the sync thread when the mode needs one, and the log's
    /// janitor.
    ///
    /// # Errors
    /// [`StorageError::WriterStart`] if a thread cannot start.
    pub(crate) fn new(
        slot: DbSlot,
        options: StoreOptions,
        live_tables: TableIds,
        mut log: Option<CommitLog>,
        db_path: Option<DataFile>,
        Published {
            views,
            memtables,
            stats,
            feed,
            failures,
            gate,
        }: Published,
    ) -> Result<Writer, StorageError> {
        let window = match options.sync {
            SyncMode::Periodic => None,
            SyncMode::Batch => Some(Duration::ZERO),
            SyncMode::Group => Some(options.group_window),
        };
        let syncer = match (&log, window) {
            (Some(_), Some(window)) => Some(Syncer::start(window, failures.clone())?),
            _ => None,
        };
        if let Some(log) = &mut log {
            log.delete_in_background()?;
        }
        let db = current(&slot).ok();
        let flusher = Some(Flusher::start()?);
        let key_filters = match &db {
            Some(db) => empty_tables(db, &live_tables)?,
            None => KeyFilters::default(),
        };
        Ok(Writer {
            slot,
            db,
            needs_reopen: false,
            last_reopen: None,
            options,
            live_tables,
            log,
            syncer,
            dirty: false,
            last_durable: Instant::now(),
            log_unsynced: false,
            last_log_sync: Instant::now(),
            db_path,
            views,
            memtables,
            flusher,
            flushing: None,
            flush_pause_until: None,
            indexed: IndexedTables::default(),
            key_filters,
            row_arena: RowArena::default(),
            stats,
            feed,
            failures,
            gate,
            installed: None,
        })
    }

    /// The final work once the queue has closed: acknowledges what waits for an fsync, then
    /// makes everything durable. Returns the outcome of that final checkpoint.
    pub(crate) fn finish(&mut self) -> Result<(), StorageError> {
        drop(self.syncer.take());
        self.finish_flush(true);
        let result = if self.dirty {
            self.checkpoint()
        } else {
            Ok(())
        };
        debug!(ok = result.is_ok(), "storage writer stopped");
        result
    }
}

/// Key filters for the live tables that hold no row (see `crate::writer::key_filter`).
fn empty_tables(db: &Database, live: &TableIds) -> Result<KeyFilters, StorageError> {
    let txn = db.begin_read()?;
    let mut filters = KeyFilters::default();
    for table in live {
        if crate::runs::stored::is_empty(&txn, *table)? {
            filters.start_empty(*table);
        }
    }
    Ok(filters)
}
