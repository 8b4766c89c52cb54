//! A disk in memory that loses power: what a file's `sync_data` made durable survives, and of
//! what was written since, a random subset (each write kept whole, dropped, or torn at 512-byte
//! sectors). Directory entries (files created, removed, renamed) are durable once their
//! directory is synced; of those not yet synced, a random prefix survives (a journaling file
//! system commits them in order). The cut happens at the `n`th mutating operation (a write, a
//! length change, a sync, a directory change), which fails, as does everything after it: the
//! process is dead. [`SimDisk::image`] is what the machine finds when it boots again.
//!
//! It also fails operations on purpose: from the `n`th one on, once or until
//! [`SimDisk::heal`], with an error of the caller's choice (EIO, ENOSPC).

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use redb::StorageBackend;

use super::Disk;
use super::DiskFile;

/// The bytes a torn write is cut into.
const SECTOR: usize = 512;

/// A write or length change not yet synced.
#[derive(Clone, Debug)]
enum Change {
    Write { offset: u64, data: Vec<u8> },
    SetLen(u64),
}

/// A directory entry change not yet synced.
#[derive(Clone, Debug)]
enum Entry {
    Link(PathBuf, usize),
    Unlink(PathBuf),
}

#[derive(Clone, Debug, Default)]
struct Inode {
    /// What a read sees.
    current: Vec<u8>,
    /// What survives a power cut for sure.
    durable: Vec<u8>,
    /// Changes since the last sync, in order.
    pending: Vec<Change>,
}

/// A planned failure.
#[derive(Clone, Copy, Debug)]
struct Fault {
    from: u64,
    kind: Option<i32>,
    once: bool,
}

#[derive(Debug, Default)]
struct State {
    inodes: Vec<Inode>,
    names: HashMap<PathBuf, usize>,
    durable_names: HashMap<PathBuf, usize>,
    pending_names: Vec<Entry>,
    /// Mutating operations so far.
    ops: u64,
    /// Cut the power at this operation.
    cut_at: Option<u64>,
    /// The disk as it was when the power went.
    cut: Option<Vec<(PathBuf, Vec<u8>)>>,
    fault: Option<Fault>,
    rng: u64,
    /// Successful syncs of the newest commit-log segment holding records: the operation
    /// each started at.
    log_syncs: Vec<u64>,
    /// Data files a database has open (redb's `FileBackend` locks its file the same way).
    locked: Vec<usize>,
}

/// The simulated disk.
#[derive(Debug, Default)]
pub(crate) struct SimDisk {
    state: Arc<Mutex<State>>,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}

impl State {
    fn random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// Counts a mutating operation: cuts the power or fails it as planned.
    fn operate(&mut self) -> io::Result<u64> {
        if self.cut.is_some() {
            return Err(io::Error::other("the power is off"));
        }
        self.ops += 1;
        if self.cut_at == Some(self.ops) {
            self.cut = Some(self.surviving());
            return Err(io::Error::other("the power is off"));
        }
        if let Some(fault) = self.fault {
            if self.ops >= fault.from {
                if fault.once {
                    self.fault = None;
                }
                let err = fault.kind.map_or_else(
                    || io::Error::other("injected"),
                    io::Error::from_raw_os_error,
                );
                return Err(err);
            }
        }
        Ok(self.ops)
    }

    /// What the files hold after a power cut now.
    fn surviving(&mut self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut names = self.durable_names.clone();
        let kept = (self.random() % (self.pending_names.len() as u64 + 1)) as usize;
        for entry in &self.pending_names[..kept] {
            match entry {
                Entry::Link(path, inode) => {
                    names.insert(path.clone(), *inode);
                }
                Entry::Unlink(path) => {
                    names.remove(path);
                }
            }
        }
        let mut files: Vec<(PathBuf, Vec<u8>)> = names
            .into_iter()
            .map(|(path, inode)| (path, self.torn(inode)))
            .collect();
        files.sort();
        files
    }

    /// An inode's durable bytes with a random subset of its pending changes, some torn.
    fn torn(&mut self, inode: usize) -> Vec<u8> {
        let mut bytes = self.inodes[inode].durable.clone();
        for change in self.inodes[inode].pending.clone() {
            match (change, self.random() % 3) {
                (_, 0) => {}
                (Change::SetLen(len), _) => bytes.resize(len as usize, 0),
                (Change::Write { offset, data }, 1) => write_into(&mut bytes, offset, &data),
                (Change::Write { offset, data }, _) => {
                    for (i, sector) in data.chunks(SECTOR).enumerate() {
                        if self.random().is_multiple_of(2) {
                            write_into(&mut bytes, offset + (i * SECTOR) as u64, sector);
                        }
                    }
                }
            }
        }
        bytes
    }

    fn inode(&self, path: &Path) -> io::Result<usize> {
        self.names
            .get(path)
            .copied()
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    /// Whether `path` is the newest commit-log segment and holds a record.
    fn newest_segment_with_records(&self, path: &Path) -> bool {
        let Some(dir) = path.parent() else {
            return false;
        };
        let segment = |p: &Path| {
            p.parent() == Some(dir)
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("CommitLog-"))
        };
        let newest = self.names.keys().filter(|p| segment(p)).max();
        newest.is_some_and(|newest| newest == path)
            && self
                .names
                .get(path)
                .is_some_and(|&inode| self.inodes[inode].current.len() > 20)
    }
}

fn write_into(bytes: &mut Vec<u8>, offset: u64, data: &[u8]) {
    let end = offset as usize + data.len();
    if bytes.len() < end {
        bytes.resize(end, 0);
    }
    bytes[offset as usize..end].copy_from_slice(data);
}

impl SimDisk {
    /// An empty disk whose random choices follow `seed`.
    pub(crate) fn new(seed: u64) -> Arc<SimDisk> {
        let disk = SimDisk::default();
        disk.lock().rng = seed | 1;
        Arc::new(disk)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Cuts the power at the `n`th mutating operation from the start.
    pub(crate) fn cut_at(&self, n: u64) {
        self.lock().cut_at = Some(n);
    }

    /// Fails mutating operations from the `n`th on (once, or until [`SimDisk::heal`]) with
    /// the OS error `errno` (or a plain I/O error).
    pub(crate) fn fail_from(&self, n: u64, errno: Option<i32>, once: bool) {
        self.lock().fault = Some(Fault {
            from: n,
            kind: errno,
            once,
        });
    }

    /// Stops failing operations.
    pub(crate) fn heal(&self) {
        self.lock().fault = None;
    }

    /// Mutating operations so far.
    pub(crate) fn ops(&self) -> u64 {
        self.lock().ops
    }

    /// Whether the power has been cut.
    pub(crate) fn is_cut(&self) -> bool {
        self.lock().cut.is_some()
    }

    /// The operations at which syncs of the newest commit-log segment (holding records)
    /// started and succeeded.
    pub(crate) fn log_syncs(&self) -> Vec<u64> {
        self.lock().log_syncs.clone()
    }

    /// The disk the machine boots from: after a cut, what survived it; else everything
    /// written (a process killed, the OS still up).
    pub(crate) fn image(&self, seed: u64) -> Arc<SimDisk> {
        let state = self.lock();
        let files = match &state.cut {
            Some(files) => files.clone(),
            None => {
                let mut files: Vec<_> = state
                    .names
                    .iter()
                    .map(|(path, &inode)| (path.clone(), state.inodes[inode].current.clone()))
                    .collect();
                files.sort();
                files
            }
        };
        drop(state);
        let disk = SimDisk::new(seed);
        {
            let mut state = disk.lock();
            for (path, bytes) in files {
                let inode = state.inodes.len();
                state.inodes.push(Inode {
                    current: bytes.clone(),
                    durable: bytes,
                    pending: Vec::new(),
                });
                state.names.insert(path.clone(), inode);
                state.durable_names.insert(path, inode);
            }
        }
        disk
    }

    fn link(&self, path: &Path) -> io::Result<Arc<dyn DiskFile>> {
        let mut state = self.lock();
        state.operate()?;
        let inode = state.inodes.len();
        state.inodes.push(Inode::default());
        state.names.insert(path.to_path_buf(), inode);
        state
            .pending_names
            .push(Entry::Link(path.to_path_buf(), inode));
        drop(state);
        Ok(self.handle(path, inode))
    }

    fn handle(&self, path: &Path, inode: usize) -> Arc<dyn DiskFile> {
        Arc::new(SimFile {
            state: self.state.clone(),
            path: path.to_path_buf(),
            inode,
        })
    }
}

/// An open file of a [`SimDisk`].
#[derive(Debug)]
struct SimFile {
    state: Arc<Mutex<State>>,
    path: PathBuf,
    inode: usize,
}

impl DiskFile for SimFile {
    fn read_at(&self, out: &mut [u8], offset: u64) -> io::Result<()> {
        let state = lock(&self.state);
        if state.cut.is_some() {
            return Err(io::Error::other("the power is off"));
        }
        let bytes = &state.inodes[self.inode].current;
        let end = offset as usize + out.len();
        let data = bytes
            .get(offset as usize..end)
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        out.copy_from_slice(data);
        Ok(())
    }

    fn write_at(&self, data: &[u8], offset: u64) -> io::Result<()> {
        let mut state = lock(&self.state);
        state.operate()?;
        let inode = &mut state.inodes[self.inode];
        write_into(&mut inode.current, offset, data);
        inode.pending.push(Change::Write {
            offset,
            data: data.to_vec(),
        });
        Ok(())
    }

    fn len(&self) -> io::Result<u64> {
        Ok(lock(&self.state).inodes[self.inode].current.len() as u64)
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let mut state = lock(&self.state);
        state.operate()?;
        let inode = &mut state.inodes[self.inode];
        inode.current.resize(len as usize, 0);
        inode.pending.push(Change::SetLen(len));
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        let mut state = lock(&self.state);
        let started = state.operate()?;
        let newest = state.newest_segment_with_records(&self.path);
        let inode = &mut state.inodes[self.inode];
        inode.durable = inode.current.clone();
        inode.pending.clear();
        if newest {
            state.log_syncs.push(started);
        }
        Ok(())
    }
}

impl Disk for SimDisk {
    fn create_dir_all(&self, _dir: &Path) -> io::Result<()> {
        Ok(())
    }

    fn is_dir(&self, path: &Path) -> bool {
        self.lock().names.keys().any(|p| p.parent() == Some(path))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        let state = self.lock();
        let mut paths: Vec<PathBuf> = state
            .names
            .keys()
            .filter(|p| p.parent() == Some(dir))
            .cloned()
            .collect();
        paths.sort();
        Ok(paths)
    }

    fn create(&self, path: &Path) -> io::Result<Arc<dyn DiskFile>> {
        self.link(path)
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn DiskFile>> {
        let inode = self.lock().inode(path)?;
        Ok(self.handle(path, inode))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        let mut state = self.lock();
        state.inode(path)?;
        state.operate()?;
        state.names.remove(path);
        state.pending_names.push(Entry::Unlink(path.to_path_buf()));
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut state = self.lock();
        let inode = state.inode(from)?;
        state.operate()?;
        state.names.remove(from);
        state.names.insert(to.to_path_buf(), inode);
        state.pending_names.push(Entry::Unlink(from.to_path_buf()));
        state
            .pending_names
            .push(Entry::Link(to.to_path_buf(), inode));
        Ok(())
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        let mut state = self.lock();
        state.operate()?;
        let (synced, rest): (Vec<Entry>, Vec<Entry>) = std::mem::take(&mut state.pending_names)
            .into_iter()
            .partition(|entry| {
                let path = match entry {
                    Entry::Link(path, _) | Entry::Unlink(path) => path,
                };
                path.parent() == Some(dir)
            });
        for entry in synced {
            match entry {
                Entry::Link(path, inode) => {
                    state.durable_names.insert(path, inode);
                }
                Entry::Unlink(path) => {
                    state.durable_names.remove(&path);
                }
            }
        }
        state.pending_names = rest;
        Ok(())
    }

    fn data_backend(&self, path: &Path) -> Result<Box<dyn StorageBackend>, redb::DatabaseError> {
        let file = match self.open(path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                self.link(path).map_err(redb::StorageError::from)?
            }
            Err(err) => return Err(redb::StorageError::from(err).into()),
        };
        let inode = self.lock().inode(path).map_err(redb::StorageError::from)?;
        let mut state = self.lock();
        if state.locked.contains(&inode) {
            return Err(redb::DatabaseError::DatabaseAlreadyOpen);
        }
        state.locked.push(inode);
        Ok(Box::new(SimBackend {
            file,
            state: self.state.clone(),
            inode,
        }))
    }
}

/// redb's view of a [`SimFile`], holding its lock until closed.
#[derive(Debug)]
struct SimBackend {
    file: Arc<dyn DiskFile>,
    state: Arc<Mutex<State>>,
    inode: usize,
}

impl StorageBackend for SimBackend {
    fn len(&self) -> Result<u64, io::Error> {
        self.file.len()
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), io::Error> {
        self.file.read_at(out, offset)
    }
    fn set_len(&self, len: u64) -> Result<(), io::Error> {
        self.file.set_len(len)
    }
    fn sync_data(&self) -> Result<(), io::Error> {
        self.file.sync_data()
    }
    fn write(&self, offset: u64, data: &[u8]) -> Result<(), io::Error> {
        self.file.write_at(data, offset)
    }
    fn close(&self) -> Result<(), io::Error> {
        lock(&self.state)
            .locked
            .retain(|&inode| inode != self.inode);
        Ok(())
    }
}
