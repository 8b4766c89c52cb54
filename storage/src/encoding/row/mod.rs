//! Stored rows: the value half of a data-table entry.
//!
//! A [`StoredRow`] holds the row's liveness (the primary-key marker written by `INSERT`), an
//! optional row deletion, and its cells sorted by `(ColumnId, path)`. [`codec`] defines the
//! versioned byte layout (first byte = row format version) and [`merge`](fn@merge) Cassandra's
//! reconciliation of an update with the existing row.

mod codec;
#[cfg(test)]
pub(crate) use codec::tests::row_strategy;
mod merge;
mod purge_times;

use bytes::Bytes;

use crate::catalog::ColumnId;

pub(crate) use codec::decode;
pub(crate) use codec::decode_shared;
pub use codec::encode;
pub(crate) use codec::encode_into;
pub(crate) use codec::encoded_len;
pub(crate) use codec::ROW_FORMAT_VERSION;
pub(crate) use merge::merge;
pub use merge::reconcile;
pub(crate) use purge_times::purge_times;
pub(crate) use purge_times::PurgeTimes;

/// A row as stored under its key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredRow {
    /// The row marker (written by `INSERT`, not by `UPDATE`): keeps the row alive with all
    /// its non-key columns null.
    pub liveness: Option<Liveness>,
    /// A row deletion: shadows liveness and cells with a timestamp <= its timestamp.
    pub deletion: Option<DeletionTime>,
    /// Cells sorted by `(ColumnId, path)`, `None` paths first.
    pub cells: Vec<(ColumnId, Cell)>,
}

/// The row marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Liveness {
    /// Write timestamp in microseconds.
    pub timestamp: i64,
    /// Set when the row marker was written with a TTL.
    pub ttl: Option<Expiry>,
}

/// A TTL and the moment it runs out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expiry {
    /// The TTL in seconds, as written (`TTL(col)` reports what remains of it).
    pub ttl_seconds: u32,
    /// When the data expires, in seconds since the epoch (Cassandra's local expiration time).
    pub expires_at_seconds: i64,
}

/// A deletion: `markedForDeleteAt` and `localDeletionTime` in Cassandra's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeletionTime {
    /// The deletion's write timestamp in microseconds; shadows data with timestamp <= it.
    pub timestamp: i64,
    /// When the deletion happened, in seconds since the epoch (for gc_grace purging).
    pub local_deletion_seconds: i64,
}

/// One cell: a column value (or element of a non-frozen collection) with its write time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// Write timestamp in microseconds.
    pub timestamp: i64,
    /// Set when the cell was written with a TTL.
    pub expiry: Option<Expiry>,
    /// The element key inside a non-frozen collection or UDT (Cassandra's `CellPath`); `None`
    /// for a simple column. Reserved in the format; not used by writers yet.
    pub path: Option<Bytes>,
    /// The value or a tombstone.
    pub value: CellValue,
}

/// A cell's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CellValue {
    /// A serialized CQL value (possibly empty, never null: null is a tombstone).
    Live(Bytes),
    /// A deleted cell.
    Tombstone {
        /// When it was deleted, in seconds since the epoch.
        local_deletion_seconds: i64,
    },
}

impl Cell {
    /// A live cell without TTL or path.
    pub fn live(timestamp: i64, value: impl Into<Bytes>) -> Cell {
        Cell {
            timestamp,
            expiry: None,
            path: None,
            value: CellValue::Live(value.into()),
        }
    }

    /// A tombstone cell without path.
    pub fn tombstone(timestamp: i64, local_deletion_seconds: i64) -> Cell {
        Cell {
            timestamp,
            expiry: None,
            path: None,
            value: CellValue::Tombstone {
                local_deletion_seconds,
            },
        }
    }

    /// Whether this cell is a tombstone.
    pub fn is_tombstone(&self) -> bool {
        matches!(self.value, CellValue::Tombstone { .. })
    }
}

impl StoredRow {
    /// Whether the row holds nothing at all (no marker, deletion or cells).
    pub fn is_empty(&self) -> bool {
        self.liveness.is_none() && self.deletion.is_none() && self.cells.is_empty()
    }

    /// The cell of a simple column, if present.
    pub fn cell(&self, id: ColumnId) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|(c, cell)| *c == id && cell.path.is_none())
            .map(|(_, cell)| cell)
    }
}
