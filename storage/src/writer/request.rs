//! What the store's handles send the writer: requests, their acknowledgements, and the
//! bounds of one group of them.

use bytes::Bytes;

use crate::error::StorageError;
use crate::snapshot::SnapshotDone;
use crate::snapshot::SnapshotOp;
use crate::store::purge::PurgeProgress;
use crate::store::purge::PurgeRequest;
use crate::writer::mutation::WriteBatch;

/// The most requests applied in one transaction; bounds the memory a group holds.
pub(crate) const MAX_GROUP: usize = 1024;

/// A group stops growing once its commit-log bytes reach this, so a record stays far below
/// what the log reader accepts.
pub(crate) const MAX_GROUP_BYTES: usize = 64 << 20;

/// A request's acknowledgement, called on the writer (or sync) thread once the outcome is
/// known. It must be quick (send on a channel); it must not block or call back into the
/// store's writer.
pub(crate) type Callback = Box<dyn FnOnce(Result<(), StorageError>) + Send>;

/// A purge chunk's acknowledgement (same rules as [`Callback`]).
pub(crate) type PurgeCallback = Box<dyn FnOnce(Result<PurgeProgress, StorageError>) + Send>;

/// A snapshot request's acknowledgement (same rules as [`Callback`]).
pub(crate) type SnapshotCallback = Box<dyn FnOnce(Result<SnapshotDone, StorageError>) + Send>;

/// A write request: the batch, its commit-log bytes (`None`: not loggable, so its group
/// commits durably; else a slice of its thread's record chunk, whose row values the memtable
/// takes as they are), and its acknowledgement.
pub(crate) struct WriteRequest {
    pub(crate) batch: WriteBatch,
    pub(crate) logged: Option<Bytes>,
    pub(crate) done: Callback,
}

/// A message to the writer.
pub(crate) enum Request {
    /// Apply a batch.
    Write(Box<WriteRequest>),
    /// Make every acknowledged write durable.
    Flush(Callback),
    /// Run one chunk of a purge pass, in its own transaction after the group's.
    Purge(Box<PurgeRequest>, PurgeCallback),
    /// Take, restore or delete a snapshot, or reset the store: the writes queued before it
    /// are applied before it, those queued after it after it.
    Snapshot(Box<SnapshotOp>, SnapshotCallback),
    /// Reopen the database as after an I/O error (tests).
    #[cfg(test)]
    Reopen(Callback),
    /// A reader met a failure that left redb refusing work (a damaged page): reopen the
    /// database, at most once a second.
    ReopenAfterFailure,
}

impl Request {
    /// Its commit-log bytes.
    pub(crate) fn logged_len(&self) -> usize {
        match self {
            Request::Write(write) => write.logged.as_ref().map_or(0, Bytes::len),
            _ => 0,
        }
    }

    /// Answers the request with an error.
    pub(crate) fn fail(self, error: impl Fn() -> StorageError) {
        match self {
            Request::Write(write) => (write.done)(Err(error())),
            Request::Flush(done) => done(Err(error())),
            Request::Purge(_, done) => done(Err(error())),
            Request::Snapshot(_, done) => done(Err(error())),
            #[cfg(test)]
            Request::Reopen(done) => done(Err(error())),
            Request::ReopenAfterFailure => {}
        }
    }
}
