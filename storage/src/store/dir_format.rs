//! The data directory's format record: a small text file, `FORMAT`, naming the version of the
//! data file's format and of the commit log's, as Cassandra names its SSTable and commit-log
//! versions. It is read before anything in the directory is opened, so a directory written
//! by a newer build is refused with both versions named and no file changed; it is written
//! (atomically) once the store has opened, so it always names what the directory holds.
//!
//! ```text
//! data_format=6
//! commitlog_version=2
//! ```
//!
//! A directory without the record (new, or written before it existed) opens as before; lines
//! this build does not know are refused too, as a newer build's.

use std::path::Path;

use crate::commitlog::format_version as commitlog_version;
use crate::commitlog::io_error;
use crate::disk::open_existing;
use crate::disk::read_all;
use crate::disk::Disk;
use crate::error::StorageError;
use crate::store::db::FORMAT_VERSION;

/// The record's file name in the data directory.
pub(crate) const FILE: &str = "FORMAT";

/// The record this build writes.
fn current() -> String {
    format!(
        "data_format={FORMAT_VERSION}\ncommitlog_version={}\n",
        commitlog_version()
    )
}

/// Refuses a directory whose record names a version newer than this build's.
///
/// # Errors
/// [`StorageError::NewerFormat`]; [`StorageError::Corrupt`] for a record that does not parse;
/// [`StorageError::CommitLog`] when it cannot be read.
pub(crate) fn check(disk: &dyn Disk, dir: &Path) -> Result<(), StorageError> {
    let path = dir.join(FILE);
    let Some(text) = read_text(disk, &path).map_err(|e| io_error("reading", &path, &e))? else {
        return Ok(());
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (name, value) = line
            .split_once('=')
            .ok_or_else(|| StorageError::corrupt(format!("{}: {line:?}", path.display())))?;
        let found: u64 = value
            .trim()
            .parse()
            .map_err(|_| StorageError::corrupt(format!("{}: {line:?}", path.display())))?;
        let known = match name.trim() {
            "data_format" => u64::from(FORMAT_VERSION),
            "commitlog_version" => u64::from(commitlog_version()),
            other => {
                return Err(StorageError::NewerFormat {
                    dir: dir.display().to_string(),
                    what: format!("record `{other}`"),
                    found,
                    known: 0,
                })
            }
        };
        if found > known {
            return Err(StorageError::NewerFormat {
                dir: dir.display().to_string(),
                what: name.trim().replace('_', " "),
                found,
                known,
            });
        }
    }
    Ok(())
}

/// Writes this build's record unless the directory already has it: a temporary file,
/// fsynced, renamed over the record, and the directory fsynced.
///
/// # Errors
/// [`StorageError::CommitLog`] for I/O failures.
pub(crate) fn write(disk: &dyn Disk, dir: &Path) -> Result<(), StorageError> {
    let path = dir.join(FILE);
    let record = current();
    if read_text(disk, &path).is_ok_and(|text| text.as_deref() == Some(record.as_str())) {
        return Ok(());
    }
    let temporary = dir.join(format!("{FILE}.tmp"));
    disk.create(&temporary)
        .and_then(|file| {
            file.write_at(record.as_bytes(), 0)?;
            file.sync_data()
        })
        .and_then(|()| disk.rename(&temporary, &path))
        .and_then(|()| disk.sync_dir(dir))
        .map_err(|e| io_error("writing", &path, &e))
}

/// The file at `path` as text, or `None` if there is none.
fn read_text(disk: &dyn Disk, path: &Path) -> std::io::Result<Option<String>> {
    let Some(file) = open_existing(disk, path)? else {
        return Ok(None);
    };
    String::from_utf8(read_all(file.as_ref())?)
        .map(Some)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::RealDisk;
    use std::fs;

    #[test]
    fn a_directory_without_a_record_opens_and_gets_one() {
        let dir = tempfile::tempdir().unwrap();
        check(&RealDisk, dir.path()).unwrap();
        write(&RealDisk, dir.path()).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join(FILE)).unwrap(),
            current()
        );
        check(&RealDisk, dir.path()).unwrap();
    }

    #[test]
    fn a_newer_version_is_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let newer = FORMAT_VERSION + 1;
        fs::write(
            dir.path().join(FILE),
            format!("data_format={newer}\ncommitlog_version=1\n"),
        )
        .unwrap();
        let Err(StorageError::NewerFormat {
            found, known, what, ..
        }) = check(&RealDisk, dir.path())
        else {
            panic!("a newer data format must be refused");
        };
        assert_eq!(
            (found, known),
            (u64::from(newer), u64::from(FORMAT_VERSION))
        );
        assert_eq!(what, "data format");
        fs::write(
            dir.path().join(FILE),
            "data_format=1\ncommitlog_version=9\n",
        )
        .unwrap();
        assert!(matches!(
            check(&RealDisk, dir.path()),
            Err(StorageError::NewerFormat { found: 9, .. })
        ));
        fs::write(dir.path().join(FILE), "data_format=1\nindex_format=1\n").unwrap();
        assert!(matches!(
            check(&RealDisk, dir.path()),
            Err(StorageError::NewerFormat { .. })
        ));
        fs::write(dir.path().join(FILE), "data_format=new\n").unwrap();
        assert!(matches!(
            check(&RealDisk, dir.path()),
            Err(StorageError::Corrupt { .. })
        ));
    }
}
