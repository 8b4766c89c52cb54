//! A blocked Bloom filter: every bit of a key lies in one 64-byte line chosen by its hash, so
//! testing a key costs one cache miss and a multiplication instead of seven of each and seven
//! divisions. Used in memory by `crate::writer::key_filter` and stored with every sorted run
//! (`crate::runs`), so its layout ([`Bloom::to_bytes`]) and the hash stored filters are fed
//! ([`stored_key_hash`]) are part of the storage format.

use std::hash::Hasher;

use crate::error::StorageError;
use crate::hash::fast::fmix64;
use crate::hash::fast::FastHasher;

/// The fixed seed of [`stored_key_hash`].
const STORED_SEED: u64 = 0x7275_6e5f_6b65_7973;

/// The hash of a row key in a stored filter: the fast hash under a fixed seed, the same in
/// every process (the process-seeded `fast_hash::hash_bytes` would not find a key after a
/// restart). Keys chosen to collide only cost a false "may hold", a lookup.
pub(crate) fn stored_key_hash(key: &[u8]) -> u64 {
    let mut hasher = FastHasher::seeded(STORED_SEED);
    hasher.write(key);
    hasher.finish()
}

/// Bits per key (with [`PROBES`]: about 1 % false positives).
const BITS_PER_KEY: usize = 10;

/// Bits tested per key.
const PROBES: u64 = 7;

/// Bits in one line: a cache line.
const LINE_BITS: u64 = 512;

/// A Bloom filter sized for `capacity` keys: lines of [`LINE_BITS`] bits, a key's [`PROBES`]
/// bits in the line its hash picks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bloom {
    lines: Vec<[u64; 8]>,
    /// Keys it was sized for.
    pub(crate) capacity: usize,
    /// Keys added.
    pub(crate) keys: usize,
}

impl Bloom {
    /// An empty filter for `capacity` keys.
    pub(crate) fn new(capacity: usize) -> Bloom {
        let lines = (capacity * BITS_PER_KEY).div_ceil(LINE_BITS as usize);
        Bloom {
            lines: vec![[0; 8]; lines.max(1)],
            capacity,
            keys: 0,
        }
    }

    /// The line of `hash` among `lines` (multiply-shift: the hash's high bits scaled to the
    /// line count) and the word and mask of each probe in it, nine bits each of a second mix
    /// of the hash.
    fn probes(lines: usize, hash: u64) -> (usize, impl Iterator<Item = (usize, u64)>) {
        let line = ((u128::from(hash) * lines as u128) >> 64) as usize;
        let bits = fmix64(hash ^ 0x9e37_79b9_7f4a_7c15);
        let probes = (0..PROBES).map(move |i| {
            let bit = (bits >> (9 * i)) % LINE_BITS;
            ((bit / 64) as usize, 1u64 << (bit % 64))
        });
        (line, probes)
    }

    /// Whether a key of this hash may have been added (never `false` for one that was).
    pub(crate) fn may_hold(&self, hash: u64) -> bool {
        let (line, mut probes) = Bloom::probes(self.lines.len(), hash);
        let words = &self.lines[line];
        probes.all(|(word, mask)| words[word] & mask != 0)
    }

    /// Adds a key by its hash.
    pub(crate) fn add(&mut self, hash: u64) {
        let (line, probes) = Bloom::probes(self.lines.len(), hash);
        let words = &mut self.lines[line];
        for (word, mask) in probes {
            words[word] |= mask;
        }
        self.keys += 1;
    }

    /// The stored form: `capacity:u64 keys:u64` then every line's eight words, little-endian.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + self.lines.len() * 64);
        out.extend_from_slice(&(self.capacity as u64).to_le_bytes());
        out.extend_from_slice(&(self.keys as u64).to_le_bytes());
        for line in &self.lines {
            for word in line {
                out.extend_from_slice(&word.to_le_bytes());
            }
        }
        out
    }

    /// Reads [`Bloom::to_bytes`] back.
    ///
    /// # Errors
    /// [`StorageError::Corrupt`] for a length that is not a header and whole lines.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Bloom, StorageError> {
        let corrupt = || StorageError::corrupt("run filter");
        let (header, body) = bytes.split_at_checked(16).ok_or_else(corrupt)?;
        if body.is_empty() || body.len() % 64 != 0 {
            return Err(corrupt());
        }
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
        let lines = body
            .chunks_exact(64)
            .map(|line| {
                let mut words = [0u64; 8];
                for (w, b) in words.iter_mut().zip(line.chunks_exact(8)) {
                    *w = word(b);
                }
                words
            })
            .collect();
        Ok(Bloom {
            lines,
            capacity: usize::try_from(word(&header[..8])).map_err(|_| corrupt())?,
            keys: usize::try_from(word(&header[8..])).map_err(|_| corrupt())?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::stored_key_hash as hash_bytes;
    use super::*;

    #[test]
    fn a_filter_survives_its_stored_form() {
        let mut bloom = Bloom::new(1000);
        for i in 0u32..1000 {
            bloom.add(hash_bytes(&i.to_be_bytes()));
        }
        let back = Bloom::from_bytes(&bloom.to_bytes()).unwrap();
        assert_eq!(back, bloom);
        assert!((0u32..1000).all(|i| back.may_hold(hash_bytes(&i.to_be_bytes()))));
        let false_positives = (1000u32..11_000)
            .filter(|i| back.may_hold(hash_bytes(&i.to_be_bytes())))
            .count();
        assert!(false_positives < 300, "{false_positives} false positives");
    }

    #[test]
    fn damaged_stored_forms_are_refused() {
        let bytes = Bloom::new(10).to_bytes();
        assert!(Bloom::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(Bloom::from_bytes(&bytes[..16]).is_err());
        assert!(Bloom::from_bytes(&[]).is_err());
    }

    /// Stored filters were built with this hash: a change to it must be a format change.
    #[test]
    fn the_stored_hash_does_not_change() {
        let pinned = hash_bytes(b"\x80\x00\x00\x00\x00\x00\x00\x01\x01key\x00\x01");
        assert_eq!(
            pinned, PINNED_HASH,
            "the stored key hash changed: {pinned:#x}"
        );
    }

    const PINNED_HASH: u64 = 0x9e52_a027_c332_b0b9;
}
