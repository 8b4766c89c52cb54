//! Writing memtable rows to redb: inline, inside a writer transaction, or on the flusher
//! thread, which turns a frozen memtable into one durable commit (a checkpoint) while the
//! writer goes on taking writes into a new one.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;

use redb::Database;
use redb::Durability;
use redb::WriteTransaction;
use tracing::trace;

use crate::error::StorageError;
use uuid::Uuid;

use crate::memtable;
use crate::memtable::Layer;
use crate::memtable::MemKey;
use crate::memtable::MemRow;
use crate::runs::stored::write_sorted;
use crate::store::tables::write_position;

/// Each table's rows at their newest version, as [`memtable::Mem::latest`] copies them out of a layer.
pub(crate) type LatestRows = Vec<(Uuid, Vec<(MemKey, MemRow)>)>;

/// Writes `tables`' rows into `txn`, each table's in key order (a `None` entry removes the
/// stored row): a large set as a new run, a small one into the table's head
/// (`runs::stored::write_sorted`). The rows come unsorted out of their layer, whose lock is
/// not held here.
///
/// # Errors
/// redb errors.
pub(crate) fn write_rows(
    txn: &WriteTransaction,
    mut tables: LatestRows,
) -> Result<(), StorageError> {
    for (table_id, rows) in &mut tables {
        rows.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
        write_sorted(txn, *table_id, rows)?;
    }
    Ok(())
}

/// Work for the flusher thread.
enum Work {
    /// Make a frozen memtable durable.
    Flush(Job),
    /// Free a flushed layer here, not on the writer thread (tens of thousands of rows take
    /// milliseconds to free, and the writer acknowledges nothing meanwhile).
    Dispose(Layer),
}

/// A frozen memtable to make durable.
struct Job {
    db: Arc<Database>,
    rows: Layer,
    /// The last commit-log record the rows (and redb) hold.
    position: u64,
    /// The database file, for the free-space check.
    path: Option<PathBuf>,
}

/// The flusher thread and its two channels.
pub(crate) struct Flusher {
    jobs: Option<Sender<Work>>,
    done: Receiver<Result<(), StorageError>>,
    thread: Option<JoinHandle<()>>,
}

impl Flusher {
    /// Starts the thread.
    ///
    /// # Errors
    /// [`StorageError::WriterStart`] if it cannot start.
    pub(crate) fn start() -> Result<Flusher, StorageError> {
        let (jobs, job_rx) = mpsc::channel::<Work>();
        let (done_tx, done) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("storage-flusher".into())
            // At the request threads' priority: it holds redb's page-cache locks that reads
            // take, and writers wait for it once both memtables are full. At nice 10, on a
            // busy machine, a point read waited seconds behind a starved flush.
            .spawn(move || {
                crate::store::turns::take_turns();
                for work in job_rx {
                    match work {
                        Work::Flush(job) => {
                            if done_tx.send(flush(&job)).is_err() {
                                break;
                            }
                        }
                        Work::Dispose(layer) => drop(layer),
                    }
                }
            })
            .map_err(StorageError::WriterStart)?;
        Ok(Flusher {
            jobs: Some(jobs),
            done,
            thread: Some(thread),
        })
    }

    /// Hands `rows` to the thread: one durable commit holding them, recording `position`.
    pub(crate) fn send(
        &self,
        db: Arc<Database>,
        rows: Layer,
        position: u64,
        path: Option<PathBuf>,
    ) {
        let job = Job {
            db,
            rows,
            position,
            path,
        };
        if let Some(jobs) = &self.jobs {
            // The thread only stops when this sender goes; a send cannot fail before.
            let _ = jobs.send(Work::Flush(job));
        }
    }

    /// Hands a flushed layer to the thread, so that the last reference to it (unless a
    /// reader still holds one) is dropped there.
    pub(crate) fn dispose(&self, layer: Layer) {
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(Work::Dispose(layer));
        }
    }

    /// The outcome of the job sent, waiting for it when `wait`; `None` when not finished.
    pub(crate) fn outcome(&self, wait: bool) -> Option<Result<(), StorageError>> {
        if wait {
            return Some(self.done.recv().unwrap_or(Err(StorageError::WriterGone)));
        }
        match self.done.try_recv() {
            Ok(result) => Some(result),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(StorageError::WriterGone)),
        }
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn flush(job: &Job) -> Result<(), StorageError> {
    if let Some(path) = &job.path {
        crate::store::space::check_room(path)?;
    }
    let mut txn = job.db.begin_write()?;
    txn.set_durability(Durability::Immediate)?;
    write_position(&txn, job.position)?;
    // Copied out, so that scans may sort the layer's versions while its rows are written.
    let (rows, versions, bytes) = {
        let mem = memtable::read(&job.rows);
        (mem.latest(), mem.rows(), mem.bytes())
    };
    write_rows(&txn, rows)?;
    txn.commit()?;
    trace!(versions, bytes, position = job.position, "memtable flushed");
    Ok(())
}
