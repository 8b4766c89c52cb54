//! Cassandra's `Murmur3Partitioner` token of a partition key.
//!
//! The hash is `MurmurHash.hash3_x64_128` from Cassandra (`utils/MurmurHash.java`), including
//! its quirk: tail bytes are read as signed Java bytes and sign-extended before they are
//! shifted into place. The token is the first 64-bit half of the hash, with `i64::MIN`
//! mapped to `i64::MAX` (`Murmur3Partitioner.normalize`), so `i64::MIN` is never the token of a
//! non-empty key.

const C1: u64 = 0x87c3_7b91_1142_53d5;
const C2: u64 = 0x4cf5_ad43_2745_937f;

/// The token of a partition key given its serialized CQL values, one per partition-key column.
///
/// A single-column key hashes the raw value bytes. A composite key hashes Cassandra's
/// `CompositeType` serialization: for each component a 2-byte big-endian length, the bytes, and
/// a `0x00` end-of-component byte. As in Cassandra, an empty single-column key has the minimum
/// token `i64::MIN` (`Murmur3Partitioner.getToken`).
///
/// Components longer than 65535 bytes cannot be part of a Cassandra key; callers reject them
/// before computing a token (their length is written truncated to 16 bits, as Java's
/// `(short)` cast would).
pub fn token_of(pk_components: &[&[u8]]) -> i64 {
    match pk_components {
        [single] => token_of_bytes(single),
        components => {
            let len: usize = components.iter().map(|c| c.len() + 3).sum();
            let mut composite = Vec::with_capacity(len);
            for component in components {
                // Truncation is Cassandra's behaviour too; see the doc comment above.
                composite.extend_from_slice(&(component.len() as u16).to_be_bytes());
                composite.extend_from_slice(component);
                composite.push(0);
            }
            token_of_bytes(&composite)
        }
    }
}

/// The token of an already serialized partition key (`Murmur3Partitioner.getToken`).
pub(crate) fn token_of_bytes(key: &[u8]) -> i64 {
    if key.is_empty() {
        return i64::MIN;
    }
    let h1 = murmur3_x64_128(key, 0).0;
    if h1 == i64::MIN {
        i64::MAX
    } else {
        h1
    }
}

fn fmix(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^= k >> 33;
    k
}

/// A tail byte as Java reads it: signed, then sign-extended to 64 bits.
fn java_byte(b: u8) -> u64 {
    i64::from(b as i8) as u64
}

fn mix_k1(k1: u64) -> u64 {
    k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2)
}

fn mix_k2(k2: u64) -> u64 {
    k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1)
}

/// Cassandra's `MurmurHash.hash3_x64_128(key, 0, key.length, seed)`, returning `(h1, h2)`.
pub(crate) fn murmur3_x64_128(key: &[u8], seed: u64) -> (i64, i64) {
    let mut h1 = seed;
    let mut h2 = seed;
    let mut blocks = key.chunks_exact(16);
    for block in &mut blocks {
        let (lo, hi) = block.split_at(8);
        let k1 = u64::from_le_bytes(lo.try_into().unwrap_or([0; 8]));
        let k2 = u64::from_le_bytes(hi.try_into().unwrap_or([0; 8]));
        h1 ^= mix_k1(k1);
        h1 = h1.rotate_left(27).wrapping_add(h2);
        h1 = h1.wrapping_mul(5).wrapping_add(0x52dc_e729);
        h2 ^= mix_k2(k2);
        h2 = h2.rotate_left(31).wrapping_add(h1);
        h2 = h2.wrapping_mul(5).wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    let mut k1 = 0u64;
    let mut k2 = 0u64;
    for (i, &b) in tail.iter().enumerate().rev() {
        if i >= 8 {
            k2 ^= java_byte(b) << ((i - 8) * 8);
        } else {
            k1 ^= java_byte(b) << (i * 8);
        }
    }
    if tail.len() > 8 {
        h2 ^= mix_k2(k2);
    }
    if !tail.is_empty() {
        h1 ^= mix_k1(k1);
    }
    let len = key.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1 as i64, h2 as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use scylla::routing::partitioner::{Murmur3Partitioner, Partitioner, PartitionerHasher};

    /// The driver's token for a composite key, fed the way the driver's
    /// `calculate_token_for_partition_key` feeds it (length, bytes, 0x00 per component).
    fn driver_token(components: &[Vec<u8>]) -> i64 {
        let mut hasher = Murmur3Partitioner.build_hasher();
        if let [single] = components {
            hasher.write(single);
        } else {
            for c in components {
                hasher.write(&(c.len() as u16).to_be_bytes());
                hasher.write(c);
                hasher.write(&[0]);
            }
        }
        hasher.finish().value()
    }

    #[test]
    fn known_tokens_from_the_driver_tests() {
        for (key, token) in [
            ("test", -6017608668500074083),
            ("xd", 4507812186440344727),
            ("primary_key", -1632642444691073360),
            ("kremówki", 4354931215268080151),
        ] {
            assert_eq!(token_of(&[key.as_bytes()]), token, "{key}");
        }
    }

    #[test]
    fn tails_with_high_bytes_use_signed_bytes() {
        for len in 1..=33 {
            let key: Vec<u8> = (0..len)
                .map(|i| 0x80u8.wrapping_add((i as u8).wrapping_mul(37)))
                .collect();
            assert_eq!(
                token_of(&[&key]),
                driver_token(std::slice::from_ref(&key)),
                "len {len}"
            );
        }
    }

    #[test]
    fn empty_key_has_minimum_token() {
        assert_eq!(token_of(&[b""]), i64::MIN);
    }

    proptest! {
        #[test]
        fn single_keys_match_the_driver(key in proptest::collection::vec(any::<u8>(), 1..80)) {
            prop_assert_eq!(token_of(&[&key]), driver_token(std::slice::from_ref(&key)));
        }

        #[test]
        fn composite_keys_match_the_driver(
            parts in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 2..4)
        ) {
            let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
            prop_assert_eq!(token_of(&refs), driver_token(&parts));
        }
    }
}
