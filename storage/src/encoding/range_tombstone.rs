//! Range tombstones: deletions of a clustering range (or a whole partition) with a timestamp.
//! They live in `rt_<table id>`, one value per partition holding every tombstone of that
//! partition, keyed by the partition prefix (token + partition key), so a read looks them up
//! once per partition. Bounds are clustering-key suffixes (the bytes after the partition
//! prefix); `Unbounded` reaches the partition's edge.

use std::ops::Bound;

use crate::encoding::row::DeletionTime;
use crate::error::StorageError;

/// Version byte of an encoded tombstone list.
const FORMAT: u8 = 1;

/// A deletion of every clustering row of a partition between two bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeTombstone {
    /// Lower bound over encoded clustering suffixes.
    pub start: Bound<Vec<u8>>,
    /// Upper bound over encoded clustering suffixes.
    pub end: Bound<Vec<u8>>,
    /// When and as of which timestamp the range was deleted.
    pub deletion: DeletionTime,
}

impl RangeTombstone {
    /// Whether the row with clustering suffix `suffix` lies in the range.
    pub fn covers(&self, suffix: &[u8]) -> bool {
        let above = match &self.start {
            Bound::Included(s) => suffix >= s.as_slice(),
            Bound::Excluded(s) => suffix > s.as_slice(),
            Bound::Unbounded => true,
        };
        let below = match &self.end {
            Bound::Included(e) => suffix <= e.as_slice(),
            Bound::Excluded(e) => suffix < e.as_slice(),
            Bound::Unbounded => true,
        };
        above && below
    }

    /// The highest deletion timestamp among `tombstones` that covers `suffix`.
    pub fn shadowing(tombstones: &[RangeTombstone], suffix: &[u8]) -> Option<i64> {
        tombstones
            .iter()
            .filter(|t| t.covers(suffix))
            .map(|t| t.deletion.timestamp)
            .max()
    }
}

fn put_bound(out: &mut Vec<u8>, bound: &Bound<Vec<u8>>) {
    let (kind, bytes): (u8, &[u8]) = match bound {
        Bound::Unbounded => (0, &[]),
        Bound::Included(b) => (1, b),
        Bound::Excluded(b) => (2, b),
    };
    out.push(kind);
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(bytes);
}

fn take<'a>(input: &mut &'a [u8], n: usize) -> Result<&'a [u8], StorageError> {
    if input.len() < n {
        return Err(StorageError::corrupt("truncated range tombstone"));
    }
    let (head, tail) = input.split_at(n);
    *input = tail;
    Ok(head)
}

fn get_u32(input: &mut &[u8]) -> Result<u32, StorageError> {
    let mut raw = [0u8; 4];
    raw.copy_from_slice(take(input, 4)?);
    Ok(u32::from_be_bytes(raw))
}

fn get_i64(input: &mut &[u8]) -> Result<i64, StorageError> {
    let mut raw = [0u8; 8];
    raw.copy_from_slice(take(input, 8)?);
    Ok(i64::from_be_bytes(raw))
}

fn get_bound(input: &mut &[u8]) -> Result<Bound<Vec<u8>>, StorageError> {
    let kind = take(input, 1)?[0];
    let len = get_u32(input)? as usize;
    let bytes = take(input, len)?.to_vec();
    match kind {
        0 => Ok(Bound::Unbounded),
        1 => Ok(Bound::Included(bytes)),
        2 => Ok(Bound::Excluded(bytes)),
        other => Err(StorageError::corrupt(format!(
            "range tombstone bound kind {other}"
        ))),
    }
}

/// Encodes a partition's tombstones.
pub(crate) fn encode(tombstones: &[RangeTombstone]) -> Vec<u8> {
    let mut out = vec![FORMAT];
    out.extend_from_slice(&(tombstones.len() as u32).to_be_bytes());
    for t in tombstones {
        put_bound(&mut out, &t.start);
        put_bound(&mut out, &t.end);
        out.extend_from_slice(&t.deletion.timestamp.to_be_bytes());
        out.extend_from_slice(&t.deletion.local_deletion_seconds.to_be_bytes());
    }
    out
}

/// Decodes a partition's tombstones.
///
/// # Errors
/// `Corrupt` for a truncated value or an unknown version.
pub(crate) fn decode(mut input: &[u8]) -> Result<Vec<RangeTombstone>, StorageError> {
    if take(&mut input, 1)?[0] != FORMAT {
        return Err(StorageError::corrupt("unknown range tombstone format"));
    }
    let count = get_u32(&mut input)? as usize;
    let mut out = Vec::with_capacity(count.min(input.len() / 18 + 1));
    for _ in 0..count {
        let start = get_bound(&mut input)?;
        let end = get_bound(&mut input)?;
        let timestamp = get_i64(&mut input)?;
        let local_deletion_seconds = get_i64(&mut input)?;
        out.push(RangeTombstone {
            start,
            end,
            deletion: DeletionTime {
                timestamp,
                local_deletion_seconds,
            },
        });
    }
    Ok(out)
}

/// Adds `new` to `list`; a tombstone over the same range keeps the higher timestamp.
pub(crate) fn add(list: &mut Vec<RangeTombstone>, new: RangeTombstone) {
    match list
        .iter_mut()
        .find(|t| t.start == new.start && t.end == new.end)
    {
        Some(existing) if existing.deletion.timestamp >= new.deletion.timestamp => {}
        Some(existing) => *existing = new,
        None => list.push(new),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt(start: Bound<Vec<u8>>, end: Bound<Vec<u8>>, ts: i64) -> RangeTombstone {
        RangeTombstone {
            start,
            end,
            deletion: DeletionTime {
                timestamp: ts,
                local_deletion_seconds: 7,
            },
        }
    }

    #[test]
    fn round_trips_and_rejects_truncation() {
        let list = vec![
            rt(Bound::Unbounded, Bound::Unbounded, 5),
            rt(Bound::Included(vec![1, 2]), Bound::Excluded(vec![3]), -1),
        ];
        let bytes = encode(&list);
        assert_eq!(decode(&bytes).unwrap(), list);
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err());
        }
    }

    #[test]
    fn coverage_and_shadowing() {
        let list = vec![
            rt(Bound::Included(vec![2]), Bound::Excluded(vec![4]), 10),
            rt(Bound::Unbounded, Bound::Included(vec![2]), 3),
        ];
        assert_eq!(RangeTombstone::shadowing(&list, &[2]), Some(10));
        assert_eq!(RangeTombstone::shadowing(&list, &[1]), Some(3));
        assert_eq!(RangeTombstone::shadowing(&list, &[4]), None);
        let mut merged = list.clone();
        add(
            &mut merged,
            rt(Bound::Included(vec![2]), Bound::Excluded(vec![4]), 20),
        );
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].deletion.timestamp, 20);
    }
}
