//! The single writer thread: group commit and the commit-log sync modes.
//!
//! Every write goes through one thread. It blocks for a request, then takes every request
//! already queued (up to [`MAX_GROUP`]), applies them all in ONE redb write transaction,
//! commits, and only then calls each request's callback. A request that fails validation
//! (unknown table, corrupt existing row) gets its own error and the others still commit; a
//! redb error fails the whole group.
//!
//! Durability follows Cassandra's `commitlog_sync`:
//! - [`SyncMode::Batch`]: every group commits with `Durability::Immediate` (fsync) before it is
//!   acknowledged.
//! - [`SyncMode::Periodic`]: groups commit with `Durability::None` (visible to readers, not yet
//!   on disk); a durable commit happens whenever `sync_period` has passed since the last one
//!   (folded into the next group, or as an empty commit when the writer is idle), for every
//!   group that changes the catalog, on `Store::flush`, and at shutdown.

use std::collections::HashSet;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Instant;

use redb::{Database, Durability};
use tracing::{debug, trace};
use uuid::Uuid;

use crate::db::{StoreOptions, SyncMode};
use crate::error::StorageError;
use crate::mutation::{apply, ApplyError, WriteBatch};
use crate::purge::{purge_chunk, PurgeProgress, PurgeRequest};

/// The most requests applied in one transaction; bounds the memory a group holds.
pub(crate) const MAX_GROUP: usize = 1024;

/// A request's acknowledgement, called on the writer thread once the outcome is known. It must
/// be quick (send on a channel); it must not block or call back into the store's writer.
pub(crate) type Callback = Box<dyn FnOnce(Result<(), StorageError>) + Send>;

/// A purge chunk's acknowledgement (same rules as [`Callback`]).
pub(crate) type PurgeCallback = Box<dyn FnOnce(Result<PurgeProgress, StorageError>) + Send>;

/// A message to the writer.
pub(crate) enum Request {
    /// Apply a batch.
    Write(WriteBatch, Callback),
    /// Make every acknowledged write durable.
    Flush(Callback),
    /// Run one chunk of a purge pass, in its own transaction after the group's.
    Purge(Box<PurgeRequest>, PurgeCallback),
}

/// The writer thread's state.
pub(crate) struct Writer {
    /// The database; shared with readers.
    pub(crate) db: Arc<Database>,
    /// Requests from `Store` handles; disconnects at shutdown.
    pub(crate) rx: Receiver<Request>,
    /// Sync mode and period.
    pub(crate) options: StoreOptions,
    /// Ids of tables rows may be written to: the catalog's tables. Keeps a write racing a
    /// `DROP TABLE` from recreating the dropped data table.
    pub(crate) live_tables: HashSet<Uuid>,
    /// Whether commits since the last durable one are still only in memory.
    pub(crate) dirty: bool,
    /// When the last durable commit happened.
    pub(crate) last_durable: Instant,
}

impl Writer {
    /// Runs until every `Store` handle has let go of the sender, then makes everything
    /// durable. Returns the outcome of that final sync.
    pub(crate) fn run(mut self) -> Result<(), StorageError> {
        debug!(mode = ?self.options.sync, "storage writer started");
        while let Some(first) = self.next_request() {
            let mut group = vec![first];
            while group.len() < MAX_GROUP {
                match self.rx.try_recv() {
                    Ok(request) => group.push(request),
                    Err(_) => break,
                }
            }
            self.process(group);
        }
        let result = if self.dirty {
            self.commit_empty_durable()
        } else {
            Ok(())
        };
        debug!(ok = result.is_ok(), "storage writer stopped");
        result
    }

    /// The next request, doing the periodic durable commit while waiting if one is due.
    fn next_request(&mut self) -> Option<Request> {
        loop {
            if !self.dirty {
                return self.rx.recv().ok();
            }
            let due = self.last_durable + self.options.sync_period;
            let wait = due.saturating_duration_since(Instant::now());
            if !wait.is_zero() {
                match self.rx.recv_timeout(wait) {
                    Ok(request) => return Some(request),
                    Err(RecvTimeoutError::Disconnected) => return None,
                    Err(RecvTimeoutError::Timeout) => {}
                }
            }
            trace!("periodic durable commit");
            if let Err(e) = self.commit_empty_durable() {
                // redb refuses further write transactions after a failed commit, so every
                // later write reports an error; stop retrying the sync until then.
                debug!(error = %e, "periodic durable commit failed");
                self.dirty = false;
            }
        }
    }

    fn commit_empty_durable(&mut self) -> Result<(), StorageError> {
        let mut txn = self.db.begin_write()?;
        txn.set_durability(Durability::Immediate)?;
        txn.commit()?;
        self.dirty = false;
        self.last_durable = Instant::now();
        Ok(())
    }

    fn process(&mut self, group: Vec<Request>) {
        let mut writes = Vec::with_capacity(group.len());
        let mut flushes = Vec::new();
        let mut purges = Vec::new();
        for request in group {
            match request {
                Request::Write(batch, done) => writes.push((batch, done)),
                Request::Flush(done) => flushes.push(done),
                Request::Purge(request, done) => purges.push((request, done)),
            }
        }
        for (request, done) in purges {
            done(self.purge(&request));
        }
        if writes.is_empty() && flushes.is_empty() {
            return;
        }
        let durable = self.options.sync == SyncMode::Batch
            || !flushes.is_empty()
            || writes.iter().any(|(b, _)| !b.catalog.is_empty())
            || self.last_durable.elapsed() >= self.options.sync_period;
        let batches: Vec<&WriteBatch> = writes.iter().map(|(b, _)| b).collect();
        let outcome = self.commit_group(&batches, durable);
        trace!(
            requests = writes.len(),
            durable,
            ok = outcome.is_ok(),
            "group commit"
        );
        match outcome {
            Ok(results) => {
                for ((_, done), result) in writes.into_iter().zip(results) {
                    done(result);
                }
                for done in flushes {
                    done(Ok(()));
                }
            }
            Err(error) => {
                let callbacks = writes.into_iter().map(|(_, done)| done).chain(flushes);
                let mut callbacks: Vec<Callback> = callbacks.collect();
                if callbacks.len() == 1 {
                    if let Some(done) = callbacks.pop() {
                        done(Err(error));
                    }
                } else {
                    let cause = error.to_string();
                    for done in callbacks {
                        done(Err(StorageError::GroupFailed {
                            cause: cause.clone(),
                        }));
                    }
                }
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
        let saved_tables = self.live_tables.clone();
        let result = self.try_commit_group(batches, durable);
        match &result {
            Ok(_) if durable => {
                self.dirty = false;
                self.last_durable = Instant::now();
            }
            Ok(_) => self.dirty = true,
            Err(_) => self.live_tables = saved_tables,
        }
        result
    }

    /// A write transaction that is fsync'd at commit when `durable`.
    fn begin(&self, durable: bool) -> Result<redb::WriteTransaction, StorageError> {
        let mut txn = self.db.begin_write()?;
        txn.set_durability(if durable {
            Durability::Immediate
        } else {
            Durability::None
        })?;
        Ok(txn)
    }

    /// Runs one purge chunk in its own transaction (durable in `Batch` mode).
    fn purge(&mut self, request: &PurgeRequest) -> Result<PurgeProgress, StorageError> {
        let durable = self.options.sync == SyncMode::Batch;
        let txn = self.begin(durable)?;
        let progress = purge_chunk(&txn, &self.live_tables, request)?;
        txn.commit()?;
        if durable {
            self.last_durable = Instant::now();
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
    ) -> Result<Vec<Result<(), StorageError>>, StorageError> {
        let txn = self.begin(durable)?;
        let mut results = Vec::with_capacity(batches.len());
        for batch in batches {
            match apply(&txn, &mut self.live_tables, batch) {
                Ok(()) => results.push(Ok(())),
                Err(ApplyError::Request(e)) => results.push(Err(e)),
                Err(ApplyError::Group(e)) => return Err(e),
            }
        }
        txn.commit()?;
        Ok(results)
    }
}
