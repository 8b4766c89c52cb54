//! Disk space for durable commits. redb writes the pages of its non-durable commits only at
//! the next durable commit; if the disk fills up in the middle of that commit, redb refuses
//! all further work until the file is reopened. So before a durable commit the writer checks
//! that the filesystem has room for the pages the file has reserved but not yet written (the
//! sparse part of the file: its length minus its allocated blocks) plus a margin, and refuses
//! the commit (or postpones a checkpoint) instead.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::error::StorageError;

/// Room asked for beyond the file's unwritten pages: redb's headers and allocator state.
const MARGIN: u64 = 1 << 20;

/// Checks that a durable commit of the database at `db_path` fits on its filesystem.
///
/// # Errors
/// [`StorageError::DiskFull`] when it would not. Failures to measure are not errors (the
/// commit then reports its own).
pub(crate) fn check_room(db_path: &Path) -> Result<(), StorageError> {
    let Ok(meta) = std::fs::metadata(db_path) else {
        return Ok(());
    };
    let allocated = meta.blocks().saturating_mul(512);
    let needed = meta.len().saturating_sub(allocated).saturating_add(MARGIN);
    let dir = db_path.parent().unwrap_or_else(|| Path::new("."));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    match fs4::available_space(dir) {
        Ok(free) if free < needed => Err(StorageError::DiskFull { free, needed }),
        _ => Ok(()),
    }
}
