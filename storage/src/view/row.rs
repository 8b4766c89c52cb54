//! Deriving a view row from a base row (Cassandra's `ViewUpdateGenerator`, as a pure
//! function of the base row as stored).

use std::cmp::Ordering;
use std::collections::HashMap;

use bytes::Bytes;

use crate::catalog::ClusteringOrder;
use crate::catalog::ColumnId;
use crate::catalog::ColumnKind;
use crate::catalog::TableDef;
use crate::catalog::ViewFilter;
use crate::catalog::ViewFilterOp;
use crate::encoding::key::decode_row_key;
use crate::encoding::key::encode_component;
use crate::encoding::key::row_key;
use crate::encoding::key::KeyColumn;
use crate::encoding::row::Cell;
use crate::encoding::row::CellValue;
use crate::encoding::row::Expiry;
use crate::encoding::row::Liveness;
use crate::encoding::row::StoredRow;
use crate::error::StorageError;

/// The view row of the base row `row` stored under `key` (`None`: the base row is absent,
/// dead, filtered out, or lacks a view key column). `shadow` is the timestamp of the
/// highest range or partition tombstone covering the row.
///
/// The view row carries the base row's live cells of the view's columns with their
/// timestamps and expiries, and a marker: with a base regular column in the view key, that
/// cell's timestamp (at least the base marker's) and expiry, and every other cell expires no
/// later than it (the view row dies with its key column); otherwise the base marker, or,
/// for a base row kept alive by cells alone, a marker as long-lived as its longest-lived
/// cell, so the view row lives exactly as long as the base row.
///
/// # Errors
/// [`StorageError::Corrupt`] for a key that does not decode under the base layout.
pub(crate) fn view_row(
    base: &TableDef,
    view: &TableDef,
    filters: &[ViewFilter],
    key: &[u8],
    row: Option<&StoredRow>,
    shadow: Option<i64>,
) -> Result<Option<(Vec<u8>, StoredRow)>, StorageError> {
    let Some(row) = row else { return Ok(None) };
    let Some(mut values) = base_key_values(base, key)? else {
        return Ok(None); // the static row: views have no static columns
    };
    if !passes(base, filters, &values)? {
        return Ok(None);
    }
    let deleted_at = row
        .deletion
        .map(|d| d.timestamp)
        .into_iter()
        .chain(shadow)
        .max()
        .unwrap_or(i64::MIN);
    let live = live_cells(row, deleted_at);
    let marker = row.liveness.filter(|l| l.timestamp > deleted_at);
    let Some((marker, clamp)) = view_marker(view, &mut values, &live, marker) else {
        return Ok(None);
    };
    let view_key = view_key(view, &values)?;
    let cells = view_cells(view, live, clamp);
    Ok(Some((
        view_key,
        StoredRow {
            liveness: Some(marker),
            deletion: None,
            cells,
        },
    )))
}

/// The values of the base key's columns by id, decoded from `key`; `None` for the static
/// row.
fn base_key_values(
    base: &TableDef,
    key: &[u8],
) -> Result<Option<HashMap<ColumnId, Bytes>>, StorageError> {
    let decoded = decode_row_key(base, key)?;
    if decoded.clustering.len() < base.clustering_key.len() {
        return Ok(None);
    }
    let mut values: HashMap<ColumnId, Bytes> = HashMap::new();
    for (column, value) in base.partition_key_columns().zip(&decoded.partition) {
        values.insert(column.id, value.clone());
    }
    for (column, value) in base.clustering_columns().zip(&decoded.clustering) {
        values.insert(column.id, value.clone());
    }
    Ok(Some(values))
}

/// The view row's marker and the expiry its cells are clamped to (see [`view_row`]), from
/// the base row's `live` cells and live `marker`; `None`: no view row (its base regular key
/// column has no live value, or nothing keeps the base row alive). A base regular column in
/// the view key gets its value in `values`.
fn view_marker(
    view: &TableDef,
    values: &mut HashMap<ColumnId, Bytes>,
    live: &[(ColumnId, Cell)],
    marker: Option<Liveness>,
) -> Option<(Liveness, Option<Expiry>)> {
    let key_cell = view
        .columns
        .iter()
        .filter(|c| matches!(c.kind, ColumnKind::PartitionKey | ColumnKind::Clustering))
        .find(|c| !values.contains_key(&c.id));
    match key_cell {
        Some(column) => {
            let cell = live
                .iter()
                .find(|(id, c)| *id == column.id && c.path.is_none())
                .map(|(_, c)| c)?;
            if let CellValue::Live(value) = &cell.value {
                values.insert(column.id, value.clone());
            }
            let timestamp = marker.map_or(cell.timestamp, |m| m.timestamp.max(cell.timestamp));
            let liveness = Liveness {
                timestamp,
                ttl: cell.expiry,
            };
            Some((liveness, cell.expiry))
        }
        None => marker
            .or_else(|| implied_marker(live))
            .map(|marker| (marker, None)),
    }
}

/// The `live` cells of the view's regular columns, each expiring no later than `clamp`.
fn view_cells(
    view: &TableDef,
    live: Vec<(ColumnId, Cell)>,
    clamp: Option<Expiry>,
) -> Vec<(ColumnId, Cell)> {
    live.into_iter()
        .filter(|(id, _)| {
            view.column_by_id(*id)
                .is_some_and(|c| c.kind == ColumnKind::Regular)
        })
        .map(|(id, mut cell)| {
            cell.expiry = earliest(cell.expiry, clamp);
            (id, cell)
        })
        .collect()
}

/// The cells of `row` that no deletion shadows: not tombstones, newer than the row's
/// deletion and, for collection elements, than the collection's own tombstone.
fn live_cells(row: &StoredRow, deleted_at: i64) -> Vec<(ColumnId, Cell)> {
    let mut collection_deleted: HashMap<ColumnId, i64> = HashMap::new();
    for (id, cell) in &row.cells {
        if cell.path.is_none() && cell.is_tombstone() {
            collection_deleted.insert(*id, cell.timestamp);
        }
    }
    row.cells
        .iter()
        .filter(|(id, cell)| {
            let floor = match cell.path {
                Some(_) => collection_deleted.get(id).copied().unwrap_or(i64::MIN),
                None => i64::MIN,
            };
            !cell.is_tombstone() && cell.timestamp > deleted_at && cell.timestamp > floor
        })
        .cloned()
        .collect()
}

/// A marker for a base row alive through cells alone: the newest cell's timestamp, and no
/// expiry unless every cell expires (then the latest expiry).
fn implied_marker(live: &[(ColumnId, Cell)]) -> Option<Liveness> {
    let timestamp = live.iter().map(|(_, c)| c.timestamp).max()?;
    let ttl = if live.iter().any(|(_, c)| c.expiry.is_none()) {
        None
    } else {
        live.iter()
            .filter_map(|(_, c)| c.expiry)
            .max_by_key(|e| e.expires_at_seconds)
    };
    Some(Liveness { timestamp, ttl })
}

fn earliest(own: Option<Expiry>, clamp: Option<Expiry>) -> Option<Expiry> {
    match (own, clamp) {
        (Some(a), Some(b)) if b.expires_at_seconds < a.expires_at_seconds => Some(b),
        (None, b) => b,
        (a, _) => a,
    }
}

/// Whether the base key values pass every filter (compared in the column type's order).
fn passes(
    base: &TableDef,
    filters: &[ViewFilter],
    values: &HashMap<ColumnId, Bytes>,
) -> Result<bool, StorageError> {
    for filter in filters {
        let id = ColumnId(filter.column);
        let (Some(column), Some(value)) = (base.column_by_id(id), values.get(&id)) else {
            return Ok(false);
        };
        let comparable = |v: &[u8]| -> Result<Vec<u8>, StorageError> {
            let mut out = Vec::new();
            let key = KeyColumn {
                ty: &column.ty,
                order: ClusteringOrder::Asc,
            };
            encode_component(key, v, &mut out)?;
            Ok(out)
        };
        let own = comparable(value)?;
        let mut any = false;
        for other in &filter.values {
            let ordering: Ordering = own.as_slice().cmp(comparable(other)?.as_slice());
            any |= filter.op.accepts(ordering);
        }
        if !any || (filter.values.is_empty() && filter.op != ViewFilterOp::In) {
            return Ok(false);
        }
    }
    Ok(true)
}

fn view_key(view: &TableDef, values: &HashMap<ColumnId, Bytes>) -> Result<Vec<u8>, StorageError> {
    let pick = |c: &crate::catalog::ColumnDef| {
        values.get(&c.id).cloned().ok_or_else(|| {
            StorageError::corrupt(format!("view key column {} has no value", c.name))
        })
    };
    let pk = view
        .partition_key_columns()
        .map(pick)
        .collect::<Result<Vec<_>, _>>()?;
    let ck = view
        .clustering_columns()
        .map(pick)
        .collect::<Result<Vec<_>, _>>()?;
    row_key(view, &pk, &ck)
}
