//! How a [`crate::Store`] is opened: its sync mode and its sizes.

use std::time::Duration;

/// When writes become durable; the names are Cassandra's `commitlog_sync` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncMode {
    /// Acknowledge once the write is in the commit log through the OS (`write(2)`); fsync the
    /// log every `sync_period`. A killed process loses nothing acknowledged; a machine crash
    /// may lose up to one period.
    #[default]
    Periodic,
    /// Acknowledge only after the commit log is fsynced; one fsync serves every write that
    /// waits for it. An acknowledged write survives a machine crash.
    Batch,
    /// As `Batch`, with at most one fsync per `group_window` (Cassandra's
    /// `commitlog_sync_group_window`): fewer fsyncs, more latency.
    Group,
}

/// What a failed commit-log write or fsync does (Cassandra's `commit_failure_policy`). The
/// writes that failed are never acknowledged, whatever the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CommitFailurePolicy {
    /// The commit log takes no more writes, and the server stops serving clients (the hook
    /// of [`crate::Store::on_commit_failure`] is told); the process stays up until it is
    /// stopped. Cassandra's default.
    #[default]
    Stop,
    /// The commit log takes no more writes; reads go on.
    StopCommit,
    /// The writes that failed get the error; the next ones try again (a full disk that
    /// is freed lets writes resume).
    Ignore,
    /// As `Stop`, and the process exits (the hook does it).
    Die,
}

impl CommitFailurePolicy {
    /// The setting's value in `cassandra.yaml`.
    pub fn name(self) -> &'static str {
        match self {
            CommitFailurePolicy::Stop => "stop",
            CommitFailurePolicy::StopCommit => "stop_commit",
            CommitFailurePolicy::Ignore => "ignore",
            CommitFailurePolicy::Die => "die",
        }
    }

    /// Parses a `cassandra.yaml` value (`stop`, `stop_commit`, `ignore`, `die`).
    pub fn parse(text: &str) -> Option<CommitFailurePolicy> {
        [
            CommitFailurePolicy::Stop,
            CommitFailurePolicy::StopCommit,
            CommitFailurePolicy::Ignore,
            CommitFailurePolicy::Die,
        ]
        .into_iter()
        .find(|policy| policy.name() == text.trim())
    }
}

/// What a damaged page or a failed read or write of the data file does (Cassandra's
/// `disk_failure_policy`; `storage/src/disk/failures.rs` has the rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DiskFailurePolicy {
    /// I/O failures stop serving clients; a damaged page fails the read that met it; either
    /// during start-up refuses the start. Cassandra's default.
    #[default]
    Stop,
    /// As `Stop`, and a damaged page also stops serving clients.
    StopParanoid,
    /// Go on serving what is readable; failures fail the requests that meet them.
    BestEffort,
    /// As `BestEffort` (Cassandra's `ignore`: the failures are logged, nothing else).
    Ignore,
    /// Exit on any failure.
    Die,
}

impl DiskFailurePolicy {
    /// The setting's value in `cassandra.yaml`.
    pub fn name(self) -> &'static str {
        match self {
            DiskFailurePolicy::Stop => "stop",
            DiskFailurePolicy::StopParanoid => "stop_paranoid",
            DiskFailurePolicy::BestEffort => "best_effort",
            DiskFailurePolicy::Ignore => "ignore",
            DiskFailurePolicy::Die => "die",
        }
    }

    /// Parses a `cassandra.yaml` value.
    pub fn parse(text: &str) -> Option<DiskFailurePolicy> {
        [
            DiskFailurePolicy::Stop,
            DiskFailurePolicy::StopParanoid,
            DiskFailurePolicy::BestEffort,
            DiskFailurePolicy::Ignore,
            DiskFailurePolicy::Die,
        ]
        .into_iter()
        .find(|policy| policy.name() == text.trim())
    }
}

/// Options for [`Store::open`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreOptions {
    /// The sync mode.
    pub sync: SyncMode,
    /// In `Periodic` mode, the longest time between durable commits (Cassandra's
    /// `commitlog_sync_period`, default 10 s).
    pub sync_period: Duration,
    /// In `Group` mode, the least time from the start of one fsync of the commit log to the
    /// start of the next.
    pub group_window: Duration,
    /// Bytes of redb's page cache (read cache and write buffer together), 96 MiB by default.
    /// redb's own default is 1 GiB; pages beyond it are read through the OS page cache.
    pub cache_size: usize,
    /// Bytes of rows the active memtable takes before it is frozen and flushed to redb, and
    /// of commit log written before a checkpoint (so replay after a crash reads at most
    /// about this much). A frozen layer and a full active one hold twice this at most.
    pub memtable_size: usize,
    /// Bytes of decoded run blocks kept in memory for point reads (Cassandra's chunk cache,
    /// `file_cache_size`), 16 MiB by default; 0 keeps none.
    pub block_cache_size: usize,
    /// Bytes per second a background compaction writes at most (Cassandra's
    /// `compaction_throughput`, 64 MiB/s by default); 0 removes the limit.
    pub compaction_throughput: u64,
    /// Start even when the commit log is damaged where Cassandra stops the start (a segment
    /// before the last, a segment header), skipping what cannot be read, as Cassandra's
    /// `-Dcassandra.commitlog.ignorereplayerrors=true` does. Off by default.
    pub ignore_replay_errors: bool,
    /// What a failed commit-log write or fsync does.
    pub commit_failure_policy: CommitFailurePolicy,
    /// What a damaged page or a failed read or write of the data file does.
    pub disk_failure_policy: DiskFailurePolicy,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            sync: SyncMode::Periodic,
            sync_period: Duration::from_secs(10),
            group_window: Duration::from_millis(15),
            cache_size: 96 << 20,
            memtable_size: 32 << 20,
            compaction_throughput: 64 << 20,
            block_cache_size: 16 << 20,
            ignore_replay_errors: false,
            commit_failure_policy: CommitFailurePolicy::Stop,
            disk_failure_policy: DiskFailurePolicy::Stop,
        }
    }
}
