//! `StorageError`: every failure the storage crate reports. Wraps each redb error type so the
//! server can map all of them to `SERVER_ERROR`, and names the storage-level faults (corrupt
//! bytes, unknown format version, a value that cannot be a key, a stopped writer) separately.

use thiserror::Error;
use uuid::Uuid;

/// A storage failure.
#[derive(Debug, Error)]
pub enum StorageError {
    /// Opening or creating the database file failed.
    #[error("database error: {0}")]
    Database(#[from] redb::DatabaseError),
    /// Beginning a transaction failed.
    #[error("transaction error: {0}")]
    Transaction(#[from] redb::TransactionError),
    /// Opening, creating or deleting a redb table failed.
    #[error("table error: {0}")]
    Table(#[from] redb::TableError),
    /// An I/O or page-level failure inside redb.
    #[error("storage engine error: {0}")]
    Engine(#[from] redb::StorageError),
    /// Committing a write transaction failed.
    #[error("commit error: {0}")]
    Commit(#[from] redb::CommitError),
    /// Setting a transaction's durability failed.
    #[error("durability error: {0}")]
    Durability(#[from] redb::SetDurabilityError),
    /// Bytes read from disk do not decode.
    #[error("corrupt {what}")]
    Corrupt {
        /// What failed to decode, and why.
        what: String,
    },
    /// The file was written by a storage format this build does not know.
    #[error("unsupported storage format version {found} (this build reads version {expected})")]
    FormatVersion {
        /// The version found in the `meta` table.
        found: u32,
        /// The version this build writes and reads.
        expected: u32,
    },
    /// The data directory's format record (`FORMAT`) names a version newer than this build
    /// reads; nothing was opened or changed.
    #[error("data directory {dir} was written by a newer version of this server: its {what} version is {found}, this build reads up to {known}; nothing was changed")]
    NewerFormat {
        /// The data directory.
        dir: String,
        /// Which version (`data format`, `commitlog version`, or a record this build does
        /// not know).
        what: String,
        /// The version the record names.
        found: u64,
        /// The newest this build reads.
        known: u64,
    },
    /// The column type cannot (yet) be part of a primary key.
    #[error("type {ty} is not supported in a primary key")]
    UnsupportedKeyType {
        /// The CQL spelling of the type.
        ty: String,
    },
    /// A key value given by the caller does not have the shape its type requires.
    #[error("invalid {ty} key value: {reason}")]
    InvalidKeyValue {
        /// The CQL spelling of the type.
        ty: String,
        /// What is wrong with the value.
        reason: String,
    },
    /// A row write names a table id the catalog does not hold (dropped, or never created).
    #[error("unknown table id {id}")]
    UnknownTable {
        /// The table id of the rejected write.
        id: Uuid,
    },
    /// No snapshot has the name a restore asked for.
    #[error("no snapshot named {name}")]
    UnknownSnapshot {
        /// The name asked for.
        name: String,
    },
    /// The write group this request was part of failed as a whole (a redb error while
    /// applying or committing it). If applying failed nothing was committed; if the commit
    /// itself failed, redb does not say whether it reached the disk.
    #[error("write group failed: {cause}")]
    GroupFailed {
        /// The error that failed the group.
        cause: String,
    },
    /// Appending to or syncing the commit log failed (a full disk, an I/O error); the write
    /// was not applied.
    #[error("commit log failure: {cause}")]
    CommitLog {
        /// What failed, and the operating system's reason.
        cause: String,
    },
    /// The commit log stopped taking writes after a failed write or fsync
    /// (`commit_failure_policy` `stop`, `stop_commit` or `die`); a restart starts it again.
    #[error("commit log stopped after a failure (commit_failure_policy: {policy}); writes are refused until the server restarts")]
    CommitLogStopped {
        /// The policy's name.
        policy: &'static str,
    },
    /// Damage in the commit log that stops the start (Cassandra's `CommitLogReplayException`):
    /// in a segment before the last, a segment header, or records missing for no visible
    /// reason. Overridden by `-Dcassandra.commitlog.ignorereplayerrors=true`.
    #[error("{message}. Replay stopped. If you wish to override this error and continue starting the node ignoring commit log replay problems, specify -Dcassandra.commitlog.ignorereplayerrors=true on the command line")]
    CommitLogReplay {
        /// What is damaged, naming the offset and the file (Cassandra's wording).
        message: String,
    },
    /// A commit log segment was written by a newer format than this build reads; nothing
    /// was read or changed.
    #[error("commit log segment {file} has format version {found}; this build reads versions 1 to {known}")]
    CommitLogVersion {
        /// The segment's path.
        file: String,
        /// The version its header names.
        found: u8,
        /// The newest version this build reads (and writes).
        known: u8,
    },
    /// A durable commit was refused because the disk lacks room for it; nothing was written.
    #[error("not enough free disk space for a durable commit: {free} bytes free, {needed} needed (No space left on device)")]
    DiskFull {
        /// Bytes free on the filesystem.
        free: u64,
        /// Bytes the commit may need.
        needed: u64,
    },
    /// A page of the data file failed its checksum while a table was read: nothing of it
    /// was served.
    #[error("{damage}, reading table {table}{}", partition_text(.partition))]
    Damaged {
        /// The damaged file and page.
        damage: crate::disk::checked::PageDamage,
        /// The table being read.
        table: Uuid,
        /// The row key (or its partition prefix) being read, if one.
        partition: Option<Vec<u8>>,
    },
    /// Opening the data directory met an I/O failure or damage and `disk_failure_policy`
    /// refuses such a start (Cassandra's `handleStartupFSError`).
    #[error("Exiting forcefully due to file system exception on startup, disk failure policy \"{policy}\": {cause}")]
    StartupDiskFailure {
        /// The policy's name.
        policy: &'static str,
        /// What failed.
        cause: String,
    },
    /// Opening the data file or its checksums failed before redb had it.
    #[error("data file failure: {cause}")]
    DataFile {
        /// What failed, and the operating system's reason.
        cause: String,
    },
    /// The database is being reopened after an I/O error (its log replayed); reads and
    /// writes work again once that is done.
    #[error("storage is recovering from an I/O error; retry shortly")]
    Recovering,
    /// The writer thread could not be started.
    #[error("cannot start the storage writer thread: {0}")]
    WriterStart(std::io::Error),
    /// The writer thread has stopped (after `Store::shutdown`, or after it panicked).
    #[error("storage writer has stopped")]
    WriterGone,
}

/// ", partition 0x…" for a known key.
fn partition_text(partition: &Option<Vec<u8>>) -> String {
    partition.as_ref().map_or_else(String::new, |key| {
        let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
        format!(", key 0x{hex}")
    })
}

impl StorageError {
    /// Whether redb itself failed (after which it refuses work until the file is reopened),
    /// as opposed to a request, commit log or free-space failure.
    pub(crate) fn is_engine_failure(&self) -> bool {
        matches!(
            self,
            StorageError::Database(_)
                | StorageError::Transaction(_)
                | StorageError::Table(_)
                | StorageError::Engine(_)
                | StorageError::Commit(_)
                | StorageError::Durability(_)
        )
    }

    /// The damaged page this error was caused by, if it was.
    pub fn page_damage(&self) -> Option<&crate::PageDamage> {
        let storage = match self {
            StorageError::Damaged { damage, .. } => return Some(damage),
            StorageError::Engine(e) => e,
            StorageError::Table(redb::TableError::Storage(e))
            | StorageError::Transaction(redb::TransactionError::Storage(e))
            | StorageError::Commit(redb::CommitError::Storage(e))
            | StorageError::Database(redb::DatabaseError::Storage(e)) => e,
            _ => return None,
        };
        match storage {
            redb::StorageError::Io(io) => crate::disk::checked::damage_of(io),
            _ => None,
        }
    }

    /// Whether redb refused the work because an earlier operation failed (or the handle was
    /// closed for a reopen): the reopen that follows every such failure is under way.
    fn is_latched(&self) -> bool {
        let storage = match self {
            StorageError::Engine(e)
            | StorageError::Table(redb::TableError::Storage(e))
            | StorageError::Transaction(redb::TransactionError::Storage(e)) => e,
            _ => return false,
        };
        matches!(
            storage,
            redb::StorageError::PreviousIo | redb::StorageError::DatabaseClosed
        )
    }

    /// [`StorageError::Recovering`] when redb refused the work until its file is reopened,
    /// else this error.
    pub(crate) fn or_recovering(self) -> StorageError {
        if self.is_latched() {
            StorageError::Recovering
        } else {
            self
        }
    }

    /// This error, naming the table and key being read when a damaged page caused it, and
    /// [`StorageError::Recovering`] when redb refused the read until its file is reopened.
    pub(crate) fn reading(self, table: Uuid, key: Option<&[u8]>) -> StorageError {
        if self.is_latched() {
            return StorageError::Recovering;
        }
        match self.page_damage() {
            Some(damage) if !matches!(self, StorageError::Damaged { .. }) => {
                StorageError::Damaged {
                    damage: damage.clone(),
                    table,
                    partition: key.map(<[u8]>::to_vec),
                }
            }
            _ => self,
        }
    }

    /// Shorthand for [`StorageError::Corrupt`].
    pub(crate) fn corrupt(what: impl Into<String>) -> StorageError {
        StorageError::Corrupt { what: what.into() }
    }
}
