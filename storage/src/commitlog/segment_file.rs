//! A segment file read a window at a time, so a walk over a segment of any size holds one
//! window (and the largest record) in memory rather than the whole file.

use std::io;
use std::path::Path;
use std::sync::Arc;

use super::format::Source;
use crate::disk::Disk;
use crate::disk::DiskFile;

/// Bytes read from the file in one go, at least.
const WINDOW: usize = 4 << 20;

/// A segment file and the window of it last read.
pub(super) struct SegmentFile {
    file: Arc<dyn DiskFile>,
    len: usize,
    window: Vec<u8>,
    /// Where `window` starts in the file.
    window_start: usize,
}

impl SegmentFile {
    /// Opens the segment at `path` on `disk`.
    ///
    /// # Errors
    /// I/O errors opening it or reading its length.
    pub(super) fn open(disk: &dyn Disk, path: &Path) -> io::Result<SegmentFile> {
        let file = disk.open(path)?;
        let len = usize::try_from(file.len()?)
            .map_err(|_| io::Error::from(io::ErrorKind::FileTooLarge))?;
        Ok(SegmentFile {
            file,
            len,
            window: Vec::new(),
            window_start: 0,
        })
    }
}

impl Source for SegmentFile {
    fn get(&mut self, at: usize, n: usize) -> io::Result<Option<&[u8]>> {
        let Some(end) = at.checked_add(n).filter(|&end| end <= self.len) else {
            return Ok(None);
        };
        let cached = at >= self.window_start && end <= self.window_start + self.window.len();
        if !cached {
            let size = n.max(WINDOW).min(self.len - at);
            self.window.resize(size, 0);
            self.file.read_at(&mut self.window, at as u64)?;
            self.window_start = at;
        }
        let from = at - self.window_start;
        Ok(Some(&self.window[from..from + n]))
    }

    fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_range_reads_as_the_file_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("segment");
        let bytes: Vec<u8> = (0..WINDOW * 2 + 1000).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let mut file = SegmentFile::open(&crate::disk::RealDisk, &path).unwrap();
        assert_eq!(file.len(), bytes.len());
        for (at, n) in [
            (0, 10),
            (WINDOW - 5, 10),
            (3, WINDOW * 2),
            (bytes.len() - 1, 1),
            (7, 0),
        ] {
            let got = file.get(at, n).unwrap().unwrap();
            assert_eq!(got, &bytes[at..at + n], "at {at}, {n} bytes");
        }
        assert!(file.get(bytes.len() - 1, 2).unwrap().is_none());
        assert!(file.get(usize::MAX, 2).unwrap().is_none());
    }
}
