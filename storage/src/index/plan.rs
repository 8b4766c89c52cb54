//! The index side of one write request: entry inserts and removals for its row writes,
//! backfills of new indexes, deletion of dropped ones. Filled while the request is prepared
//! (reads only) and written after the base rows, in the same transaction.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use redb::WriteTransaction;
use uuid::Uuid;

use super::encode_targets;
use super::entries;
use super::feed::IndexChanges;
use super::index_table_name;
use super::indexed_cells;
use super::load_targets;
use super::IndexedCells;
use crate::catalog::TableDef;
use crate::encoding::row;
use crate::encoding::row::StoredRow;
use crate::error::StorageError;
use crate::store::tables::data_table;
use crate::store::tables::INDEX_TARGETS;

/// Index changes of one request.
#[derive(Default)]
pub(crate) struct IndexPlan {
    /// Each touched table's index targets as this request leaves them.
    targets: HashMap<Uuid, Vec<IndexedCells>>,
    /// Tables whose `index_targets` record this request rewrites.
    changed_targets: Vec<Uuid>,
    /// Index tables to delete (dropped or truncated indexes), before any entry write.
    delete: Vec<Uuid>,
    /// Entry writes: `true` inserts the key, `false` removes it.
    writes: BTreeMap<(Uuid, Vec<u8>), bool>,
}

impl IndexPlan {
    /// The targets of `table_id` as of this request.
    pub(crate) fn targets(
        &mut self,
        txn: &WriteTransaction,
        table_id: Uuid,
    ) -> Result<&[IndexedCells], StorageError> {
        let targets = match self.targets.entry(table_id) {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => entry.insert(load_targets(txn, table_id)?),
        };
        Ok(targets.as_slice())
    }

    /// A table is created or altered: new indexes are built from the rows already stored
    /// (unless `data_cleared`), dropped ones are deleted.
    pub(crate) fn put_table(
        &mut self,
        txn: &WriteTransaction,
        table: &TableDef,
        data_cleared: bool,
    ) -> Result<(), StorageError> {
        let old = self.targets(txn, table.id)?.to_vec();
        let new = indexed_cells(table);
        if old == new {
            return Ok(());
        }
        // An index whose keying changed (a record from before storage-attached indexes
        // keyed typed values) is rebuilt: deleted, then backfilled.
        let same = |a: &IndexedCells, b: &IndexedCells| a.id == b.id && a.keying == b.keying;
        for gone in old.iter().filter(|o| !new.iter().any(|n| same(n, o))) {
            self.delete.push(gone.id);
        }
        let added: Vec<&IndexedCells> = new
            .iter()
            .filter(|n| !old.iter().any(|o| same(o, n)))
            .collect();
        if !added.is_empty() && !data_cleared {
            self.backfill(txn, table.id, &added)?;
        }
        self.targets.insert(table.id, new);
        self.changed_targets.push(table.id);
        Ok(())
    }

    /// Builds the entries of `added` from every stored row of the table.
    fn backfill(
        &mut self,
        txn: &WriteTransaction,
        table_id: Uuid,
        added: &[&IndexedCells],
    ) -> Result<(), StorageError> {
        let writes = &mut self.writes;
        let all = (std::ops::Bound::Unbounded, std::ops::Bound::Unbounded);
        crate::runs::stored::for_each(txn, table_id, all.0, all.1, |key, value| {
            let stored = row::decode(value)?;
            for target in added {
                for entry in entries(target, key, Some(&stored))? {
                    writes.insert((target.id, entry), true);
                }
            }
            Ok(true)
        })
    }

    /// A table is dropped: its index tables and targets record go.
    pub(crate) fn drop_table(
        &mut self,
        txn: &WriteTransaction,
        table_id: Uuid,
    ) -> Result<(), StorageError> {
        let ids: Vec<Uuid> = self.targets(txn, table_id)?.iter().map(|t| t.id).collect();
        self.delete.extend(ids);
        self.targets.insert(table_id, Vec::new());
        self.changed_targets.push(table_id);
        Ok(())
    }

    /// A table is truncated: its index tables are emptied.
    pub(crate) fn truncate(
        &mut self,
        txn: &WriteTransaction,
        table_id: Uuid,
    ) -> Result<(), StorageError> {
        let ids: Vec<Uuid> = self.targets(txn, table_id)?.iter().map(|t| t.id).collect();
        self.delete.extend(ids);
        Ok(())
    }

    /// A row of `table_id` goes from `old` to `new` (`None`: absent).
    pub(crate) fn row_changed(
        &mut self,
        txn: &WriteTransaction,
        table_id: Uuid,
        key: &[u8],
        old: Option<&StoredRow>,
        new: Option<&StoredRow>,
    ) -> Result<(), StorageError> {
        let targets = self.targets(txn, table_id)?.to_vec();
        for target in &targets {
            let before = entries(target, key, old)?;
            let after = entries(target, key, new)?;
            for gone in before.difference(&after) {
                self.writes.insert((target.id, gone.clone()), false);
            }
            for added in after.difference(&before) {
                self.writes.insert((target.id, added.clone()), true);
            }
        }
        Ok(())
    }

    /// Writes everything planned; returns what it wrote, for the change feed.
    pub(crate) fn write(self, txn: &WriteTransaction) -> Result<IndexChanges, StorageError> {
        let mut changes = IndexChanges {
            deleted: self.delete.clone(),
            writes: Vec::with_capacity(self.writes.len()),
        };
        for id in &self.delete {
            let name = index_table_name(*id);
            txn.delete_table(data_table(&name))?;
        }
        if !self.changed_targets.is_empty() {
            let mut record = txn.open_table(INDEX_TARGETS)?;
            for table_id in &self.changed_targets {
                let key = table_id.as_bytes().as_slice();
                match self.targets.get(table_id).and_then(|t| encode_targets(t)) {
                    Some(value) => {
                        record.insert(key, value.as_slice())?;
                    }
                    None => {
                        record.remove(key)?;
                    }
                }
            }
        }
        let mut open: Option<(Uuid, crate::store::tables::DataTable<'_>)> = None;
        for ((index_id, key), insert) in self.writes {
            let table = match &mut open {
                Some((id, table)) if *id == index_id => table,
                slot => {
                    *slot = None;
                    let name = index_table_name(index_id);
                    let table = txn.open_table(data_table(&name))?;
                    &mut slot.insert((index_id, table)).1
                }
            };
            if insert {
                table.insert(key.as_slice(), &[][..])?;
            } else {
                table.remove(key.as_slice())?;
            }
            changes.writes.push((index_id, key, insert));
        }
        Ok(changes)
    }
}

/// Rebuilds, in one durable transaction at open, every index whose stored targets record
/// differs from what the catalog makes of it (an index keyed as bytes before storage-attached
/// indexes keyed typed or analyzed values), so reads never meet an old layout.
pub(crate) fn rebuild_stale(
    db: &redb::Database,
    catalog: &crate::catalog::Catalog,
) -> Result<(), StorageError> {
    let mut txn = db.begin_write()?;
    let mut plan = IndexPlan::default();
    let mut stale = false;
    for table in catalog.keyspaces.values().flat_map(|ks| ks.tables.values()) {
        if plan.targets(&txn, table.id)? != indexed_cells(table).as_slice() {
            plan.put_table(&txn, table, false)?;
            stale = true;
        }
    }
    if !stale {
        txn.abort()?;
        return Ok(());
    }
    tracing::info!("rebuilding indexes stored in an older layout");
    plan.write(&txn)?;
    txn.set_durability(redb::Durability::Immediate)?;
    txn.commit()?;
    Ok(())
}
