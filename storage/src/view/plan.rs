//! The view side of one write request: view rows for its base writes, view layouts it
//! changes, and the build of new views over the base rows already stored.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use redb::WriteTransaction;
use uuid::Uuid;

use super::encode_targets;
use super::load_targets;
use super::view_row;
use super::ViewSet;
use crate::catalog::TableDef;
use crate::encoding::key::decode_row_key;
use crate::encoding::key::prefix_end;
use crate::encoding::range_tombstone::RangeTombstone;
use crate::encoding::row;
use crate::encoding::row::StoredRow;
use crate::error::StorageError;
use crate::runs::stored::for_each;
use crate::store::tables::stored_range_tombstones;
use crate::store::tables::VIEW_TARGETS;
use std::ops::Bound;

/// Row values to write by (table, key); `None` removes the row.
pub(crate) type RowWrites = BTreeMap<(Uuid, Vec<u8>), Option<Vec<u8>>>;

/// One base row before and after a request, with the tombstones covering it.
pub(crate) struct BaseChange<'a> {
    /// The row key.
    pub(crate) key: &'a [u8],
    /// The row as stored before the request.
    pub(crate) old: Option<&'a StoredRow>,
    /// The row as the request leaves it.
    pub(crate) new: Option<&'a StoredRow>,
    /// The partition's range tombstones before the request.
    pub(crate) old_tombstones: &'a [RangeTombstone],
    /// The partition's range tombstones after the request.
    pub(crate) new_tombstones: &'a [RangeTombstone],
}

/// View changes of one request.
#[derive(Default)]
pub(crate) struct ViewPlan {
    /// Each touched base table's views as this request leaves them.
    sets: HashMap<Uuid, Option<Arc<ViewSet>>>,
    /// `view_targets` records to write (`None` removes one).
    records: Vec<(Uuid, Option<Vec<u8>>)>,
}

impl ViewPlan {
    /// The views of `base_id` as of this request.
    pub(crate) fn views(
        &mut self,
        txn: &WriteTransaction,
        base_id: Uuid,
    ) -> Result<Option<Arc<ViewSet>>, StorageError> {
        Ok(match self.sets.entry(base_id) {
            Entry::Occupied(entry) => entry.get().clone(),
            Entry::Vacant(entry) => entry
                .insert(load_targets(txn, base_id)?.map(Arc::new))
                .clone(),
        })
    }

    /// `base` now has `views`: the layouts are recorded, and views new to it are built from
    /// the base rows stored (unless `cleared`: the request truncated the base first).
    pub(crate) fn put_views(
        &mut self,
        txn: &WriteTransaction,
        base: &TableDef,
        views: &[Arc<TableDef>],
        cleared: bool,
        rows: &mut RowWrites,
    ) -> Result<(), StorageError> {
        let old: BTreeSet<Uuid> = self
            .views(txn, base.id)?
            .map(|set| set.views.iter().map(|(v, _)| v.id).collect())
            .unwrap_or_default();
        let record = encode_targets(base, views);
        let set = match &record {
            Some(bytes) => Some(Arc::new(super::decode_targets(base.id, bytes)?)),
            None => None,
        };
        if let (Some(set), false) = (&set, cleared) {
            let added: Vec<usize> = (0..set.views.len())
                .filter(|&i| !old.contains(&set.views[i].0.id))
                .collect();
            if !added.is_empty() {
                build(txn, set, &added, rows)?;
            }
        }
        self.sets.insert(base.id, set);
        self.records.push((base.id, record));
        Ok(())
    }

    /// `base_id` is dropped: its record goes.
    pub(crate) fn drop_base(&mut self, base_id: Uuid) {
        self.sets.insert(base_id, None);
        self.records.push((base_id, None));
    }

    /// Adds the view writes of one base row change to `rows`.
    pub(crate) fn row_changed(
        &mut self,
        txn: &WriteTransaction,
        base_id: Uuid,
        change: &BaseChange<'_>,
        rows: &mut RowWrites,
    ) -> Result<(), StorageError> {
        let Some(set) = self.views(txn, base_id)? else {
            return Ok(());
        };
        let decoded = decode_row_key(&set.base, change.key)?;
        let suffix = &change.key[decoded.partition_len..];
        let old_shadow = RangeTombstone::shadowing(change.old_tombstones, suffix);
        let new_shadow = RangeTombstone::shadowing(change.new_tombstones, suffix);
        for (view, filters) in &set.views {
            let before = view_row(&set.base, view, filters, change.key, change.old, old_shadow)?;
            let after = view_row(&set.base, view, filters, change.key, change.new, new_shadow)?;
            if let Some((old_key, _)) = &before {
                if after.as_ref().map(|(k, _)| k) != Some(old_key) {
                    rows.insert((view.id, old_key.clone()), None);
                }
            }
            if let Some((new_key, view_row)) = after {
                if before.as_ref() != Some(&(new_key.clone(), view_row.clone())) {
                    rows.insert((view.id, new_key), Some(row::encode(&view_row)));
                }
            }
        }
        Ok(())
    }

    /// Writes the changed `view_targets` records.
    pub(crate) fn write(self, txn: &WriteTransaction) -> Result<(), StorageError> {
        if self.records.is_empty() {
            return Ok(());
        }
        let mut table = txn.open_table(VIEW_TARGETS)?;
        for (base_id, record) in self.records {
            let key = base_id.as_bytes().as_slice();
            match record {
                Some(value) => {
                    table.insert(key, value.as_slice())?;
                }
                None => {
                    table.remove(key)?;
                }
            }
        }
        Ok(())
    }
}

/// Derives the rows of the views `added` from every stored base row.
fn build(
    txn: &WriteTransaction,
    set: &ViewSet,
    added: &[usize],
    rows: &mut RowWrites,
) -> Result<(), StorageError> {
    let mut partition: Option<(Vec<u8>, Vec<RangeTombstone>)> = None;
    let all = (Bound::Unbounded, Bound::Unbounded);
    for_each(txn, set.base.id, all.0, all.1, |key, value| {
        let decoded = decode_row_key(&set.base, key)?;
        let prefix = &key[..decoded.partition_len];
        if partition.as_ref().map(|(p, _)| p.as_slice()) != Some(prefix) {
            let tombstones = stored_range_tombstones(txn, set.base.id, prefix)?;
            partition = Some((prefix.to_vec(), tombstones));
        }
        let tombstones = partition.as_ref().map_or(&[][..], |(_, t)| t.as_slice());
        let shadow = RangeTombstone::shadowing(tombstones, &key[decoded.partition_len..]);
        let stored = row::decode(value)?;
        for &i in added {
            let (view, filters) = &set.views[i];
            if let Some((view_key, view_row)) =
                view_row(&set.base, view, filters, key, Some(&stored), shadow)?
            {
                rows.insert((view.id, view_key), Some(row::encode(&view_row)));
            }
        }
        Ok(true)
    })
}

/// The keys of the rows stored in the partition `prefix` of `table_id`.
pub(crate) fn partition_keys(
    txn: &WriteTransaction,
    table_id: Uuid,
    prefix: &[u8],
) -> Result<Vec<Vec<u8>>, StorageError> {
    let end = prefix_end(prefix);
    let end = end.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
    let mut keys = Vec::new();
    for_each(txn, table_id, Bound::Included(prefix), end, |key, _| {
        keys.push(key.to_vec());
        Ok(true)
    })?;
    Ok(keys)
}

/// What a request changes in base tables, for [`ViewPlan::maintain`].
pub(crate) struct RequestChanges<'a> {
    /// Rows as the request leaves them (empty: merged down to nothing).
    pub(crate) merged: &'a BTreeMap<(Uuid, Vec<u8>), StoredRow>,
    /// Rows as stored before the request (kept for tables with indexes or views).
    pub(crate) originals: &'a BTreeMap<(Uuid, Vec<u8>), Option<StoredRow>>,
    /// Partitions' range tombstones as the request leaves them.
    pub(crate) tombstones: &'a BTreeMap<(Uuid, Vec<u8>), Vec<RangeTombstone>>,
}

/// Reads the state before the request: a stored row, a partition's stored tombstones.
pub(crate) trait StoredState {
    /// The stored row `key` of `table_id`.
    fn row(&mut self, table_id: Uuid, key: &[u8]) -> Result<Option<StoredRow>, StorageError>;
    /// The stored range tombstones of the partition `prefix` of `table_id`.
    fn tombstones(
        &mut self,
        table_id: Uuid,
        prefix: &[u8],
    ) -> Result<Vec<RangeTombstone>, StorageError>;
}

impl ViewPlan {
    /// Adds to `rows` the view writes of every base row the request changes: rows it
    /// writes, and rows under the range tombstones it adds.
    pub(crate) fn maintain(
        &mut self,
        txn: &WriteTransaction,
        changes: &RequestChanges<'_>,
        stored: &mut dyn StoredState,
        rows: &mut RowWrites,
    ) -> Result<(), StorageError> {
        let mut old_lists: BTreeMap<(Uuid, Vec<u8>), Vec<RangeTombstone>> = BTreeMap::new();
        for ((table_id, key), row) in changes.merged {
            let Some(set) = self.views(txn, *table_id)? else {
                continue;
            };
            let prefix = key[..decode_row_key(&set.base, key)?.partition_len].to_vec();
            let slot = (*table_id, prefix);
            if !old_lists.contains_key(&slot) {
                let list = stored.tombstones(*table_id, &slot.1)?;
                old_lists.insert(slot.clone(), list);
            }
            let old_tombstones = old_lists.get(&slot).map_or(&[][..], |l| l.as_slice());
            let new_tombstones = changes
                .tombstones
                .get(&slot)
                .map_or(old_tombstones, |l| l.as_slice());
            let original = changes.originals.get(&(*table_id, key.clone()));
            let change = BaseChange {
                key,
                old: original.and_then(|o| o.as_ref()),
                new: (!row.is_empty()).then_some(row),
                old_tombstones,
                new_tombstones,
            };
            self.row_changed(txn, *table_id, &change, rows)?;
        }
        for ((table_id, prefix), new_tombstones) in changes.tombstones {
            if self.views(txn, *table_id)?.is_none() {
                continue;
            }
            let old_tombstones = stored.tombstones(*table_id, prefix)?;
            for key in partition_keys(txn, *table_id, prefix)? {
                if changes.merged.contains_key(&(*table_id, key.clone())) {
                    continue;
                }
                let row = stored.row(*table_id, &key)?;
                let change = BaseChange {
                    key: &key,
                    old: row.as_ref(),
                    new: row.as_ref(),
                    old_tombstones: &old_tombstones,
                    new_tombstones,
                };
                self.row_changed(txn, *table_id, &change, rows)?;
            }
        }
        Ok(())
    }
}
