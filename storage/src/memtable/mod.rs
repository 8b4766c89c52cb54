//! The memtable: rows written since the last flush to redb, held in memory as Cassandra holds
//! them, so a logged write costs an append and a map insert instead of a B-tree update and a
//! commit, and a flush writes many rows per redb page.
//!
//! Each layer holds, per table under a lock, *versions*: every row a group writes is stored
//! under its key and the group's sequence number, and older versions stay until the layer is
//! flushed. The writer inserts a group's rows, then makes its number visible; a reader takes
//! the visible number once and reads, for each key, its newest version at or below it. So a
//! reader's view never changes under it, a scan sees whole groups (a batch is never half
//! visible), and locks are held for one lookup or one chunk of a scan. Point lookups probe
//! hash maps (each key's newest version, then the versions it replaced); scans read an
//! ordered map of the versions, which the first scan after writes brings up to date (see
//! [`TableRows`]).
//!
//! Two layers: `active` takes writes; `frozen` is the previous active being written to redb by
//! the flusher. A row is looked up in `active`, then `frozen`, then redb. An entry `None`
//! means the row is gone (deleted down to nothing): it hides what redb still holds.
//!
//! Once flushed, the frozen layer stays as `clean` until the next flush starts or any other
//! redb commit: its rows are then exactly what redb holds for their keys, so a point lookup
//! that misses the newer layers finds a recently written row there (a hash probe) instead of
//! walking redb's B-tree. Scans skip it: redb holds the same rows in order. Memory stays within
//! two layers: `clean` goes when the next `frozen` comes, or as soon as it and `active` hold
//! more than a layer and a half, and a layer of large rows (over 16 KiB on average) is never
//! kept (as RocksDB's flush-only block cache prepopulation, or a page cache holding what was
//! just written).
//!
//! Ordering with redb (see `writer`): the writer publishes layers without `frozen` only after
//! the commit holding its rows is visible to new read views; a reader takes its number, then
//! its layers, then its redb view. Whatever the interleaving, a reader sees each row either
//! in a layer or in its view, as of one group.

pub(crate) mod apply;
pub(crate) mod arena;
pub(crate) mod key;
#[cfg(test)]
pub(crate) mod store_tests;

use std::cmp::Reverse;
use std::collections::hash_map::{DefaultHasher, RandomState};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::BuildHasher;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use indexmap::map::Entry;
use indexmap::map::RawEntryApiV1;
use indexmap::IndexMap;
use uuid::Uuid;

use crate::hash::fast::BuildFastHasher;
pub(crate) use crate::memtable::key::MemKey;
use crate::range::KeyRange;
use crate::range::Order;

/// A row's encoded value (`encoding::row`), or `None` when it was removed.
pub(crate) type MemRow = Option<bytes::Bytes>;

/// A version of a row: its key, then the group that wrote it, newest first.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct VersionKey {
    key: MemKey,
    seq: Reverse<u64>,
}

/// One table's rows in a layer. Each key's newest version is in a hash map, and the versions
/// it replaced in a second one, so a point lookup (a read, or the writer's merge) costs a hash
/// probe or two whatever the reader's group. The versions in key order (scans) are kept
/// lazily: the first scan after writes sorts what was written since into `versions` (under
/// the layer's write lock, see [`LayerCursor`]). A write so costs a hash insert instead of a
/// walk down an ordered map holding the whole layer (measured: the ordered-map insert was a
/// tenth of a write's server CPU under cassandra-stress, cache misses for keys in random
/// token order). The hash is SipHash with a per-process key, as row keys come from clients.
#[derive(Default)]
struct TableRows {
    /// Every version sorted so far, in key order, newest first for each key.
    versions: BTreeMap<VersionKey, MemRow>,
    /// Each key's newest version, in the order keys were first written, so that the keys
    /// written since the last sort are a slice of it and need no list of their own. Its hash
    /// table holds only indices: for a layer of a hundred thousand keys it is about a
    /// megabyte, where a map holding the entries themselves spreads them over ten.
    newest: IndexMap<MemKey, (u64, MemRow), KeyHasher>,
    /// `newest`'s entries from this index on hold keys first written since the last sort.
    sorted_keys: usize,
    /// The other versions written since the last sort: new versions of keys sorted before,
    /// and versions a key's newest replaced before it was sorted.
    unsorted: Vec<(VersionKey, MemRow)>,
    /// `unsorted`'s entries before this index are sorted already (a sort in steps).
    unsorted_done: usize,
    /// The versions each key held before its newest (only keys written by several groups).
    older: HashMap<MemKey, Vec<(u64, MemRow)>, RandomState>,
}

/// The hasher of every layer's newest-version maps: SipHash under one random key for the
/// whole process (row keys come from clients), so that a reader hashes a key once and probes
/// every layer with that hash ([`key_hash`]).
#[derive(Clone)]
struct KeyHasher(RandomState);

impl Default for KeyHasher {
    fn default() -> KeyHasher {
        static KEYS: std::sync::OnceLock<RandomState> = std::sync::OnceLock::new();
        KeyHasher(KEYS.get_or_init(RandomState::new).clone())
    }
}

impl BuildHasher for KeyHasher {
    type Hasher = DefaultHasher;

    fn build_hasher(&self) -> DefaultHasher {
        self.0.build_hasher()
    }
}

/// The hash every layer's maps give `key` (for [`Mem::newest_hashed`]).
pub(crate) fn key_hash(key: &[u8]) -> u64 {
    KeyHasher::default().hash_one(key)
}

/// The version of `key` written by group `seq`.
fn version(key: &MemKey, seq: u64) -> VersionKey {
    VersionKey {
        key: key.clone(),
        seq: Reverse(seq),
    }
}

/// `versions` as an ordered map; of equal versions, the one that came last stays (a stable
/// sort, then each run of equal versions' last).
fn sorted_last_wins(mut versions: Vec<(VersionKey, MemRow)>) -> BTreeMap<VersionKey, MemRow> {
    versions.sort_by(|(a, _), (b, _)| a.cmp(b));
    let mut sorted: Vec<(VersionKey, MemRow)> = Vec::with_capacity(versions.len());
    for (version, row) in versions {
        match sorted.last_mut() {
            Some(last) if last.0 == version => last.1 = row,
            _ => sorted.push((version, row)),
        }
    }
    sorted.into_iter().collect()
}

impl TableRows {
    /// The newest version of `key` (whose [`key_hash`] is `hash`) written by a group up to
    /// `upto`.
    fn newest(&self, hash: u64, key: &[u8], upto: u64) -> Option<&MemRow> {
        let (_, (seq, row)) = self
            .newest
            .raw_entry_v1()
            .from_key_hashed_nocheck(hash, key)?;
        self.as_of(key, *seq, row, upto)
    }

    /// The version of `key` a reader of group `upto` sees, given its newest (`seq`, `row`):
    /// the newest itself, or, when a group newer than the reader wrote it, an older one,
    /// found from the newest end (a reader lags a group or two behind a hot key's writes).
    fn as_of<'r>(&'r self, key: &[u8], seq: u64, row: &'r MemRow, upto: u64) -> Option<&'r MemRow> {
        if seq <= upto {
            return Some(row);
        }
        self.older
            .get(key)?
            .iter()
            .rev()
            .find(|(seq, _)| *seq <= upto)
            .map(|(_, row)| row)
    }

    /// Adds a version; `false` when the layer already held this key at this group (the new
    /// row replaces it).
    fn insert(&mut self, key: MemKey, seq: u64, row: MemRow) -> bool {
        let mut entry = match self.newest.entry(key) {
            Entry::Vacant(slot) => {
                slot.insert((seq, row));
                return true;
            }
            Entry::Occupied(entry) => entry,
        };
        // Whether the key's versions so far are sorted (else its entry is sorted later,
        // with whatever version it then holds).
        let sorted = entry.index() < self.sorted_keys;
        let newest_seq = entry.get().0;
        if newest_seq == seq {
            if sorted {
                // Sorting keeps the last of equal versions.
                self.unsorted.push((version(entry.key(), seq), row.clone()));
            }
            entry.get_mut().1 = row;
            return false;
        }
        let key = entry.key().clone();
        let older = if newest_seq < seq {
            let replaced = std::mem::replace(entry.get_mut(), (seq, row.clone()));
            // The entry now stands for the new version; whichever of the two is not sorted
            // yet, and will not be with the entry, waits in `unsorted`.
            let waiting = if sorted { (seq, row) } else { replaced.clone() };
            self.unsorted.push((version(&key, waiting.0), waiting.1));
            replaced
        } else {
            // An older group's version, under newer ones (a failed flush's rows): its place in
            // the ascending list of older versions.
            self.unsorted.push((version(&key, seq), row.clone()));
            let list = self.older.entry(key).or_default();
            let at = list.partition_point(|(older, _)| *older < seq);
            debug_assert!(list.get(at).is_none_or(|(older, _)| *older != seq));
            list.insert(at, (seq, row));
            return true;
        };
        // Ascending: a version replaced by a newer group's is newer than those it replaced.
        self.older
            .entry(key)
            .or_insert_with(|| Vec::with_capacity(1))
            .push(older);
        true
    }

    /// Whether every version is in `versions`.
    fn is_sorted(&self) -> bool {
        self.sorted_keys == self.newest.len() && self.unsorted_done == self.unsorted.len()
    }

    /// The versions not sorted yet: the newest of keys first written since the last sort,
    /// then the others (equal versions in the order they were written).
    fn unsorted_versions(&self) -> impl Iterator<Item = (VersionKey, MemRow)> + '_ {
        let fresh = self.fresh(self.sorted_keys..self.newest.len());
        fresh.chain(self.unsorted[self.unsorted_done..].iter().cloned())
    }

    /// The newest versions of `newest`'s entries in `range` (keys first written since the
    /// last sort), as versions to sort.
    fn fresh(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (VersionKey, MemRow)> + '_ {
        self.newest
            .get_range(range)
            .into_iter()
            .flatten()
            .map(|(key, (seq, row))| (version(key, *seq), row.clone()))
    }

    /// Sorts the versions written since the last sort into `versions`.
    #[cfg(test)]
    fn order(&mut self) {
        while !self.order_some(usize::MAX) {}
    }

    /// Sorts up to `limit` of the versions written since the last sort into `versions`: the
    /// keys first written since, in the order they came, then the other versions, in the order
    /// they came (so that of equal versions the last stays). Whether all are sorted now.
    fn order_some(&mut self, limit: usize) -> bool {
        let fresh_end = self
            .newest
            .len()
            .min(self.sorted_keys.saturating_add(limit));
        let left = limit - (fresh_end - self.sorted_keys);
        let unsorted_end = self
            .unsorted
            .len()
            .min(self.unsorted_done.saturating_add(left));
        let fresh = self.fresh(self.sorted_keys..fresh_end);
        let others = self.unsorted[self.unsorted_done..unsorted_end]
            .iter()
            .cloned();
        let added: Vec<(VersionKey, MemRow)> = fresh.chain(others).collect();
        if added.len().saturating_mul(8) >= self.versions.len() {
            // Many: one sort and a merge (`append` keeps the added row of a version both hold).
            let mut sorted = sorted_last_wins(added);
            self.versions.append(&mut sorted);
        } else {
            // `extend` inserts in order: the last row of a version stays.
            self.versions.extend(added);
        }
        self.sorted_keys = fresh_end;
        self.unsorted_done = unsorted_end;
        if self.unsorted_done == self.unsorted.len() {
            self.unsorted.clear();
            self.unsorted_done = 0;
        }
        self.is_sorted()
    }

    /// Every version, sorted or not (a version both sorted and rewritten since comes twice,
    /// its latest row last).
    fn all_versions(&self) -> impl Iterator<Item = (VersionKey, MemRow)> + '_ {
        let sorted = self
            .versions
            .iter()
            .map(|(v, row)| (v.clone(), row.clone()));
        sorted.chain(self.unsorted_versions())
    }

    /// Whether the table holds no version.
    fn is_empty(&self) -> bool {
        self.newest.is_empty()
    }

    /// Each key's newest version, in the order keys were first written.
    fn latest(&self) -> Vec<(MemKey, MemRow)> {
        self.newest
            .iter()
            .map(|(key, (_, row))| (key.clone(), row.clone()))
            .collect()
    }

    /// Each key's version as of group `upto`, unordered; `skip` leaves out keys a newer layer
    /// holds a version of.
    fn visible(&self, upto: u64, skip: impl Fn(&[u8]) -> bool) -> Vec<(MemKey, MemRow)> {
        self.newest
            .iter()
            .filter(|(key, _)| !skip(key))
            .filter_map(|(key, (seq, row))| {
                let row = self.as_of(key, *seq, row, upto)?;
                Some((key.clone(), row.clone()))
            })
            .collect()
    }
}

/// One layer: row versions per table, with the bytes they hold.
#[derive(Default)]
pub(crate) struct Mem {
    tables: HashMap<Uuid, TableRows, BuildFastHasher>,
    /// Key and value bytes, plus a per-version overhead: what the layer costs in memory.
    bytes: usize,
    versions: usize,
}

/// What one version costs beyond its key and value, estimated: a key's first version takes
/// its `IndexMap` entry (hash, key, row: 80 bytes) and index slot, and its ordered-map entry
/// and node share once a scan sorts it (about 100 bytes); a version a later group replaced
/// takes an entry in its key's list of older versions and one in the list waiting for a
/// sort instead; a long key adds its `Arc` (short keys are inline: see `mem_key`). The
/// figure has stayed where it was measured against the structures before (with an ordered
/// map filled at every write, 200,000 versions of 22-byte keys and 200-byte
/// values cost 449 bytes each against an estimate of 382, when each row had an allocation of
/// its own; counting them at 224 made layers a sixth smaller and dropped the clean layer
/// sooner, point reads after a load of 100,000 rows costing 7.1-8.6 us of server CPU instead
/// of 6.1-6.4). A write-once layer that is never scanned costs less than this; a rewritten
/// key that is scanned, more. Measured again with a layer never flushed, after
/// 200,000 cassandra-stress `standard1` rows (22-byte keys, 269-byte rows, counted at 451
/// bytes each): 401 bytes of RSS a row. (Keeping new rows as slices of their commit-log
/// requests instead of copies made it 469, the requests' table ids, keys and lengths pinned
/// with them, and more where a request's other rows were not taken: rows are copied.)
const ROW_OVERHEAD: usize = 160;

impl Mem {
    /// The newest version of `key` written by a group up to `upto`, if this layer has one.
    #[cfg(test)]
    pub(crate) fn newest(&self, table: Uuid, key: &[u8], upto: u64) -> Option<&MemRow> {
        self.newest_hashed(table, key_hash(key), key, upto)
    }

    /// The newest version of `key`, whose [`key_hash`] is `hash` (computed once for all
    /// layers), written by a group up to `upto`, if this layer has one.
    pub(crate) fn newest_hashed(
        &self,
        table: Uuid,
        hash: u64,
        key: &[u8],
        upto: u64,
    ) -> Option<&MemRow> {
        self.tables.get(&table)?.newest(hash, key, upto)
    }

    /// Adds the version of `key` written by group `seq`.
    pub(crate) fn insert(&mut self, table: Uuid, key: MemKey, seq: u64, row: MemRow) {
        let added = key.len() + row.as_ref().map_or(0, |r| r.len()) + ROW_OVERHEAD;
        if self.tables.entry(table).or_default().insert(key, seq, row) {
            self.bytes += added;
            self.versions += 1;
        }
    }

    /// An empty layer whose tables' hash maps are sized for as many keys as `previous` held:
    /// the next layer usually takes as many, and growing a map of a hundred thousand keys
    /// moves every entry again (measured: an eighth of the writer's memtable time).
    pub(crate) fn sized_like(previous: &Mem) -> Mem {
        let tables = previous
            .tables
            .iter()
            .map(|(table, rows)| {
                let keys = rows.newest.len();
                let table_rows = TableRows {
                    newest: IndexMap::with_capacity_and_hasher(keys, KeyHasher::default()),
                    ..TableRows::default()
                };
                (*table, table_rows)
            })
            .collect();
        Mem {
            tables,
            bytes: 0,
            versions: 0,
        }
    }

    /// Adds every version `other` holds (a failed flush's rows, under newer ones).
    pub(crate) fn absorb(&mut self, other: &Mem) {
        for (table, rows) in &other.tables {
            // A version rewritten since its table's last sort comes twice, its latest row
            // last: collected first, it is added once, with that row.
            let versions = sorted_last_wins(rows.all_versions().collect());
            for (version, row) in versions {
                self.insert(*table, version.key, version.seq.0, row);
            }
        }
    }

    /// Whether the layer holds no row.
    pub(crate) fn is_empty(&self) -> bool {
        self.versions == 0
    }

    /// Bytes held (estimated).
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Versions held.
    pub(crate) fn rows(&self) -> usize {
        self.versions
    }

    /// Each table's rows at their newest version, copied out (cheaply: keys are inline or
    /// shared, rows shared) in no particular order, so that a flush sorts and writes them
    /// without holding the layer's lock (see `flush::write_rows`).
    pub(crate) fn latest(&self) -> Vec<(Uuid, Vec<(MemKey, MemRow)>)> {
        self.tables
            .iter()
            .map(|(table, rows)| (*table, rows.latest()))
            .collect()
    }

    fn has(&self, table: Uuid) -> bool {
        self.tables.get(&table).is_some_and(|t| !t.is_empty())
    }
}

/// A layer, shared by the writer, the flusher and readers.
pub(crate) type Layer = Arc<RwLock<Mem>>;

/// Reads a layer. A poisoned lock still holds consistent maps: an insert leaves its version in
/// the maps whole, and a sort cut short leaves the rest unsorted for the next one.
pub(crate) fn read(layer: &Layer) -> RwLockReadGuard<'_, Mem> {
    layer
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Writes a layer: the writer's inserts, and a scan sorting what was written since the last
/// scan (see [`TableRows`]).
pub(crate) fn write(layer: &Layer) -> RwLockWriteGuard<'_, Mem> {
    layer
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The layers a reader consults before redb.
#[derive(Clone, Default)]
pub(crate) struct Layers {
    pub(crate) active: Layer,
    pub(crate) frozen: Option<Layer>,
    /// The last flushed layer, for point lookups only (see the module documentation).
    pub(crate) clean: Option<Layer>,
}

/// A reader's memtable: the layers and the last group it sees.
#[derive(Clone)]
pub(crate) struct MemView {
    layers: Arc<Layers>,
    upto: u64,
}

impl MemView {
    /// The newest entry for `key`: `Some(None)` when the row is known gone.
    pub(crate) fn get(&self, table: Uuid, key: &[u8]) -> Option<MemRow> {
        let hash = key_hash(key);
        let found = read(&self.layers.active)
            .newest_hashed(table, hash, key, self.upto)
            .cloned();
        if found.is_some() {
            return found;
        }
        [&self.layers.frozen, &self.layers.clean]
            .into_iter()
            .flatten()
            .find_map(|layer| {
                read(layer)
                    .newest_hashed(table, hash, key, self.upto)
                    .cloned()
            })
    }

    /// Each key of `table` with the row this view sees, newest layer winning, in no order:
    /// what statistics need, without sorting a layer. `None` when neither layer holds a row
    /// of the table.
    pub(crate) fn visible_rows(&self, table: Uuid) -> Option<Vec<(MemKey, MemRow)>> {
        if self.lacks(table) {
            return None;
        }
        let mut rows = read(&self.layers.active)
            .tables
            .get(&table)
            .map(|rows| rows.visible(self.upto, |_| false))
            .unwrap_or_default();
        if let Some(frozen) = &self.layers.frozen {
            // The active layer's keys win; looked up here, not under its lock.
            let newer: std::collections::HashSet<MemKey> =
                rows.iter().map(|(key, _)| key.clone()).collect();
            let older = read(frozen)
                .tables
                .get(&table)
                .map(|rows| rows.visible(self.upto, |key| newer.contains(key)))
                .unwrap_or_default();
            rows.extend(older);
        }
        Some(rows)
    }

    /// Keys of `table` in the active and frozen layers, removals included, without looking
    /// at them: a key in both layers counts twice, and keys of groups this view does not see
    /// count too. For statistics that must not cost a pass over the layers.
    pub(crate) fn key_count(&self, table: Uuid) -> u64 {
        [Some(&self.layers.active), self.layers.frozen.as_ref()]
            .into_iter()
            .flatten()
            .map(|layer| read(layer).tables.get(&table).map_or(0, |t| t.newest.len()))
            .sum::<usize>() as u64
    }

    /// Whether neither layer holds a row of `table`.
    fn lacks(&self, table: Uuid) -> bool {
        !read(&self.layers.active).has(table)
            && self
                .layers
                .frozen
                .as_ref()
                .is_none_or(|f| !read(f).has(table))
    }
}

/// The published layers and the last visible group: replaced and advanced by the writer, read
/// by everyone.
#[derive(Default)]
pub(crate) struct Memtables {
    current: RwLock<Arc<Layers>>,
    visible: AtomicU64,
}

impl Memtables {
    /// The layers as of now.
    pub(crate) fn load(&self) -> Arc<Layers> {
        self.current
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// A reader's view: the last visible group, then the layers.
    pub(crate) fn view(&self) -> MemView {
        let upto = self.visible.load(AtomicOrdering::Acquire);
        MemView {
            layers: self.load(),
            upto,
        }
    }

    /// The last group readers see.
    pub(crate) fn visible(&self) -> u64 {
        self.visible.load(AtomicOrdering::Acquire)
    }

    /// Makes group `seq` (inserted into the active layer) visible (the writer only).
    pub(crate) fn make_visible(&self, seq: u64) {
        self.visible.store(seq, AtomicOrdering::Release);
    }

    /// Publishes new layers (the writer only).
    pub(crate) fn publish(&self, layers: Layers) {
        *self
            .current
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Arc::new(layers);
    }
}

/// How many keys a cursor copies out of a layer at a time.
const CHUNK: usize = 64;

/// How many versions a scan sorts under a layer's write lock at a time (a few milliseconds):
/// the first scan after a bulk load of a hundred thousand keys would otherwise hold the lock,
/// and the writes and point reads of the layer wait, for tens of milliseconds.
const SORT_STEP: usize = 8192;

/// The rows of one layer's table in a key range as of group `upto`, in order (or reverse
/// order), copied out a chunk at a time under the layer's lock.
struct LayerCursor {
    layer: Layer,
    table: Uuid,
    upto: u64,
    start: Bound<VersionKey>,
    end: Bound<VersionKey>,
    reverse: bool,
    buffer: VecDeque<(MemKey, MemRow)>,
    done: bool,
}

/// The version bounds covering every version of the keys in `range`.
fn version_bounds(range: &KeyRange) -> (Bound<VersionKey>, Bound<VersionKey>) {
    let (range_start, range_end) = range.bounds();
    let at = |key: &[u8], seq: u64| VersionKey {
        key: MemKey::from(key),
        seq: Reverse(seq),
    };
    // For one key, versions run from `Reverse(u64::MAX)` (first) to `Reverse(0)` (last).
    let start = match range_start {
        Bound::Included(k) => Bound::Included(at(k, u64::MAX)),
        Bound::Excluded(k) => Bound::Excluded(at(k, 0)),
        Bound::Unbounded => Bound::Unbounded,
    };
    let end = match range_end {
        Bound::Included(k) => Bound::Included(at(k, 0)),
        Bound::Excluded(k) => Bound::Excluded(at(k, u64::MAX)),
        Bound::Unbounded => Bound::Unbounded,
    };
    (start, end)
}

impl LayerCursor {
    fn new(layer: Layer, table: Uuid, upto: u64, range: &KeyRange, reverse: bool) -> LayerCursor {
        let (start, end) = version_bounds(range);
        LayerCursor {
            layer,
            table,
            upto,
            start,
            end,
            reverse,
            buffer: VecDeque::new(),
            done: false,
        }
    }

    /// Copies the visible version of the next keys; a chunk never splits a key's versions.
    /// Versions written since the table's last sort are sorted first, under the write lock,
    /// [`SORT_STEP`] at a time: between steps the writer and point readers get the layer.
    fn refill(&mut self) {
        let layer = self.layer.clone();
        let mem = read(&layer);
        match mem.tables.get(&self.table) {
            None => self.done = true,
            Some(rows) if rows.is_sorted() => self.copy_chunk(rows),
            Some(_) => {
                drop(mem);
                loop {
                    let mut mem = write(&layer);
                    let Some(rows) = mem.tables.get_mut(&self.table) else {
                        self.done = true;
                        return;
                    };
                    if rows.order_some(SORT_STEP) {
                        self.copy_chunk(rows);
                        return;
                    }
                }
            }
        }
    }

    /// Copies the visible version of the next keys from sorted `rows`.
    fn copy_chunk(&mut self, rows: &TableRows) {
        let range = rows.versions.range((self.start.clone(), self.end.clone()));
        let iter: Box<dyn Iterator<Item = (&VersionKey, &MemRow)> + '_> = if self.reverse {
            Box::new(range.rev())
        } else {
            Box::new(range)
        };
        let mut keys = 0;
        let mut current: Option<&MemKey> = None;
        let mut chosen: Option<(MemKey, MemRow)> = None;
        let mut cut = false;
        for (version, row) in iter {
            if current != Some(&version.key) {
                self.buffer.extend(chosen.take());
                if keys == CHUNK {
                    cut = true;
                    break;
                }
                keys += 1;
                current = Some(&version.key);
            }
            // Forward order meets a key's newest version first, reverse order its oldest: the
            // newest visible one is the first, or the last, at or below `upto`.
            if version.seq.0 <= self.upto && (self.reverse || chosen.is_none()) {
                chosen = Some((version.key.clone(), row.clone()));
            }
        }
        self.buffer.extend(chosen);
        match current {
            Some(key) if cut => {
                let edge = |seq: u64| VersionKey {
                    key: key.clone(),
                    seq: Reverse(seq),
                };
                if self.reverse {
                    self.end = Bound::Excluded(edge(u64::MAX));
                } else {
                    self.start = Bound::Excluded(edge(0));
                }
            }
            _ => self.done = true,
        }
    }
}

impl Iterator for LayerCursor {
    type Item = (MemKey, MemRow);

    fn next(&mut self) -> Option<Self::Item> {
        while self.buffer.is_empty() && !self.done {
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

impl<A: Iterator, B: Iterator> Merge<A, B> {
    pub(crate) fn new(first: A, second: B, reverse: bool) -> Merge<A, B> {
        Merge {
            first: first.peekable(),
            second: second.peekable(),
            reverse,
        }
    }
}

impl<A, B> Iterator for Merge<A, B>
where
    A: Iterator<Item = (MemKey, MemRow)>,
    B: Iterator<Item = (MemKey, MemRow)>,
{
    type Item = (MemKey, MemRow);

    fn next(&mut self) -> Option<Self::Item> {
        let order = match (self.first.peek(), self.second.peek()) {
            (None, None) => return None,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(a), Some(b)) if self.reverse => b.0.cmp(&a.0),
            (Some(a), Some(b)) => a.0.cmp(&b.0),
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

/// The memtable rows of `table` in `range` as `view` sees them, newest layer winning; `None`
/// when the layers hold nothing of the table (the common case for a table not written
/// lately).
pub(crate) fn scan(
    view: &MemView,
    table: Uuid,
    range: &KeyRange,
    order: Order,
) -> Option<Box<dyn Iterator<Item = (MemKey, MemRow)> + Send>> {
    if view.lacks(table) {
        return None;
    }
    let reverse = order.is_reverse();
    let cursor = |layer: &Layer| LayerCursor::new(layer.clone(), table, view.upto, range, reverse);
    let active = cursor(&view.layers.active);
    Some(match &view.layers.frozen {
        Some(frozen) => Box::new(Merge::new(active, cursor(frozen), reverse)),
        None => Box::new(active),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(v: u8) -> MemRow {
        Some(bytes::Bytes::from(vec![v]))
    }

    fn key(k: u8) -> MemKey {
        MemKey::from(&[k][..])
    }

    fn keys(
        view: &MemView,
        (start, end): (Bound<Vec<u8>>, Bound<Vec<u8>>),
        reverse: bool,
    ) -> Vec<(u8, Option<u8>)> {
        let range = KeyRange::between(start, end);
        scan(view, Uuid::nil(), &range, Order::reversed_if(reverse))
            .map(|it| it.map(|(k, v)| (k[0], v.map(|v| v[0]))).collect())
            .unwrap_or_default()
    }

    /// Frozen: every key 0..200 at group 1. Active: every third key at group 2 (removed when
    /// even), then every fifth at group 3.
    fn view(upto: u64) -> MemView {
        let t = Uuid::nil();
        let mut frozen = Mem::default();
        for k in 0..200u8 {
            frozen.insert(t, key(k), 1, row(1));
        }
        let mut active = Mem::default();
        for k in (0..200u8).step_by(3) {
            active.insert(t, key(k), 2, if k % 2 == 0 { None } else { row(2) });
        }
        for k in (0..200u8).step_by(5) {
            active.insert(t, key(k), 3, row(3));
        }
        MemView {
            layers: Arc::new(Layers {
                active: Arc::new(RwLock::new(active)),
                frozen: Some(Arc::new(RwLock::new(frozen))),
                clean: None,
            }),
            upto,
        }
    }

    fn expected(k: u8, upto: u64) -> (u8, Option<u8>) {
        match (k % 5, k % 3, k % 2) {
            (0, _, _) if upto >= 3 => (k, Some(3)),
            (_, 0, 0) if upto >= 2 => (k, None),
            (_, 0, _) if upto >= 2 => (k, Some(2)),
            _ => (k, Some(1)),
        }
    }

    #[test]
    fn point_lookups_see_the_newest_version_up_to_their_group() {
        let get = |upto: u64, k: u8| {
            view(upto)
                .get(Uuid::nil(), &[k])
                .map(|row| row.map(|v| v[0]))
        };
        // Key 15: group 1 in frozen, 2 and 3 in active; a reader at group 2 walks back past
        // the newest version, which its hash entry holds.
        assert_eq!(get(1, 15), Some(Some(1)));
        assert_eq!(get(2, 15), Some(Some(2)));
        assert_eq!(get(3, 15), Some(Some(3)));
        // Key 6 was removed at group 2; key 7 only ever held group 1's row.
        assert_eq!(get(2, 6), Some(None));
        assert_eq!(get(3, 7), Some(Some(1)));
        assert_eq!(get(3, 250), None);
        assert_eq!(view(3).get(Uuid::from_u128(1), &[15]), None);
    }

    #[test]
    fn readers_see_the_newest_version_up_to_their_group_across_chunks_both_ways() {
        for upto in [1, 2, 3, 9] {
            let v = view(upto);
            let all = keys(&v, (Bound::Unbounded, Bound::Unbounded), false);
            let want: Vec<_> = (0..200u8).map(|k| expected(k, upto)).collect();
            assert_eq!(all, want, "upto {upto}");
            let back = keys(&v, (Bound::Unbounded, Bound::Unbounded), true);
            assert_eq!(
                back,
                want.iter().rev().cloned().collect::<Vec<_>>(),
                "upto {upto}"
            );
            let part = keys(
                &v,
                (Bound::Excluded(vec![10]), Bound::Included(vec![150])),
                true,
            );
            let want: Vec<_> = (11..=150u8).rev().map(|k| expected(k, upto)).collect();
            assert_eq!(part, want, "upto {upto}");
            let part = keys(
                &v,
                (Bound::Included(vec![10]), Bound::Excluded(vec![150])),
                false,
            );
            let want: Vec<_> = (10..150u8).map(|k| expected(k, upto)).collect();
            assert_eq!(part, want, "upto {upto}");
            for k in [0u8, 3, 5, 6, 7, 15, 199] {
                let (_, value) = expected(k, upto);
                assert_eq!(
                    v.get(Uuid::nil(), &[k]).map(|r| r.map(|r| r[0])),
                    Some(value)
                );
            }
            assert_eq!(v.get(Uuid::nil(), &[250]), None);
        }
        let all = KeyRange::all();
        assert!(scan(&view(3), Uuid::from_u128(1), &all, Order::Forward).is_none());
    }

    #[test]
    fn flushes_take_each_rows_newest_version() {
        let t = Uuid::nil();
        let mut m = Mem::default();
        m.insert(t, key(1), 1, row(1));
        m.insert(t, key(1), 4, row(4));
        m.insert(t, key(2), 2, None);
        let latest: Vec<_> = m
            .latest()
            .into_iter()
            .flat_map(|(_, rows)| {
                rows.into_iter()
                    .map(|(k, r)| (k[0], r.as_ref().map(|r| r[0])))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(latest, vec![(1, Some(4)), (2, None)]);
        let mut other = Mem::default();
        other.absorb(&m);
        assert_eq!(other.rows(), 3);
        assert_eq!(other.newest(t, &key(1), 3), Some(&row(1)));
    }

    /// A view of `layer` alone, as of group `upto`.
    fn only_layer(layer: &Layer, upto: u64) -> MemView {
        MemView {
            layers: Arc::new(Layers {
                active: layer.clone(),
                frozen: None,
                clean: None,
            }),
            upto,
        }
    }

    /// What a scan returned: each key (its one byte) and its value's byte.
    type Scanned = Vec<(u8, Option<u8>)>;

    /// A layer of one table whose versions are scanned between writes, so that its sorted
    /// versions grow by merges of many and by inserts of a few.
    fn scanned_while_written(writes: &[(u8, u64, u8)], scan_every: usize) -> (Layer, Vec<Scanned>) {
        let layer: Layer = Arc::new(RwLock::new(Mem::default()));
        let mut scans = Vec::new();
        for (i, (k, seq, v)) in writes.iter().enumerate() {
            write(&layer).insert(Uuid::nil(), key(*k), *seq, row(*v));
            if (i + 1) % scan_every == 0 {
                let view = only_layer(&layer, u64::MAX);
                scans.push(keys(&view, (Bound::Unbounded, Bound::Unbounded), false));
            }
        }
        (layer, scans)
    }

    #[test]
    fn scans_between_writes_see_every_key_in_order_with_its_newest_row() {
        // Keys in a scrambled order, each written by three groups (the value is the group).
        let writes: Vec<(u8, u64, u8)> = (1..=3u64)
            .flat_map(|seq| (0..=250u8).map(move |i| (i.wrapping_mul(37), seq, seq as u8)))
            .collect();
        for scan_every in [1, 7, 100, 251, 1000] {
            let (layer, scans) = scanned_while_written(&writes, scan_every);
            for (n, scan) in scans.iter().enumerate() {
                let written = &writes[..(n + 1) * scan_every];
                let mut want: BTreeMap<u8, Option<u8>> = BTreeMap::new();
                for (k, _, v) in written {
                    want.insert(*k, Some(*v));
                }
                let want: Vec<_> = want.into_iter().collect();
                assert_eq!(scan, &want, "scan {n}, every {scan_every}");
            }
            let mem = read(&layer);
            assert_eq!(mem.rows(), writes.len());
            for k in [0u8, 37, 74, 250] {
                for upto in 1..=3u64 {
                    let seen = mem.newest(Uuid::nil(), &[k], upto);
                    assert_eq!(seen, Some(&row(upto as u8)), "key {k} upto {upto}");
                }
                assert_eq!(mem.newest(Uuid::nil(), &[k], 0), None);
            }
        }
    }

    #[test]
    fn a_scan_sorts_a_bulk_load_in_steps_and_sees_all_of_it() {
        let t = Uuid::nil();
        let layer: Layer = Arc::new(RwLock::new(Mem::default()));
        let loaded = 3 * SORT_STEP + 17;
        let key_of = |i: usize| MemKey::from(&((i * 7919) % loaded).to_be_bytes()[..]);
        for i in 0..loaded {
            write(&layer).insert(t, key_of(i), 1, row(1));
        }
        // Rewrites by a later group, waiting beside the first versions.
        for i in 0..SORT_STEP + 3 {
            write(&layer).insert(t, key_of(i), 2, row(2));
        }
        let view = only_layer(&layer, 2);
        let range = KeyRange::all();
        let rows: Vec<(MemKey, MemRow)> = scan(&view, t, &range, Order::Forward)
            .expect("rows")
            .collect();
        assert_eq!(rows.len(), loaded);
        assert!(rows.windows(2).all(|w| w[0].0 < w[1].0));
        let rewritten = rows.iter().filter(|(_, r)| *r == row(2)).count();
        assert_eq!(rewritten, SORT_STEP + 3);
        let mem = read(&layer);
        assert!(mem.tables[&t].is_sorted());
        assert_eq!(mem.tables[&t].versions.len(), loaded + SORT_STEP + 3);
    }

    #[test]
    fn a_row_written_twice_by_one_group_keeps_the_second_sorted_or_not() {
        let t = Uuid::nil();
        for sort_between in [false, true] {
            let layer: Layer = Arc::new(RwLock::new(Mem::default()));
            write(&layer).insert(t, key(9), 5, row(1));
            if sort_between {
                write(&layer).tables.get_mut(&t).map(TableRows::order);
            }
            write(&layer).insert(t, key(9), 5, row(2));
            let view = only_layer(&layer, 5);
            let all = (Bound::Unbounded, Bound::Unbounded);
            assert_eq!(keys(&view, all, false), vec![(9, Some(2))]);
            assert_eq!(view.get(t, &[9]), Some(row(2)));
            let mem = read(&layer);
            assert_eq!(mem.rows(), 1);
            let latest = mem.latest();
            assert_eq!(latest[0].1.len(), 1);
            assert_eq!(latest[0].1[0].1, row(2));
            let mut other = Mem::default();
            other.absorb(&mem);
            assert_eq!((other.rows(), other.newest(t, &[9], 5)), (1, Some(&row(2))));
        }
    }

    /// One write of the model test: a key, whether a new group starts with it, and whether
    /// the table is sorted after it.
    type ModelWrite = (u8, bool, bool);

    /// Applies `writes` to `mem` from group `seq` on, recording them in `model`; returns the
    /// last group.
    fn write_all(
        mem: &mut Mem,
        writes: &[ModelWrite],
        mut seq: u64,
        model: &mut BTreeMap<(u8, u64), u8>,
        counter: &mut u8,
    ) -> u64 {
        for (k, new_group, sort) in writes {
            seq += u64::from(*new_group);
            *counter = counter.wrapping_add(1);
            mem.insert(Uuid::nil(), key(*k), seq, row(*counter));
            model.insert((*k, seq), *counter);
            if *sort {
                // A step of a sort, as a scan after many writes makes.
                mem.tables
                    .get_mut(&Uuid::nil())
                    .map(|rows| rows.order_some(5));
            }
        }
        seq
    }

    proptest::proptest! {
        /// Writes in two layers (the older absorbed into the newer, as after a failed flush),
        /// sorted at random points: every reader group sees, by scan and by point lookup, each
        /// key's newest version up to it, as a plain map of every version says.
        #[test]
        fn layers_answer_as_a_map_of_every_version(
            older in proptest::collection::vec((0u8..12, proptest::bool::ANY, proptest::bool::weighted(0.1)), 0..60),
            newer in proptest::collection::vec((0u8..12, proptest::bool::ANY, proptest::bool::weighted(0.1)), 0..60),
            sort_before_absorb in proptest::bool::ANY,
        ) {
            // The same writes twice: absorbed into one layer, and as two layers (frozen,
            // active) of one view.
            let mut model = BTreeMap::new();
            let mut layers = Vec::new();
            let mut last = 0;
            for _ in 0..2 {
                model.clear();
                let mut counter = 0u8;
                let mut first = Mem::default();
                let last_old = write_all(&mut first, &older, 1, &mut model, &mut counter);
                let mut second = Mem::default();
                last = write_all(&mut second, &newer, last_old + 1, &mut model, &mut counter);
                if sort_before_absorb {
                    second.tables.get_mut(&Uuid::nil()).map(TableRows::order);
                }
                layers.push((first, second));
            }
            let (first, mut second) = layers.remove(0);
            second.absorb(&first);
            proptest::prop_assert_eq!(second.rows(), model.len());
            let layer: Layer = Arc::new(RwLock::new(second));
            let (frozen, active) = layers.remove(0);
            let two = Layers {
                active: Arc::new(RwLock::new(active)),
                frozen: Some(Arc::new(RwLock::new(frozen))),
                clean: None,
            };
            let one = Layers { active: layer.clone(), frozen: None, clean: None };
            for upto in 0..=last + 1 {
                let mut want: BTreeMap<u8, Option<u8>> = BTreeMap::new();
                for ((k, seq), v) in &model {
                    if *seq <= upto {
                        want.insert(*k, Some(*v));
                    }
                }
                for layers in [&one, &two] {
                    let view = MemView { layers: Arc::new(layers.clone()), upto };
                    for k in 0..12u8 {
                        let got = view.get(Uuid::nil(), &[k]).map(|r| r.map(|r| r[0]));
                        proptest::prop_assert_eq!(got, want.get(&k).copied(), "key {} upto {}", k, upto);
                    }
                    let want: Vec<_> = want.clone().into_iter().collect();
                    let all = (Bound::Unbounded, Bound::Unbounded);
                    proptest::prop_assert_eq!(&keys(&view, all.clone(), false), &want);
                    let back: Vec<_> = want.iter().rev().cloned().collect();
                    proptest::prop_assert_eq!(keys(&view, all, true), back);
                    let mut visible: Vec<_> = view
                        .visible_rows(Uuid::nil())
                        .unwrap_or_default()
                        .into_iter()
                        .map(|(k, r)| (k[0], r.map(|r| r[0])))
                        .collect();
                    visible.sort_unstable();
                    proptest::prop_assert_eq!(visible, want);
                }
            }
            let mut newest: Vec<_> = read(&layer)
                .latest()
                .into_iter()
                .flat_map(|(_, rows)| rows.into_iter().map(|(k, r)| (k[0], r.map(|r| r[0]))))
                .collect();
            newest.sort_unstable();
            let mut want: BTreeMap<u8, Option<u8>> = BTreeMap::new();
            for ((k, _), v) in &model {
                want.insert(*k, Some(*v));
            }
            proptest::prop_assert_eq!(newest, want.into_iter().collect::<Vec<_>>());
        }

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
    fn bytes_count_every_version() {
        let t = Uuid::nil();
        let mut m = Mem::default();
        m.insert(
            t,
            MemKey::from(&[1, 2][..]),
            1,
            Some(bytes::Bytes::from(vec![0u8; 100])),
        );
        assert_eq!((m.rows(), m.bytes()), (1, 102 + ROW_OVERHEAD));
        m.insert(t, MemKey::from(&[1, 2][..]), 2, None);
        assert_eq!((m.rows(), m.bytes()), (2, 104 + 2 * ROW_OVERHEAD));
    }
}
