//! Clustering prefixes and the clustering ranges they bound.

use std::ops::Bound;

use bytes::Bytes;

use crate::catalog::ClusteringOrder;
use crate::catalog::TableDef;
use crate::encoding::key::append_clustering;
use crate::encoding::key::prefix_end;
use crate::error::StorageError;
use crate::range::borrowed;
use crate::range::holds;
use crate::range::join;
use crate::range::prefix_end_bound;

/// The encoded values of consecutive clustering columns, as they follow the partition key in
/// a row key (a DESC column's component inverted). Prefixes of the same columns compare as
/// the rows they lead sort: byte order is the columns' CQL order, each in its direction.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClusteringPrefix(pub(super) Vec<u8>);

impl ClusteringPrefix {
    /// The components of `values` for the clustering columns of `table` from position `first`
    /// on (one value per column, serialized).
    ///
    /// # Errors
    /// More values than columns from `first`, a value of the wrong width, or a type that
    /// cannot be keyed.
    pub fn encode(
        table: &TableDef,
        first: usize,
        values: &[Bytes],
    ) -> Result<ClusteringPrefix, StorageError> {
        // Room for each value with its tag and terminator (escapes or wider bodies may grow it).
        let mut out = Vec::with_capacity(values.iter().map(|v| v.len() + 3).sum());
        append_clustering(table, first, values, &mut out)?;
        Ok(ClusteringPrefix(out))
    }

    /// Appends `next`, the prefix of the columns that follow this one's.
    pub fn append(&mut self, next: &ClusteringPrefix) {
        self.0.extend_from_slice(&next.0);
    }

    /// The encoded components.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// The rows of a partition a clustering restriction selects, as bounds over the clustering
/// suffix of their keys (the bytes after the partition key). Range tombstones store these
/// bounds (`encoding/range_tombstone.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusteringRange {
    start: Bound<Vec<u8>>,
    end: Bound<Vec<u8>>,
}

impl ClusteringRange {
    /// Every row whose leading clustering values are `prefix`; for the empty prefix, every
    /// row (from the static row's empty suffix on).
    pub fn prefix(prefix: ClusteringPrefix) -> ClusteringRange {
        let end = prefix_end_bound(&prefix.0);
        ClusteringRange {
            start: Bound::Included(prefix.0),
            end,
        }
    }

    /// The rows under `prefix` whose next clustering columns, compared as a tuple in CQL value
    /// order, lie between `lower` and `upper` (prefixes of those columns; a shorter bound
    /// compares as every row it leads). `order` is those columns' direction (all alike): a
    /// descending slice has its CQL lower end at the high end of the bytes.
    pub fn slice(
        prefix: &ClusteringPrefix,
        lower: Bound<&ClusteringPrefix>,
        upper: Bound<&ClusteringPrefix>,
        order: ClusteringOrder,
    ) -> ClusteringRange {
        let (low, high) = match order {
            ClusteringOrder::Desc => (upper, lower),
            ClusteringOrder::Asc | ClusteringOrder::None => (lower, upper),
        };
        let key = |bound: &ClusteringPrefix| join(&prefix.0, &bound.0);
        let start = match low {
            Bound::Unbounded => Bound::Included(prefix.0.clone()),
            Bound::Included(bound) => Bound::Included(key(bound)),
            // Past every row the bound leads.
            Bound::Excluded(bound) => {
                let key = key(bound);
                match prefix_end(&key) {
                    Some(end) => Bound::Included(end),
                    None => Bound::Excluded(key),
                }
            }
        };
        let end = match high {
            Bound::Unbounded => prefix_end_bound(&prefix.0),
            Bound::Included(bound) => prefix_end_bound(&key(bound)),
            Bound::Excluded(bound) => Bound::Excluded(key(bound)),
        };
        ClusteringRange { start, end }
    }

    /// Whether the row with clustering suffix `suffix` lies in the range.
    pub fn contains(&self, suffix: &[u8]) -> bool {
        holds((borrowed(&self.start), borrowed(&self.end)), suffix)
    }

    /// The bounds over clustering suffixes, as a range tombstone stores them.
    pub fn bounds(&self) -> (&Bound<Vec<u8>>, &Bound<Vec<u8>>) {
        (&self.start, &self.end)
    }

    /// A tombstone deleting every row of this range, as of `deletion`.
    pub fn tombstone(&self, deletion: crate::DeletionTime) -> crate::RangeTombstone {
        crate::RangeTombstone {
            start: self.start.clone(),
            end: self.end.clone(),
            deletion,
        }
    }
}
