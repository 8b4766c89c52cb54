//! The files under a data directory, reached through [`Disk`]: the commit log's segments, the
//! `FORMAT` record and redb's data file (as a [`redb::StorageBackend`]). The server runs on
//! [`RealDisk`], the operating system's files; the power-cut tests run the same code on a
//! simulated disk that loses what was not synced (`sim`). redb's file is wrapped in
//! [`checked::CheckedBackend`], which keeps a checksum of every page and refuses a damaged one.

pub(crate) mod checked;
pub(crate) mod failures;
#[cfg(test)]
pub(crate) mod sim;

use std::fmt::Debug;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use redb::backends::FileBackend;
use redb::Builder;
use redb::Database;
use redb::StorageBackend;
use tracing::debug;

use crate::error::StorageError;
use checked::CheckedBackend;
use failures::DiskFailures;

/// One open file: positional reads and writes, as `pread`/`pwrite` do them.
pub(crate) trait DiskFile: Send + Sync + Debug {
    /// Fills `out` from `offset`; an error if the file ends before.
    fn read_at(&self, out: &mut [u8], offset: u64) -> io::Result<()>;
    /// Writes all of `data` at `offset`, growing the file as needed.
    fn write_at(&self, data: &[u8], offset: u64) -> io::Result<()>;
    /// The file's length.
    fn len(&self) -> io::Result<u64>;
    /// Cuts or extends (with zeros) the file to `len` bytes.
    fn set_len(&self, len: u64) -> io::Result<()>;
    /// Makes the file's contents durable (`fdatasync`).
    fn sync_data(&self) -> io::Result<()>;
}

/// The directory operations the store needs, and its files.
pub(crate) trait Disk: Send + Sync + Debug {
    /// Creates `dir` and its parents.
    fn create_dir_all(&self, dir: &Path) -> io::Result<()>;
    /// Whether `path` names a directory.
    fn is_dir(&self, path: &Path) -> bool;
    /// The paths of the files directly in `dir`.
    fn list(&self, dir: &Path) -> io::Result<Vec<PathBuf>>;
    /// Creates `path` empty (truncating it if it exists), for reading and writing.
    fn create(&self, path: &Path) -> io::Result<Arc<dyn DiskFile>>;
    /// Opens an existing file for reading and writing.
    fn open(&self, path: &Path) -> io::Result<Arc<dyn DiskFile>>;
    /// Removes a file.
    fn remove(&self, path: &Path) -> io::Result<()>;
    /// Renames a file, replacing `to`.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Makes `dir`'s entries (files created, removed, renamed in it) durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    /// redb's data file at `path`, created if missing (locked against a second opener).
    ///
    /// # Errors
    /// [`redb::DatabaseError::DatabaseAlreadyOpen`] while another handle has it open.
    fn data_backend(&self, path: &Path) -> Result<Box<dyn StorageBackend>, redb::DatabaseError>;
}

/// Opens `path` if it exists; `None` if it does not.
pub(crate) fn open_existing(disk: &dyn Disk, path: &Path) -> io::Result<Option<Arc<dyn DiskFile>>> {
    match disk.open(path) {
        Ok(file) => Ok(Some(file)),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(err),
    }
}

/// Reads a whole (small) file.
pub(crate) fn read_all(file: &dyn DiskFile) -> io::Result<Vec<u8>> {
    let len =
        usize::try_from(file.len()?).map_err(|_| io::Error::from(io::ErrorKind::FileTooLarge))?;
    let mut out = vec![0; len];
    file.read_at(&mut out, 0)?;
    Ok(out)
}

/// The operating system's files.
#[derive(Debug, Default)]
pub(crate) struct RealDisk;

impl DiskFile for File {
    fn read_at(&self, out: &mut [u8], offset: u64) -> io::Result<()> {
        self.read_exact_at(out, offset)
    }
    fn write_at(&self, data: &[u8], offset: u64) -> io::Result<()> {
        self.write_all_at(data, offset)
    }
    fn len(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        File::set_len(self, len)
    }
    fn sync_data(&self) -> io::Result<()> {
        File::sync_data(self)
    }
}

impl Disk for RealDisk {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir)
    }
    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }
    fn list(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        fs::read_dir(dir)?
            .map(|entry| entry.map(|e| e.path()))
            .collect()
    }
    fn create(&self, path: &Path) -> io::Result<Arc<dyn DiskFile>> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(Arc::new(file))
    }
    fn open(&self, path: &Path) -> io::Result<Arc<dyn DiskFile>> {
        let file = OpenOptions::new().read(true).write(true).open(path)?;
        Ok(Arc::new(file))
    }
    fn remove(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)
    }
    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }
    fn data_backend(&self, path: &Path) -> Result<Box<dyn StorageBackend>, redb::DatabaseError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(redb::StorageError::from)?;
        Ok(Box::new(FileBackend::new(file)?))
    }
}

/// The data file of a store on disk: where it is, on which disk, and how redb opens it.
#[derive(Debug, Clone)]
pub(crate) struct DataFile {
    /// The file's path (`data.redb` in the data directory).
    pub(crate) path: PathBuf,
    /// The disk it is on.
    pub(crate) disk: Arc<dyn Disk>,
    /// redb's page cache.
    pub(crate) cache_size: usize,
    /// Where damage and I/O failures of the file are reported.
    pub(crate) failures: Arc<DiskFailures>,
}

impl DataFile {
    /// Opens (or creates) the database, its pages checked against their checksums. A new
    /// database is made whole under a temporary name and then renamed into place (and its
    /// directory synced), so a power cut while it is created leaves no half-written file.
    ///
    /// # Errors
    /// redb's, and I/O failures opening the file or its checksums.
    pub(crate) fn open(&self) -> Result<Database, StorageError> {
        let exists = open_existing(self.disk.as_ref(), &self.path)
            .map_err(|e| data_io_error("opening", &self.path, &e))?
            .is_some();
        if !exists {
            self.create()?;
        }
        self.open_at(&self.path)
    }

    /// Creates an empty database at `<path>.new` and renames it (and its checksums) to `path`.
    fn create(&self) -> Result<(), StorageError> {
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        let mut name = self.path.as_os_str().to_owned();
        name.push(".new");
        let fresh = PathBuf::from(name);
        for stale in [&fresh, &checked::side_path(&fresh)] {
            if open_existing(self.disk.as_ref(), stale)
                .map_err(|e| data_io_error("opening", stale, &e))?
                .is_some()
            {
                self.disk
                    .remove(stale)
                    .map_err(|e| data_io_error("removing", stale, &e))?;
            }
        }
        drop(self.open_at(&fresh)?);
        let renamed = self
            .disk
            .rename(&checked::side_path(&fresh), &checked::side_path(&self.path))
            .and_then(|()| self.disk.rename(&fresh, &self.path))
            .and_then(|()| self.disk.sync_dir(dir));
        renamed.map_err(|e| data_io_error("creating", &self.path, &e))
    }

    fn open_at(&self, path: &Path) -> Result<Database, StorageError> {
        let backend = self.disk.data_backend(path)?;
        let checked = CheckedBackend::open(backend, path, self.disk.clone(), self.failures.clone())
            .map_err(|e| data_io_error("opening the checksums of", path, &e))?;
        let strict = checked.strict();
        let mut builder = Builder::new();
        builder.set_cache_size(self.cache_size);
        builder.set_repair_callback(|session| {
            debug!(
                progress = session.progress(),
                "repairing database after unclean shutdown"
            );
        });
        let db = builder.create_with_backend(checked)?;
        strict.store(true, std::sync::atomic::Ordering::Release);
        Ok(db)
    }
}

/// An I/O failure of the data file or its directory, before redb has it.
fn data_io_error(action: &str, path: &Path, err: &io::Error) -> StorageError {
    StorageError::DataFile {
        cause: format!("{action} {}: {err}", path.display()),
    }
}

#[cfg(test)]
mod checked_tests;
#[cfg(test)]
mod power_cut_tests;
