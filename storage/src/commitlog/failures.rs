//! `commit_failure_policy`: what the store does once a commit-log write or fsync failed.
//!
//! The writes that failed are never acknowledged (their callers get the error). Then, as
//! Cassandra's `CommitLog.handleCommitError`: `ignore` logs and goes on; `stop_commit`
//! refuses every later logged write; `stop` and `die` also tell the hook the server
//! registered ([`crate::Store::on_commit_failure`]), which stops serving clients or exits.

use std::fmt::Display;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use tracing::error;

use crate::error::StorageError;
use crate::store::options::CommitFailurePolicy;

/// Told the policy when the commit log stops.
pub(crate) type Hook = Box<dyn Fn(CommitFailurePolicy) + Send + Sync>;

/// The policy and whether the log has stopped, shared by the writer and the sync thread.
pub(crate) struct CommitFailures {
    policy: CommitFailurePolicy,
    stopped: AtomicBool,
    hook: Mutex<Option<Hook>>,
}

impl CommitFailures {
    pub(crate) fn new(policy: CommitFailurePolicy) -> CommitFailures {
        CommitFailures {
            policy,
            stopped: AtomicBool::new(false),
            hook: Mutex::new(None),
        }
    }

    /// A commit-log write or fsync failed: `what` failed, because of `cause` (Cassandra's
    /// words: "Failed to persist commits to disk" for an fsync).
    pub(crate) fn failed(&self, what: &str, cause: &dyn Display) {
        if self.policy == CommitFailurePolicy::Ignore {
            error!(%cause, "{what}");
            return;
        }
        error!(
            %cause,
            "{what}. Commit disk failure policy is {}; the commit log takes no more writes",
            self.policy.name()
        );
        if self.stopped.swap(true, Ordering::AcqRel) {
            return;
        }
        let hook = self.hook.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(hook) = hook.as_ref() {
            hook(self.policy);
        }
    }

    /// The error for a write after the log stopped, or `None` while it takes writes.
    pub(crate) fn refusal(&self) -> Option<StorageError> {
        self.stopped
            .load(Ordering::Acquire)
            .then_some(StorageError::CommitLogStopped {
                policy: self.policy.name(),
            })
    }

    /// Registers the hook told when the log stops (replacing any earlier one).
    pub(crate) fn set_hook(&self, hook: Hook) {
        *self.hook.lock().unwrap_or_else(|p| p.into_inner()) = Some(hook);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    #[test]
    fn ignore_never_stops_the_log() {
        let failures = CommitFailures::new(CommitFailurePolicy::Ignore);
        failures.failed("Failed to persist commits to disk", &"EIO");
        assert!(failures.refusal().is_none());
    }

    #[test]
    fn the_other_policies_stop_the_log_and_tell_the_hook_once() {
        for policy in [
            CommitFailurePolicy::Stop,
            CommitFailurePolicy::StopCommit,
            CommitFailurePolicy::Die,
        ] {
            let failures = CommitFailures::new(policy);
            let told = Arc::new(AtomicUsize::new(0));
            let counter = told.clone();
            failures.set_hook(Box::new(move |p| {
                assert_eq!(p, policy);
                counter.fetch_add(1, Ordering::SeqCst);
            }));
            assert!(failures.refusal().is_none());
            failures.failed("Failed to persist commits to disk", &"EIO");
            failures.failed("Failed to persist commits to disk", &"EIO");
            assert_eq!(told.load(Ordering::SeqCst), 1);
            let Some(StorageError::CommitLogStopped { policy: name }) = failures.refusal() else {
                panic!("{policy:?} must stop the log");
            };
            assert_eq!(name, policy.name());
        }
    }
}
