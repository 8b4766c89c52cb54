//! Timed work and checkpoints: the periodic fsync of the log, when a checkpoint is due
//! (by log size, memtable size or time), and the durable commit that is one.

use std::time::{Duration, Instant};

use tracing::{error, trace};

use super::Writer;
use super::REOPEN_PAUSE;
use crate::commitlog::CommitLog;
use crate::error::StorageError;
use crate::memtable;
use crate::store::options::SyncMode;

/// How often the writer looks for the flusher's outcome while it waits for requests.
const FLUSH_POLL: Duration = Duration::from_millis(1);

/// Checkpoint once this much time passed since the last one with non-durable commits.
const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(30);

impl Writer {
    /// Log bytes since the last checkpoint that call for the next one.
    fn checkpoint_bytes(&self) -> u64 {
        u64::try_from(self.options.memtable_size).unwrap_or(u64::MAX)
    }

    /// Whether the memtable holds `bytes` or more.
    pub(super) fn memtable_full(&self, bytes: usize) -> bool {
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
        let Some(log) = self.log.as_ref() else {
            return;
        };
        let files = log.files_to_sync();
        if files.is_empty() {
            return;
        }
        match files.iter().try_for_each(|file| file.sync_data()) {
            Ok(()) => self.log_unsynced = false,
            Err(e) => self
                .failures
                .failed("Failed to persist commits to disk", &e),
        }
        self.last_log_sync = Instant::now();
    }

    /// A durable commit of everything applied so far; the log then starts afresh.
    pub(super) fn checkpoint(&mut self) -> Result<(), StorageError> {
        self.check_room()?;
        let txn = self.begin(true)?;
        txn.commit()?;
        self.committed();
        self.after_durable_commit();
        Ok(())
    }

    /// A durable commit happened (a checkpoint): nothing is dirty, and the log's records so
    /// far are redundant.
    pub(super) fn after_durable_commit(&mut self) {
        self.dirty = false;
        self.last_durable = Instant::now();
        if let Some(log) = &mut self.log {
            log.checkpointed();
            self.log_unsynced = false;
        }
    }
}
