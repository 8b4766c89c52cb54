//! A fast, non-cryptographic 64-bit hash for the request path's small in-process maps and
//! filters (table ids, row keys, partition keys).
//!
//! The standard library's SipHash resists chosen-key collisions at about 1 ns per byte plus a
//! fixed cost per hash; on a write that hashes its key and table id half a dozen times it was
//! several per cent of the request. Maps and filters use it seeded once per process
//! ([`SeededFastHasher`], which [`BuildFastHasher`] is): from a fixed state, the last word of
//! a key can be chosen to give any hash, and table ids are not only the server's (a view may
//! be created `WITH id = ...`). Seeded, the only collisions a client can make without the seed
//! are pairs (a key and the same key with bit 63 of one word and bit 4 of the next flipped,
//! which multiply and rotate carry through unchanged), so no bucket fills; maps keyed by
//! client row keys without a bound keep SipHash (the memtable).
//!
//! Words of eight bytes are folded FxHash-style (rotate, xor, multiply) and the result goes
//! through MurmurHash3's 64-bit finaliser, so every output bit depends on every input bit.

use std::hash::{BuildHasher, Hasher};

/// FxHash's multiplier.
const SEED: u64 = 0x517c_c1b7_2722_0a95;

/// The hasher; `Default` starts from a fixed state.
#[derive(Default, Clone, Copy, Debug)]
pub struct FastHasher {
    state: u64,
}

/// Builds [`FastHasher`]s for `HashMap<_, _, BuildFastHasher>`: from the process seed (see
/// [`SeededFastHasher`]). Table ids key most of these maps, and a client can choose one
/// (`CREATE MATERIALIZED VIEW ... WITH id = ...`); from a fixed state the last word of a key
/// can be chosen to give any hash at all.
pub type BuildFastHasher = SeededFastHasher;

/// A set of table ids; the writer looks its live tables up on every write.
pub(crate) type TableIds = std::collections::HashSet<uuid::Uuid, BuildFastHasher>;

/// Builds [`FastHasher`]s from a seed drawn once per process (see the module documentation
/// for what a client can still collide). Bounded maps keyed by what clients send use it too: a
/// write group's rows are at most `MAX_GROUP` keys.
#[derive(Clone, Copy, Debug)]
pub struct SeededFastHasher {
    seed: u64,
}

impl Default for SeededFastHasher {
    fn default() -> SeededFastHasher {
        static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        let seed = *SEED.get_or_init(|| std::hash::RandomState::new().hash_one(SEED_SALT));
        SeededFastHasher { seed }
    }
}

/// What the process seed hashes (any value: the standard library's keys are random).
const SEED_SALT: u64 = 0x5eed;

impl BuildHasher for SeededFastHasher {
    type Hasher = FastHasher;

    fn build_hasher(&self) -> FastHasher {
        FastHasher::seeded(self.seed)
    }
}

impl FastHasher {
    /// A hasher starting from `seed` (e.g. a per-process random value).
    pub fn seeded(seed: u64) -> FastHasher {
        FastHasher { state: seed }
    }

    fn fold(&mut self, word: u64) {
        self.state = (self.state.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.fold(bytes.len() as u64);
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.fold(u64::from_le_bytes(word));
        }
        let tail = chunks.remainder();
        if !tail.is_empty() {
            let mut word = [0u8; 8];
            word[..tail.len()].copy_from_slice(tail);
            self.fold(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.fold(n);
    }

    fn write_u128(&mut self, n: u128) {
        self.fold(n as u64);
        self.fold((n >> 64) as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.fold(n as u64);
    }

    fn finish(&self) -> u64 {
        fmix64(self.state)
    }
}

/// MurmurHash3's 64-bit finaliser: a bijection that spreads every bit over every other.
pub(crate) fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// The hash of `bytes` under the process seed.
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut hasher = BuildFastHasher::default().build_hasher();
    hasher.write(bytes);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::hash::Hash;

    #[test]
    fn trailing_zero_bytes_and_lengths_give_different_hashes() {
        let inputs: [&[u8]; 5] = [b"", b"\0", b"ab", b"ab\0", b"ab\0\0\0\0\0\0\0\0"];
        let hashes: HashSet<u64> = inputs.iter().map(|b| hash_bytes(b)).collect();
        assert_eq!(hashes.len(), inputs.len());
    }

    #[test]
    fn close_keys_spread_over_the_low_and_high_bits() {
        // 4096 consecutive big-endian integers: both ends of the hash take many values.
        let hashes: Vec<u64> = (0u32..4096).map(|i| hash_bytes(&i.to_be_bytes())).collect();
        let low: HashSet<u64> = hashes.iter().map(|h| h & 0xfff).collect();
        let high: HashSet<u64> = hashes.iter().map(|h| h >> 52).collect();
        assert!(
            low.len() > 2400 && high.len() > 2400,
            "{} {}",
            low.len(),
            high.len()
        );
    }

    #[test]
    fn a_process_seed_is_drawn_once_and_used() {
        let (a, b) = (SeededFastHasher::default(), SeededFastHasher::default());
        assert_eq!(a.hash_one(b"key"), b.hash_one(b"key"));
        // Not the fixed state's hash: the seed is used.
        let mut fixed = FastHasher::default();
        b"key".hash(&mut fixed);
        assert_ne!(a.hash_one(b"key"), fixed.finish());
    }

    #[test]
    fn a_seed_changes_the_hash() {
        let mut a = FastHasher::seeded(1);
        let mut b = FastHasher::seeded(2);
        a.write(b"key");
        b.write(b"key");
        assert_ne!(a.finish(), b.finish());
    }
}
