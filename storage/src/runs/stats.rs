//! What a table's runs hold, for operators (`system_views.table_runs`, `disk_usage`,
//! `sstable_tasks` and `/metrics` in the server): read from the manifest, with the head's and
//! the memtable's entry counts, which redb and the memtable keep. Nothing here reads a row, a
//! block or a filter, so asking costs the same whatever the table holds.

use redb::ReadableTableMetadata;
use redb::TableError;
use uuid::Uuid;

use crate::error::StorageError;
use crate::read::view::TableKind;
use crate::read::Snapshot;
use crate::runs::compact::pending_bytes;
use crate::runs::manifest;
use crate::runs::progress::MergeProgress;
use crate::store::tables::data_table;
use crate::store::tables::rt_table_name;

/// One table's runs as their manifest describes them (see `storage/DESIGN.md`, "Sorted
/// runs"). Rows a newer run or the head replaces are counted once per version, as Cassandra
/// counts a partition once per sstable holding it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableRuns {
    /// Runs (Cassandra's sstable count).
    pub runs: u64,
    /// Bytes of their stored blocks (compressed, as on disk).
    pub run_bytes: u64,
    /// Entries in them, deletions included.
    pub run_rows: u64,
    /// Entries that record a deletion.
    pub run_deletions: u64,
    /// Partitions with a live entry, summed over the runs.
    pub run_partitions: u64,
    /// Entries in the head, deletions included.
    pub head_entries: u64,
    /// Keys in the memtable not yet flushed (an upper bound, see `MemView::key_count`).
    pub memtable_keys: u64,
    /// Bytes of the runs the size-tiered policy would merge next (after the merge under way).
    pub pending_compaction_bytes: u64,
    /// The merge of this table's runs under way, if any.
    pub compaction: Option<MergeProgress>,
}

impl Snapshot {
    /// The runs of table `table_id` as this snapshot sees them (all zero for a table never
    /// written or unknown).
    ///
    /// # Errors
    /// redb errors; a corrupt manifest record.
    pub fn table_runs(&self, table_id: Uuid) -> Result<TableRuns, StorageError> {
        let runs = manifest::read(&self.view.txn, table_id)?;
        let head_entries = match self.view.table(TableKind::Data, table_id)? {
            Some(head) => head.len()?,
            None => 0,
        };
        let (compaction, merging) = self.merges.of_table(table_id).unzip();
        Ok(TableRuns {
            runs: runs.len() as u64,
            run_bytes: runs.iter().map(|r| r.bytes).sum(),
            run_rows: runs.iter().map(|r| r.rows).sum(),
            run_deletions: runs.iter().map(|r| r.deletions).sum(),
            run_partitions: runs.iter().map(|r| r.partitions).sum(),
            head_entries,
            memtable_keys: self.layers.key_count(table_id),
            pending_compaction_bytes: pending_bytes(&runs, merging.as_deref()),
            compaction,
        })
    }

    /// Bytes table `table_id` takes in the database file: its runs' blocks (from the
    /// manifest), and the pages of its head and range-tombstone tables (redb's figures: their
    /// keys and values, page headers and unused page space). The head is at most 65,536
    /// entries, so this walks a bounded number of pages; the runs' filters (about 1.25 bytes a
    /// row) are left out. Memtable rows are not on disk yet and do not count.
    ///
    /// # Errors
    /// redb errors; a corrupt manifest record.
    pub fn disk_bytes(&self, table_id: Uuid) -> Result<u64, StorageError> {
        let runs = manifest::read(&self.view.txn, table_id)?;
        let mut bytes: u64 = runs.iter().map(|r| r.bytes).sum();
        if let Some(head) = self.view.table(TableKind::Data, table_id)? {
            bytes += allocated(head.stats()?);
        }
        match self
            .view
            .txn
            .open_table(data_table(&rt_table_name(table_id)))
        {
            Ok(rt) => bytes += allocated(rt.stats()?),
            Err(TableError::TableDoesNotExist(_)) => {}
            Err(e) => return Err(e.into()),
        }
        Ok(bytes)
    }
}

/// Bytes of the pages a redb table takes.
fn allocated(stats: redb::TableStats) -> u64 {
    stats.stored_bytes() + stats.metadata_bytes() + stats.fragmented_bytes()
}

#[cfg(test)]
mod tests {
    use crate::store::tests::create_schema;
    use crate::store::tests::open_sized;
    use crate::store::tests::put;
    use crate::store::tests::rows;
    use crate::SyncMode;

    #[test]
    fn figures_follow_flushes_and_compaction() {
        let dir = tempfile::tempdir().unwrap();
        let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
        let table = create_schema(&store);
        let empty = store.snapshot().unwrap().table_runs(table.id).unwrap();
        assert_eq!(empty, super::TableRuns::default());
        for round in 0..4 {
            // 100 partitions of ten rows each round, over the same keys.
            let writes = (0..1000)
                .map(|i| put(&table, i / 10, i64::from(i % 10), &format!("{round}/{i}")))
                .collect();
            store.write_blocking(rows(writes)).unwrap();
            let unflushed = store.snapshot().unwrap().table_runs(table.id).unwrap();
            assert_eq!(unflushed.memtable_keys, 1000);
            store.flush().unwrap();
        }
        let snapshot = store.snapshot().unwrap();
        let before = snapshot.table_runs(table.id).unwrap();
        // The compactor may already have merged some of the four runs.
        assert!((1..=4).contains(&before.runs), "{before:?}");
        assert_eq!(before.run_rows, 1000 * before.runs);
        assert_eq!(before.run_partitions, 100 * before.runs);
        assert_eq!((before.run_deletions, before.head_entries), (0, 0));
        assert_eq!(before.memtable_keys, 0);
        if before.runs == 4 && before.compaction.is_none() {
            assert_eq!(before.pending_compaction_bytes, before.run_bytes);
        }
        assert!(snapshot.disk_bytes(table.id).unwrap() >= before.run_bytes);
        drop(snapshot);
        store.compact().unwrap();
        let after = store.snapshot().unwrap().table_runs(table.id).unwrap();
        assert_eq!(
            (after.runs, after.run_rows, after.run_partitions),
            (1, 1000, 100)
        );
        assert_eq!(after.pending_compaction_bytes, 0);
        assert!(after.run_bytes > 0 && after.run_bytes < before.run_bytes * 2);
        assert_eq!(after.compaction, None);
        assert!(store.compactions().is_empty());
    }
}
