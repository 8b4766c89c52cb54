//! The writer: group commit, the commit log and the sync modes.
//!
//! Every write goes through one writer state, held by one thread at a time: the writer thread,
//! or a thread that queued plain writes and applies them itself (`crate::combine`). Its holder
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
//! the flusher thread (`crate::flush`), so writes go on meanwhile; every other writer
//! transaction takes the memtable's rows with it (`Writer::begin`). Every write transaction stores the sequence number of the last record it holds
//! in `meta`, which is where replay starts (`Store::open`).
//!
//! A request that fails validation (unknown table id, corrupt stored row) gets its own error
//! and changes nothing; a redb error fails the whole group (`GroupFailed`) and its record is
//! taken back out of the log.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use redb::{Database, Durability, ReadableDatabase, ReadableTable, WriteTransaction};
use tracing::{debug, error, info, trace};
use uuid::Uuid;

use crate::commitlog::replay::{replay, stored_position};
use crate::commitlog::sync::{SyncJob, Syncer};
use crate::commitlog::CommitLog;
use crate::error::StorageError;
use crate::flush::{write_rows, Flusher};
use crate::index::{IndexChanges, IndexFeed};
use crate::key_filter::KeyFilters;
use crate::mem_apply::{apply_group, IndexedTables};
use crate::memtable::{self, Layers, Mem, Memtables};
use crate::mutation::{apply, ApplyError, CatalogOp, WriteBatch};
use crate::options::{StoreOptions, SyncMode};
use crate::purge::{purge_chunk, PurgeProgress, PurgeRequest};
use crate::read_view::{View, ViewCache};
use crate::request::{Callback, Request, WriteRequest};
use crate::slot::{current, DbSlot};
use crate::stats::WriterStats;
use crate::tables::{data_table, data_table_name, write_position};

/// How often the writer looks for the flusher's outcome while it waits for requests.
const FLUSH_POLL: Duration = Duration::from_millis(1);

/// Checkpoint once this much time passed since the last one with non-durable commits.
const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(30);

/// The least time between two attempts to reopen the database after an engine failure.
const REOPEN_PAUSE: Duration = Duration::from_secs(1);

/// What the writer publishes to readers: the shared redb view and the memtable layers.
pub(crate) struct Published {
    pub(crate) views: Arc<ViewCache>,
    pub(crate) memtables: Arc<Memtables>,
    pub(crate) stats: Arc<WriterStats>,
    pub(crate) feed: Arc<IndexFeed>,
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
    live_tables: HashSet<Uuid>,
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
    /// The database file (none in memory), for the free-space check before durable commits.
    db_path: Option<PathBuf>,
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
    /// Which keys each table cannot hold (see `crate::key_filter`).
    key_filters: KeyFilters,
    /// Counters of the groups handled, for metrics.
    stats: Arc<WriterStats>,
    /// The index change feed, given each commit's entry changes once it is visible.
    feed: Arc<IndexFeed>,
}

impl Writer {
    /// A writer over `db`; starts the sync thread when the mode needs one.
    ///
    /// # Errors
    /// [`StorageError::WriterStart`] if the sync thread cannot start.
    pub(crate) fn new(
        slot: DbSlot,
        options: StoreOptions,
        live_tables: HashSet<Uuid>,
        log: Option<CommitLog>,
        db_path: Option<PathBuf>,
        Published {
            views,
            memtables,
            stats,
            feed,
        }: Published,
    ) -> Result<Writer, StorageError> {
        let window = match options.sync {
            SyncMode::Periodic => None,
            SyncMode::Batch => Some(Duration::ZERO),
            SyncMode::Group => Some(options.group_window),
        };
        let syncer = match (&log, window) {
            (Some(_), Some(window)) => Some(Syncer::start(window)?),
            _ => None,
        };
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
            stats,
            feed,
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

    /// Whether a group can be handled by whichever thread queued it (see `crate::combine`):
    /// logged plain row writes that go to the memtable, with nothing that could block (no
    /// reopen pending, the flusher keeping up).
    pub(crate) fn combinable(&mut self, group: &[Request]) -> bool {
        if self.log.is_none()
            || self.needs_reopen
            || self.memtable_full(2 * self.options.memtable_size)
        {
            return false;
        }
        let mut batches = Vec::with_capacity(group.len());
        for request in group {
            match request {
                Request::Write(write) if write.logged.is_some() => batches.push(&write.batch),
                _ => return false,
            }
        }
        self.memtable_only(&batches)
    }

    /// Log bytes since the last checkpoint that call for the next one.
    fn checkpoint_bytes(&self) -> u64 {
        u64::try_from(self.options.memtable_size).unwrap_or(u64::MAX)
    }

    /// Whether the memtable holds `bytes` or more.
    fn memtable_full(&self, bytes: usize) -> bool {
        memtable::read(&self.memtables.load().active).bytes() >= bytes
    }

    /// Whether a checkpoint is wanted now for size (the log or the memtable is full) and one
    /// could start: the writer thread should run its timed work.
    pub(crate) fn checkpoint_wanted(&self) -> bool {
        let logged_bytes = self.log.as_ref().map_or(0, CommitLog::since_checkpoint);
        self.dirty
            && self.flushing.is_none()
            && (logged_bytes >= self.checkpoint_bytes()
                || self.memtable_full(self.options.memtable_size))
    }

    /// The longest time between durable commits: with a log, a checkpoint interval; without
    /// one (in memory), the sync period as before.
    fn checkpoint_interval(&self) -> Duration {
        match self.log {
            Some(_) => CHECKPOINT_INTERVAL,
            None => self.options.sync_period,
        }
    }

    /// When the next timed work is due, if any is pending.
    pub(crate) fn next_due(&self) -> Option<Instant> {
        let log_sync = (self.log_unsynced && self.options.sync == SyncMode::Periodic)
            .then(|| self.last_log_sync + self.options.sync_period);
        // No checkpoint is due while a flush runs (its end is polled) or after a failed one.
        let checkpoint = (self.dirty && self.flushing.is_none()).then(|| {
            let due = self.last_durable + self.checkpoint_interval();
            self.flush_pause_until.map_or(due, |until| due.max(until))
        });
        // A failed reopen is retried without waiting for a write: readers need the database.
        let reopen = self.needs_reopen.then(|| {
            self.last_reopen
                .map_or_else(Instant::now, |at| at + REOPEN_PAUSE)
        });
        let flush = self.flushing.map(|_| Instant::now() + FLUSH_POLL);
        [log_sync, checkpoint, reopen, flush]
            .into_iter()
            .flatten()
            .min()
    }

    /// Fsyncs the log (`periodic` mode), checkpoints, and retries a reopen, when due.
    pub(crate) fn timed_work(&mut self) {
        if self.needs_reopen {
            self.try_reopen();
        }
        let now = Instant::now();
        if self.log_unsynced
            && self.options.sync == SyncMode::Periodic
            && now >= self.last_log_sync + self.options.sync_period
        {
            self.sync_log();
        }
        let memtable_bytes = memtable::read(&self.memtables.load().active).bytes();
        // A flush that falls behind the writes makes the writer wait for it, so the memtable
        // never holds much more than two layers' worth.
        self.finish_flush(memtable_bytes >= 2 * self.options.memtable_size);
        self.trim_clean(memtable_bytes);
        let logged_bytes = self.log.as_ref().map_or(0, CommitLog::since_checkpoint);
        let due = now >= self.last_durable + self.checkpoint_interval();
        let full =
            logged_bytes >= self.checkpoint_bytes() || memtable_bytes >= self.options.memtable_size;
        let paused = self.flush_pause_until.is_some_and(|until| now < until);
        if self.dirty && self.flushing.is_none() && !paused && (full || due) {
            trace!(logged_bytes, memtable_bytes, "checkpoint");
            if self.start_flush() {
                return;
            }
            if let Err(e) = self.checkpoint() {
                // Retried after another interval; until then the log keeps everything.
                error!(cause = %e, "checkpoint failed");
                self.note_failure(&e);
                self.last_durable = Instant::now();
            }
        }
    }

    fn sync_log(&mut self) {
        let Some(file) = self.log.as_ref().and_then(CommitLog::file) else {
            return;
        };
        match file.sync_data() {
            Ok(()) => self.log_unsynced = false,
            Err(e) => error!(cause = %e, "periodic fsync of the commit log failed"),
        }
        self.last_log_sync = Instant::now();
    }

    /// A durable commit of everything applied so far; the log then starts afresh.
    fn checkpoint(&mut self) -> Result<(), StorageError> {
        self.check_room()?;
        let txn = self.begin(true)?;
        txn.commit()?;
        self.committed();
        self.after_durable_commit();
        Ok(())
    }

    /// Freezes the memtable and hands it to the flusher, whose durable commit is the
    /// checkpoint; whether it did (there must be rows, and no flush running).
    fn start_flush(&mut self) -> bool {
        let layers = self.memtables.load();
        let empty = memtable::read(&layers.active).is_empty();
        if empty || layers.frozen.is_some() || self.needs_reopen {
            return false;
        }
        let (Some(flusher), Some(db)) = (&self.flusher, &self.db) else {
            return false;
        };
        let position = self.log.as_ref().map_or(0, CommitLog::last_seq);
        let first_kept = self.log.as_mut().map_or(0, CommitLog::rotate);
        let frozen = layers.active.clone();
        let active = Mem::sized_like(&memtable::read(&frozen));
        self.memtables.publish(Layers {
            active: Arc::new(RwLock::new(active)),
            frozen: Some(frozen.clone()),
            clean: None,
        });
        // The last flush's rows go with their layer: memory holds two layers at most.
        let clean = layers.clean.clone();
        drop(layers);
        if let Some(clean) = clean {
            flusher.dispose(clean);
        }
        trace!(position, "memtable frozen");
        flusher.send(db.clone(), frozen, position, self.db_path.clone());
        self.flushing = Some(first_kept);
        self.dirty = false;
        self.last_durable = Instant::now();
        true
    }

    /// Takes the flusher's outcome, if it has one (waiting for it when `wait`). Success: the
    /// frozen layer goes, after the views that see its commit. Failure: its rows go back
    /// under the active ones, and the log keeps them.
    fn finish_flush(&mut self, wait: bool) {
        let Some(first_kept) = self.flushing else {
            return;
        };
        let Some(outcome) = self.flusher.as_ref().and_then(|f| f.outcome(wait)) else {
            return;
        };
        self.flushing = None;
        let layers = self.memtables.load();
        match outcome {
            Ok(()) => {
                self.views.invalidate();
                // Its rows are now what redb holds for their keys: point lookups go on
                // finding them here until the next flush starts or another commit.
                let clean = layers
                    .frozen
                    .clone()
                    .filter(|frozen| worth_keeping(&memtable::read(frozen)));
                let dropped = layers.frozen.clone().filter(|_| clean.is_none());
                self.memtables.publish(Layers {
                    active: layers.active.clone(),
                    frozen: None,
                    clean,
                });
                drop(layers);
                if let (Some(dropped), Some(flusher)) = (dropped, &self.flusher) {
                    flusher.dispose(dropped);
                }
                if let Some(log) = &self.log {
                    log.delete_segments_before(first_kept);
                }
            }
            Err(e) => {
                error!(cause = %e, "memtable flush failed; its rows stay in memory and in the commit log");
                if let Some(frozen) = &layers.frozen {
                    memtable::write(&layers.active).absorb(&memtable::read(frozen));
                }
                self.memtables.publish(Layers {
                    active: layers.active.clone(),
                    frozen: None,
                    clean: None,
                });
                self.dirty = true;
                self.flush_pause_until = Some(Instant::now() + REOPEN_PAUSE);
                self.note_failure(&e);
            }
        }
    }

    /// Drops the clean layer once it and the active one hold more than a layer and a half:
    /// the clean layer is a cache, so it gives way while writes fill the next layer, and
    /// memory stays well within the two layers (`memtable_heap_space`) active and frozen
    /// may hold.
    fn trim_clean(&mut self, active_bytes: usize) {
        let layers = self.memtables.load();
        let Some(clean) = layers.clean.clone() else {
            return;
        };
        let budget = self.options.memtable_size + self.options.memtable_size / 2;
        if active_bytes + memtable::read(&clean).bytes() <= budget {
            return;
        }
        self.memtables.publish(Layers {
            active: layers.active.clone(),
            frozen: layers.frozen.clone(),
            clean: None,
        });
        drop(layers);
        if let Some(flusher) = &self.flusher {
            flusher.dispose(clean);
        }
    }

    /// A writer transaction committed (holding the memtable's rows, see [`Writer::begin`]):
    /// new reads get a new view, then the memtable empties.
    fn committed(&mut self) {
        self.views.invalidate();
        let old = self.memtables.load();
        let has_rows = !memtable::read(&old.active).is_empty();
        if has_rows || old.clean.is_some() {
            // A clean layer may no longer be what redb holds: it goes too.
            self.memtables.publish(Layers::default());
            let gone = [has_rows.then(|| old.active.clone()), old.clean.clone()];
            drop(old);
            if let Some(flusher) = &self.flusher {
                gone.into_iter()
                    .flatten()
                    .for_each(|layer| flusher.dispose(layer));
            }
        }
    }

    /// The shared read view, for reading rows before the group.
    fn read_view(&self) -> Result<Arc<View>, StorageError> {
        let db = self.db.as_ref().ok_or(StorageError::Recovering)?;
        self.views.view(|| Ok(db.begin_read()?))
    }

    /// Whether the group can go to the memtable (see [`crate::mem_apply`]).
    fn memtable_only(&mut self, batches: &[&WriteBatch]) -> bool {
        if self.flusher.is_none() {
            return false;
        }
        let Ok(view) = self.read_view() else {
            return false;
        };
        self.indexed.memtable_only(&view, batches).unwrap_or(false)
    }

    /// Whether a group of a store without a log goes to the memtable: plain row writes, in
    /// `periodic` mode (the others promise durability at acknowledgement).
    fn unlogged_to_memtable(&mut self, writes: &[WriteRequest]) -> bool {
        if self.options.sync != SyncMode::Periodic {
            return false;
        }
        let batches: Vec<&WriteBatch> = writes.iter().map(|w| &w.batch).collect();
        self.memtable_only(&batches)
    }

    /// Applies a group of plain row writes to the memtable and publishes it.
    fn apply_to_memtable(
        &mut self,
        batches: &[&WriteBatch],
    ) -> Result<Vec<Result<(), StorageError>>, StorageError> {
        let view = self.read_view()?;
        let layers = self.memtables.load();
        let seq = self.memtables.visible() + 1;
        let results = apply_group(
            &layers,
            &view,
            &self.live_tables,
            batches,
            seq,
            &mut self.key_filters,
        )?;
        self.memtables.make_visible(seq);
        self.dirty = true;
        Ok(results)
    }

    fn after_durable_commit(&mut self) {
        self.dirty = false;
        self.last_durable = Instant::now();
        if let Some(log) = &mut self.log {
            log.checkpointed();
            self.log_unsynced = false;
        }
    }

    /// Handles a group of requests: logged, durable, or to the memtable, as they need.
    pub(crate) fn process(&mut self, group: Vec<Request>) {
        let (started, requests) = (Instant::now(), group.len());
        self.process_group(group);
        self.stats.group(requests, started.elapsed());
    }

    fn process_group(&mut self, group: Vec<Request>) {
        if self.needs_reopen && !self.try_reopen() {
            group
                .into_iter()
                .for_each(|r| r.fail(|| StorageError::Recovering));
            return;
        }
        let mut writes = Vec::with_capacity(group.len());
        let mut flushes = Vec::new();
        for request in group {
            match request {
                Request::Write(write) => writes.push(*write),
                Request::Flush(done) => flushes.push(done),
                Request::Purge(request, done) => {
                    let result = self.purge(&request);
                    if let Err(e) = &result {
                        self.note_failure(e);
                    }
                    done(result);
                }
                #[cfg(test)]
                Request::Reopen(done) => {
                    self.needs_reopen = true;
                    done(self.reopen());
                }
            }
        }
        if writes.is_empty() && flushes.is_empty() {
            return;
        }
        let loggable = flushes.is_empty() && writes.iter().all(|w| w.logged.is_some());
        if loggable && self.log.is_some() {
            self.process_logged(writes);
        } else if self.log.is_none() && flushes.is_empty() && self.unlogged_to_memtable(&writes) {
            let batches: Vec<&WriteBatch> = writes.iter().map(|w| &w.batch).collect();
            match self.apply_to_memtable(&batches) {
                Ok(results) => {
                    for (write, result) in writes.into_iter().zip(results) {
                        (write.done)(result);
                    }
                }
                Err(error) => fail_all(writes.into_iter().map(|w| w.done).collect(), error),
            }
        } else {
            self.process_durable(writes, flushes);
        }
    }

    /// Appends the group to the log, applies it non-durably, and acknowledges it (now, or
    /// after the sync thread's fsync).
    fn process_logged(&mut self, writes: Vec<WriteRequest>) {
        let Some(log) = &mut self.log else { return };
        let payloads: Vec<&[u8]> = writes
            .iter()
            .map(|w| w.logged.as_deref().unwrap_or_default())
            .collect();
        if let Err(e) = log.append(&payloads) {
            error!(cause = %e, requests = writes.len(), "commit log append failed; writes refused");
            fail_all(writes.into_iter().map(|w| w.done).collect(), e);
            return;
        }
        let batches: Vec<&WriteBatch> = writes.iter().map(|w| &w.batch).collect();
        let outcome = if self.memtable_only(&batches) {
            self.apply_to_memtable(&batches)
        } else {
            self.commit_group(&batches, false)
        };
        trace!(
            requests = writes.len(),
            ok = outcome.is_ok(),
            "logged group"
        );
        let results = match outcome {
            Ok(results) => results,
            Err(error) => {
                if let Some(log) = &mut self.log {
                    log.undo_last();
                }
                self.note_failure(&error);
                fail_all(writes.into_iter().map(|w| w.done).collect(), error);
                return;
            }
        };
        self.log_unsynced = true;
        let acks: Vec<_> = writes.into_iter().map(|w| w.done).zip(results).collect();
        match (&self.syncer, self.log.as_ref().and_then(CommitLog::file)) {
            (Some(syncer), Some(file)) => syncer.send(SyncJob { file, acks }),
            _ => acks.into_iter().for_each(|(done, result)| done(result)),
        }
    }

    /// Applies a group that is not logged: durably if it changes the catalog or flushes (or,
    /// without a log, when the mode or the period says so).
    fn process_durable(&mut self, writes: Vec<WriteRequest>, flushes: Vec<Callback>) {
        let durable = self.log.is_some()
            || self.options.sync != SyncMode::Periodic
            || !flushes.is_empty()
            || writes.iter().any(|w| !w.batch.catalog.is_empty())
            || self.last_durable.elapsed() >= self.options.sync_period;
        let batches: Vec<&WriteBatch> = writes.iter().map(|w| &w.batch).collect();
        let outcome = self.commit_group(&batches, durable);
        trace!(
            requests = writes.len(),
            durable,
            ok = outcome.is_ok(),
            "group commit"
        );
        match outcome {
            Ok(results) => {
                for (write, result) in writes.into_iter().zip(results) {
                    (write.done)(result);
                }
                for done in flushes {
                    done(Ok(()));
                }
            }
            Err(error) => {
                self.note_failure(&error);
                let callbacks = writes.into_iter().map(|w| w.done).chain(flushes);
                fail_all(callbacks.collect(), error);
            }
        }
    }

    /// Applies the batches in one transaction. `Ok` holds each batch's own outcome; `Err`
    /// means the group failed (see [`StorageError::GroupFailed`]).
    fn commit_group(
        &mut self,
        batches: &[&WriteBatch],
        durable: bool,
    ) -> Result<Vec<Result<(), StorageError>>, StorageError> {
        if durable {
            self.check_room()?;
        }
        // Only catalog changes alter the live tables; keep a copy to restore on failure then.
        let changes_catalog = batches.iter().any(|b| !b.catalog.is_empty());
        let saved_tables = changes_catalog.then(|| self.live_tables.clone());
        let written = forget_written(&mut self.key_filters, batches);
        let emptied = emptied_tables(&self.live_tables, batches);
        let result = self.try_commit_group(batches, durable);
        let result = result.map(|(results, changes)| {
            self.committed();
            self.feed.publish(changes);
            results
        });
        if result.is_ok() {
            if changes_catalog {
                self.indexed.clear();
                self.key_filters.retain(&self.live_tables);
            }
            for table in emptied.difference(&written) {
                self.key_filters.start_empty(*table);
            }
        }
        match (&result, saved_tables) {
            (Ok(_), _) if durable => self.after_durable_commit(),
            (Ok(_), _) => self.dirty = true,
            (Err(_), Some(saved)) => self.live_tables = saved,
            (Err(_), None) => {}
        }
        result
    }

    /// Marks the database for reopening when redb itself failed (a file-backed store only).
    fn note_failure(&mut self, error: &StorageError) {
        if error.is_engine_failure() && self.db_path.is_some() {
            error!(cause = %error, "storage engine failed; the database will be reopened");
            self.needs_reopen = true;
        }
    }

    /// Reopens the database unless a try was made less than a second ago; whether it is open.
    fn try_reopen(&mut self) -> bool {
        if self
            .last_reopen
            .is_some_and(|at| at.elapsed() < REOPEN_PAUSE)
        {
            return false;
        }
        self.last_reopen = Some(Instant::now());
        match self.reopen() {
            Ok(()) => true,
            Err(e) => {
                error!(cause = %e, "reopening the database failed; retrying with the next write");
                false
            }
        }
    }

    /// Closes the failed database and opens the file again, as a restart would: redb comes
    /// back at its last durable commit and the commit log records after it are replayed.
    /// Readers get [`StorageError::Recovering`] meanwhile.
    fn reopen(&mut self) -> Result<(), StorageError> {
        self.finish_flush(true);
        let (Some(path), Some(log)) = (self.db_path.clone(), self.log.as_mut()) else {
            return Ok(());
        };
        drop(
            self.slot
                .write()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take(),
        );
        self.db = None;
        // The shared read view holds a transaction of the failed database, and so its lock.
        self.views.invalidate();
        let db = open_when_released(&path)?;
        let records = log.records_after(stored_position(&db)?)?;
        let replayed = records.len();
        replay(&db, &mut self.live_tables, records)?;
        // Everything the memtable held is in the log, so now in redb.
        self.memtables.publish(Layers::default());
        self.indexed.clear();
        self.feed.reset_all();
        let db = Arc::new(db);
        *self
            .slot
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(db.clone());
        self.db = Some(db);
        self.views.invalidate();
        self.needs_reopen = false;
        self.dirty |= replayed > 0;
        info!(replayed, "database reopened after an I/O error");
        Ok(())
    }

    /// Refuses a durable commit the disk has no room for (see [`crate::space`]).
    fn check_room(&self) -> Result<(), StorageError> {
        match &self.db_path {
            Some(path) => crate::space::check_room(path),
            None => Ok(()),
        }
    }

    /// A write transaction (fsync'd at commit when `durable`) that records the commit log
    /// position it holds. It holds every row written so far: a running flush is waited for,
    /// and the memtable's rows are written into it first (so [`Writer::committed`] empties
    /// the memtable).
    fn begin(&mut self, durable: bool) -> Result<WriteTransaction, StorageError> {
        self.finish_flush(true);
        let db = self.db.as_ref().ok_or(StorageError::Recovering)?;
        let mut txn = db.begin_write()?;
        txn.set_durability(if durable {
            Durability::Immediate
        } else {
            Durability::None
        })?;
        if let Some(log) = &self.log {
            write_position(&txn, log.last_seq())?;
        }
        write_rows(&txn, &memtable::read(&self.memtables.load().active))?;
        Ok(txn)
    }

    /// Runs one purge chunk in its own transaction: durable whenever there is a commit log
    /// (purges are not logged, so replay must never start before one) or in `batch` mode.
    fn purge(&mut self, request: &PurgeRequest) -> Result<PurgeProgress, StorageError> {
        let durable = self.log.is_some() || self.options.sync != SyncMode::Periodic;
        if durable {
            self.check_room()?;
        }
        let txn = self.begin(durable)?;
        let (progress, changes) = purge_chunk(&txn, &self.live_tables, request)?;
        txn.commit()?;
        self.committed();
        self.feed.publish(changes);
        if durable {
            self.after_durable_commit();
        } else {
            self.dirty = true;
        }
        trace!(?progress, table = %request.table.id, "purge chunk");
        Ok(progress)
    }

    fn try_commit_group(
        &mut self,
        batches: &[&WriteBatch],
        durable: bool,
    ) -> Result<(Vec<Result<(), StorageError>>, IndexChanges), StorageError> {
        let txn = self.begin(durable)?;
        let mut results = Vec::with_capacity(batches.len());
        let mut changes = IndexChanges::default();
        for batch in batches {
            match apply(&txn, &mut self.live_tables, batch) {
                Ok(written) => {
                    changes.extend(written);
                    results.push(Ok(()));
                }
                Err(ApplyError::Request(e)) => results.push(Err(e)),
                Err(ApplyError::Group(e)) => return Err(e),
            }
        }
        txn.commit()?;
        Ok((results, changes))
    }
}

/// Key filters for the live tables that hold no row (see `crate::key_filter`).
fn empty_tables(db: &Database, live: &HashSet<Uuid>) -> Result<KeyFilters, StorageError> {
    let txn = db.begin_read()?;
    let mut filters = KeyFilters::default();
    for table in live {
        let empty = match txn.open_table(data_table(&data_table_name(*table))) {
            Ok(rows) => rows.first()?.is_none(),
            Err(redb::TableError::TableDoesNotExist(_)) => true,
            Err(e) => return Err(e.into()),
        };
        if empty {
            filters.start_empty(*table);
        }
    }
    Ok(filters)
}

/// Forgets the key filter of every table the batches write (they go through a redb
/// transaction, which the filters do not follow); returns those tables.
fn forget_written(filters: &mut KeyFilters, batches: &[&WriteBatch]) -> HashSet<Uuid> {
    let mut written = HashSet::new();
    for batch in batches {
        written.extend(batch.rows.iter().map(|w| w.table_id));
        written.extend(batch.counters.iter().map(|c| c.table_id));
        written.extend(batch.range_tombstones.iter().map(|r| r.table_id));
    }
    for table in &written {
        filters.forget(*table);
    }
    written
}

/// Tables the batches leave empty: created (not live before) or truncated.
fn emptied_tables(live: &HashSet<Uuid>, batches: &[&WriteBatch]) -> HashSet<Uuid> {
    let mut emptied = HashSet::new();
    for op in batches.iter().flat_map(|b| &b.catalog) {
        match op {
            CatalogOp::PutTable(table) if !live.contains(&table.id) => {
                emptied.insert(table.id);
            }
            CatalogOp::TruncateTable { id } => {
                emptied.insert(*id);
            }
            _ => {}
        }
    }
    emptied
}

/// Opens the database file once the failed handle's readers have let go of its lock.
fn open_when_released(path: &std::path::Path) -> Result<Database, StorageError> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match redb::Builder::new().create(path) {
            Ok(db) => return Ok(db),
            Err(redb::DatabaseError::DatabaseAlreadyOpen) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Rows this large on average are not kept in memory once flushed: a point lookup of such a
/// row costs its copy, not the B-tree walk the clean layer saves, and a few of them would
/// hold as much memory as a layer of small rows.
const CLEAN_ROW_MAX_AVERAGE: usize = 16 << 10;

/// Whether a flushed layer is worth keeping as the clean layer (see `memtable`).
fn worth_keeping(layer: &Mem) -> bool {
    layer.bytes() <= layer.rows().saturating_mul(CLEAN_ROW_MAX_AVERAGE)
}

/// Fails every callback with `error`: itself for one request; for several, the same commit
/// log failure each, or [`StorageError::GroupFailed`] naming the cause.
fn fail_all(mut callbacks: Vec<Callback>, error: StorageError) {
    if callbacks.len() == 1 {
        if let Some(done) = callbacks.pop() {
            done(Err(error));
        }
        return;
    }
    let cause = match &error {
        StorageError::CommitLog { cause } => cause.clone(),
        other => other.to_string(),
    };
    let commit_log = matches!(error, StorageError::CommitLog { .. });
    for done in callbacks {
        let cause = cause.clone();
        done(Err(if commit_log {
            StorageError::CommitLog { cause }
        } else {
            StorageError::GroupFailed { cause }
        }));
    }
}
