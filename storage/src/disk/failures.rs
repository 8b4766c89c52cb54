//! `disk_failure_policy`: what the store does once the data file fails a read or write, or a
//! page of it fails its checksum (Cassandra's `DefaultFSErrorHandler`).
//!
//! Damage (a page whose checksum does not match, Cassandra's `CorruptSSTableException`): the
//! read that met it fails and is logged; `stop_paranoid` also stops serving clients and `die`
//! exits; `stop`, `best_effort` and `ignore` go on serving what is readable. An I/O failure of
//! the data file (Cassandra's `FSError`): `stop` and `stop_paranoid` stop serving clients,
//! `die` exits, `best_effort` and `ignore` go on. Either during start-up: `stop`,
//! `stop_paranoid` and `die` refuse the start with Cassandra's words
//! ([`StorageError::StartupDiskFailure`]). redb refuses all work after any failed read until
//! its file is reopened, so a failure the server goes on after asks the writer to reopen it.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use tracing::error;

use super::checked::damage_of;
use super::checked::PageDamage;
use crate::error::StorageError;
use crate::store::options::DiskFailurePolicy;

/// Told the policy when the server must stop serving clients or exit.
pub(crate) type Hook = Box<dyn Fn(DiskFailurePolicy) + Send + Sync>;
/// Asks the writer to reopen the database.
pub(crate) type Reopen = Box<dyn Fn() + Send + Sync>;

/// The policy, and what has been seen, shared by the data file and the store.
pub(crate) struct DiskFailures {
    policy: DiskFailurePolicy,
    /// Whether the store has finished opening (failures before are start-up failures).
    started: AtomicBool,
    /// The first failure seen before the start finished, for its error.
    startup_failure: Mutex<Option<String>>,
    hook: Mutex<Option<Hook>>,
    reopen: Mutex<Option<Reopen>>,
}

impl std::fmt::Debug for DiskFailures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiskFailures")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl DiskFailures {
    pub(crate) fn new(policy: DiskFailurePolicy) -> DiskFailures {
        DiskFailures {
            policy,
            started: AtomicBool::new(false),
            startup_failure: Mutex::new(None),
            hook: Mutex::new(None),
            reopen: Mutex::new(None),
        }
    }

    /// A page failed its checksum.
    pub(crate) fn damaged(&self, damage: &PageDamage) {
        error!(file = %damage.file.display(), offset = damage.offset, "{damage}");
        if !self.started.load(Ordering::Acquire) {
            self.note_startup(damage.to_string());
            return;
        }
        match self.policy {
            DiskFailurePolicy::StopParanoid | DiskFailurePolicy::Die => self.tell(),
            DiskFailurePolicy::Stop | DiskFailurePolicy::BestEffort | DiskFailurePolicy::Ignore => {
                self.ask_reopen();
            }
        }
    }

    /// A read, write or sync of the data file failed (the damage [`Self::damaged`] reported
    /// is not reported again).
    pub(crate) fn io_failed(&self, path: &Path, err: &io::Error) {
        if damage_of(err).is_some() {
            return;
        }
        error!(file = %path.display(), cause = %err, "I/O error on the data file");
        if !self.started.load(Ordering::Acquire) {
            self.note_startup(format!("{}: {err}", path.display()));
            return;
        }
        match self.policy {
            DiskFailurePolicy::Stop | DiskFailurePolicy::StopParanoid | DiskFailurePolicy::Die => {
                self.tell();
            }
            DiskFailurePolicy::BestEffort | DiskFailurePolicy::Ignore => {}
        }
    }

    fn note_startup(&self, what: String) {
        let mut first = self
            .startup_failure
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        first.get_or_insert(what);
    }

    fn tell(&self) {
        if self.policy == DiskFailurePolicy::StopParanoid || self.policy == DiskFailurePolicy::Stop
        {
            error!(
                "Stopping transports as disk_failure_policy is {}",
                self.policy.name()
            );
        }
        let hook = self.hook.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(hook) = hook.as_ref() {
            hook(self.policy);
        }
    }

    fn ask_reopen(&self) {
        let reopen = self.reopen.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(reopen) = reopen.as_ref() {
            reopen();
        }
    }

    /// The store has opened: failures from now on follow the run-time rules.
    pub(crate) fn started(&self) {
        self.started.store(true, Ordering::Release);
    }

    /// The error a failed start reports: Cassandra's start-up refusal when a disk failure
    /// caused it and the policy refuses such starts, else `err` itself.
    pub(crate) fn startup_error(&self, err: StorageError) -> StorageError {
        let failure = self
            .startup_failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        match (failure, self.policy) {
            (
                Some(cause),
                DiskFailurePolicy::Stop | DiskFailurePolicy::StopParanoid | DiskFailurePolicy::Die,
            ) => StorageError::StartupDiskFailure {
                policy: self.policy.name(),
                cause,
            },
            _ => err,
        }
    }

    /// Registers the hook told to stop serving clients or exit.
    pub(crate) fn set_hook(&self, hook: Hook) {
        *self.hook.lock().unwrap_or_else(|p| p.into_inner()) = Some(hook);
    }

    /// Registers how to ask the writer for a reopen.
    pub(crate) fn set_reopen(&self, reopen: Reopen) {
        *self.reopen.lock().unwrap_or_else(|p| p.into_inner()) = Some(reopen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    fn damage() -> PageDamage {
        PageDamage {
            file: PathBuf::from("data.redb"),
            offset: 8192,
        }
    }

    fn counting(failures: &DiskFailures) -> (Arc<AtomicUsize>, Arc<AtomicUsize>) {
        let told = Arc::new(AtomicUsize::new(0));
        let reopened = Arc::new(AtomicUsize::new(0));
        let (t, r) = (told.clone(), reopened.clone());
        failures.set_hook(Box::new(move |_| {
            t.fetch_add(1, Ordering::SeqCst);
        }));
        failures.set_reopen(Box::new(move || {
            r.fetch_add(1, Ordering::SeqCst);
        }));
        (told, reopened)
    }

    #[test]
    fn damage_stops_only_the_paranoid_and_kills_only_die() {
        for (policy, stops) in [
            (DiskFailurePolicy::Stop, false),
            (DiskFailurePolicy::BestEffort, false),
            (DiskFailurePolicy::Ignore, false),
            (DiskFailurePolicy::StopParanoid, true),
            (DiskFailurePolicy::Die, true),
        ] {
            let failures = DiskFailures::new(policy);
            failures.started();
            let (told, reopened) = counting(&failures);
            failures.damaged(&damage());
            assert_eq!(
                told.load(Ordering::SeqCst),
                usize::from(stops),
                "{policy:?}"
            );
            assert_eq!(
                reopened.load(Ordering::SeqCst),
                usize::from(!stops),
                "{policy:?}"
            );
        }
    }

    #[test]
    fn io_errors_stop_under_stop() {
        for (policy, stops) in [
            (DiskFailurePolicy::Stop, true),
            (DiskFailurePolicy::StopParanoid, true),
            (DiskFailurePolicy::Die, true),
            (DiskFailurePolicy::BestEffort, false),
            (DiskFailurePolicy::Ignore, false),
        ] {
            let failures = DiskFailures::new(policy);
            failures.started();
            let (told, _) = counting(&failures);
            failures.io_failed(Path::new("data.redb"), &io::Error::other("EIO"));
            assert_eq!(
                told.load(Ordering::SeqCst),
                usize::from(stops),
                "{policy:?}"
            );
        }
    }

    #[test]
    fn startup_damage_refuses_the_start_in_cassandras_words() {
        let failures = DiskFailures::new(DiskFailurePolicy::Stop);
        failures.damaged(&damage());
        let err = failures.startup_error(StorageError::Recovering);
        assert!(
            err.to_string().starts_with(
                "Exiting forcefully due to file system exception on startup, disk failure policy \"stop\""
            ),
            "{err}"
        );
        let lenient = DiskFailures::new(DiskFailurePolicy::BestEffort);
        lenient.damaged(&damage());
        assert!(matches!(
            lenient.startup_error(StorageError::Recovering),
            StorageError::Recovering
        ));
    }
}
