//! The group commit loop: sorting a group's requests, then appending a logged group to the
//! commit log and acknowledging it (now or after the sync thread's fsync), or committing
//! an unlogged one.

use std::time::Instant;

use tracing::trace;

use super::failure::fail_all;
use super::Writer;
use crate::commitlog::sync::SyncJob;
use crate::commitlog::CommitLog;
use crate::error::StorageError;
use crate::store::options::SyncMode;
use crate::writer::mutation::WriteBatch;
use crate::writer::request::Callback;
use crate::writer::request::Request;
use crate::writer::request::WriteRequest;

impl Writer {
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
        // A snapshot request sees exactly the requests queued before it: the group is cut
        // around it.
        let mut segment = Vec::with_capacity(group.len());
        for request in group {
            match request {
                Request::Snapshot(op, done) => {
                    self.process_segment(std::mem::take(&mut segment));
                    let result = self.snapshot(&op);
                    if let Err(e) = &result {
                        self.note_failure(e);
                    }
                    done(result);
                }
                other => segment.push(other),
            }
        }
        self.process_segment(segment);
    }

    /// Handles requests in one go: their writes as one group.
    fn process_segment(&mut self, group: Vec<Request>) {
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
                Request::ReopenAfterFailure => {
                    if self.db_path.is_some() {
                        self.needs_reopen = true;
                        self.try_reopen();
                    }
                }
                // Taken out of the group by `process_group`.
                Request::Snapshot(_, done) => done(Err(StorageError::corrupt(
                    "a snapshot request inside a write group",
                ))),
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
            match self.apply_to_memtable(&batches, &[]) {
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
        if let Some(refusal) = self.failures.refusal() {
            fail_all(writes.into_iter().map(|w| w.done).collect(), refusal);
            return;
        }
        let Some(log) = &mut self.log else { return };
        let payloads: Vec<&[u8]> = writes
            .iter()
            .map(|w| w.logged.as_deref().unwrap_or_default())
            .collect();
        if let Err(e) = log.append(&payloads) {
            self.failures.failed(
                "Failed to write to the commit log; the writes are refused",
                &e,
            );
            fail_all(writes.into_iter().map(|w| w.done).collect(), e);
            return;
        }
        let batches: Vec<&WriteBatch> = writes.iter().map(|w| &w.batch).collect();
        let outcome = if self.memtable_only(&batches) {
            // The bytes just appended: each request's rows, encoded already.
            self.apply_to_memtable(&batches, &payloads)
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
}
