//! The read vocabulary: which rows a read asks for, in storage's own terms, so no caller joins
//! key bytes or reasons about their bounds.
//!
//! - [`PartitionKey`]: a partition's key as stored (token, then partition-key components),
//!   encoded once.
//! - [`ClusteringPrefix`]: the encoded values of consecutive clustering columns;
//!   [`ClusteringRange`]: the rows of a partition a clustering restriction selects (an `=`/`IN`
//!   prefix and a slice bounded by prefixes, in CQL value order), also what a range
//!   tombstone covers.
//! - [`KeyRange`]: the rows a scan reads: one row, a partition, a clustering range within a
//!   partition, a token range or everything; narrowed for paging ([`KeyRange::after`]) and
//!   for skipping the rest of a partition ([`KeyRange::past_partition`]).
//! - [`Order`]: the direction of a scan.
//!
//! The layout they rest on (DESIGN.md, "Row keys"): a row key is its partition key followed by
//! its clustering components, and a static row's key is the partition key alone, so it sorts
//! first in its partition. Components are prefix-free and order-preserving, so the rows whose
//! leading clustering values equal a prefix are exactly the keys in
//! `[prefix, prefix_end(prefix))`.

mod clustering;
mod partition;
#[cfg(test)]
mod tests;

use std::ops::{Bound, RangeBounds};

use crate::encoding::key::prefix_end;

pub use clustering::ClusteringPrefix;
pub use clustering::ClusteringRange;
pub use partition::PartitionKey;

/// The direction of a scan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Order {
    /// Ascending key order.
    #[default]
    Forward,
    /// Descending key order.
    Reverse,
}

impl Order {
    /// [`Order::Reverse`] when `reversed`, else [`Order::Forward`].
    pub fn reversed_if(reversed: bool) -> Order {
        if reversed {
            Order::Reverse
        } else {
            Order::Forward
        }
    }

    /// Whether this is [`Order::Reverse`].
    pub fn is_reverse(self) -> bool {
        self == Order::Reverse
    }
}

/// What a [`KeyRange`] spans.
#[derive(Debug, Clone)]
enum Span {
    /// Exactly one key, read with a point lookup.
    Point(Vec<u8>),
    /// Every key between two bounds over encoded row keys.
    Between(Bound<Vec<u8>>, Bound<Vec<u8>>),
}

/// A range of rows of one table: what [`crate::Snapshot::scan`] reads. Built only from typed
/// parts (or from keys storage returned), so its bounds are always well-formed row-key bounds.
#[derive(Debug, Clone)]
pub struct KeyRange(Span);

/// An owned bound's borrowed form.
pub(crate) fn borrowed(bound: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    bound.as_ref().map(Vec::as_slice)
}

/// A borrowed bound's owned form.
fn owned(bound: Bound<&[u8]>) -> Bound<Vec<u8>> {
    bound.map(<[u8]>::to_vec)
}

/// Whether `key` lies between `bounds`.
pub(crate) fn holds(bounds: (Bound<&[u8]>, Bound<&[u8]>), key: &[u8]) -> bool {
    RangeBounds::<[u8]>::contains(&bounds, key)
}

/// `head ++ tail`, allocated once.
pub(crate) fn join(head: &[u8], tail: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(head.len() + tail.len());
    key.extend_from_slice(head);
    key.extend_from_slice(tail);
    key
}

/// The exclusive upper bound of every key starting with `prefix` (unbounded when none is).
pub(crate) fn prefix_end_bound(prefix: &[u8]) -> Bound<Vec<u8>> {
    prefix_end(prefix).map_or(Bound::Unbounded, Bound::Excluded)
}

impl KeyRange {
    /// Every row of the table.
    pub fn all() -> KeyRange {
        KeyRange(Span::Between(Bound::Unbounded, Bound::Unbounded))
    }

    /// The one row stored under `row_key`, a key storage gave out (a scanned row's, an index
    /// entry's base key, [`crate::row_key`]). Read with a point lookup.
    pub fn point(row_key: Vec<u8>) -> KeyRange {
        KeyRange(Span::Point(row_key))
    }

    /// The row of `partition` whose clustering columns take `clustering` (all of them; none
    /// for a table without clustering columns). Read with a point lookup: components are
    /// prefix-free, so no other row starts with this key.
    pub fn row(partition: &PartitionKey, clustering: &ClusteringPrefix) -> KeyRange {
        KeyRange(Span::Point(join(
            partition.as_bytes(),
            clustering.as_bytes(),
        )))
    }

    /// Every row of `partition`, its static row first.
    pub fn partition(partition: PartitionKey) -> KeyRange {
        let start = partition.into_bytes();
        let end = prefix_end_bound(&start);
        KeyRange(Span::Between(Bound::Included(start), end))
    }

    /// The rows of `partition` in `clustering`. A range without a lower end (in key order)
    /// starts at the partition key, so it holds the static row too.
    pub fn slice(partition: &PartitionKey, clustering: &ClusteringRange) -> KeyRange {
        let prefix = partition.as_bytes();
        let (lower, upper) = clustering.bounds();
        let start = match lower {
            Bound::Included(suffix) => Bound::Included(join(prefix, suffix)),
            Bound::Excluded(suffix) => Bound::Excluded(join(prefix, suffix)),
            Bound::Unbounded => Bound::Included(prefix.to_vec()),
        };
        let end = match upper {
            Bound::Included(suffix) => Bound::Included(join(prefix, suffix)),
            Bound::Excluded(suffix) => Bound::Excluded(join(prefix, suffix)),
            Bound::Unbounded => prefix_end_bound(prefix),
        };
        KeyRange(Span::Between(start, end))
    }

    /// The partitions whose token is at least `first` and, with an `end`, below it. Keys start
    /// with their token's order-preserving bytes, so this is one byte range.
    pub fn tokens(first: i64, end: Option<i64>) -> KeyRange {
        let key = |token: i64| crate::encoding::key::token_bytes(token).to_vec();
        let end = end.map_or(Bound::Unbounded, |end| Bound::Excluded(key(end)));
        KeyRange(Span::Between(Bound::Included(key(first)), end))
    }

    /// The range between two raw key bounds (storage's own tests).
    #[cfg(test)]
    pub(crate) fn between(start: Bound<Vec<u8>>, end: Bound<Vec<u8>>) -> KeyRange {
        KeyRange(Span::Between(start, end))
    }

    /// The range's bounds over encoded row keys.
    pub(crate) fn bounds(&self) -> (Bound<&[u8]>, Bound<&[u8]>) {
        match &self.0 {
            Span::Point(key) => (Bound::Included(key), Bound::Included(key)),
            Span::Between(start, end) => (borrowed(start), borrowed(end)),
        }
    }

    /// Whether no key can fall in the range (redb, like `BTreeMap`, must not see start > end).
    pub(crate) fn is_empty(&self) -> bool {
        match self.bounds() {
            (Bound::Included(s), Bound::Included(e)) => s > e,
            (Bound::Included(s) | Bound::Excluded(s), Bound::Excluded(e))
            | (Bound::Excluded(s), Bound::Included(e)) => s >= e,
            _ => false,
        }
    }

    /// Whether the row key `key` lies in the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        holds(self.bounds(), key)
    }

    /// Whether the first key of `partition` (its static row's) lies in the range; for a token
    /// range, whether the partition's token does.
    pub fn contains_partition(&self, partition: &PartitionKey) -> bool {
        self.contains(partition.as_bytes())
    }

    /// Whether every key of the range comes after `key` (the range has a lower end past it).
    pub fn lies_after(&self, key: &[u8]) -> bool {
        match self.bounds().0 {
            Bound::Included(start) => start > key,
            Bound::Excluded(start) => start >= key,
            Bound::Unbounded => false,
        }
    }

    /// The key of a range holding exactly one key, to be read with a point lookup.
    pub fn exact_key(&self) -> Option<&[u8]> {
        match &self.0 {
            Span::Point(key) => Some(key),
            Span::Between(Bound::Included(start), Bound::Included(end)) if start == end => {
                Some(start)
            }
            Span::Between(..) => None,
        }
    }

    /// The items of `sorted` (sorted by `key`, a row key) whose keys lie in the range.
    pub fn select<'a, T>(&self, sorted: &'a [T], key: impl Fn(&T) -> &[u8]) -> &'a [T] {
        let (start, end) = self.bounds();
        let first = sorted.partition_point(|item| match start {
            Bound::Included(start) => key(item) < start,
            Bound::Excluded(start) => key(item) <= start,
            Bound::Unbounded => false,
        });
        let rest = &sorted[first..];
        let len = rest.partition_point(|item| match end {
            Bound::Included(end) => key(item) <= end,
            Bound::Excluded(end) => key(item) < end,
            Bound::Unbounded => true,
        });
        &rest[..len]
    }

    /// What is left of the range strictly after `key` in `order` (before it, in reverse):
    /// where a page that ended at `key` resumes. `None` when nothing is left.
    pub fn after(self, key: &[u8], order: Order) -> Option<KeyRange> {
        let (start, end) = match self.0 {
            Span::Point(point) => {
                let left = match order {
                    Order::Forward => point.as_slice() > key,
                    Order::Reverse => point.as_slice() < key,
                };
                return left.then_some(KeyRange(Span::Point(point)));
            }
            Span::Between(start, end) => (start, end),
        };
        let past = |bound: &Bound<Vec<u8>>, beyond: fn(&[u8], &[u8]) -> bool| match bound {
            Bound::Included(b) | Bound::Excluded(b) => beyond(b, key),
            Bound::Unbounded => false,
        };
        let cut = Bound::Excluded(key.to_vec());
        match order {
            Order::Forward => {
                let start = if past(&start, |s, k| s > k) {
                    start
                } else {
                    cut
                };
                let empty = past(&end, |e, k| e <= k);
                (!empty).then_some(KeyRange(Span::Between(start, end)))
            }
            Order::Reverse => {
                let end = if past(&end, |e, k| e < k) { end } else { cut };
                let empty = past(&start, |s, k| s >= k);
                (!empty).then_some(KeyRange(Span::Between(start, end)))
            }
        }
    }

    /// What is left of the range after the partition whose key is `partition` (the leading
    /// bytes of one of its row keys), in `order`; `None` when nothing is.
    pub fn past_partition(&self, partition: &[u8], order: Order) -> Option<KeyRange> {
        let (start, end) = self.bounds();
        match order {
            Order::Reverse => {
                let start_past = match start {
                    Bound::Included(s) | Bound::Excluded(s) => s >= partition,
                    Bound::Unbounded => false,
                };
                let end = Bound::Excluded(partition.to_vec());
                (!start_past).then(|| KeyRange(Span::Between(owned(start), end)))
            }
            Order::Forward => {
                let next = prefix_end(partition)?;
                let end_past = match end {
                    Bound::Included(e) => e < next.as_slice(),
                    Bound::Excluded(e) => e <= next.as_slice(),
                    Bound::Unbounded => false,
                };
                (!end_past).then(|| KeyRange(Span::Between(Bound::Included(next), owned(end))))
            }
        }
    }
}

/// Ranges are equal when they hold the same keys by the same bounds (a point equals `[k, k]`).
impl PartialEq for KeyRange {
    fn eq(&self, other: &KeyRange) -> bool {
        self.bounds() == other.bounds()
    }
}

impl Eq for KeyRange {}
