//! The sync thread of `batch` and `group` modes: it fsyncs the commit log and only then
//! acknowledges the writes appended before that fsync. One fsync serves every write queued
//! while the previous one ran (`batch`), or every write of a window (`group`: at most one
//! fsync starting per `commitlog_sync_group_window`). Meanwhile the writer thread goes on
//! appending and applying the next groups, so fsyncs and applies overlap.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::commitlog::failures::CommitFailures;
use crate::disk::DiskFile;
use crate::error::StorageError;
use crate::writer::request::Callback;

/// Writes waiting for an fsync: each callback with its request's own outcome.
pub(crate) struct SyncJob {
    /// The segment the writes were appended to (or a later one).
    pub(crate) file: Arc<dyn DiskFile>,
    /// The acknowledgements to send once the file is synced.
    pub(crate) acks: Vec<(Callback, Result<(), StorageError>)>,
}

/// A handle to the sync thread; dropping it lets the thread sync and acknowledge what is
/// queued, then stop.
pub(crate) struct Syncer {
    tx: Option<Sender<SyncJob>>,
    handle: Option<JoinHandle<()>>,
}

impl Syncer {
    /// Starts the thread. `window` is the least time between two fsyncs' starts (zero:
    /// `batch`); a failed fsync is reported to `failures`.
    ///
    /// # Errors
    /// [`StorageError::WriterStart`] if the thread cannot be started.
    pub(crate) fn start(
        window: Duration,
        failures: Arc<CommitFailures>,
    ) -> Result<Syncer, StorageError> {
        let (tx, rx) = mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("commitlog-sync".into())
            .spawn(move || run(&rx, window, &failures))
            .map_err(StorageError::WriterStart)?;
        Ok(Syncer {
            tx: Some(tx),
            handle: Some(handle),
        })
    }

    /// Queues writes for the next fsync.
    pub(crate) fn send(&self, job: SyncJob) {
        let Some(tx) = &self.tx else { return };
        if let Err(mpsc::SendError(job)) = tx.send(job) {
            // The thread is gone (it panicked): nothing can make these writes durable.
            for (done, _) in job.acks {
                done(Err(StorageError::WriterGone));
            }
        }
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        drop(self.tx.take());
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

/// Syncs every segment the jobs were appended to, once each, in the jobs' order.
fn sync_each_segment(jobs: &[SyncJob]) -> std::io::Result<()> {
    let mut synced: Vec<&Arc<dyn DiskFile>> = Vec::with_capacity(2);
    for job in jobs {
        if !synced.iter().any(|file| Arc::ptr_eq(file, &job.file)) {
            job.file.sync_data()?;
            synced.push(&job.file);
        }
    }
    Ok(())
}

fn run(rx: &Receiver<SyncJob>, window: Duration, failures: &CommitFailures) {
    let mut last_sync: Option<Instant> = None;
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        let due = last_sync.map(|at| at + window);
        while let Some(due) = due {
            let now = Instant::now();
            if now >= due {
                break;
            }
            match rx.recv_timeout(due - now) {
                Ok(job) => jobs.push(job),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
            }
        }
        jobs.extend(rx.try_iter());
        // A flush starts a new segment before its commit makes the older one's records
        // durable (`CommitLog::rotate`), so jobs may name two segments: each is synced, the
        // older first. The window runs from the start of one fsync to the start of the next,
        // as Cassandra's sync thread counts it (`lastSyncedAt = pollStarted`): a slow fsync
        // does not lengthen the wait of the writes queued behind it.
        let started = Instant::now();
        let outcome = sync_each_segment(&jobs);
        last_sync = Some(started);
        if let Err(err) = &outcome {
            failures.failed("Failed to persist commits to disk", err);
        }
        for job in jobs {
            for (done, result) in job.acks {
                match &outcome {
                    Ok(()) => done(result),
                    Err(err) => done(Err(StorageError::CommitLog {
                        cause: format!("fsync of the commit log failed: {err}"),
                    })),
                }
            }
        }
    }
}
