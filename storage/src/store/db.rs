//! [`Store`]: opening the database file, the format-version check, the writer thread's
//! lifetime, and the write entry points ([`Store::submit`], [`Store::write_blocking`],
//! [`Store::flush`], [`Store::shutdown`]).

use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;

use redb::backends::InMemoryBackend;
use redb::Builder;
use redb::Database;
use redb::Durability;
use redb::ReadableDatabase;
use redb::TableError;
use tracing::debug;

use crate::catalog::persist;
use crate::catalog::Catalog;
use crate::commitlog::failures::CommitFailures;
use crate::commitlog::record;
use crate::commitlog::replay::replay;
use crate::commitlog::replay::stored_position;
use crate::commitlog::CommitLog;
use crate::commitlog::ReplayRules;
use crate::disk::failures::DiskFailures;
use crate::disk::DataFile;
use crate::disk::Disk;
use crate::disk::RealDisk;
use crate::error::StorageError;
use crate::hash::fast::TableIds;
use crate::index::IndexFeed;
use crate::memtable::arena::RowArena;
use crate::memtable::Memtables;
use crate::read::view::ViewCache;
use crate::runs::compact::remove_orphans;
use crate::runs::compact::Compactor;
use crate::runs::compact::CompactorParts;
use crate::runs::progress::MergeProgress;
use crate::runs::progress::MergeTracker;
use crate::store::locking::lock;
use crate::store::options::CommitFailurePolicy;
use crate::store::options::DiskFailurePolicy;
use crate::store::options::StoreOptions;
use crate::store::options::SyncMode;
use crate::store::purge::PurgeProgress;
use crate::store::purge::PurgeRequest;
use crate::store::slot::DbSlot;
use crate::store::stats::WriterCounts;
use crate::store::stats::WriterStats;
use crate::store::tables::write_position;
use crate::store::tables::FORMAT_VERSION_KEY;
use crate::store::tables::META;
use crate::writer::combine;
use crate::writer::combine::DeferredWrites;
use crate::writer::combine::Shared;
use crate::writer::mutation::WriteBatch;
use crate::writer::request::Callback;
use crate::writer::request::Request;
use crate::writer::request::WriteRequest;
use crate::writer::Published;
use crate::writer::Writer;

thread_local! {
    /// Where this thread encodes the commit-log bytes of the writes it submits.
    static RECORDS: std::cell::RefCell<RowArena> = std::cell::RefCell::default();
}

/// The storage format version this build writes and reads. Any layout change (key
/// encoding, row format, schema records, table naming) needs a new version.
///
/// Version 2 added sorted runs (`runs`, `run_filters`, `run_<id>` tables, deletions in the
/// head): a build that knows only version 1 would not see rows in runs, so it must refuse the
/// file. A version 1 file holds no runs and opens as it is; its version becomes current at once.
///
/// Version 3 writes version 2 manifest records (each run's partitions and purge times): a
/// build that knows only version 1 records must refuse the file rather than fail on the first
/// record it reads. A version 2 file's records are version 1, which this build reads as they
/// are (`runs::manifest` tests); its version becomes 3 at once.
///
/// Version 4 lists merges under way: runs clipped to a span narrower than their blocks, and
/// a merge's output with a stand-in filter (`storage/DESIGN.md`, **Compaction**). A version 3
/// build would serve a clipped run's older copies and refuse the stand-in as corrupt; a
/// version 3 file holds neither, so it opens as it is.
///
/// Version 5 keeps a checksum of every page in `data.redb.checksums` (`disk/checked.rs`),
/// written with every durable commit: a version 4 build would change pages without updating
/// them, and the next start of this build would take every such page for damage. A version 4
/// file has no checksums file and opens as it is; its pages' sums are learned as they are read.
///
/// Version 6 keeps snapshots (`crate::snapshot`): their records, their copies of index and
/// range-tombstone tables, and `run_pins`, the runs a snapshot holds, which compaction,
/// truncate and drop must never delete; and columns of custom types named by Java class,
/// CompositeType clustering columns keyed component by component. A version 5 build knows
/// no pins (its compactor would delete a snapshot's runs and leave the snapshot
/// unrestorable) and no custom type. A version 5 file holds neither and opens as it is.
pub const FORMAT_VERSION: u32 = 6;

/// Versions this build opens, upgrading them to [`FORMAT_VERSION`] in place.
const UPGRADABLE: &[u32] = &[1, 2, 3, 4, 5];

/// A handle to the store. Cheap to clone; every clone shares one database and one writer
/// thread. The writer stops at [`Store::shutdown`] or when the last handle is dropped, after
/// a final durable commit.
#[derive(Clone)]
pub struct Store {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    /// The database; readers open transactions on it directly. Empty while the writer
    /// reopens the file after an I/O error.
    pub(crate) db: DbSlot,
    /// The writer's state and queue (closed at shutdown, so no request can be queued after
    /// the writer has drained it for the last time).
    shared: Arc<Shared>,
    /// The writer thread, joined at shutdown; it returns the outcome of its final sync.
    writer: Mutex<Option<JoinHandle<Result<(), StorageError>>>>,
    /// Rows decoded by reads, for planner tests ([`Store::rows_read`]).
    pub(crate) rows_read: Arc<AtomicU64>,
    /// The writer's group counters ([`Store::writer_stats`]).
    stats: Arc<WriterStats>,
    /// Whether writes go through a commit log (every store but an in-memory one).
    logged: bool,
    /// The read view shared by reads between two commits (see [`ViewCache`]).
    pub(crate) views: Arc<ViewCache>,
    /// Rows written since the last flush, which reads consult before redb.
    pub(crate) memtables: Arc<Memtables>,
    /// The entry changes of watched indexes ([`Store::index_feed`]).
    feed: Arc<IndexFeed>,
    /// Merges runs in the background; stopped before the writer.
    compactor: Mutex<Option<Compactor>>,
    /// The merge under way ([`Store::compactions`]).
    pub(crate) merges: Arc<MergeTracker>,
    /// `commit_failure_policy` ([`Store::on_commit_failure`]).
    failures: Arc<CommitFailures>,
    /// `disk_failure_policy` ([`Store::on_disk_failure`]).
    disk_failures: Arc<DiskFailures>,
    /// Readers take their memtable layers and view under it (see `crate::snapshot`).
    pub(crate) gate: Arc<RwLock<()>>,
}

impl Store {
    /// Opens (or creates) the database at `path` and loads the catalog; the commit log lives
    /// in the directory `commitlog` beside it, and its records after the last checkpoint are
    /// replayed before this returns.
    ///
    /// # Errors
    /// redb errors (including the file being open elsewhere),
    /// [`StorageError::FormatVersion`] for a file of another format version,
    /// [`StorageError::NewerFormat`] and [`StorageError::CommitLogVersion`] for a directory
    /// or a commit log written by a newer build (refused before any file is opened),
    /// [`StorageError::CommitLogReplay`] for a damaged commit log, and
    /// [`StorageError::Corrupt`] for unreadable schema records.
    pub fn open(path: &Path, options: StoreOptions) -> Result<(Store, Catalog), StorageError> {
        Store::open_on(Arc::new(RealDisk), path, options)
    }

    /// [`Store::open`] on `disk` (the power-cut tests' simulated disk).
    pub(crate) fn open_on(
        disk: Arc<dyn Disk>,
        path: &Path,
        options: StoreOptions,
    ) -> Result<(Store, Catalog), StorageError> {
        debug!(path = %path.display(), ?options, "opening store");
        let dir = path.parent().unwrap_or_else(|| Path::new(""));
        let log_dir = dir.join("commitlog");
        // Before redb opens (and maybe repairs) the file: a refused start changes nothing.
        crate::store::dir_format::check(disk.as_ref(), dir)?;
        crate::commitlog::check_versions(disk.as_ref(), &log_dir)?;
        let failures = Arc::new(DiskFailures::new(options.disk_failure_policy));
        let file = DataFile {
            path: path.to_path_buf(),
            disk: disk.clone(),
            cache_size: options.cache_size,
            failures: failures.clone(),
        };
        let opened = file
            .open()
            .and_then(|db| Store::start(db, options, Some((&file, &log_dir)), failures.clone()))
            .and_then(|opened| {
                crate::store::dir_format::write(disk.as_ref(), dir)?;
                Ok(opened)
            })
            .map_err(|err| failures.startup_error(err))?;
        failures.started();
        Ok(opened)
    }

    /// Opens an empty store in memory (redb's `InMemoryBackend`), for tests.
    ///
    /// # Errors
    /// As [`Store::open`].
    pub fn open_in_memory(options: StoreOptions) -> Result<(Store, Catalog), StorageError> {
        let db = Builder::new().create_with_backend(InMemoryBackend::new())?;
        let failures = Arc::new(DiskFailures::new(options.disk_failure_policy));
        failures.started();
        Store::start(db, options, None, failures)
    }

    fn start(
        db: Database,
        options: StoreOptions,
        files: Option<(&DataFile, &Path)>,
        disk_failures: Arc<DiskFailures>,
    ) -> Result<(Store, Catalog), StorageError> {
        check_format_version(&db)?;
        let catalog = persist::load(&db.begin_read()?)?;
        let mut live_tables: TableIds = catalog
            .keyspaces
            .values()
            .flat_map(|ks| ks.tables.values().map(|t| t.id))
            .collect();
        debug!(
            keyspaces = catalog.keyspaces.len(),
            tables = live_tables.len(),
            "catalog loaded"
        );
        let log = match files {
            Some((file, dir)) => Some(recover(&db, &file.disk, dir, &mut live_tables, &options)?),
            None => None,
        };
        crate::index::rebuild_stale(&db, &catalog)?;
        let orphans = remove_orphans(&db)?;
        if orphans > 0 {
            debug!(orphans, "unfinished compaction outputs removed");
        }
        let db_path = files.map(|(file, _)| file.clone());
        let throughput = options.compaction_throughput;
        let logged = log.is_some();
        let db: DbSlot = Arc::new(RwLock::new(Some(Arc::new(db))));
        let stats = Arc::new(WriterStats::default());
        let views = Arc::new(ViewCache::new(options.block_cache_size));
        let memtables = Arc::new(Memtables::default());
        let feed = Arc::new(IndexFeed::default());
        let failures = Arc::new(CommitFailures::new(options.commit_failure_policy));
        let gate = Arc::new(RwLock::new(()));
        let writer = Writer::new(
            db.clone(),
            options,
            live_tables,
            log,
            db_path,
            Published {
                views: views.clone(),
                memtables: memtables.clone(),
                stats: stats.clone(),
                feed: feed.clone(),
                failures: failures.clone(),
                gate: gate.clone(),
            },
        )?;
        let merges = Arc::new(MergeTracker::default());
        let compactor = Compactor::start(CompactorParts {
            db: db.clone(),
            views: views.clone(),
            throughput,
            merges: merges.clone(),
        })?;
        let shared = Arc::new(Shared::new(writer));
        let thread_shared = shared.clone();
        let handle = std::thread::Builder::new()
            .name("storage-writer".into())
            .spawn(move || combine::run(&thread_shared))
            .map_err(StorageError::WriterStart)?;
        let inner = Inner {
            db,
            shared,
            writer: Mutex::new(Some(handle)),
            rows_read: Arc::new(AtomicU64::new(0)),
            stats,
            logged,
            views,
            memtables,
            feed,
            compactor: Mutex::new(Some(compactor)),
            merges,
            failures,
            disk_failures,
            gate,
        };
        let store = Store {
            inner: Arc::new(inner),
        };
        let weak = Arc::downgrade(&store.inner);
        store.inner.disk_failures.set_reopen(Box::new(move || {
            if let Some(inner) = weak.upgrade() {
                // Refused only once the store is closing, when nothing needs it.
                let _ = inner.shared.push(Request::ReopenAfterFailure);
            }
        }));
        Ok((store, catalog))
    }

    /// Registers what to do when a damaged page or a failed read or write of the data file
    /// calls for it under `disk_failure_policy` (`stop`, `stop_paranoid`: stop serving
    /// clients; `die`: exit); `hook` is called with the policy on the thread that saw it.
    pub fn on_disk_failure(&self, hook: impl Fn(DiskFailurePolicy) + Send + Sync + 'static) {
        self.inner.disk_failures.set_hook(Box::new(hook));
    }

    /// Registers what to do when the commit log stops after a failed write or fsync under
    /// `commit_failure_policy` `stop`, `stop_commit` or `die`: `hook` is called once, with
    /// the policy, on the thread that saw the failure (the server stops serving clients, or
    /// exits). Writes are refused from then on whatever the hook does.
    pub fn on_commit_failure(&self, hook: impl Fn(CommitFailurePolicy) + Send + Sync + 'static) {
        self.inner.failures.set_hook(Box::new(hook));
    }

    /// Queues `batch` for the writer; `done` is called on the writer thread once the group
    /// holding it has committed (or failed). `done` must return quickly (e.g. complete a
    /// oneshot channel). After [`Store::shutdown`], `done` is called at once with
    /// [`StorageError::WriterGone`].
    pub fn submit(
        &self,
        batch: WriteBatch,
        done: Box<dyn FnOnce(Result<(), StorageError>) + Send>,
    ) {
        let request = self.write_request(batch, done);
        self.send(request);
    }

    /// A write request, with its commit-log bytes encoded here, on the caller's thread, when
    /// it is loggable (data writes only): in this thread's record chunk, so the request
    /// allocates nothing for them and the memtable keeps their row values without encoding
    /// the rows again.
    fn write_request(&self, batch: WriteBatch, done: Callback) -> Request {
        let logged = (self.inner.logged && batch.catalog.is_empty()).then(|| {
            RECORDS.with_borrow_mut(|records| records.put(|out| record::encode_batch(&batch, out)))
        });
        Request::Write(Box::new(WriteRequest {
            batch,
            logged,
            done,
        }))
    }

    /// Queues `request` for the writer, failing it at once once the writer has stopped.
    pub(crate) fn send(&self, request: Request) {
        if let Err(request) = self.inner.shared.push(request) {
            fail(request);
        }
    }

    /// Until the returned scope ends, this thread's writes to this store wait in the queue
    /// without waking the writer thread; the scope's end (or [`DeferredWrites::drive`])
    /// applies them on this thread when it can, in one group (see `combine`). For a server
    /// connection that starts many requests at once. Not to be held across an `.await`.
    pub fn defer_writes(&self) -> DeferredWrites<'_> {
        DeferredWrites::new(&self.inner.shared)
    }

    fn call(&self, make: impl FnOnce(Callback) -> Request) -> Result<(), StorageError> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.send(make(Box::new(move |result| {
            // The receiver waits below; if it is gone there is no one to tell.
            let _ = tx.send(result);
        })));
        rx.recv().unwrap_or(Err(StorageError::WriterGone))
    }

    /// The change feed of secondary-index entries (see [`IndexFeed`]), for structures kept
    /// beside an index in memory.
    pub fn index_feed(&self) -> &IndexFeed {
        &self.inner.feed
    }

    /// Submits `batch` and waits for its acknowledgement. For tests and tools; the server
    /// uses [`Store::submit`] and must not block an async task on this.
    ///
    /// # Errors
    /// The batch's own error, [`StorageError::GroupFailed`], or
    /// [`StorageError::WriterGone`].
    pub fn write_blocking(&self, batch: WriteBatch) -> Result<(), StorageError> {
        self.call(|done| self.write_request(batch, done))
    }

    /// Makes every write acknowledged so far durable (a durable commit), and waits for it.
    ///
    /// # Errors
    /// The commit's error, or [`StorageError::WriterGone`].
    pub fn flush(&self) -> Result<(), StorageError> {
        self.call(Request::Flush)
    }

    /// Stops the writer after it has applied everything queued and made it durable, and
    /// waits for it. Later writes fail with [`StorageError::WriterGone`]; reads keep
    /// working. Idempotent: later calls return `Ok(())`.
    ///
    /// # Errors
    /// The final durable commit's error, or [`StorageError::WriterGone`] if the writer
    /// thread panicked.
    pub fn shutdown(&self) -> Result<(), StorageError> {
        self.inner.stop()
    }

    /// Runs one chunk of a purge pass (see `purge`) on the writer thread and waits for it.
    /// Call it again with the returned `resume_after` until that is `None`.
    ///
    /// # Errors
    /// [`StorageError::UnknownTable`] for a dropped table, redb errors, `Corrupt` rows, or
    /// [`StorageError::WriterGone`].
    pub fn purge(&self, request: PurgeRequest) -> Result<PurgeProgress, StorageError> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.send(Request::Purge(
            Box::new(request),
            Box::new(move |result| {
                // The receiver waits below; if it is gone there is no one to tell.
                let _ = tx.send(result);
            }),
        ));
        rx.recv().unwrap_or(Err(StorageError::WriterGone))
    }

    /// Reopens the database as the writer does after an I/O error, and waits for it.
    #[cfg(test)]
    pub(crate) fn reopen(&self) -> Result<(), StorageError> {
        self.call(Request::Reopen)
    }

    /// Merges every table's runs that are due for it, on this thread (the background
    /// compaction does the same, paced); how many merges it made.
    ///
    /// # Errors
    /// redb errors; a corrupt run.
    pub fn compact(&self) -> Result<usize, StorageError> {
        crate::runs::compact::compact_pending(&self.inner.db, &self.inner.views, &self.inner.merges)
    }

    /// The merges of runs under way (one at most: merges run one at a time), with their
    /// progress; what Cassandra's `sstable_tasks` lists.
    pub fn compactions(&self) -> Vec<MergeProgress> {
        self.inner.merges.current().into_iter().collect()
    }

    /// What the writer has done since the store was opened: groups, the requests in them,
    /// and the time spent on them.
    pub fn writer_stats(&self) -> WriterCounts {
        self.inner.stats.counts()
    }

    /// How many rows reads have decoded since the store was opened.
    pub fn rows_read(&self) -> u64 {
        self.inner
            .rows_read
            .load(std::sync::atomic::Ordering::Relaxed)
    }
}

fn fail(request: Request) {
    request.fail(|| StorageError::WriterGone);
}

impl Inner {
    fn stop(&self) -> Result<(), StorageError> {
        drop(lock(&self.compactor).take());
        // Closing the queue lets the writer drain it and exit.
        self.shared.close();
        let handle = lock(&self.writer).take();
        match handle {
            // The last handle dropped inside a callback, on the writer itself: it exits (with
            // its final sync) once the current group is done; joining would deadlock.
            Some(handle) if handle.thread().id() == std::thread::current().id() => Ok(()),
            Some(handle) => handle.join().unwrap_or(Err(StorageError::WriterGone)),
            None => Ok(()),
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            debug!(error = %e, "final durable commit failed while dropping the store");
        }
    }
}

/// Opens the commit log in `dir` and replays what redb's durable state lacks, then makes the
/// result durable (a checkpoint) so the old segments can go.
fn recover(
    db: &Database,
    disk: &Arc<dyn Disk>,
    dir: &Path,
    live_tables: &mut TableIds,
    options: &StoreOptions,
) -> Result<CommitLog, StorageError> {
    let position = stored_position(db)?;
    let rules = ReplayRules {
        acknowledged_after_fsync: options.sync != SyncMode::Periodic,
        ignore_errors: options.ignore_replay_errors,
    };
    let (mut log, pending) = CommitLog::open(disk, dir, position, rules)?;
    if pending.count > 0 {
        replay(db, live_tables, &pending)?;
        let mut txn = db.begin_write()?;
        txn.set_durability(Durability::Immediate)?;
        write_position(&txn, log.last_seq())?;
        txn.commit()?;
    }
    // Every record in the old segments is now at or before the durable position, and the
    // log appends to a new segment.
    log.delete_older_segments();
    Ok(log)
}

/// Stores [`FORMAT_VERSION`] in one durable commit.
fn write_format_version(db: &Database) -> Result<(), StorageError> {
    let txn = db.begin_write()?;
    {
        let mut meta = txn.open_table(META)?;
        meta.insert(FORMAT_VERSION_KEY, FORMAT_VERSION.to_be_bytes().as_slice())?;
    }
    txn.commit()?;
    Ok(())
}

/// Writes the format version into a new database, upgrades an older one this build reads,
/// or checks the one found.
fn check_format_version(db: &Database) -> Result<(), StorageError> {
    let read = db.begin_read()?;
    match read.open_table(META) {
        Ok(meta) => {
            let found_guard = meta
                .get(FORMAT_VERSION_KEY)?
                .ok_or_else(|| StorageError::corrupt("meta table without a format version"))?;
            let bytes: [u8; 4] = found_guard
                .value()
                .try_into()
                .map_err(|_| StorageError::corrupt("format version is not 4 bytes"))?;
            let found = u32::from_be_bytes(bytes);
            if UPGRADABLE.contains(&found) {
                drop((found_guard, meta, read));
                write_format_version(db)?;
                debug!(from = found, to = FORMAT_VERSION, "format version upgraded");
                return Ok(());
            }
            if found != FORMAT_VERSION {
                return Err(StorageError::FormatVersion {
                    found,
                    expected: FORMAT_VERSION,
                });
            }
            debug!(version = found, "format version checked");
            Ok(())
        }
        Err(TableError::TableDoesNotExist(_)) => {
            drop(read);
            write_format_version(db)?;
            debug!(version = FORMAT_VERSION, "new database initialised");
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}
