//! Every redb table the store uses, in one place. See `DESIGN.md` for their layouts.

use redb::ReadableTable;
use redb::TableDefinition;
use redb::TableError;
use redb::WriteTransaction;
use uuid::Uuid;

use crate::encoding::range_tombstone;
use crate::encoding::range_tombstone::RangeTombstone;
use crate::error::StorageError;

/// `meta`: store-wide settings. Holds [`FORMAT_VERSION_KEY`] from the first commit.
pub(crate) const META: TableDefinition<'static, &str, &[u8]> = TableDefinition::new("meta");

/// Key in [`META`] of the storage format version (u32, big-endian).
pub(crate) const FORMAT_VERSION_KEY: &str = "format_version";

/// Key in [`META`] of the sequence number of the last commit log record the committed state
/// holds (u64, big-endian); replay starts after it. Absent: 0.
pub(crate) const COMMITLOG_POSITION_KEY: &str = "commitlog_position";

/// `schema`: JSON records keyed by `keyspace/<name>` and `table/<keyspace>/<name>`.
pub(crate) const SCHEMA: TableDefinition<'static, &str, &[u8]> = TableDefinition::new("schema");

/// `index_targets`: per table id (16 bytes), the JSON list of its cell-fed secondary indexes
/// (see `crate::index`), so the writer can maintain them without the catalog.
pub(crate) const INDEX_TARGETS: TableDefinition<'static, &[u8], &[u8]> =
    TableDefinition::new("index_targets");

/// `view_targets`: per base table id (16 bytes), the JSON layouts of the base and its
/// materialized views (see `crate::view`), so the writer can maintain them without the catalog.
pub(crate) const VIEW_TARGETS: TableDefinition<'static, &[u8], &[u8]> =
    TableDefinition::new("view_targets");

/// The name of the data table of the CQL table with id `id`: `data_<uuid simple>`. Named by
/// id, never by CQL name, so a dropped and re-created table starts empty.
pub(crate) fn data_table_name(id: Uuid) -> String {
    format!("data_{}", id.simple())
}

/// The range-tombstone table of the CQL table with id `id`: `rt_<uuid simple>`, keyed by
/// partition prefix (see `encoding::range_tombstone`).
pub(crate) fn rt_table_name(id: Uuid) -> String {
    format!("rt_{}", id.simple())
}

/// A data table: memcomparable row key (see `encoding::key`) to a row value (see
/// `encoding::row`). `name` comes from [`data_table_name`].
pub(crate) fn data_table(name: &str) -> TableDefinition<'_, &'static [u8], &'static [u8]> {
    TableDefinition::new(name)
}

/// A data table opened for writing.
pub(crate) type DataTable<'txn> = redb::Table<'txn, &'static [u8], &'static [u8]>;

/// A data table opened for reading.
pub(crate) type ReadOnlyDataTable = redb::ReadOnlyTable<&'static [u8], &'static [u8]>;

/// The stored range tombstones of one partition (none when the table has none yet).
pub(crate) fn stored_range_tombstones(
    txn: &WriteTransaction,
    table_id: Uuid,
    partition: &[u8],
) -> Result<Vec<RangeTombstone>, StorageError> {
    let name = rt_table_name(table_id);
    let table = match txn.open_table(data_table(&name)) {
        Ok(table) => table,
        Err(TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let value = table.get(partition)?;
    value.map_or(Ok(Vec::new()), |v| range_tombstone::decode(v.value()))
}

/// Stores `seq`, the last commit log record a transaction holds, in `meta`.
pub(crate) fn write_position(txn: &WriteTransaction, seq: u64) -> Result<(), StorageError> {
    let mut meta = txn.open_table(META)?;
    meta.insert(COMMITLOG_POSITION_KEY, seq.to_be_bytes().as_slice())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_tables_are_named_by_id() {
        let id = Uuid::from_u128(0xabc);
        assert_eq!(data_table_name(id), "data_00000000000000000000000000000abc");
    }
}
