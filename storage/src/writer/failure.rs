//! Failure handling: failing a group's requests, refusing a durable commit the disk has
//! no room for, and reopening the database after redb failed an I/O operation.

use std::sync::Arc;
use std::time::{Duration, Instant};

use redb::Database;
use tracing::{error, info};

use super::Writer;
use super::REOPEN_PAUSE;
use crate::commitlog::replay::replay;
use crate::commitlog::replay::stored_position;
use crate::disk::DataFile;
use crate::error::StorageError;
use crate::memtable::Layers;
use crate::writer::request::Callback;

impl Writer {
    /// Marks the database for reopening when redb itself failed (a file-backed store only).
    pub(super) fn note_failure(&mut self, error: &StorageError) {
        if error.is_engine_failure() && self.db_path.is_some() {
            error!(cause = %error, "storage engine failed; the database will be reopened");
            self.needs_reopen = true;
        }
    }

    /// Reopens the database unless a try was made less than a second ago; whether it is open.
    pub(super) fn try_reopen(&mut self) -> bool {
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
    pub(super) fn reopen(&mut self) -> Result<(), StorageError> {
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
        let pending = log.records_after(stored_position(&db)?)?;
        let replayed = pending.count;
        replay(&db, &mut self.live_tables, &pending)?;
        // Everything the memtable held is in the log, so now in redb.
        self.memtables.publish(Layers::default());
        self.indexed.clear();
        self.installed = None;
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

    /// Refuses a durable commit the disk has no room for (see [`crate::store::space`]).
    pub(super) fn check_room(&self) -> Result<(), StorageError> {
        match &self.db_path {
            Some(file) => crate::store::space::check_room(&file.path),
            None => Ok(()),
        }
    }
}

/// Opens the database file once the failed handle's readers have let go of its lock.
fn open_when_released(file: &DataFile) -> Result<Database, StorageError> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match file.open() {
            Ok(db) => return Ok(db),
            Err(StorageError::Database(redb::DatabaseError::DatabaseAlreadyOpen))
                if Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Fails every callback with `error`: itself for one request; for several, the same commit
/// log failure each, or [`StorageError::GroupFailed`] naming the cause.
pub(super) fn fail_all(mut callbacks: Vec<Callback>, error: StorageError) {
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
