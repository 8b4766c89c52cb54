//! Taking, installing and releasing a snapshot inside one write transaction of the writer.

use std::collections::HashSet;

use redb::ReadableTable;
use redb::TableError;
use redb::TableHandle;
use redb::WriteTransaction;
use uuid::Uuid;

use super::record::copy_name;
use super::record::CopyOf;
use super::record::SnapshotRecord;
use super::record::TableState;
use super::SNAPSHOTS;
use crate::error::StorageError;
use crate::hash::fast::TableIds;
use crate::index::index_table_name;
use crate::index::load_targets;
use crate::runs::manifest;
use crate::runs::pins;
use crate::runs::run_table_name;
use crate::runs::stored;
use crate::store::tables::data_table;
use crate::store::tables::data_table_name;
use crate::store::tables::rt_table_name;
use crate::store::tables::INDEX_TARGETS;
use crate::store::tables::SCHEMA;
use crate::store::tables::VIEW_TARGETS;

/// The redb table that `of` lives in.
fn live_name(of: CopyOf) -> String {
    match of {
        CopyOf::RangeTombstones(id) => rt_table_name(id),
        CopyOf::Index(id) => index_table_name(id),
    }
}

/// Copies every entry of table `from` into a new table `to` (an absent or empty `from`
/// copies nothing); whether it copied any.
fn copy_table(txn: &WriteTransaction, from: &str, to: &str) -> Result<bool, StorageError> {
    let source = match txn.open_table(data_table(from)) {
        Ok(table) => table,
        Err(TableError::TableDoesNotExist(_)) => return Ok(false),
        Err(e) => return Err(e.into()),
    };
    if source.first()?.is_none() {
        return Ok(false);
    }
    let mut target = txn.open_table(data_table(to))?;
    for entry in source.iter()? {
        let (key, value) = entry?;
        target.insert(key.value(), value.value())?;
    }
    Ok(true)
}

/// Every entry of a `&str`-keyed or id-keyed table, as owned pairs.
fn entries(
    txn: &WriteTransaction,
    definition: redb::TableDefinition<'static, &[u8], &[u8]>,
) -> Result<Vec<(Uuid, Vec<u8>)>, StorageError> {
    let table = txn.open_table(definition)?;
    let mut out = Vec::new();
    for entry in table.iter()? {
        let (key, value) = entry?;
        let id = Uuid::from_slice(key.value())
            .map_err(|_| StorageError::corrupt(format!("{} key", definition.name())))?;
        out.push((id, value.value().to_vec()));
    }
    Ok(out)
}

/// Records the state of every table in `live` as snapshot `id`: seals each head into a run
/// (the memtable's rows were written into `txn` before), lists the runs and pins them, and
/// copies the range tombstones and index entries. Writes nothing under a name yet.
///
/// # Errors
/// redb errors; corrupt records.
pub(crate) fn take(
    txn: &WriteTransaction,
    live: &TableIds,
    id: Uuid,
    created_at_micros: i64,
) -> Result<SnapshotRecord, StorageError> {
    let mut tables = Vec::with_capacity(live.len());
    let mut ids: Vec<Uuid> = live.iter().copied().collect();
    ids.sort_unstable();
    for table_id in ids {
        stored::seal_head(txn, table_id, 1)?;
        let runs = manifest::read_in(txn, table_id)?;
        pins::pin(txn, runs.iter().map(|r| r.id))?;
        let rt = CopyOf::RangeTombstones(table_id);
        let range_tombstones = copy_table(txn, &live_name(rt), &copy_name(id, rt))?;
        let mut indexes = Vec::new();
        for target in load_targets(txn, table_id)? {
            let copy = CopyOf::Index(target.id);
            if copy_table(txn, &live_name(copy), &copy_name(id, copy))? {
                indexes.push(target.id);
            }
        }
        tables.push(TableState {
            id: table_id,
            runs,
            range_tombstones,
            indexes,
        });
    }
    let mut schema = Vec::new();
    for entry in txn.open_table(SCHEMA)?.iter()? {
        let (key, value) = entry?;
        schema.push((key.value().to_string(), value.value().to_vec()));
    }
    Ok(SnapshotRecord {
        id,
        created_at_micros,
        schema,
        index_targets: entries(txn, INDEX_TARGETS)?,
        view_targets: entries(txn, VIEW_TARGETS)?,
        tables,
    })
}

/// The snapshot stored under `name`.
///
/// # Errors
/// redb errors; a corrupt record.
pub(crate) fn load(
    txn: &WriteTransaction,
    name: &str,
) -> Result<Option<SnapshotRecord>, StorageError> {
    let table = txn.open_table(SNAPSHOTS)?;
    let value = table.get(name)?;
    value.map(|v| SnapshotRecord::decode(v.value())).transpose()
}

/// Stores `record` under `name`, releasing the snapshot it replaces.
///
/// # Errors
/// redb errors; a corrupt record.
pub(crate) fn store(
    txn: &WriteTransaction,
    name: &str,
    record: &SnapshotRecord,
) -> Result<(), StorageError> {
    let old = load(txn, name)?;
    txn.open_table(SNAPSHOTS)?
        .insert(name, record.encode().as_slice())?;
    if let Some(old) = old {
        release(txn, &old)?;
    }
    Ok(())
}

/// Deletes the snapshot `name`; whether there was one.
///
/// # Errors
/// redb errors; a corrupt record.
pub(crate) fn delete(txn: &WriteTransaction, name: &str) -> Result<bool, StorageError> {
    let Some(record) = load(txn, name)? else {
        return Ok(false);
    };
    txn.open_table(SNAPSHOTS)?.remove(name)?;
    release(txn, &record)?;
    Ok(true)
}

/// Lets go of what `record` holds: its copies, and each run no other snapshot and no
/// manifest lists.
fn release(txn: &WriteTransaction, record: &SnapshotRecord) -> Result<(), StorageError> {
    for copy in record.copies() {
        txn.delete_table(data_table(&copy_name(record.id, copy)))?;
    }
    for table in &record.tables {
        let free = pins::unpin(txn, table.runs.iter().map(|r| r.id))?;
        if free.is_empty() {
            continue;
        }
        let listed: HashSet<Uuid> = manifest::read_in(txn, table.id)?
            .iter()
            .map(|r| r.id)
            .collect();
        let gone: Vec<_> = table
            .runs
            .iter()
            .filter(|r| free.contains(&r.id) && !listed.contains(&r.id))
            .cloned()
            .collect();
        stored::delete_runs(txn, &gone)?;
    }
    Ok(())
}

/// Checks that every run and copy `record` names is still stored (a build before snapshots
/// may have deleted them), so that a restore never installs a table it cannot read.
///
/// # Errors
/// [`StorageError::Corrupt`] naming what is missing; redb errors.
pub(crate) fn check_whole(
    txn: &WriteTransaction,
    name: &str,
    record: &SnapshotRecord,
) -> Result<(), StorageError> {
    let stored: HashSet<String> = txn
        .list_tables()?
        .map(|handle| handle.name().to_string())
        .collect();
    let runs = record
        .tables
        .iter()
        .flat_map(|t| t.runs.iter().map(|r| run_table_name(r.id)));
    let copies = record.copies().map(|c| copy_name(record.id, c));
    match runs.chain(copies).find(|table| !stored.contains(table)) {
        Some(missing) => Err(StorageError::corrupt(format!(
            "snapshot {name}: its table {missing} is missing"
        ))),
        None => Ok(()),
    }
}

/// The range-tombstone and index tables a restore leaves as they are: no commit changed them
/// since the snapshot it restores was taken or last restored, so they hold its copies.
#[derive(Debug, Default)]
pub(crate) struct Unchanged {
    /// Index ids.
    pub(crate) indexes: HashSet<Uuid>,
    /// Table ids (their range tombstones).
    pub(crate) range_tombstones: HashSet<Uuid>,
}

impl Unchanged {
    fn holds(&self, of: CopyOf) -> bool {
        match of {
            CopyOf::RangeTombstones(id) => self.range_tombstones.contains(&id),
            CopyOf::Index(id) => self.indexes.contains(&id),
        }
    }
}

/// Empties the store of every table in `live`: heads, range tombstones and index entries are
/// discarded (but those `unchanged` names), and runs taken out of the manifests (and
/// discarded, unless a snapshot pins them, as every run of the snapshot a restore installs
/// is); then the schema and the index and view targets go. Roles go with the schema.
/// Discarded tables are renamed for the compactor thread to delete
/// ([`stored::discard_table`]), so this costs the same whatever they hold.
///
/// # Errors
/// redb errors; corrupt records.
pub(crate) fn clear(
    txn: &WriteTransaction,
    live: &TableIds,
    unchanged: &Unchanged,
) -> Result<(), StorageError> {
    for &table_id in live {
        stored::discard_runs(txn, &manifest::read_in(txn, table_id)?)?;
        manifest::write(txn, table_id, &[])?;
        stored::discard_table(txn, &data_table_name(table_id))?;
        let mut copies = vec![CopyOf::RangeTombstones(table_id)];
        copies.extend(
            load_targets(txn, table_id)?
                .iter()
                .map(|t| CopyOf::Index(t.id)),
        );
        for copy in copies.into_iter().filter(|&c| !unchanged.holds(c)) {
            stored::discard_table(txn, &live_name(copy))?;
        }
    }
    txn.delete_table(SCHEMA)?;
    txn.delete_table(INDEX_TARGETS)?;
    txn.delete_table(VIEW_TARGETS)?;
    Ok(())
}

/// Installs `record` over a store [`clear`] emptied: its schema, targets and manifests, and
/// copies of its range tombstones and index entries (but those `unchanged` names). Returns
/// the ids of its tables.
///
/// # Errors
/// redb errors.
pub(crate) fn install(
    txn: &WriteTransaction,
    record: &SnapshotRecord,
    unchanged: &Unchanged,
) -> Result<TableIds, StorageError> {
    {
        let mut schema = txn.open_table(SCHEMA)?;
        for (key, value) in &record.schema {
            schema.insert(key.as_str(), value.as_slice())?;
        }
    }
    for (definition, records) in [
        (INDEX_TARGETS, &record.index_targets),
        (VIEW_TARGETS, &record.view_targets),
    ] {
        let mut table = txn.open_table(definition)?;
        for (id, value) in records {
            table.insert(id.as_bytes().as_slice(), value.as_slice())?;
        }
    }
    let mut live = TableIds::default();
    for table in &record.tables {
        manifest::write(txn, table.id, &table.runs)?;
        live.insert(table.id);
    }
    for copy in record.copies().filter(|&c| !unchanged.holds(c)) {
        copy_table(txn, &copy_name(record.id, copy), &live_name(copy))?;
    }
    Ok(live)
}
