//! Runs a named snapshot holds (`run_pins`: run id → how many snapshots list it).
//!
//! A pinned run stays whole while any snapshot lists it: compaction may merge it (its rows go
//! into the merge's output as usual) but takes none of its blocks out and does not delete it,
//! and TRUNCATE, DROP and a restore only take it out of the table's manifest. Only when the
//! last snapshot listing it is deleted (and no manifest lists it) is it deleted. Every deletion
//! of a run table goes through [`super::stored::delete_runs`] or [`delete_run_table`], which
//! ask here.

use std::collections::HashSet;

use redb::ReadableTable;
use redb::TableDefinition;
use redb::TableError;
use redb::WriteTransaction;
use uuid::Uuid;

use crate::error::StorageError;

/// `run_pins`: per run id (16 bytes), how many snapshots list it (u32, big-endian).
pub(crate) const RUN_PINS: TableDefinition<'static, &[u8], &[u8]> =
    TableDefinition::new("run_pins");

/// How many snapshots list run `id`.
fn count(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    id: Uuid,
) -> Result<u32, StorageError> {
    let Some(value) = table.get(id.as_bytes().as_slice())? else {
        return Ok(0);
    };
    let bytes: [u8; 4] = value
        .value()
        .try_into()
        .map_err(|_| StorageError::corrupt(format!("pin count of run {id}")))?;
    Ok(u32::from_be_bytes(bytes))
}

/// Whether a snapshot lists run `id`.
///
/// # Errors
/// redb errors; a corrupt count.
pub(crate) fn is_pinned(txn: &WriteTransaction, id: Uuid) -> Result<bool, StorageError> {
    match txn.open_table(RUN_PINS) {
        Ok(table) => Ok(count(&table, id)? > 0),
        Err(TableError::TableDoesNotExist(_)) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Every pinned run.
///
/// # Errors
/// redb errors; a key that is not a run id.
pub(crate) fn all_pinned(txn: &WriteTransaction) -> Result<HashSet<Uuid>, StorageError> {
    let table = txn.open_table(RUN_PINS)?;
    let mut pinned = HashSet::new();
    for entry in table.iter()? {
        let (key, _) = entry?;
        let id =
            Uuid::from_slice(key.value()).map_err(|_| StorageError::corrupt("run_pins key"))?;
        pinned.insert(id);
    }
    Ok(pinned)
}

/// One more snapshot lists each of `ids`.
///
/// # Errors
/// redb errors; a corrupt count.
pub(crate) fn pin(
    txn: &WriteTransaction,
    ids: impl IntoIterator<Item = Uuid>,
) -> Result<(), StorageError> {
    let mut table = txn.open_table(RUN_PINS)?;
    for id in ids {
        let n = count(&table, id)?.saturating_add(1);
        table.insert(id.as_bytes().as_slice(), n.to_be_bytes().as_slice())?;
    }
    Ok(())
}

/// One snapshot fewer lists each of `ids`; returns those no snapshot lists any more.
///
/// # Errors
/// redb errors; a corrupt count.
pub(crate) fn unpin(
    txn: &WriteTransaction,
    ids: impl IntoIterator<Item = Uuid>,
) -> Result<Vec<Uuid>, StorageError> {
    let mut table = txn.open_table(RUN_PINS)?;
    let mut free = Vec::new();
    for id in ids {
        match count(&table, id)? {
            0 | 1 => {
                table.remove(id.as_bytes().as_slice())?;
                free.push(id);
            }
            n => {
                table.insert(id.as_bytes().as_slice(), (n - 1).to_be_bytes().as_slice())?;
            }
        }
    }
    Ok(free)
}

/// Deletes run `id`'s table (not its filter) unless a snapshot lists it; whether it did.
///
/// # Errors
/// redb errors.
pub(crate) fn delete_run_table(txn: &WriteTransaction, id: Uuid) -> Result<bool, StorageError> {
    if is_pinned(txn, id)? {
        return Ok(false);
    }
    let name = super::run_table_name(id);
    txn.delete_table(crate::store::tables::data_table(&name))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::backends::InMemoryBackend;

    #[test]
    fn pins_count_snapshots_and_free_at_the_last() {
        let db = redb::Builder::new()
            .create_with_backend(InMemoryBackend::new())
            .unwrap();
        let txn = db.begin_write().unwrap();
        let (a, b) = (Uuid::from_u128(1), Uuid::from_u128(2));
        assert!(!is_pinned(&txn, a).unwrap());
        pin(&txn, [a, b]).unwrap();
        pin(&txn, [a]).unwrap();
        assert!(is_pinned(&txn, a).unwrap() && is_pinned(&txn, b).unwrap());
        assert_eq!(all_pinned(&txn).unwrap(), HashSet::from([a, b]));
        assert_eq!(unpin(&txn, [a, b]).unwrap(), [b]);
        assert!(is_pinned(&txn, a).unwrap());
        assert!(!is_pinned(&txn, b).unwrap());
        assert!(!delete_run_table(&txn, a).unwrap());
        assert_eq!(unpin(&txn, [a]).unwrap(), [a]);
        assert!(all_pinned(&txn).unwrap().is_empty());
        assert!(delete_run_table(&txn, a).unwrap());
        txn.commit().unwrap();
    }
}
