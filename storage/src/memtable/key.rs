//! A memtable row key: short keys (most: a token, a partition key of a few bytes and a
//! clustering prefix) live inline, so the maps holding them need no allocation per key and
//! comparing one reads no other cache line; longer keys are shared, so copying a map entry
//! copies no key bytes. Either way the key takes 32 bytes, and compares, hashes and orders as
//! its bytes.
//!
//! A cassandra-stress `standard1` key (a token, then a 10-byte blob escaped and terminated)
//! is about 22 bytes: inline, it takes an allocation off each write and a cache miss off each
//! point read.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Bytes a key may have and still live inline.
const INLINE: usize = 30;

/// A row key held by the memtable (see the module documentation).
#[derive(Clone)]
pub(crate) enum MemKey {
    /// A key of at most [`INLINE`] bytes: its length, then its bytes (zero-padded).
    Inline { len: u8, bytes: [u8; INLINE] },
    /// A longer key, with its first eight bytes big-endian, so two keys (random tokens come
    /// first) rarely need their shared bytes read to be ordered.
    Shared { head: u64, bytes: Arc<[u8]> },
}

impl MemKey {
    /// The first eight bytes, big-endian, zero-padded: ordered as the bytes are.
    fn head(&self) -> u64 {
        match self {
            MemKey::Inline { bytes, .. } => head_of(bytes),
            MemKey::Shared { head, .. } => *head,
        }
    }
}

fn head_of(bytes: &[u8]) -> u64 {
    let mut head = [0u8; 8];
    let n = bytes.len().min(8);
    head[..n].copy_from_slice(&bytes[..n]);
    u64::from_be_bytes(head)
}

impl From<&[u8]> for MemKey {
    fn from(key: &[u8]) -> MemKey {
        match u8::try_from(key.len()) {
            Ok(len) if key.len() <= INLINE => {
                let mut bytes = [0u8; INLINE];
                bytes[..key.len()].copy_from_slice(key);
                MemKey::Inline { len, bytes }
            }
            _ => MemKey::Shared {
                head: head_of(key),
                bytes: Arc::from(key),
            },
        }
    }
}

impl std::ops::Deref for MemKey {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            MemKey::Inline { len, bytes } => &bytes[..usize::from(*len)],
            MemKey::Shared { bytes, .. } => bytes,
        }
    }
}

impl std::fmt::Debug for MemKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("MemKey").field(&&**self).finish()
    }
}

impl PartialEq for MemKey {
    fn eq(&self, other: &MemKey) -> bool {
        **self == **other
    }
}

impl Eq for MemKey {}

/// Hashes as the bytes do, so a map keyed by `MemKey` is searched with a `&[u8]`.
impl Hash for MemKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

/// Equality and order are the bytes' own, as `Borrow` requires.
impl Borrow<[u8]> for MemKey {
    fn borrow(&self) -> &[u8] {
        self
    }
}

impl PartialOrd for MemKey {
    fn partial_cmp(&self, other: &MemKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for MemKey {
    fn cmp(&self, other: &MemKey) -> Ordering {
        self.head()
            .cmp(&other.head())
            .then_with(|| (**self).cmp(&**other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_key_takes_32_bytes_whatever_its_length() {
        assert_eq!(std::mem::size_of::<MemKey>(), 32);
        assert!(matches!(
            MemKey::from(&[7u8; INLINE][..]),
            MemKey::Inline { .. }
        ));
        assert!(matches!(
            MemKey::from(&[7u8; INLINE + 1][..]),
            MemKey::Shared { .. }
        ));
    }

    fn key_bytes() -> impl Strategy<Value = Vec<u8>> {
        // Short and long keys, with shared prefixes and zero bytes, so the head ties often.
        prop::collection::vec(prop_oneof![Just(0u8), Just(1u8), any::<u8>()], 0..40)
    }

    proptest! {
        #[test]
        fn keys_keep_order_equality_and_bytes_of_their_bytes(a in key_bytes(), b in key_bytes()) {
            let (ka, kb) = (MemKey::from(&a[..]), MemKey::from(&b[..]));
            prop_assert_eq!(&*ka, &a[..]);
            prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
            prop_assert_eq!(ka == kb, a == b);
        }
    }
}
