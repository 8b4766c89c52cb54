//! Reading the log back at start: which records to replay, and what to do about damage.
//!
//! Cassandra's rules (`CommitLogReader`, `CommitLogReplayer`), with sequence numbers to say
//! what damage cost. Records are numbered consecutively across segments, so the numbers
//! missing between two whole records are the records a damaged place held:
//! - damage that no missing number follows (the garbage of an append that failed, a record
//!   already durable in redb) cost nothing and is logged at INFO;
//! - damage after the last whole record is a torn tail, expected after a crash (the record
//!   being written was never acknowledged in `batch` and `group` modes), logged at INFO;
//! - damage in the last segment followed by whole records is skipped and logged at WARN, or
//!   at ERROR in `batch` and `group` modes, where the records it held were acknowledged;
//! - damage in an earlier segment, a damaged segment header, or numbers missing with no
//!   damage to show for them stop the start, unless the operator overrides it as
//!   Cassandra's `-Dcassandra.commitlog.ignorereplayerrors=true` does.

use std::fs;
use std::path::{Path, PathBuf};

use tracing::{error, info, warn};

use super::format::{self, Head, Item};
use super::{io_error, Record};
use crate::error::StorageError;

/// The name of the override that starts despite damage (Cassandra's system property).
pub const IGNORE_REPLAY_ERRORS: &str = "cassandra.commitlog.ignorereplayerrors";

/// How to treat damage found at start.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ReplayRules {
    /// Records are acknowledged only once fsynced (`batch`, `group`): damage followed by
    /// whole records lost acknowledged writes.
    pub(crate) acknowledged_after_fsync: bool,
    /// Skip damage anywhere instead of refusing to start.
    pub(crate) ignore_errors: bool,
}

/// What the log holds after a position.
pub(crate) struct LogContents {
    /// The records to replay, in order.
    pub(crate) records: Vec<Record>,
    /// The highest sequence number seen whole (or the position).
    pub(crate) last_seq: u64,
    /// Records lost to damage that was skipped.
    pub(crate) skipped: u64,
}

/// A damaged place, as logged.
struct Damage {
    /// The index of its segment in the list read.
    segment: usize,
    /// Cassandra's wording of what is wrong, naming offset and file.
    message: String,
    /// A segment whose header is unreadable: every record in it is lost.
    whole_segment: bool,
}

/// Reads `segments` (by id, oldest first) and returns the records after `position`.
///
/// # Errors
/// [`StorageError::CommitLog`] when a segment cannot be read;
/// [`StorageError::CommitLogReplay`] for damage that stops the start (see the module doc);
/// [`StorageError::CommitLogVersion`] for a segment of a newer format.
pub(crate) fn read_log(
    segments: &[(u64, PathBuf)],
    position: u64,
    rules: ReplayRules,
) -> Result<LogContents, StorageError> {
    let mut reader = Reader {
        rules,
        last_segment: segments.len().saturating_sub(1),
        contents: LogContents {
            records: Vec::new(),
            last_seq: position,
            skipped: 0,
        },
        pending: None,
    };
    for (index, (id, path)) in segments.iter().enumerate() {
        let bytes = fs::read(path).map_err(|e| io_error("reading", path, &e))?;
        let name = file_name(path);
        match format::read_head(&bytes, *id) {
            Head::Newer(found) => return Err(version_error(path, found)),
            Head::Unwritten => {
                info!(file = %name, "commit log segment was being created when the server stopped; it holds no record");
            }
            Head::Damaged(what) => reader.damaged(Damage {
                segment: index,
                message: format!("Could not read commit log descriptor in file {name} ({what})"),
                whole_segment: true,
            })?,
            head => {
                for item in format::walk(&head, &bytes) {
                    reader.item(index, &name, item)?;
                }
            }
        }
    }
    reader.finish()?;
    Ok(reader.contents)
}

/// Checks every segment's version without reading its records, before anything is opened
/// or written.
///
/// # Errors
/// [`StorageError::CommitLogVersion`] for a segment of a newer format;
/// [`StorageError::CommitLog`] when one cannot be read.
pub(crate) fn check_versions(segments: &[(u64, PathBuf)]) -> Result<(), StorageError> {
    use std::io::Read;
    for (id, path) in segments {
        let mut head = Vec::with_capacity(format::SEGMENT_HEADER);
        fs::File::open(path)
            .and_then(|file| {
                file.take(format::SEGMENT_HEADER as u64)
                    .read_to_end(&mut head)
            })
            .map_err(|e| io_error("reading", path, &e))?;
        if let Head::Newer(found) = format::read_head(&head, *id) {
            return Err(version_error(path, found));
        }
    }
    Ok(())
}

fn version_error(path: &Path, found: u8) -> StorageError {
    StorageError::CommitLogVersion {
        file: path.display().to_string(),
        found,
        known: format::VERSION,
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

struct Reader {
    rules: ReplayRules,
    last_segment: usize,
    contents: LogContents,
    /// The first damage since the last whole record, not yet judged.
    pending: Option<Damage>,
}

impl Reader {
    fn item(&mut self, segment: usize, name: &str, item: Item<'_>) -> Result<(), StorageError> {
        let damage = |message: String| Damage {
            segment,
            message,
            whole_segment: false,
        };
        match item {
            Item::Record {
                offset,
                seq,
                payload,
            } => self.record(segment, name, offset, seq, payload),
            Item::BadBody { offset, .. } => self.damaged(damage(format!(
                "Mutation checksum failure at {offset} in {name}"
            ))),
            Item::BadHeader { offset } => self.damaged(damage(format!(
                "Mutation size checksum failure at {offset} in {name}"
            ))),
            Item::Torn { offset } => self.damaged(damage(format!(
                "Unexpected end of segment at {offset} in {name}"
            ))),
        }
    }

    /// Damage is judged by the next whole record (or the end of the log).
    fn damaged(&mut self, damage: Damage) -> Result<(), StorageError> {
        if damage.whole_segment {
            // Refused wherever it is, unless overridden: how much it held cannot be told.
            self.refuse_or_skip(&damage, 0)?;
        }
        if self.pending.is_none() {
            self.pending = Some(damage);
        }
        Ok(())
    }

    fn record(
        &mut self,
        segment: usize,
        name: &str,
        offset: usize,
        seq: u64,
        payload: &[u8],
    ) -> Result<(), StorageError> {
        let last = self.contents.last_seq;
        if seq <= last {
            // Already durable in redb, or an earlier copy of a number reused after a torn
            // append: nothing to replay. Damage before it held nothing newer.
            self.harmless();
            return Ok(());
        }
        let lost = seq - last - 1;
        match self.pending.take() {
            Some(damage) if lost == 0 => info!(
                cause = %damage.message,
                "commit log: unreadable bytes that held no missing record"
            ),
            Some(damage) => self.lost(&damage, lost)?,
            None if lost > 0 => self.lost(
                &Damage {
                    segment,
                    message: format!(
                        "Records {} to {} are missing before offset {offset} in {name}",
                        last + 1,
                        seq - 1
                    ),
                    whole_segment: false,
                },
                lost,
            )?,
            None => {}
        }
        self.contents.records.push(Record {
            seq,
            payload: payload.to_vec(),
        });
        self.contents.last_seq = seq;
        Ok(())
    }

    fn harmless(&mut self) {
        if let Some(damage) = self.pending.take() {
            info!(cause = %damage.message, "commit log: damage before the replay position; nothing is lost");
        }
    }

    /// `lost` records are missing where `damage` is, with whole records after it.
    fn lost(&mut self, damage: &Damage, lost: u64) -> Result<(), StorageError> {
        if damage.whole_segment {
            // Already refused or overridden when found; count what it held.
            self.contents.skipped += lost;
            return Ok(());
        }
        if damage.segment != self.last_segment {
            return self.refuse_or_skip(damage, lost);
        }
        self.contents.skipped += lost;
        if self.rules.acknowledged_after_fsync {
            error!(
                lost,
                "{}; skipped, and the records after it replayed. It is damage, not a torn \
                 write: those {lost} records were acknowledged and are lost",
                damage.message
            );
        } else {
            warn!(
                lost,
                "{}; skipped, and the records after it replayed", damage.message
            );
        }
        Ok(())
    }

    fn refuse_or_skip(&mut self, damage: &Damage, lost: u64) -> Result<(), StorageError> {
        if !self.rules.ignore_errors {
            // The error's text says how to override it (`IGNORE_REPLAY_ERRORS`).
            return Err(StorageError::CommitLogReplay {
                message: damage.message.clone(),
            });
        }
        self.contents.skipped += lost;
        error!(cause = %damage.message, lost, "Ignoring commit log replay error");
        Ok(())
    }

    /// Damage after the last whole record is a torn tail.
    fn finish(&mut self) -> Result<(), StorageError> {
        if let Some(damage) = self.pending.take() {
            if !damage.whole_segment {
                info!(
                    cause = %damage.message,
                    "commit log ends with a record cut short by the crash; it is dropped"
                );
            }
        }
        if self.contents.skipped > 0 {
            warn!(
                skipped = self.contents.skipped,
                "commit log replay skipped {} damaged records", self.contents.skipped
            );
        }
        Ok(())
    }
}
