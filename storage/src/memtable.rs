//! The memtable: rows written since the last flush to redb, held in memory as Cassandra holds
//! them, so a logged write costs an append and a map insert instead of a B-tree update and a
//! commit, and a flush writes many rows per redb page.
//!
//! The maps are persistent (`imbl::OrdMap`): the writer publishes a new version after each
//! group, and a reader takes the current version with one `Arc` clone. A reader's version
//! never changes under it, so a scan sees whole groups (a batch is never half visible), and
//! no lock is held while it reads.
//!
//! Two layers: `active` takes writes; `frozen` is the previous active being written to redb by
//! the flusher. A row is looked up in `active`, then `frozen`, then redb. An entry `None`
//! means the row is gone (deleted down to nothing): it hides what redb still holds.
//!
//! Ordering with redb (see `writer`): the writer publishes a version without a layer only
//! after the commit holding that layer's rows is visible to new read views; a reader takes
//! its layers before its redb view. Whatever the interleaving, a reader sees each row either
//! in a layer or in its view.

use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::{Arc, RwLock};

use imbl::OrdMap;
use uuid::Uuid;

use crate::read::KeyRange;

/// A row's encoded value (`encoding::row`), or `None` when it was removed.
pub(crate) type MemRow = Option<Arc<[u8]>>;

/// A row key: shared, so copying a map node copies no key bytes, with its first eight bytes
/// inline, so comparing two keys (random tokens come first) rarely reads either's bytes.
#[derive(Clone, Debug)]
pub(crate) struct MemKey {
    head: u64,
    bytes: Arc<[u8]>,
}

impl MemKey {
    /// The first eight bytes, big-endian, zero-padded: ordered as the bytes are.
    fn head_of(bytes: &[u8]) -> u64 {
        let mut head = [0u8; 8];
        let n = bytes.len().min(8);
        head[..n].copy_from_slice(&bytes[..n]);
        u64::from_be_bytes(head)
    }
}

impl From<&[u8]> for MemKey {
    fn from(bytes: &[u8]) -> MemKey {
        MemKey {
            head: MemKey::head_of(bytes),
            bytes: Arc::from(bytes),
        }
    }
}

impl std::ops::Deref for MemKey {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl PartialEq for MemKey {
    fn eq(&self, other: &MemKey) -> bool {
        self.head == other.head && self.bytes == other.bytes
    }
}

impl Eq for MemKey {}

impl PartialOrd for MemKey {
    fn partial_cmp(&self, other: &MemKey) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for MemKey {
    fn cmp(&self, other: &MemKey) -> std::cmp::Ordering {
        self.head
            .cmp(&other.head)
            .then_with(|| self.bytes.cmp(&other.bytes))
    }
}

/// Rows by key, for one table.
type TableRows = OrdMap<MemKey, MemRow>;

/// Rows per table collected since some point, with the bytes they hold.
#[derive(Clone, Default)]
pub(crate) struct Mem {
    tables: OrdMap<Uuid, TableRows>,
    /// Key and value bytes, plus a per-row overhead: what the layer costs in memory.
    bytes: usize,
    rows: usize,
}

/// What one row costs beyond its key and value (map nodes, `Arc`, `Vec` headers).
const ROW_OVERHEAD: usize = 64;

impl Mem {
    /// The entry for `key`, if this layer has one.
    pub(crate) fn get(&self, table: Uuid, key: &[u8]) -> Option<&MemRow> {
        self.tables.get(&table)?.get(&MemKey::from(key))
    }

    /// Sets the entry for `key`.
    pub(crate) fn insert(&mut self, table: Uuid, key: MemKey, row: MemRow) {
        let value_len = |row: &MemRow| row.as_ref().map_or(0, |r| r.len());
        let new_len = value_len(&row);
        let key_len = key.len();
        let rows = self.tables.entry(table).or_default();
        match rows.insert(key, row) {
            Some(old) => self.bytes = (self.bytes + new_len).saturating_sub(value_len(&old)),
            None => {
                self.bytes += key_len + new_len + ROW_OVERHEAD;
                self.rows += 1;
            }
        }
    }

    /// Whether the layer holds no row.
    pub(crate) fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Bytes held (estimated).
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Entries held.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Every table's rows, in key order.
    pub(crate) fn tables(&self) -> impl Iterator<Item = (Uuid, &TableRows)> {
        self.tables.iter().map(|(id, rows)| (*id, rows))
    }
}

/// The layers a reader consults before redb.
#[derive(Clone, Default)]
pub(crate) struct Layers {
    pub(crate) active: Mem,
    pub(crate) frozen: Option<Mem>,
}

impl Layers {
    /// The newest entry for `key`: `Some(None)` when the row is known gone.
    pub(crate) fn get(&self, table: Uuid, key: &[u8]) -> Option<MemRow> {
        if let Some(row) = self.active.get(table, key) {
            return Some(row.clone());
        }
        self.frozen.as_ref()?.get(table, key).cloned()
    }

    /// Whether neither layer holds a row of `table`.
    fn lacks(&self, table: Uuid) -> bool {
        let empty = |m: &Mem| m.tables.get(&table).is_none_or(OrdMap::is_empty);
        empty(&self.active) && self.frozen.as_ref().is_none_or(empty)
    }
}

/// The published layers: replaced by the writer, read by everyone.
#[derive(Default)]
pub(crate) struct Memtables {
    current: RwLock<Arc<Layers>>,
}

impl Memtables {
    /// The layers as of now.
    pub(crate) fn load(&self) -> Arc<Layers> {
        self.current
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Publishes new layers (the writer only).
    pub(crate) fn publish(&self, layers: Layers) {
        *self
            .current
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Arc::new(layers);
    }
}

/// How many entries a cursor copies out of a layer at a time.
const CHUNK: usize = 64;

/// The entries of one layer's table in a key range, in order (or reverse order), copied out
/// a chunk at a time so the iterator owns what it holds.
struct LayerCursor {
    rows: TableRows,
    start: Bound<MemKey>,
    end: Bound<MemKey>,
    reverse: bool,
    buffer: VecDeque<(MemKey, MemRow)>,
    done: bool,
}

impl LayerCursor {
    fn new(rows: TableRows, (start, end): KeyRange, reverse: bool) -> LayerCursor {
        LayerCursor {
            rows,
            start: mem_bound(&start),
            end: mem_bound(&end),
            reverse,
            buffer: VecDeque::new(),
            done: false,
        }
    }

    fn refill(&mut self) {
        let bounds = (self.start.clone(), self.end.clone());
        let chunk: Vec<(MemKey, MemRow)> = if self.reverse {
            let range = self.rows.range(bounds).rev();
            range
                .take(CHUNK)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        } else {
            let range = self.rows.range(bounds);
            range
                .take(CHUNK)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        if chunk.len() < CHUNK {
            self.done = true;
        }
        if let Some((last, _)) = chunk.last() {
            // The next chunk starts after the last key taken.
            let next = Bound::Excluded(last.clone());
            if self.reverse {
                self.end = next;
            } else {
                self.start = next;
            }
        }
        self.buffer.extend(chunk);
    }
}

fn mem_bound(bound: &Bound<Vec<u8>>) -> Bound<MemKey> {
    match bound {
        Bound::Included(v) => Bound::Included(MemKey::from(v.as_slice())),
        Bound::Excluded(v) => Bound::Excluded(MemKey::from(v.as_slice())),
        Bound::Unbounded => Bound::Unbounded,
    }
}

impl Iterator for LayerCursor {
    type Item = (MemKey, MemRow);

    fn next(&mut self) -> Option<Self::Item> {
        if self.buffer.is_empty() && !self.done {
            self.refill();
        }
        self.buffer.pop_front()
    }
}

/// Merges two sorted streams of keyed items; on equal keys the first stream's item wins and
/// the second's is skipped.
pub(crate) struct Merge<A: Iterator, B: Iterator> {
    first: std::iter::Peekable<A>,
    second: std::iter::Peekable<B>,
    reverse: bool,
}

/// A keyed item of a merged stream.
pub(crate) trait Keyed {
    /// The item's key.
    fn key(&self) -> &[u8];
}

impl Keyed for (MemKey, MemRow) {
    fn key(&self) -> &[u8] {
        &self.0
    }
}

impl<A, B> Merge<A, B>
where
    A: Iterator,
    B: Iterator,
{
    pub(crate) fn new(first: A, second: B, reverse: bool) -> Merge<A, B> {
        Merge {
            first: first.peekable(),
            second: second.peekable(),
            reverse,
        }
    }
}

impl<A, B, T> Iterator for Merge<A, B>
where
    A: Iterator<Item = T>,
    B: Iterator<Item = T>,
    T: Keyed,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let order = match (self.first.peek(), self.second.peek()) {
            (None, None) => return None,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(a), Some(b)) if self.reverse => b.key().cmp(a.key()),
            (Some(a), Some(b)) => a.key().cmp(b.key()),
        };
        match order {
            std::cmp::Ordering::Less => self.first.next(),
            std::cmp::Ordering::Greater => self.second.next(),
            std::cmp::Ordering::Equal => {
                self.second.next();
                self.first.next()
            }
        }
    }
}

/// The memtable entries of `table` in `range`, newest layer winning; `None` when the layers
/// hold nothing of the table (the common case for a table not written lately).
pub(crate) fn scan(
    layers: &Layers,
    table: Uuid,
    range: &KeyRange,
    reverse: bool,
) -> Option<Box<dyn Iterator<Item = (MemKey, MemRow)> + Send>> {
    if layers.lacks(table) {
        return None;
    }
    let cursor = |mem: &Mem| {
        let rows = mem.tables.get(&table).cloned().unwrap_or_default();
        LayerCursor::new(rows, range.clone(), reverse)
    };
    let active = cursor(&layers.active);
    Some(match &layers.frozen {
        Some(frozen) => Box::new(Merge::new(active, cursor(frozen), reverse)),
        None => Box::new(active),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: u8) -> MemRow {
        Some(Arc::from(vec![v].as_slice()))
    }

    fn keys(layers: &Layers, range: KeyRange, reverse: bool) -> Vec<(u8, Option<u8>)> {
        let table = Uuid::nil();
        scan(layers, table, &range, reverse)
            .map(|it| it.map(|(k, v)| (k[0], v.map(|v| v[0]))).collect())
            .unwrap_or_default()
    }

    fn layers() -> Layers {
        let t = Uuid::nil();
        let mut frozen = Mem::default();
        for k in 0..200u8 {
            frozen.insert(t, MemKey::from(&[k][..]), row(1));
        }
        let mut active = Mem::default();
        for k in (0..200u8).step_by(3) {
            active.insert(
                t,
                MemKey::from(&[k][..]),
                if k % 2 == 0 { None } else { row(2) },
            );
        }
        Layers {
            active,
            frozen: Some(frozen),
        }
    }

    fn expected(k: u8) -> (u8, Option<u8>) {
        match (k % 3, k % 2) {
            (0, 0) => (k, None),
            (0, _) => (k, Some(2)),
            _ => (k, Some(1)),
        }
    }

    #[test]
    fn the_active_layer_wins_and_scans_cross_chunks_both_ways() {
        let l = layers();
        let all = keys(&l, (Bound::Unbounded, Bound::Unbounded), false);
        assert_eq!(all, (0..200u8).map(expected).collect::<Vec<_>>());
        let back = keys(&l, (Bound::Unbounded, Bound::Unbounded), true);
        assert_eq!(back, (0..200u8).rev().map(expected).collect::<Vec<_>>());
        let part = keys(
            &l,
            (Bound::Excluded(vec![10]), Bound::Included(vec![150])),
            true,
        );
        assert_eq!(part, (11..=150u8).rev().map(expected).collect::<Vec<_>>());
        assert_eq!(l.get(Uuid::nil(), &[3]), Some(row(2)));
        assert_eq!(l.get(Uuid::nil(), &[6]), Some(None));
        assert_eq!(l.get(Uuid::nil(), &[7]), Some(row(1)));
        assert_eq!(l.get(Uuid::nil(), &[250]), None);
        assert!(scan(
            &l,
            Uuid::from_u128(1),
            &(Bound::Unbounded, Bound::Unbounded),
            false
        )
        .is_none());
    }

    proptest::proptest! {
        /// Keys order as their bytes do, whatever their lengths and shared prefixes.
        #[test]
        fn keys_order_as_their_bytes(
            a in proptest::collection::vec(0u8..4, 0..12),
            b in proptest::collection::vec(0u8..4, 0..12),
        ) {
            let (ka, kb) = (MemKey::from(a.as_slice()), MemKey::from(b.as_slice()));
            proptest::prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
            proptest::prop_assert_eq!(ka == kb, a == b);
        }
    }

    #[test]
    fn bytes_follow_inserts_and_overwrites() {
        let t = Uuid::nil();
        let mut m = Mem::default();
        m.insert(
            t,
            MemKey::from(&[1, 2][..]),
            Some(Arc::from(vec![0u8; 100].as_slice())),
        );
        assert_eq!((m.rows(), m.bytes()), (1, 102 + ROW_OVERHEAD));
        m.insert(
            t,
            MemKey::from(&[1, 2][..]),
            Some(Arc::from(vec![0u8; 10].as_slice())),
        );
        assert_eq!((m.rows(), m.bytes()), (1, 12 + ROW_OVERHEAD));
        m.insert(t, MemKey::from(&[1, 2][..]), None);
        assert_eq!((m.rows(), m.bytes()), (1, 2 + ROW_OVERHEAD));
    }
}
