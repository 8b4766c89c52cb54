//! `LiveRow`: a stored row seen at a point in time — row deletion, cell tombstones and
//! expired cells applied (Cassandra's liveness rules) — with its key decoded.

use bytes::Bytes;
use storage::{CellValue, ColumnKind, StoredRow, TableDef};

use crate::error::CqlResult;

/// The moment rows are read at.
#[derive(Debug, Clone, Copy)]
pub struct Liveness {
    now_seconds: i64,
}

impl Liveness {
    /// Liveness as of `micros` since the epoch.
    pub fn at(micros: i64) -> Liveness {
        Liveness {
            now_seconds: micros.div_euclid(1_000_000),
        }
    }

    fn expired(&self, expiry: &Option<storage::Expiry>) -> bool {
        expiry
            .as_ref()
            .is_some_and(|e| e.expires_at_seconds <= self.now_seconds)
    }
}

/// A live row: decoded key values and the live cells.
#[derive(Debug, Clone)]
pub struct LiveRow {
    /// The partition's token.
    pub token: i64,
    pub partition: Vec<Bytes>,
    pub clustering: Vec<Bytes>,
    /// Live cell values by column id (sorted by id).
    pub cells: Vec<(u32, Bytes)>,
}

impl LiveRow {
    /// Applies liveness to `stored`; `None` when nothing of the row is live.
    pub fn new(
        def: &TableDef,
        decoded: storage::DecodedKey,
        stored: StoredRow,
        at: &Liveness,
        range_deleted_at: Option<i64>,
    ) -> CqlResult<Option<LiveRow>> {
        let deleted_at = stored
            .deletion
            .as_ref()
            .map(|d| d.timestamp)
            .max(range_deleted_at);
        let shadowed = |ts: i64| deleted_at.is_some_and(|d| ts <= d);
        let marker_live = stored
            .liveness
            .as_ref()
            .is_some_and(|l| !shadowed(l.timestamp) && !at.expired(&l.ttl));
        let mut cells = Vec::with_capacity(stored.cells.len());
        for (id, cell) in stored.cells {
            if shadowed(cell.timestamp) || at.expired(&cell.expiry) {
                continue;
            }
            if let CellValue::Live(value) = cell.value {
                cells.push((id.0, value));
            }
        }
        if !marker_live && cells.is_empty() {
            return Ok(None);
        }
        if decoded.clustering.len() < def.clustering_key.len() {
            // A partition-level (static) row: not a clustering row.
            return Ok(None);
        }
        Ok(Some(LiveRow {
            token: decoded.token,
            partition: decoded.partition,
            clustering: decoded.clustering,
            cells,
        }))
    }

    /// The value of column `index` of `def` in this row.
    pub fn value<'a>(&'a self, def: &TableDef, index: usize) -> Option<&'a Bytes> {
        let col = def.columns.get(index)?;
        match col.kind {
            ColumnKind::PartitionKey => self.partition.get(usize::try_from(col.position).ok()?),
            ColumnKind::Clustering => self.clustering.get(usize::try_from(col.position).ok()?),
            ColumnKind::Regular | ColumnKind::Static => self
                .cells
                .binary_search_by_key(&col.id.0, |(id, _)| *id)
                .ok()
                .map(|i| &self.cells[i].1),
        }
    }
}
