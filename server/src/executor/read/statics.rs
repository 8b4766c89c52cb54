//! Static columns on the read path. A partition's static cells live in its static row (the
//! key is the partition prefix alone); every clustering row of the partition reads them, and a
//! partition whose static row is live but which has no live clustering row reads as one row
//! of static values — when the query selects whole partitions (no clustering or regular
//! column restrictions, as Cassandra's `returnStaticContentOnPartitionWithNoRows` says) and
//! reads a static column or is DISTINCT.

use storage::{ColumnKind, DecodedKey, RangeTombstone, StoredRow, TableDef};

use crate::error::CqlResult;
use crate::executor::read::row;
use crate::executor::read::row::{LiveCells, LiveRow, Liveness};
use crate::executor::read::source::RowSource;

/// The static cells of the partition being read, and whether it showed any row.
pub(crate) struct PartitionStatics {
    /// The table has static columns.
    enabled: bool,
    /// The query returns static content of partitions without rows.
    emit_static_only: bool,
    /// The current partition's key, decoded, and its prefix.
    current: Option<(Vec<u8>, DecodedKey)>,
    cells: LiveCells,
    had_rows: bool,
}

impl PartitionStatics {
    /// Statics for `def`; `static_only_rows` when partitions without rows read as their
    /// static content.
    pub(crate) fn new(def: &TableDef, static_only_rows: bool) -> PartitionStatics {
        PartitionStatics {
            enabled: def.columns.iter().any(|c| c.kind == ColumnKind::Static),
            emit_static_only: static_only_rows,
            current: None,
            cells: LiveCells::default(),
            had_rows: false,
        }
    }

    /// Starts partition `prefix` (whose first key seen decodes to `decoded`). `static_row`
    /// is the stored static row when that first key is it; otherwise it is read. `resumed`
    /// marks a partition a previous page already returned rows of.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enter(
        &mut self,
        source: &RowSource,
        def: &TableDef,
        prefix: &[u8],
        decoded: &DecodedKey,
        static_row: Option<&StoredRow>,
        tombstones: &[RangeTombstone],
        at: &Liveness,
        resumed: bool,
    ) -> CqlResult<()> {
        self.had_rows = resumed;
        self.cells = LiveCells::default();
        if !self.enabled {
            return Ok(());
        }
        let stored = match static_row {
            Some(row) => Some(row.clone()),
            None => source.get(prefix)?,
        };
        if let Some(stored) = stored {
            let deleted_at = row::range_deleted_at(tombstones, &[], true);
            self.cells = row::static_cells(def, stored, at, deleted_at);
        }
        let mut decoded = decoded.clone();
        decoded.clustering.clear();
        self.current = Some((prefix.to_vec(), decoded));
        Ok(())
    }

    /// A live clustering row of the partition, given its static cells.
    pub(crate) fn row(&mut self, row: LiveRow) -> LiveRow {
        self.had_rows = true;
        row.with_static(&self.cells)
    }

    /// Ends the current partition: the key and row it reads as when it had static content
    /// but no rows (and the query returns such partitions).
    pub(crate) fn leave(&mut self) -> Option<(Vec<u8>, LiveRow)> {
        let (prefix, decoded) = self.current.take()?;
        if !self.enabled || !self.emit_static_only || self.had_rows || self.cells.is_empty() {
            return None;
        }
        let cells = std::mem::take(&mut self.cells);
        Some((prefix, LiveRow::static_only(decoded, cells)))
    }
}
