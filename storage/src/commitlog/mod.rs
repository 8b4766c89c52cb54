//! The commit log: every group of data writes is appended here with one `write(2)` before it
//! is applied to redb (with a non-durable commit) and acknowledged, so a write acknowledged in
//! any sync mode survives the death of the process; `batch` and `group` modes also fsync the
//! log before acknowledging (see [`sync`]). A *checkpoint* (a durable redb commit) makes every
//! logged record redundant; the segments before it are then deleted. On open, the records
//! after the position stored in redb's `meta` table are replayed. `DESIGN.md` has the layout
//! and the recovery argument.

pub(crate) mod failures;
mod format;
mod janitor;
pub(crate) mod read;
pub(crate) mod record;
pub(crate) mod replay;
mod segment_file;
pub(crate) mod sync;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tracing::{debug, warn};

use crate::disk::Disk;
use crate::disk::DiskFile;
use crate::error::StorageError;
use format::record_header;
use format::segment_header;
use format::MAX_RECORD;
use format::SEGMENT_HEADER;
use janitor::Janitor;
pub(crate) use read::Pending;
pub(crate) use read::ReplayRules;

/// Records up to this size are gathered into one buffer and written with one `pwrite`.
const COPY_LIMIT: usize = 1 << 20;

/// One logged group, as read back (tests; replay takes them one at a time from
/// [`read::Pending::for_each`]).
#[cfg(test)]
pub(crate) struct Record {
    /// Its sequence number: one more than the record before it.
    pub(crate) seq: u64,
    /// Its payload (see [`record::decode_group`]).
    pub(crate) payload: Vec<u8>,
}

/// The segment being appended to.
struct Segment {
    id: u64,
    file: Arc<dyn DiskFile>,
    /// Bytes known to be good: header and complete records.
    len: u64,
    /// Where the last appended record starts (for [`CommitLog::undo_last`]).
    last_start: u64,
    /// A failed append left bytes that could not be cut off: append to a new segment.
    broken: bool,
}

/// The commit log directory and its current segment.
pub(crate) struct CommitLog {
    disk: Arc<dyn Disk>,
    dir: PathBuf,
    /// The segment appends go to; created by the first append after open or a checkpoint,
    /// so neither costs a file creation and its fsyncs.
    segment: Option<Segment>,
    /// The id the next segment gets.
    next_id: u64,
    /// The sequence number of the next record.
    next_seq: u64,
    /// Bytes appended since the last checkpoint.
    since_checkpoint: u64,
    /// The segment [`CommitLog::rotate`] left while a flush makes its records durable: the
    /// periodic fsync syncs it too, before the current one, so a machine crash cannot keep
    /// later records and lose earlier ones.
    retired: Option<Arc<dyn DiskFile>>,
    /// Deletes redundant segments off the caller's thread, once
    /// [`CommitLog::delete_in_background`] started it; until then they are deleted inline.
    janitor: Option<Janitor>,
}

/// A commit-log (or data-directory) I/O failure: what was done to which file, and why.
pub(crate) fn io_error(action: &str, path: &Path, err: &io::Error) -> StorageError {
    StorageError::CommitLog {
        cause: format!("{action} {}: {err}", path.display()),
    }
}

impl CommitLog {
    /// Opens the log in `dir` (creating it), reads every record after `position` (the last
    /// sequence number redb holds durably), judging damage by `rules` (see [`read`]);
    /// appends go to a new segment.
    ///
    /// # Errors
    /// [`StorageError::CommitLog`] for I/O failures; [`StorageError::CommitLogReplay`] for
    /// damage that stops the start; [`StorageError::CommitLogVersion`] for a segment of a
    /// newer format.
    pub(crate) fn open(
        disk: &Arc<dyn Disk>,
        dir: &Path,
        position: u64,
        rules: ReplayRules,
    ) -> Result<(CommitLog, Pending), StorageError> {
        disk.create_dir_all(dir)
            .map_err(|e| io_error("creating", dir, &e))?;
        let segments = list_segments(disk.as_ref(), dir)?;
        let pending = read::read_log(disk, &segments, position, rules)?;
        let next_id = segments.last().map_or(1, |(id, _)| id + 1);
        debug!(
            dir = %dir.display(),
            segments = segments.len(),
            replay = pending.count,
            skipped = pending.skipped,
            position,
            "commit log opened"
        );
        let log = CommitLog {
            disk: disk.clone(),
            dir: dir.to_path_buf(),
            segment: None,
            next_id,
            next_seq: pending.last_seq + 1,
            since_checkpoint: 0,
            retired: None,
            janitor: None,
        };
        Ok((log, pending))
    }

    /// The records after `position` in the segments on disk (for a reopen after an I/O
    /// error; the current segment included). Damage is logged and skipped: the server is
    /// already serving.
    ///
    /// # Errors
    /// [`StorageError::CommitLog`] for I/O failures.
    pub(crate) fn records_after(&self, position: u64) -> Result<Pending, StorageError> {
        let rules = ReplayRules {
            acknowledged_after_fsync: false,
            ignore_errors: true,
        };
        let segments = list_segments(self.disk.as_ref(), &self.dir)?;
        let pending = read::read_log(&self.disk, &segments, position, rules)?;
        if pending.last_seq != self.last_seq() {
            warn!(
                read = pending.last_seq,
                appended = self.last_seq(),
                "commit log reread short"
            );
        }
        Ok(pending)
    }

    /// The sequence number of the last record appended (or replayed); 0 when none ever was.
    pub(crate) fn last_seq(&self) -> u64 {
        self.next_seq - 1
    }

    /// Bytes appended since the last [`CommitLog::checkpointed`].
    pub(crate) fn since_checkpoint(&self) -> u64 {
        self.since_checkpoint
    }

    /// The current segment's file, for fsync (none before the first append).
    pub(crate) fn file(&self) -> Option<Arc<dyn DiskFile>> {
        self.segment.as_ref().map(|s| s.file.clone())
    }

    /// The files a periodic fsync syncs, oldest first: a segment rotated away whose records
    /// are not durable in redb yet, then the current one.
    pub(crate) fn files_to_sync(&self) -> Vec<Arc<dyn DiskFile>> {
        self.retired.iter().cloned().chain(self.file()).collect()
    }

    /// Appends one record holding `requests` (each as [`record::encode_batch`] wrote it) with
    /// one positional write, and returns its sequence number. On failure nothing of it stays
    /// in the log: the segment is cut back, or the next append goes to a new segment.
    ///
    /// # Errors
    /// [`StorageError::CommitLog`] (a full disk, an I/O error).
    pub(crate) fn append(&mut self, requests: &[&[u8]]) -> Result<u64, StorageError> {
        let segment = match &mut self.segment {
            Some(segment) if !segment.broken => segment,
            slot => {
                // Records of a new segment must not outlive the unsynced tail of the one a
                // flush rotated away (periodic mode): a machine crash would keep the later
                // records and tear the earlier ones, which reads as damage in an earlier
                // segment. One fsync per rotation.
                if let Some(retired) = &self.retired {
                    let path = segment_path(&self.dir, self.next_id.saturating_sub(1));
                    retired
                        .sync_data()
                        .map_err(|e| io_error("syncing", &path, &e))?;
                }
                // Nor may a redundant segment's torn tail: its unlink goes first.
                if let Some(janitor) = &mut self.janitor {
                    janitor.wait_idle();
                }
                let segment = create_segment(self.disk.as_ref(), &self.dir, self.next_id)?;
                self.next_id += 1;
                slot.insert(segment)
            }
        };
        let seq = self.next_seq;
        let payload_len: usize = 4 + requests.iter().map(|r| r.len()).sum::<usize>();
        if payload_len > MAX_RECORD {
            return Err(StorageError::CommitLog {
                cause: format!("a write of {payload_len} bytes is larger than the commit log's {MAX_RECORD}-byte records"),
            });
        }
        let header = record_header(seq, payload_len, requests);
        let start = segment.len;
        if let Err(err) = write_record(segment.file.as_ref(), start, &header, requests) {
            let path = segment_path(&self.dir, segment.id);
            segment.cut_back(start);
            return Err(io_error("appending to", &path, &err));
        }
        let record_len = (header.len() + payload_len - 4) as u64;
        segment.last_start = start;
        segment.len = start + record_len;
        self.next_seq += 1;
        self.since_checkpoint += record_len;
        Ok(seq)
    }

    /// Removes the record just appended (its group failed before anything was acknowledged).
    pub(crate) fn undo_last(&mut self) {
        if let Some(segment) = &mut self.segment {
            let start = segment.last_start;
            segment.cut_back(start);
            segment.len = start;
            self.next_seq -= 1;
        }
    }

    /// Called after a durable redb commit that holds every record so far: starts a new
    /// segment and deletes the older ones. Failures are logged (old segments only cost
    /// replay time; their records are at or before the stored position).
    pub(crate) fn checkpointed(&mut self) {
        self.since_checkpoint = 0;
        self.retired = None;
        if self.segment.take().is_some() {
            // The next append starts a new segment; this one's records are all durable.
            self.delete_older_segments();
        }
    }

    /// Starts a new segment for the next append and returns its id: every record so far is
    /// in a segment before it. For a checkpoint that runs while appends go on.
    pub(crate) fn rotate(&mut self) -> u64 {
        self.since_checkpoint = 0;
        if let Some(old) = self.segment.take() {
            self.retired = Some(old.file);
        }
        self.next_id
    }

    /// Deletes every segment before the current one, or every segment when appends have not
    /// started one yet (all their records are durable in redb).
    pub(crate) fn delete_older_segments(&mut self) {
        let current = self.segment.as_ref().map_or(self.next_id, |s| s.id);
        self.delete_listed_before(current);
    }

    /// Deletes the segments whose id is below `first_kept` (their records are durable).
    pub(crate) fn delete_segments_before(&mut self, first_kept: u64) {
        self.retired = None;
        self.delete_listed_before(first_kept);
    }

    /// From now on, redundant segments are deleted by a thread of their own (see
    /// [`janitor`]): the writer thread never waits for an unlink.
    ///
    /// # Errors
    /// [`StorageError::WriterStart`] if the thread cannot be started.
    pub(crate) fn delete_in_background(&mut self) -> Result<(), StorageError> {
        if self.janitor.is_none() {
            self.janitor = Some(Janitor::start(self.disk.clone())?);
        }
        Ok(())
    }

    fn delete_listed_before(&mut self, first_kept: u64) {
        let old = match list_segments(self.disk.as_ref(), &self.dir) {
            Ok(segments) => segments,
            Err(err) => {
                warn!(cause = %err, "cannot list commit log segments");
                return;
            }
        };
        for (_, path) in old.into_iter().filter(|(id, _)| *id < first_kept) {
            let inline = match &mut self.janitor {
                Some(janitor) => janitor.delete(path).err(),
                None => Some(path),
            };
            if let Some(path) = inline {
                janitor::remove_segment(self.disk.as_ref(), &path);
            }
        }
    }
}

/// The segment and record format version this build writes.
pub(crate) fn format_version() -> u8 {
    format::VERSION
}

/// Refuses a commit log directory holding a segment of a newer format, reading only the
/// segments' headers: called before the database is opened, so a refused start changes no
/// file.
///
/// # Errors
/// [`StorageError::CommitLogVersion`]; [`StorageError::CommitLog`] when a segment cannot be
/// read.
pub(crate) fn check_versions(disk: &dyn Disk, dir: &Path) -> Result<(), StorageError> {
    if !disk.is_dir(dir) {
        return Ok(());
    }
    read::check_versions(disk, &list_segments(disk, dir)?)
}

fn segment_path(dir: &Path, id: u64) -> PathBuf {
    dir.join(format!("CommitLog-{id:020}.log"))
}

/// The segment files in `dir`, by id.
fn list_segments(disk: &dyn Disk, dir: &Path) -> Result<Vec<(u64, PathBuf)>, StorageError> {
    let mut out = Vec::new();
    let paths = disk.list(dir).map_err(|e| io_error("listing", dir, &e))?;
    for path in paths {
        let id = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("CommitLog-"))
            .and_then(|n| n.strip_suffix(".log"))
            .and_then(|n| n.parse::<u64>().ok());
        if let Some(id) = id {
            out.push((id, path));
        }
    }
    out.sort();
    Ok(out)
}

/// Writes a record at `offset`: small records in one `pwrite` from one buffer, large ones
/// (a value of megabytes) piece by piece so the payload is not copied again.
fn write_record(
    file: &dyn DiskFile,
    offset: u64,
    header: &[u8],
    requests: &[&[u8]],
) -> std::io::Result<()> {
    let total: usize = header.len() + requests.iter().map(|r| r.len()).sum::<usize>();
    if total <= COPY_LIMIT {
        let mut buf = Vec::with_capacity(total);
        buf.extend_from_slice(header);
        requests.iter().for_each(|r| buf.extend_from_slice(r));
        return file.write_at(&buf, offset);
    }
    file.write_at(header, offset)?;
    let mut at = offset + header.len() as u64;
    for request in requests {
        file.write_at(request, at)?;
        at += request.len() as u64;
    }
    Ok(())
}

impl Segment {
    /// Cuts the segment back to `len` bytes; if that fails, later appends go to a new segment.
    fn cut_back(&mut self, len: u64) {
        if let Err(err) = self.file.set_len(len) {
            warn!(cause = %err, "cannot cut the commit log back; starting a new segment");
            self.broken = true;
        }
    }
}

/// Creates segment `id` with its header and makes its directory entry durable.
fn create_segment(disk: &dyn Disk, dir: &Path, id: u64) -> Result<Segment, StorageError> {
    let path = segment_path(dir, id);
    let file = disk
        .create(&path)
        .map_err(|e| io_error("creating", &path, &e))?;
    file.write_at(&segment_header(id), 0)
        .and_then(|()| file.sync_data())
        .map_err(|e| io_error("writing the header of", &path, &e))?;
    disk.sync_dir(dir)
        .map_err(|e| io_error("syncing", dir, &e))?;
    Ok(Segment {
        id,
        file,
        len: SEGMENT_HEADER as u64,
        last_start: SEGMENT_HEADER as u64,
        broken: false,
    })
}

#[cfg(test)]
mod tests;
