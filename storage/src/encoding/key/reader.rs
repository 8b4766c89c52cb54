//! [`Reader`]: reads the bytes of an encoded component back, undoing a DESC inversion.

use crate::error::StorageError;

/// A cursor over encoded key bytes. Every byte read is XORed with `mask` (`0xFF` inside a
/// DESC component), so the body decoders never see the inversion.
#[derive(Clone)]
pub(super) struct Reader<'a> {
    input: &'a [u8],
    pos: usize,
    mask: u8,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `input`; `desc` undoes the bitwise NOT of a DESC component.
    pub(super) fn new(input: &'a [u8], desc: bool) -> Self {
        Reader {
            input,
            pos: 0,
            mask: if desc { 0xFF } else { 0x00 },
        }
    }

    /// Bytes consumed so far.
    pub(super) fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not read yet.
    pub(super) fn remaining(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }

    /// The next byte.
    pub(super) fn byte(&mut self) -> Result<u8, StorageError> {
        let b = self
            .input
            .get(self.pos)
            .ok_or_else(|| StorageError::corrupt("row key: truncated component"))?;
        self.pos += 1;
        Ok(b ^ self.mask)
    }

    /// The escaped body ahead (bytes, a zero byte escaped as `0x00 0xFF`, then `0x00
    /// terminator`) when it holds no escaped byte and this reader does not invert: its bytes,
    /// found by one scan for the first zero, the reader moved past its terminator. `None`
    /// (nothing read) otherwise.
    pub(super) fn plain_body(&mut self, terminator: u8) -> Option<&'a [u8]> {
        if self.mask != 0 {
            return None;
        }
        let rest = self.input.get(self.pos..)?;
        let zero = rest.iter().position(|&b| b == 0)?;
        if rest.get(zero + 1) != Some(&terminator) {
            return None;
        }
        self.pos += zero + 2;
        Some(&rest[..zero])
    }

    /// Runs `read` with the inversion flipped when `flip` (a reversed part inside a
    /// component), then restores it.
    pub(super) fn inverted<T>(&mut self, flip: bool, read: impl FnOnce(&mut Self) -> T) -> T {
        let mask = if flip { 0xFF } else { 0x00 };
        self.mask ^= mask;
        let out = read(self);
        self.mask ^= mask;
        out
    }

    /// The next `N` bytes.
    pub(super) fn take<const N: usize>(&mut self) -> Result<[u8; N], StorageError> {
        let mut out = [0u8; N];
        for b in &mut out {
            *b = self.byte()?;
        }
        Ok(out)
    }

    /// The next `len` bytes, checked against what is left before allocating.
    pub(super) fn take_vec(&mut self, len: usize) -> Result<Vec<u8>, StorageError> {
        if len > self.remaining() {
            return Err(StorageError::corrupt("row key: length past the end"));
        }
        (0..len).map(|_| self.byte()).collect()
    }
}
