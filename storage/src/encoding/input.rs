//! [`Input`]: a big-endian reader over stored bytes whose every failure is a
//! [`StorageError::Corrupt`] naming what was being read.

use crate::error::StorageError;

/// The unread rest of a stored value.
pub(crate) struct Input<'a> {
    /// What is left to read.
    pub(crate) bytes: &'a [u8],
    /// What the bytes are, for error messages ("row value", "commit log record").
    what: &'static str,
}

impl<'a> Input<'a> {
    /// A reader over `bytes`, which hold a `what`.
    pub(crate) fn new(bytes: &'a [u8], what: &'static str) -> Input<'a> {
        Input { bytes, what }
    }

    /// A `Corrupt` error about this value.
    pub(crate) fn corrupt(&self, why: impl std::fmt::Display) -> StorageError {
        StorageError::corrupt(format!("{}: {why}", self.what))
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], StorageError> {
        if self.bytes.len() < n {
            return Err(self.corrupt("truncated"));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    /// The next `N` bytes as an array.
    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], StorageError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, StorageError> {
        Ok(self.array::<1>()?[0])
    }

    pub(crate) fn u32(&mut self) -> Result<u32, StorageError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    pub(crate) fn i64(&mut self) -> Result<i64, StorageError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// A `u32` length, then that many bytes.
    pub(crate) fn prefixed(&mut self) -> Result<&'a [u8], StorageError> {
        let len = self.u32()? as usize;
        self.take(len)
    }
}
