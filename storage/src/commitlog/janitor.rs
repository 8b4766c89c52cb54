//! The janitor thread: deletes commit-log segments a checkpoint made redundant, so that the
//! writer thread never waits for an unlink. Deleting a segment of tens of megabytes frees
//! its blocks (and, on a file system mounted with `discard`, trims them), which took 2-4 ms
//! on the writer thread at every checkpoint after a load, a test-control reset included.
//!
//! A deletion that has not happened yet is harmless: every record of a redundant segment is
//! at or before the position redb holds durably, so replay skips it, and the next checkpoint
//! lists the segment again. Dropping the janitor finishes the deletions queued, so a closed
//! store leaves no redundant segment behind.

use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use tracing::warn;

use crate::disk::Disk;
use crate::error::StorageError;

/// What the thread is asked to do.
enum Job {
    /// Remove a redundant segment.
    Delete(PathBuf),
    /// Answer once every deletion queued before it is done.
    Barrier(Sender<()>),
}

/// A handle to the janitor thread.
pub(crate) struct Janitor {
    tx: Option<Sender<Job>>,
    handle: Option<JoinHandle<()>>,
    /// Deletions were queued since the last [`Janitor::wait_idle`].
    queued: bool,
}

impl Janitor {
    /// Starts the thread, which removes files through `disk`.
    ///
    /// # Errors
    /// [`StorageError::WriterStart`] if the thread cannot be started.
    pub(crate) fn start(disk: Arc<dyn Disk>) -> Result<Janitor, StorageError> {
        let (tx, rx) = mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("commitlog-janitor".into())
            .spawn(move || run(&rx, disk.as_ref()))
            .map_err(StorageError::WriterStart)?;
        Ok(Janitor {
            tx: Some(tx),
            handle: Some(handle),
            queued: false,
        })
    }

    /// Queues `path` for deletion; hands it back when the thread is gone.
    pub(crate) fn delete(&mut self, path: PathBuf) -> Result<(), PathBuf> {
        let Some(tx) = &self.tx else {
            return Err(path);
        };
        tx.send(Job::Delete(path.clone())).map_err(|_| path)?;
        self.queued = true;
        Ok(())
    }

    /// Returns once every deletion queued so far is done (at once when none was queued
    /// since the last call, or the thread is gone).
    pub(crate) fn wait_idle(&mut self) {
        if !std::mem::take(&mut self.queued) {
            return;
        }
        let Some(tx) = &self.tx else {
            return;
        };
        let (done_tx, done_rx) = mpsc::channel();
        if tx.send(Job::Barrier(done_tx)).is_ok() {
            // An error means the thread is gone, and with it the work queued.
            let _ = done_rx.recv();
        }
    }
}

impl Drop for Janitor {
    fn drop(&mut self) {
        drop(self.tx.take());
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

fn run(rx: &Receiver<Job>, disk: &dyn Disk) {
    while let Ok(job) = rx.recv() {
        match job {
            Job::Delete(path) => remove_segment(disk, &path),
            Job::Barrier(done) => {
                let _ = done.send(());
            }
        }
    }
}

/// Removes a redundant segment; one already gone (queued twice) is not a failure.
pub(crate) fn remove_segment(disk: &dyn Disk, path: &std::path::Path) {
    match disk.remove(path) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => {
            warn!(path = %path.display(), cause = %err, "cannot delete a commit log segment");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::RealDisk;

    #[test]
    fn queued_deletions_are_done_by_the_time_the_janitor_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..3).map(|n| dir.path().join(format!("s{n}"))).collect();
        for path in &paths {
            std::fs::write(path, b"segment").unwrap();
        }
        let mut janitor = Janitor::start(Arc::new(RealDisk)).unwrap();
        for path in &paths {
            janitor.delete(path.clone()).unwrap();
        }
        // Queued twice: the second removal finds nothing and is no failure.
        janitor.delete(paths[0].clone()).unwrap();
        drop(janitor);
        assert!(paths.iter().all(|p| !p.exists()));
    }

    #[test]
    fn waiting_for_idle_sees_every_queued_deletion_done() {
        let dir = tempfile::tempdir().unwrap();
        let mut janitor = Janitor::start(Arc::new(RealDisk)).unwrap();
        // Nothing queued: returns at once.
        janitor.wait_idle();
        for round in 0..20 {
            let path = dir.path().join(format!("s{round}"));
            std::fs::write(&path, b"segment").unwrap();
            janitor.delete(path.clone()).unwrap();
            janitor.wait_idle();
            assert!(!path.exists(), "round {round}");
        }
    }
}
