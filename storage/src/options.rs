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
        }
    }
}
