//! Secondary-index entries: which entries a row has, and keeping them in step with the base
//! table inside the writer's transaction.
//!
//! Each index on a regular or static column owns a redb table `index_<index id>` whose keys
//! are `indexed value components ++ base row key` and whose values are empty. The indexed
//! value is one blob component (`encoding::key`) of its serialized bytes (two for `entries()`:
//! key then value), so every entry of one value shares a prefix ([`lookup_prefix`]) and, below
//! it, comes in base key order: token, partition key, clustering, as Cassandra returns index
//! results. Equality is by bytes, as Cassandra's index tables compare their partition keys.
//!
//! [`entries`] lists a row's entries from its live cells (not tombstones, not shadowed by the
//! row deletion or the collection's own tombstone); the writer removes the entries of the old
//! row that the merged row no longer has and adds the new ones. Expiring cells keep their
//! entries until the row is rewritten: readers check every entry against the base row (as
//! Cassandra's index searchers do), so a stale entry is never returned. Range and partition
//! deletions leave entries behind for the same reason.
//!
//! The writer cannot see the catalog, so each table's index targets are also kept in the
//! `index_targets` table (table id -> JSON), written in the transaction that changes them.

#[cfg(test)]
pub(crate) mod store_tests;

mod analyzer;
mod ascii_fold;
mod feed;
mod keying;
mod plan;

use std::collections::BTreeSet;

use cql::types::ColumnType;
use redb::ReadableTable;
use redb::WriteTransaction;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::catalog::ClusteringOrder;
use crate::catalog::ColumnId;
use crate::catalog::ColumnKind;
use crate::catalog::IndexTargetKind;
use crate::catalog::TableDef;
use crate::encoding::key::encode_component;
use crate::encoding::key::KeyColumn;
use crate::encoding::row::Cell;
use crate::encoding::row::CellValue;
use crate::encoding::row::StoredRow;
use crate::error::StorageError;
use crate::store::tables::INDEX_TARGETS;

pub use analyzer::Analyzer;
pub use analyzer::AnalyzerOptionError;
pub use analyzer::ANALYZER_OPTIONS;
pub use feed::FeedDrain;
pub(crate) use feed::IndexChanges;
pub use feed::IndexFeed;
pub use keying::is_string;
pub use keying::takes_ranges;
pub use keying::term_keying;
pub use keying::term_type;
pub use keying::EntryRange;
pub use keying::TermKeying;
pub(crate) use plan::rebuild_stale;
pub(crate) use plan::IndexPlan;

/// The redb table of the index with id `id`: `index_<uuid simple>`.
pub(crate) fn index_table_name(id: Uuid) -> String {
    format!("index_{}", id.simple())
}

/// How the cells of an indexed non-frozen collection map to indexed values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Cells {
    /// One path-less cell: its value is the indexed value.
    Single,
    /// A non-frozen list: elements are cell values.
    List,
    /// A non-frozen set: elements are cell paths.
    Set,
    /// A non-frozen map: keys are cell paths, values are cell values.
    Map,
}

/// What the writer needs to know about one index: which cells feed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct IndexedCells {
    /// The index id (names its table).
    #[serde(with = "crate::catalog::uuid_text")]
    pub(crate) id: Uuid,
    /// The indexed column.
    pub(crate) column: u32,
    /// `IndexTargetKind::as_str` of the target.
    pub(crate) target: String,
    /// The column's cell layout.
    pub(crate) cells: Cells,
    /// How values are keyed (absent in records written before storage-attached indexes
    /// keyed anything but bytes).
    #[serde(default, skip_serializing_if = "is_bytes")]
    pub(crate) keying: TermKeying,
}

fn is_bytes(keying: &TermKeying) -> bool {
    *keying == TermKeying::Bytes
}

/// The cell-fed indexes of `table`: those on regular and static columns. Indexes on key
/// columns have no entries (their queries read the base table).
pub(crate) fn indexed_cells(table: &TableDef) -> Vec<IndexedCells> {
    table
        .indexes
        .iter()
        .filter_map(|index| {
            let column = table.column_by_id(index.column)?;
            if !matches!(column.kind, ColumnKind::Regular | ColumnKind::Static) {
                return None;
            }
            let cells = match &column.ty {
                ColumnType::List { frozen: false, .. } => Cells::List,
                ColumnType::Set { frozen: false, .. } => Cells::Set,
                ColumnType::Map { frozen: false, .. } => Cells::Map,
                _ => Cells::Single,
            };
            Some(IndexedCells {
                id: index.id,
                column: index.column.0,
                target: index.target.as_str().into(),
                cells,
                keying: term_keying(table, index),
            })
        })
        .collect()
}

/// Appends one indexed-value component (a blob component of `value`).
fn push_value(value: &[u8], out: &mut Vec<u8>) -> Result<(), StorageError> {
    let blob = KeyColumn {
        ty: &ColumnType::Blob,
        order: ClusteringOrder::Asc,
    };
    encode_component(blob, value, out)
}

/// The key prefix shared by every entry of an index for the indexed value `values` (one
/// value; two, key then value, for an `entries()` index).
///
/// # Errors
/// None in practice (blob components accept any bytes); typed for safety.
pub fn lookup_prefix(values: &[&[u8]]) -> Result<Vec<u8>, StorageError> {
    let mut out = Vec::new();
    for value in values {
        push_value(value, &mut out)?;
    }
    Ok(out)
}

/// Splits the entry key of a single-value index into the indexed value and the base row key.
///
/// # Errors
/// [`StorageError::Corrupt`] if the key does not start with a blob component.
pub fn split_entry(entry: &[u8]) -> Result<(Vec<u8>, &[u8]), StorageError> {
    let (value, used) = crate::encoding::key::component::decode(&ColumnType::Blob, false, entry)?;
    let base = entry
        .get(used..)
        .ok_or_else(|| StorageError::corrupt("index entry: shorter than its value"))?;
    Ok((value, base))
}

/// The entry keys of `row` (stored under `base_key`) in the index `target`.
pub(crate) fn entries(
    target: &IndexedCells,
    base_key: &[u8],
    row: Option<&StoredRow>,
) -> Result<BTreeSet<Vec<u8>>, StorageError> {
    let mut out = BTreeSet::new();
    let Some(row) = row else { return Ok(out) };
    let kind = IndexTargetKind::parse(&target.target).unwrap_or(IndexTargetKind::Simple);
    let column = ColumnId(target.column);
    let row_deleted_at = row.deletion.map_or(i64::MIN, |d| d.timestamp);
    let collection_deleted_at = row
        .cells
        .iter()
        .find(|(id, c)| *id == column && c.path.is_none() && c.is_tombstone())
        .map_or(i64::MIN, |(_, c)| c.timestamp);
    for (id, cell) in &row.cells {
        if *id != column || cell.timestamp <= row_deleted_at {
            continue;
        }
        let CellValue::Live(value) = &cell.value else {
            continue;
        };
        if cell.path.is_some() && cell.timestamp <= collection_deleted_at {
            continue;
        }
        if let Some(prefix) = indexed_value(kind, target, cell, value)? {
            let mut key = prefix;
            key.extend_from_slice(base_key);
            out.insert(key);
        }
    }
    Ok(out)
}

/// The entry prefix one live cell contributes, if any.
fn indexed_value(
    kind: IndexTargetKind,
    target: &IndexedCells,
    cell: &Cell,
    value: &[u8],
) -> Result<Option<Vec<u8>>, StorageError> {
    let path = cell.path.as_deref();
    let parts: Vec<&[u8]> = match (target.cells, kind, path) {
        (Cells::Single, _, None) => vec![value],
        (Cells::List, IndexTargetKind::Values, Some(_)) => vec![value],
        (Cells::Set, IndexTargetKind::Values, Some(element)) => vec![element],
        (Cells::Map, IndexTargetKind::Values, Some(_)) => vec![value],
        (Cells::Map, IndexTargetKind::Keys, Some(key)) => vec![key],
        (Cells::Map, IndexTargetKind::Entries, Some(key)) => vec![key, value],
        _ => return Ok(None),
    };
    if let [one] = parts.as_slice() {
        return target.keying.prefix(one).map(Some);
    }
    lookup_prefix(&parts).map(Some)
}

/// The index targets the writer keeps for `table_id` (empty when it has none).
pub(crate) fn load_targets(
    txn: &WriteTransaction,
    table_id: Uuid,
) -> Result<Vec<IndexedCells>, StorageError> {
    let table = txn.open_table(INDEX_TARGETS)?;
    let Some(value) = table.get(table_id.as_bytes().as_slice())? else {
        return Ok(Vec::new());
    };
    serde_json::from_slice(value.value())
        .map_err(|e| StorageError::corrupt(format!("index targets of {table_id}: {e}")))
}

/// The index ids an `index_targets` value lists.
///
/// # Errors
/// [`StorageError::Corrupt`] when it does not decode.
pub(crate) fn parse_target_ids(json: &[u8]) -> Result<Vec<Uuid>, StorageError> {
    let targets: Vec<IndexedCells> = serde_json::from_slice(json)
        .map_err(|e| StorageError::corrupt(format!("index targets: {e}")))?;
    Ok(targets.into_iter().map(|t| t.id).collect())
}

/// The `index_targets` value for `targets` (`None`: remove the record).
pub(crate) fn encode_targets(targets: &[IndexedCells]) -> Option<Vec<u8>> {
    if targets.is_empty() {
        return None;
    }
    // Serializing plain strings, numbers and unit enums cannot fail.
    Some(serde_json::to_vec(targets).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::row::DeletionTime;
    use bytes::Bytes;

    fn target(cells: Cells, kind: IndexTargetKind) -> IndexedCells {
        IndexedCells {
            id: Uuid::from_u128(1),
            column: 3,
            target: kind.as_str().into(),
            cells,
            keying: TermKeying::Bytes,
        }
    }

    fn element(timestamp: i64, path: &[u8], value: &[u8]) -> (ColumnId, Cell) {
        let mut cell = Cell::live(timestamp, Bytes::copy_from_slice(value));
        cell.path = Some(Bytes::copy_from_slice(path));
        (ColumnId(3), cell)
    }

    fn key(parts: &[&[u8]]) -> Vec<u8> {
        let mut k = lookup_prefix(parts).unwrap();
        k.extend_from_slice(b"base");
        k
    }

    #[test]
    fn a_simple_cell_gives_one_entry_unless_deleted() {
        let t = target(Cells::Single, IndexTargetKind::Simple);
        let mut row = StoredRow {
            cells: vec![
                (ColumnId(3), Cell::live(5, &b"v"[..])),
                (ColumnId(4), Cell::live(5, &b"w"[..])),
            ],
            ..StoredRow::default()
        };
        let got = entries(&t, b"base", Some(&row)).unwrap();
        assert_eq!(got, BTreeSet::from([key(&[b"v"])]));
        row.deletion = Some(DeletionTime {
            timestamp: 5,
            local_deletion_seconds: 0,
        });
        assert!(entries(&t, b"base", Some(&row)).unwrap().is_empty());
        row.cells[0].1 = Cell::tombstone(9, 0);
        assert!(entries(&t, b"base", Some(&row)).unwrap().is_empty());
        assert!(entries(&t, b"base", None).unwrap().is_empty());
    }

    #[test]
    fn map_targets_take_keys_values_or_entries() {
        let row = StoredRow {
            cells: vec![element(5, b"k1", b"v1"), element(5, b"k2", b"v2")],
            ..StoredRow::default()
        };
        let keys = entries(
            &target(Cells::Map, IndexTargetKind::Keys),
            b"base",
            Some(&row),
        );
        assert_eq!(
            keys.unwrap(),
            BTreeSet::from([key(&[b"k1"]), key(&[b"k2"])])
        );
        let values = entries(
            &target(Cells::Map, IndexTargetKind::Values),
            b"base",
            Some(&row),
        );
        assert_eq!(
            values.unwrap(),
            BTreeSet::from([key(&[b"v1"]), key(&[b"v2"])])
        );
        let pairs = entries(
            &target(Cells::Map, IndexTargetKind::Entries),
            b"base",
            Some(&row),
        );
        let expected = BTreeSet::from([key(&[b"k1", b"v1"]), key(&[b"k2", b"v2"])]);
        assert_eq!(pairs.unwrap(), expected);
    }

    #[test]
    fn a_collection_tombstone_hides_older_elements() {
        let mut row = StoredRow {
            cells: vec![
                (ColumnId(3), Cell::tombstone(5, 0)),
                element(5, b"old", b""),
                element(6, b"new", b""),
            ],
            ..StoredRow::default()
        };
        row.cells[0].1.path = None;
        let got = entries(
            &target(Cells::Set, IndexTargetKind::Values),
            b"base",
            Some(&row),
        );
        assert_eq!(got.unwrap(), BTreeSet::from([key(&[b"new"])]));
    }

    #[test]
    fn an_entry_splits_into_value_and_base_key() {
        let entry = key(&[b"\x00\xff value"]);
        let (value, base) = split_entry(&entry).unwrap();
        assert_eq!(value, b"\x00\xff value");
        assert_eq!(base, b"base");
    }

    #[test]
    fn lookup_prefixes_do_not_prefix_each_other() {
        let a = lookup_prefix(&[b"a"]).unwrap();
        let ab = lookup_prefix(&[b"ab"]).unwrap();
        assert!(!ab.starts_with(&a));
    }
}
