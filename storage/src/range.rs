//! Ranges of encoded row keys, as reads ask for them.

use std::ops::Bound;

/// A key range of a data table: `(start, end)` bounds over encoded row keys.
pub type KeyRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// Whether no key can fall in `range` (redb, like `BTreeMap`, must not see start > end).
pub(crate) fn is_empty_range(range: &KeyRange) -> bool {
    match range {
        (Bound::Included(s), Bound::Included(e)) => s > e,
        (Bound::Included(s) | Bound::Excluded(s), Bound::Excluded(e))
        | (Bound::Excluded(s), Bound::Included(e)) => s >= e,
        _ => false,
    }
}
