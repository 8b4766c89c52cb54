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

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tracing::{error, info, warn};

use super::format;
use super::format::Head;
use super::format::Item;
use super::io_error;
use super::segment_file::SegmentFile;
#[cfg(test)]
use super::Record;
use crate::disk::Disk;
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

/// The records to replay after a position, found and judged by [`read_log`]: read again
/// from the segments, one at a time, by [`Pending::for_each`], so replaying a log of any size
/// holds one record in memory.
pub(crate) struct Pending {
    /// The disk the segments are on.
    disk: Arc<dyn Disk>,
    segments: Vec<(u64, PathBuf)>,
    position: u64,
    /// How many records [`Pending::for_each`] hands over.
    pub(crate) count: u64,
    /// Their payload bytes.
    pub(crate) bytes: u64,
    /// The highest sequence number seen whole (or the position).
    pub(crate) last_seq: u64,
    /// Records lost to damage that was skipped.
    pub(crate) skipped: u64,
}

impl Pending {
    /// Hands `each` every record to replay, in order: whole records numbered past the
    /// position, each once.
    ///
    /// # Errors
    /// [`StorageError::CommitLog`] when a segment cannot be read again, and whatever `each`
    /// returns.
    pub(crate) fn for_each(
        &self,
        mut each: impl FnMut(u64, &[u8]) -> Result<(), StorageError>,
    ) -> Result<(), StorageError> {
        let mut last = self.position;
        for_each_item(self.disk.as_ref(), &self.segments, &mut |_, _, found| {
            if let Found::Item(Item::Record { seq, payload, .. }) = found {
                if seq > last {
                    last = seq;
                    each(seq, payload)?;
                }
            }
            Ok(())
        })
    }

    /// The records, collected (tests).
    #[cfg(test)]
    pub(crate) fn records(&self) -> Vec<Record> {
        let mut records = Vec::new();
        self.for_each(|seq, payload| {
            records.push(Record {
                seq,
                payload: payload.to_vec(),
            });
            Ok(())
        })
        .unwrap();
        records
    }
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

/// Something a walk over the segments finds: a segment whose header says it holds no
/// record, one whose header is damaged, or an item of a segment's records.
enum Found<'a> {
    Unwritten,
    DamagedHead(&'static str),
    Item(Item<'a>),
}

/// Walks every segment (by id, oldest first), handing `each` the segment's index, its file
/// name and what is found, a window of the file at a time.
fn for_each_item(
    disk: &dyn Disk,
    segments: &[(u64, PathBuf)],
    each: &mut dyn FnMut(usize, &str, Found<'_>) -> Result<(), StorageError>,
) -> Result<(), StorageError> {
    for (index, (id, path)) in segments.iter().enumerate() {
        let read_error = |e: std::io::Error| io_error("reading", path, &e);
        let mut file = SegmentFile::open(disk, path).map_err(read_error)?;
        let name = file_name(path);
        match format::read_head(&mut file, *id).map_err(read_error)? {
            Head::Newer(found) => return Err(version_error(path, found)),
            Head::Unwritten => each(index, &name, Found::Unwritten)?,
            Head::Damaged(what) => each(index, &name, Found::DamagedHead(what))?,
            head => format::walk(&head, &mut file, &mut |item| {
                each(index, &name, Found::Item(item)).map_err(WalkError::Caller)
            })
            .map_err(|e| match e {
                WalkError::Read(e) => read_error(e),
                WalkError::Caller(e) => e,
            })?,
        }
    }
    Ok(())
}

/// Why a walk over a segment stopped: reading the file failed, or the caller said stop.
enum WalkError {
    Read(std::io::Error),
    Caller(StorageError),
}

impl From<std::io::Error> for WalkError {
    fn from(e: std::io::Error) -> WalkError {
        WalkError::Read(e)
    }
}

/// Reads `segments` (by id, oldest first) and judges what it finds after `position`.
///
/// # Errors
/// [`StorageError::CommitLog`] when a segment cannot be read;
/// [`StorageError::CommitLogReplay`] for damage that stops the start (see the module doc);
/// [`StorageError::CommitLogVersion`] for a segment of a newer format.
pub(crate) fn read_log(
    disk: &Arc<dyn Disk>,
    segments: &[(u64, PathBuf)],
    position: u64,
    rules: ReplayRules,
) -> Result<Pending, StorageError> {
    let mut reader = Reader {
        rules,
        last_segment: segments.len().saturating_sub(1),
        last_seq: position,
        count: 0,
        bytes: 0,
        skipped: 0,
        pending: None,
    };
    for_each_item(
        disk.as_ref(),
        segments,
        &mut |index, name, found| match found {
            Found::Unwritten => {
                info!(file = %name, "commit log segment was being created when the server stopped; it holds no record");
                Ok(())
            }
            Found::DamagedHead(what) => reader.damaged(Damage {
                segment: index,
                message: format!("Could not read commit log descriptor in file {name} ({what})"),
                whole_segment: true,
            }),
            Found::Item(item) => reader.item(index, name, item),
        },
    )?;
    reader.finish();
    Ok(Pending {
        disk: disk.clone(),
        segments: segments.to_vec(),
        position,
        count: reader.count,
        bytes: reader.bytes,
        last_seq: reader.last_seq,
        skipped: reader.skipped,
    })
}

/// Checks every segment's version without reading its records, before anything is opened
/// or written.
///
/// # Errors
/// [`StorageError::CommitLogVersion`] for a segment of a newer format;
/// [`StorageError::CommitLog`] when one cannot be read.
pub(crate) fn check_versions(
    disk: &dyn Disk,
    segments: &[(u64, PathBuf)],
) -> Result<(), StorageError> {
    for (id, path) in segments {
        let head = disk
            .open(path)
            .and_then(|file| {
                let len = file.len()?.min(format::SEGMENT_HEADER as u64) as usize;
                let mut head = vec![0; len];
                file.read_at(&mut head, 0)?;
                Ok(head)
            })
            .map_err(|e| io_error("reading", path, &e))?;
        let found =
            format::read_head(&mut &head[..], *id).map_err(|e| io_error("reading", path, &e))?;
        if let Head::Newer(found) = found {
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

/// The judging walk's state.
struct Reader {
    rules: ReplayRules,
    last_segment: usize,
    /// The highest sequence number seen whole (or the position).
    last_seq: u64,
    /// Records to replay, and their payload bytes.
    count: u64,
    bytes: u64,
    /// Records lost to damage that was skipped.
    skipped: u64,
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
        let last = self.last_seq;
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
        self.count += 1;
        self.bytes += payload.len() as u64;
        self.last_seq = seq;
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
            self.skipped += lost;
            return Ok(());
        }
        if damage.segment != self.last_segment {
            return self.refuse_or_skip(damage, lost);
        }
        self.skipped += lost;
        if self.rules.acknowledged_after_fsync {
            error!(
                lost,
                "{}; skipped, and the records after it replayed. It is damage, not a torn \
                 write: the writes it held had been acknowledged (fsynced) and are lost",
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
        self.skipped += lost;
        error!(cause = %damage.message, lost, "Ignoring commit log replay error");
        Ok(())
    }

    /// Damage after the last whole record is a torn tail.
    fn finish(&mut self) {
        if let Some(damage) = self.pending.take() {
            if !damage.whole_segment {
                info!(
                    cause = %damage.message,
                    "commit log ends with a record cut short by the crash; it is dropped"
                );
            }
        }
        if self.skipped > 0 {
            warn!(
                skipped = self.skipped,
                "commit log replay skipped damaged records (write groups)"
            );
        }
    }
}
