//! What the server does when storage's commit log stops after a failed write or fsync
//! (`commit_failure_policy`, see [`storage::CommitFailurePolicy`]): under `stop` and `die` it
//! stops serving clients, as Cassandra's `StorageService.stopTransports` does; under `die`
//! the process then exits with status 100, as Cassandra's `JVMStabilityInspector` does.
//! `stop_commit` and `ignore` leave the transports alone (storage refuses the writes).
//! `disk_failure_policy` ([`storage::DiskFailurePolicy`]) stops them the same way when storage
//! asks (an I/O failure of the data file under `stop`, a damaged page under `stop_paranoid`),
//! and exits under `die`.

use std::sync::Arc;

use storage::{CommitFailurePolicy, DiskFailurePolicy, Store};
use tokio::sync::watch;
use tracing::error;

/// The exit status of `die` (Cassandra's forced exit).
pub(crate) const DIE_EXIT_STATUS: i32 = 100;

/// Whether the client transports were stopped by the policy.
pub(crate) struct Transports {
    stopped: watch::Sender<bool>,
}

impl Transports {
    /// Follows `store`'s commit log: its stop under `stop` or `die` stops the transports.
    pub(crate) fn follow(store: &Store) -> Arc<Transports> {
        let transports = Arc::new(Transports {
            stopped: watch::channel(false).0,
        });
        let weak = Arc::downgrade(&transports);
        store.on_commit_failure(move |policy| match policy {
            CommitFailurePolicy::Stop => {
                error!("Stopping native transport: the commit log failed and commit_failure_policy is stop");
                if let Some(transports) = weak.upgrade() {
                    transports.stopped.send_replace(true);
                }
            }
            CommitFailurePolicy::Die => {
                error!("Exiting forcefully: the commit log failed and commit_failure_policy is die");
                std::process::exit(DIE_EXIT_STATUS);
            }
            CommitFailurePolicy::StopCommit | CommitFailurePolicy::Ignore => {}
        });
        let weak = Arc::downgrade(&transports);
        store.on_disk_failure(move |policy| match policy {
            DiskFailurePolicy::Die => {
                error!("Exiting forcefully: the data file failed and disk_failure_policy is die");
                std::process::exit(DIE_EXIT_STATUS);
            }
            _ => {
                error!(
                    "Stopping native transport: the data file failed and disk_failure_policy is {}",
                    policy.name()
                );
                if let Some(transports) = weak.upgrade() {
                    transports.stopped.send_replace(true);
                }
            }
        });
        transports
    }

    /// Whether the transports were stopped.
    pub(crate) fn stopped(&self) -> bool {
        *self.stopped.borrow()
    }

    /// Completes once the transports are stopped.
    pub(crate) async fn wait_stopped(&self) {
        let mut receiver = self.stopped.subscribe();
        // An error means the sender is gone, which cannot happen while `self` lives.
        let _ = receiver.wait_for(|stopped| *stopped).await;
    }
}
