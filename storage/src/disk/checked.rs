//! [`CheckedBackend`]: redb's data file with a CRC-32 of every 4 KiB page, checked on every
//! read from the file, so a damaged byte is found before a value is served (redb checks its
//! own checksums only when it repairs a file after an unclean shutdown).
//!
//! The sums live in memory (4 bytes a page: 2.7 MB for a 2.7 GB file) and in a side file,
//! `<data file>.checksums`, written at every sync of the data file, before it:
//!
//! ```text
//! header := magic "CQLPGSUM" version:u32 (=1) page:u32 (=4096) state:u32 (1 open, 2 closed)
//!           crc32:u32 (over the 20 bytes before it), zeros to 4096 bytes
//! chunk  := sum:u32 * 1023 crc32:u32 (over the sums)      chunk c holds pages c*1023 ..
//! sum    := 0 unknown, else the page's CRC-32 (a CRC of 0 is stored as 1)
//! ```
//!
//! Why this is sound after a crash: the side file is synced before the data file at every
//! durable commit, so for every page redb's last durable commit can reach, the side file holds
//! that page's sum. Pages written since are not reachable from that commit (redb writes copy
//! on write, and reuses a page only after a durable commit frees it), and redb writes a page
//! before reading it again. One exception: redb's repair after an unclean shutdown reads the
//! pages of the commit being written when the machine stopped, to judge it by its own
//! checksums; those may be torn. So a store opened after an unclean shutdown (the side file
//! still says `open`) takes a mismatch during open as "unknown" and leaves it to redb, whose
//! own checksums cover every page it repairs; from then on every mismatch is damage. A page
//! with an unknown sum (a file written before this layer, a page partly written) learns its
//! sum from its first full read. Pages partly written (redb's header) are left unknown: redb
//! checksums its commit slots itself.

use std::collections::BTreeSet;
use std::fmt;
use std::io;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use redb::BackendError;
use redb::StorageBackend;

use super::failures::DiskFailures;
use super::open_existing;
use super::Disk;
use super::DiskFile;
use crate::store::locking::lock;

/// The page size the sums cover (redb's page size).
pub(crate) const PAGE: u64 = 4096;
/// Sums in one chunk of the side file.
const PER_CHUNK: u64 = 1023;
const MAGIC: &[u8; 8] = b"CQLPGSUM";
const VERSION: u32 = 1;
const OPEN: u32 = 1;
const CLOSED: u32 = 2;

/// A page whose bytes do not match their checksum: the error a read of it returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageDamage {
    /// The data file.
    pub file: PathBuf,
    /// Where the damaged page starts.
    pub offset: u64,
}

impl fmt::Display for PageDamage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Corrupted: {} (the page at offset {} fails its checksum)",
            self.file.display(),
            self.offset
        )
    }
}

impl std::error::Error for PageDamage {}

/// The page damage an I/O error carries, if it is one.
pub(crate) fn damage_of(err: &io::Error) -> Option<&PageDamage> {
    err.get_ref()
        .and_then(|inner| inner.downcast_ref::<PageDamage>())
}

/// redb's file, its pages checked against their sums.
pub(crate) struct CheckedBackend {
    inner: Box<dyn StorageBackend>,
    path: PathBuf,
    side: Arc<dyn DiskFile>,
    sums: RwLock<Vec<AtomicU32>>,
    /// Chunks of `sums` changed since the side file was last written.
    dirty: Mutex<BTreeSet<u64>>,
    /// Whether a mismatch is damage (false while a file left open by a crash is repaired).
    strict: Arc<AtomicBool>,
    /// Whether the side file still has to be marked `open` (at the first sync).
    unmarked: AtomicBool,
    /// Whether the data file has writes no successful sync has made durable: a power cut may
    /// tear them, so the side file must not be marked `closed`.
    unsynced: AtomicBool,
    failures: Arc<DiskFailures>,
}

impl fmt::Debug for CheckedBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CheckedBackend")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// The side file's path for the data file at `path`.
pub(crate) fn side_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".checksums");
    PathBuf::from(name)
}

impl CheckedBackend {
    /// Wraps `inner`, the data file at `path`, loading its sums from the side file (created
    /// if missing); the side file is marked open at the first sync.
    ///
    /// # Errors
    /// I/O failures of the side file.
    pub(crate) fn open(
        inner: Box<dyn StorageBackend>,
        path: &Path,
        disk: Arc<dyn Disk>,
        failures: Arc<DiskFailures>,
    ) -> io::Result<CheckedBackend> {
        let side_at = side_path(path);
        let (side, loaded) = match open_existing(disk.as_ref(), &side_at)? {
            Some(side) => {
                let loaded = load(side.as_ref())?;
                (side, loaded)
            }
            None => {
                let side = disk.create(&side_at)?;
                let dir = path.parent().unwrap_or_else(|| Path::new("."));
                disk.sync_dir(dir)?;
                (side, Loaded::default())
            }
        };
        let pages = inner.len()?.div_ceil(PAGE);
        let mut sums = loaded.sums;
        sums.resize(usize::try_from(pages).unwrap_or(usize::MAX), 0);
        let backend = CheckedBackend {
            inner,
            path: path.to_path_buf(),
            side,
            sums: RwLock::new(sums.into_iter().map(AtomicU32::new).collect()),
            dirty: Mutex::new(BTreeSet::new()),
            strict: Arc::new(AtomicBool::new(loaded.clean)),
            unmarked: AtomicBool::new(true),
            unsynced: AtomicBool::new(false),
            failures,
        };
        Ok(backend)
    }

    /// The flag that makes every mismatch damage: set once redb has opened the file.
    pub(crate) fn strict(&self) -> Arc<AtomicBool> {
        self.strict.clone()
    }

    fn write_header(&self, state: u32) -> io::Result<()> {
        let mut header = Vec::with_capacity(PAGE as usize);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&VERSION.to_be_bytes());
        header.extend_from_slice(&(PAGE as u32).to_be_bytes());
        header.extend_from_slice(&state.to_be_bytes());
        let crc = crc32fast::hash(&header);
        header.extend_from_slice(&crc.to_be_bytes());
        header.resize(PAGE as usize, 0);
        self.side.write_at(&header, 0)
    }

    /// Writes the changed chunks of sums to the side file and syncs it.
    ///
    /// The first one of a store also marks the side file `open`: no page can be torn by a
    /// crash before the data file's first sync (redb's repair reads only what its last
    /// durable commit reaches, and that was whole), so the mark costs no fsync at start.
    fn persist(&self) -> io::Result<()> {
        let mark = self.unmarked.swap(false, Ordering::AcqRel);
        let chunks = std::mem::take(&mut *lock(&self.dirty));
        if chunks.is_empty() && !mark {
            return Ok(());
        }
        let marked = if mark {
            self.write_header(OPEN)
        } else {
            Ok(())
        };
        let result = marked
            .and_then(|()| self.write_chunks(&chunks))
            .and_then(|()| self.side.sync_data());
        if result.is_err() {
            lock(&self.dirty).extend(chunks);
            if mark {
                self.unmarked.store(true, Ordering::Release);
            }
        }
        result
    }

    fn write_chunks(&self, chunks: &BTreeSet<u64>) -> io::Result<()> {
        let sums = self.sums.read().unwrap_or_else(|p| p.into_inner());
        let mut bytes = Vec::with_capacity(PAGE as usize);
        for &chunk in chunks {
            bytes.clear();
            let first = chunk * PER_CHUNK;
            for page in first..first + PER_CHUNK {
                let sum = usize::try_from(page)
                    .ok()
                    .and_then(|at| sums.get(at))
                    .map_or(0, |sum| sum.load(Ordering::Acquire));
                bytes.extend_from_slice(&sum.to_be_bytes());
            }
            let crc = crc32fast::hash(&bytes);
            bytes.extend_from_slice(&crc.to_be_bytes());
            self.side.write_at(&bytes, PAGE + chunk * PAGE)?;
        }
        Ok(())
    }

    /// Records `sum` for `page` (0: unknown).
    fn set_sum(&self, sums: &[AtomicU32], page: u64, sum: u32) {
        if let Some(slot) = usize::try_from(page).ok().and_then(|at| sums.get(at)) {
            if slot.swap(sum, Ordering::AcqRel) != sum {
                lock(&self.dirty).insert(page / PER_CHUNK);
            }
        }
    }

    /// Checks every whole page of `data`, read at `offset`.
    fn check(&self, offset: u64, data: &[u8]) -> io::Result<()> {
        let sums = self.sums.read().unwrap_or_else(|p| p.into_inner());
        for (page, bytes) in whole_pages(offset, data) {
            let Some(slot) = usize::try_from(page).ok().and_then(|at| sums.get(at)) else {
                continue;
            };
            let expected = slot.load(Ordering::Acquire);
            let found = page_sum(bytes);
            if expected == found {
                continue;
            }
            if expected != 0 && self.strict.load(Ordering::Acquire) {
                let damage = PageDamage {
                    file: self.path.clone(),
                    offset: page * PAGE,
                };
                self.failures.damaged(&damage);
                return Err(io::Error::new(io::ErrorKind::InvalidData, damage));
            }
            // Unknown, or read by redb's repair after a crash: learn it.
            self.set_sum(&sums, page, found);
        }
        Ok(())
    }
}

/// The sum stored for a page's bytes (never 0, which means unknown).
fn page_sum(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes).max(1)
}

/// The whole pages within `data`, which starts at file offset `offset`.
fn whole_pages(offset: u64, data: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
    let first = offset.div_ceil(PAGE);
    let end = (offset + data.len() as u64) / PAGE;
    (first..end).map(move |page| {
        let from = (page * PAGE - offset) as usize;
        (page, &data[from..from + PAGE as usize])
    })
}

/// What the side file held.
#[derive(Default)]
struct Loaded {
    sums: Vec<u32>,
    /// Whether the store that wrote it closed (a clean shutdown).
    clean: bool,
}

/// Reads the side file; a damaged chunk leaves its pages unknown, a damaged or foreign
/// header all of them.
fn load(side: &dyn DiskFile) -> io::Result<Loaded> {
    let bytes = super::read_all(side)?;
    let Some(state) = header_state(&bytes) else {
        tracing::warn!("page checksums unreadable; they are learned again as pages are read");
        return Ok(Loaded::default());
    };
    let mut sums = Vec::new();
    let mut damaged = 0;
    for chunk in bytes[PAGE as usize..].chunks(PAGE as usize) {
        let words: Vec<u32> = chunk
            .chunks_exact(4)
            .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let whole = words.len() == PER_CHUNK as usize + 1
            && crc32fast::hash(&chunk[..PER_CHUNK as usize * 4]) == words[PER_CHUNK as usize];
        if whole {
            sums.extend_from_slice(&words[..PER_CHUNK as usize]);
        } else {
            damaged += 1;
            sums.extend(std::iter::repeat_n(0, PER_CHUNK as usize));
        }
    }
    if damaged > 0 {
        tracing::warn!(
            damaged,
            "page checksum chunks unreadable; their pages are learned again"
        );
    }
    Ok(Loaded {
        sums,
        clean: state == CLOSED,
    })
}

/// The state a side file's header records, if it is whole and ours.
fn header_state(bytes: &[u8]) -> Option<u32> {
    let head = bytes.get(..24)?;
    let word = |at: usize| u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    let ours = &head[..8] == MAGIC
        && word(8) == VERSION
        && word(12) == PAGE as u32
        && crc32fast::hash(&head[..20]) == word(20);
    (ours && bytes.len() >= PAGE as usize).then(|| word(16))
}

impl StorageBackend for CheckedBackend {
    fn len(&self) -> Result<u64, io::Error> {
        self.inner.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), io::Error> {
        if let Err(err) = self.inner.read(offset, out) {
            self.failures.io_failed(&self.path, &err);
            return Err(err);
        }
        self.check(offset, out)
    }

    fn set_len(&self, len: u64) -> Result<(), io::Error> {
        let result = self.inner.set_len(len);
        let mut sums = self.sums.write().unwrap_or_else(|p| p.into_inner());
        let pages = usize::try_from(len.div_ceil(PAGE)).unwrap_or(usize::MAX);
        if pages < sums.len() {
            let from = pages as u64;
            for page in from..sums.len() as u64 {
                self.set_sum(&sums, page, 0);
            }
            // A partial last page is no longer whole.
            if !len.is_multiple_of(PAGE) {
                self.set_sum(&sums, from.saturating_sub(1), 0);
            }
            sums.truncate(pages);
        } else {
            sums.resize_with(pages, || AtomicU32::new(0));
        }
        result
    }

    fn sync_data(&self) -> Result<(), io::Error> {
        let result = self.persist().and_then(|()| self.inner.sync_data());
        match &result {
            Ok(()) => self.unsynced.store(false, Ordering::Release),
            Err(err) => self.failures.io_failed(&self.path, err),
        }
        result
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), io::Error> {
        let end = offset + data.len() as u64;
        {
            let mut sums = self.sums.write().unwrap_or_else(|p| p.into_inner());
            let pages = usize::try_from(end.div_ceil(PAGE)).unwrap_or(usize::MAX);
            if pages > sums.len() {
                sums.resize_with(pages, || AtomicU32::new(0));
            }
        }
        let result = self.inner.write(offset, data);
        match &result {
            Ok(()) => self.unsynced.store(true, Ordering::Release),
            Err(err) => self.failures.io_failed(&self.path, err),
        }
        let sums = self.sums.read().unwrap_or_else(|p| p.into_inner());
        for page in offset / PAGE..end.div_ceil(PAGE) {
            let start = page * PAGE;
            let whole = start >= offset && start + PAGE <= end;
            // A failed write, or a page partly written, leaves the page's sum unknown.
            let sum = if whole && result.is_ok() {
                let from = (start - offset) as usize;
                page_sum(&data[from..from + PAGE as usize])
            } else {
                0
            };
            self.set_sum(&sums, page, sum);
        }
        result
    }

    fn close(&self) -> Result<(), io::Error> {
        // After a failed sync the file holds writes a power cut may still tear: the next
        // open must then read redb's repair leniently, so the side file stays `open`.
        let clean = !self.unsynced.load(Ordering::Acquire);
        let persisted = self
            .persist()
            .and_then(|()| {
                if clean {
                    self.write_header(CLOSED)
                } else {
                    Ok(())
                }
            })
            .and_then(|()| self.side.sync_data());
        let closed = self.inner.close();
        persisted.and(closed)
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.inner.try_lock_range(start, end)
    }

    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, BackendError> {
        self.inner.try_lock_shared_range(start, end)
    }

    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.lock_range(start, end)
    }

    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.lock_shared_range(start, end)
    }

    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.inner.unlock_range(start, end)
    }

    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.inner.query_lock_range(start, end)
    }
}
