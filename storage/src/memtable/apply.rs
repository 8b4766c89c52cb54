//! Applying a group of plain row writes to the memtable: each row merged with its newest
//! version (this group's, the memtable's, or redb's) and stored whole, encoded.
//!
//! Only batches of row writes to tables without secondary indexes or views come here
//! ([`memtable_only`]); catalog changes, counters, range tombstones and indexed tables go
//! through a redb transaction (`mutation`), which also takes the memtable's rows with it.

use std::collections::HashMap;

use redb::TableError;
use uuid::Uuid;

use crate::commitlog::record;
use crate::encoding::row;
use crate::encoding::row::StoredRow;
use crate::error::StorageError;
use crate::hash::fast::BuildFastHasher;
use crate::hash::fast::SeededFastHasher;
use crate::hash::fast::TableIds;
use crate::memtable;
use crate::memtable::arena::RowArena;
use crate::memtable::Layers;
use crate::memtable::Mem;
use crate::memtable::MemKey;
use crate::memtable::MemRow;
use crate::read::view::View;
use crate::store::tables::INDEX_TARGETS;
use crate::store::tables::VIEW_TARGETS;
use crate::writer::key_filter::KeyFilters;
use crate::writer::mutation::WriteBatch;

/// Whether `batch` only writes rows (no catalog change, counter or range tombstone).
pub(crate) fn rows_only(batch: &WriteBatch) -> bool {
    batch.catalog.is_empty() && batch.counters.is_empty() && batch.range_tombstones.is_empty()
}

/// Which tables have secondary indexes or materialized views (both need the stored row
/// before a write, in a redb transaction), as read from the committed state; cleared whenever
/// the catalog changes.
#[derive(Default)]
pub(crate) struct IndexedTables {
    known: HashMap<Uuid, bool, BuildFastHasher>,
}

impl IndexedTables {
    /// Forgets everything (the catalog changed).
    pub(crate) fn clear(&mut self) {
        self.known.clear();
    }

    /// Whether `table` has index or view targets.
    fn indexed(&mut self, view: &View, table: Uuid) -> Result<bool, StorageError> {
        if let Some(indexed) = self.known.get(&table) {
            return Ok(*indexed);
        }
        let mut indexed = false;
        for targets in [INDEX_TARGETS, VIEW_TARGETS] {
            indexed |= match view.txn.open_table(targets) {
                Ok(targets) => targets.get(table.as_bytes().as_slice())?.is_some(),
                Err(TableError::TableDoesNotExist(_)) => false,
                Err(e) => return Err(e.into()),
            };
        }
        self.known.insert(table, indexed);
        Ok(indexed)
    }

    /// Whether every batch can go to the memtable: rows only, on tables without indexes.
    ///
    /// # Errors
    /// redb errors reading the index targets.
    pub(crate) fn memtable_only(
        &mut self,
        view: &View,
        batches: &[&WriteBatch],
    ) -> Result<bool, StorageError> {
        for batch in batches {
            if !rows_only(batch) {
                return Ok(false);
            }
            for write in &batch.rows {
                if self.indexed(view, write.table_id)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }
}

/// Rows a group wrote so far, encoded, by table and key (found by the key's bytes, so a
/// lookup builds no key).
struct Pending {
    /// Keyed by client keys, but at most a group's rows: a seeded fast hash, not SipHash (two
    /// hashes a write; SipHash cost about 400 instructions of a write's 19,000).
    tables: HashMap<Uuid, HashMap<MemKey, MemRow, SeededFastHasher>, BuildFastHasher>,
    /// The group's row writes: the first table's map is made this large, so in the usual
    /// group of one table it never grows (a map grown one write at a time rehashed every key
    /// about five times over a group of 64); the maps of further tables grow as they fill.
    rows: usize,
}

impl Pending {
    fn for_rows(rows: usize) -> Pending {
        Pending {
            tables: HashMap::default(),
            rows,
        }
    }

    fn get(&self, table: Uuid, key: &[u8]) -> Option<&MemRow> {
        self.tables.get(&table)?.get(key)
    }

    fn insert(&mut self, table: Uuid, key: MemKey, row: MemRow) {
        let rows = &mut self.rows;
        self.tables
            .entry(table)
            .or_insert_with(|| {
                HashMap::with_capacity_and_hasher(std::mem::take(rows), SeededFastHasher::default())
            })
            .insert(key, row);
    }

    fn into_rows(self) -> impl Iterator<Item = (Uuid, MemKey, MemRow)> {
        self.tables
            .into_iter()
            .flat_map(|(table, rows)| rows.into_iter().map(move |(key, row)| (table, key, row)))
    }
}

/// A row as one batch leaves it: the update of the batch's write at that index when nothing
/// was there before (so stored as the request encoded it), or the merge of what was there
/// with the updates.
enum Merged<'b> {
    Update(&'b StoredRow, usize),
    Row(StoredRow),
}

/// A batch's commit-log request, read for its row values in write order.
struct Logged<'r> {
    request: &'r [u8],
    values: std::iter::Enumerate<record::RowValues<'r>>,
}

impl<'r> Logged<'r> {
    fn new(request: &'r [u8]) -> Logged<'r> {
        Logged {
            request,
            values: record::row_values(request).enumerate(),
        }
    }

    /// The encoded update of the batch's write at `index` (`row::encode_into` of it, as the
    /// request holds it). Indexes must come in increasing order.
    fn value(&mut self, index: usize) -> Option<&'r [u8]> {
        let (_, range) = self.values.find(|(at, _)| *at == index)?;
        self.request.get(range)
    }
}

impl Merged<'_> {
    fn into_owned(self) -> StoredRow {
        match self {
            Merged::Update(row, _) => row.clone(),
            Merged::Row(row) => row,
        }
    }
}

/// A batch's row: its table, key and content.
type MergedRow<'b> = (Uuid, &'b [u8], Merged<'b>);

/// Batches up to this many rows find a key written earlier in the batch by a linear search;
/// longer ones through a hash map.
const SHORT_BATCH: usize = 16;

/// A group of plain row writes for the memtable.
pub(crate) struct Group<'g> {
    /// The group's number: its versions' `seq`.
    pub(crate) seq: u64,
    /// Each request's batch.
    pub(crate) batches: &'g [&'g WriteBatch],
    /// Each request's commit-log bytes, by batch, when logged (else none, or an empty one).
    pub(crate) records: &'g [&'g [u8]],
}

/// Applies each batch of `group` to the active layer; the layers and `view` give the rows as
/// they were before the group, and `filters` which keys cannot be there (their lookups are
/// skipped; the group's keys are added to them). A row new to the memtable and the table is
/// copied into `arena` as its batch's commit-log request holds its update (encoded already);
/// other rows are encoded there. Returns each batch's outcome: one naming a table that is not live, or
/// meeting an undecodable stored row, changes nothing and gets its own error. The rows are
/// merged first (under read locks) and inserted together at the end, so a group that fails
/// inserts nothing.
///
/// # Errors
/// redb errors reading stored rows: the whole group fails.
pub(crate) fn apply_group(
    layers: &Layers,
    view: &View,
    live: &TableIds,
    group: &Group<'_>,
    filters: &mut KeyFilters,
    arena: &mut RowArena,
) -> Result<Vec<Result<(), StorageError>>, StorageError> {
    let Group {
        seq,
        batches,
        records,
    } = *group;
    let mut results = Vec::with_capacity(batches.len());
    let mut pending = Pending::for_rows(batches.iter().map(|b| b.rows.len()).sum());
    {
        let active = memtable::read(&layers.active);
        let frozen = layers.frozen.as_ref().map(memtable::read);
        let clean = layers.clean.as_ref().map(memtable::read);
        let before = Before {
            active: &active,
            frozen: frozen.as_deref(),
            clean: clean.as_deref(),
            view,
            filters,
        };
        for (number, batch) in batches.iter().enumerate() {
            if let Some(write) = batch.rows.iter().find(|w| !live.contains(&w.table_id)) {
                results.push(Err(StorageError::UnknownTable { id: write.table_id }));
                continue;
            }
            let merged = match merge_batch(&pending, &before, batch) {
                Ok(merged) => merged,
                // An undecodable stored row fails its own request only, as in a transaction.
                Err(e @ StorageError::Corrupt { .. }) => {
                    results.push(Err(e));
                    continue;
                }
                Err(e) => return Err(e),
            };
            let mut logged = records.get(number).map(|request| Logged::new(request));
            for (table, key, row) in merged {
                let value = match row {
                    Merged::Update(update, _) if update.is_empty() => None,
                    // Copied, not sliced: a slice would keep the whole request alive, and
                    // with it every request of its chunk, uncounted.
                    Merged::Update(update, index) => {
                        Some(match logged.as_mut().and_then(|l| l.value(index)) {
                            Some(encoded) => arena.copy(encoded),
                            None => arena.encode(update),
                        })
                    }
                    Merged::Row(row) => (!row.is_empty()).then(|| arena.encode(&row)),
                };
                pending.insert(table, MemKey::from(key), value);
            }
            results.push(Ok(()));
        }
    }
    let mut active = memtable::write(&layers.active);
    for (table, key, row) in pending.into_rows() {
        filters.add(table, &key);
        active.insert(table, key, seq, row);
    }
    Ok(results)
}

/// Where rows stood before the group: the memtable layers and redb.
struct Before<'a> {
    active: &'a Mem,
    frozen: Option<&'a Mem>,
    clean: Option<&'a Mem>,
    view: &'a View,
    filters: &'a KeyFilters,
}

/// The batch's rows merged with their newest versions, one entry per table and key, in the
/// order the batch first writes them.
fn merge_batch<'b>(
    pending: &Pending,
    before: &Before<'_>,
    batch: &'b WriteBatch,
) -> Result<Vec<MergedRow<'b>>, StorageError> {
    let mut merged: Vec<MergedRow<'b>> = Vec::with_capacity(batch.rows.len());
    let long = batch.rows.len() > SHORT_BATCH;
    let mut index: HashMap<(Uuid, &[u8]), usize> = HashMap::new();
    for (at, write) in batch.rows.iter().enumerate() {
        let slot = (write.table_id, write.key.as_slice());
        let earlier = if long {
            index.get(&slot).copied()
        } else {
            merged.iter().position(|(t, k, _)| (*t, *k) == slot)
        };
        if let Some(i) = earlier {
            let row = std::mem::replace(&mut merged[i].2, Merged::Row(StoredRow::default()));
            merged[i].2 = Merged::Row(row::merge(row.into_owned(), write.update.clone()));
            continue;
        }
        let row = match newest(pending, before, write.table_id, &write.key)? {
            Some(existing) => Merged::Row(row::merge(existing, write.update.clone())),
            None => Merged::Update(&write.update, at),
        };
        if long {
            index.insert(slot, merged.len());
        }
        merged.push((slot.0, slot.1, row));
    }
    Ok(merged)
}

/// The newest version of a row: this group's, then the memtable's, then redb's; none without
/// a look when the table's key filter has never seen the key.
fn newest(
    pending: &Pending,
    before: &Before<'_>,
    table: Uuid,
    key: &[u8],
) -> Result<Option<StoredRow>, StorageError> {
    let entry = match pending.get(table, key) {
        Some(entry) => Some(entry),
        // Not written since the table was known empty (and not in this group: its keys join
        // the filter only at the end).
        None if !before.filters.may_hold(table, key) => return Ok(None),
        None => {
            let hash = memtable::key_hash(key);
            [Some(before.active), before.frozen, before.clean]
                .into_iter()
                .flatten()
                .find_map(|layer| layer.newest_hashed(table, hash, key, u64::MAX))
        }
    };
    if let Some(entry) = entry {
        return entry.as_ref().map(row::decode_shared).transpose();
    }
    let stored = before.view.stored(table, key)?;
    stored.map(|v| v.decode()).transpose()
}
