//! `LiveRow`: a stored row seen at a point in time — row deletion, cell tombstones and
//! expired cells applied (Cassandra's liveness rules) — with its key decoded.

use bytes::Bytes;
use storage::{Cell, CellValue, ColumnId, ColumnKind, RangeTombstone, StoredRow, TableDef};

use crate::error::CqlResult;
use crate::executor::write::multicell;

/// The moment rows are read at, and whether the read keeps cells' write times.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Liveness {
    now_seconds: i64,
    keep_write_times: bool,
}

impl Liveness {
    /// Liveness as of `micros` since the epoch.
    pub(crate) fn at(micros: i64) -> Liveness {
        Liveness {
            now_seconds: micros.div_euclid(1_000_000),
            keep_write_times: false,
        }
    }

    /// The same moment, keeping each simple cell's timestamp and expiry in the row (for
    /// `writetime()` and `ttl()` selectors).
    pub(crate) fn keeping_write_times(self, keep: bool) -> Liveness {
        Liveness {
            keep_write_times: keep,
            ..self
        }
    }

    fn expired(&self, expiry: &Option<storage::Expiry>) -> bool {
        expiry
            .as_ref()
            .is_some_and(|e| e.expires_at_seconds <= self.now_seconds)
    }
}

/// When a live simple cell was written and when it expires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WriteTime {
    /// The write timestamp (microseconds).
    pub timestamp: i64,
    /// When the cell expires (seconds since the epoch), for a cell written with a TTL.
    pub expires_at_seconds: Option<i64>,
}

/// Live cells by column id (sorted by id): values, and the write times of simple cells when
/// the read keeps them ([`Liveness::keeping_write_times`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct LiveCells {
    pub values: Vec<(u32, Bytes)>,
    pub write_times: Vec<(u32, WriteTime)>,
    /// The write times of multi-cell columns' live elements, by column id then cell path,
    /// when the read keeps write times (`writetime(m[k])`, `ttl(u.f)`).
    pub element_times: Vec<(u32, Bytes, WriteTime)>,
    /// Simple cells that were tombstones, deleted or expired: the read's tombstone cells
    /// (`ReadStats::tombstones`, as Cassandra counts them).
    pub dead: u32,
}

impl LiveCells {
    /// No live cell.
    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Merges `other` (disjoint column ids, sorted) into these cells, keeping id order.
    fn merge(&mut self, other: &LiveCells) {
        merge_sorted(&mut self.values, &other.values);
        merge_sorted(&mut self.write_times, &other.write_times);
        self.element_times
            .extend(other.element_times.iter().cloned());
        self.element_times
            .sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    }
}

/// Merges two lists sorted by their `u32` key into `into`.
fn merge_sorted<T: Clone>(into: &mut Vec<(u32, T)>, other: &[(u32, T)]) {
    if other.is_empty() {
        return;
    }
    let mine = std::mem::take(into);
    into.reserve(mine.len() + other.len());
    let mut theirs = other.iter().peekable();
    for item in mine {
        while let Some(next) = theirs.next_if(|(id, _)| *id < item.0) {
            into.push(next.clone());
        }
        into.push(item);
    }
    into.extend(theirs.cloned());
}

/// A live row: decoded key values and the live cells.
#[derive(Debug, Clone, Default)]
pub(crate) struct LiveRow {
    /// The partition's token.
    pub token: i64,
    pub partition: Vec<Bytes>,
    pub clustering: Vec<Bytes>,
    /// The live cells.
    pub cells: LiveCells,
}

/// Where a column's value is in a [`LiveRow`]: a key component, or a live cell by position.
enum Slot {
    Partition(usize),
    Clustering(usize),
    Cell(usize),
}

impl LiveRow {
    /// Applies liveness to `stored`; `None` when nothing of the row is live, and for the
    /// partition's static row (see [`static_cells`]).
    pub(crate) fn new(
        def: &TableDef,
        decoded: storage::DecodedKey,
        stored: StoredRow,
        at: &Liveness,
        range_deleted_at: Option<i64>,
    ) -> CqlResult<Option<LiveRow>> {
        if decoded.clustering.len() < def.clustering_key.len() {
            return Ok(None);
        }
        let deleted_at = stored
            .deletion
            .as_ref()
            .map(|d| d.timestamp)
            .max(range_deleted_at);
        let live = |timestamp: i64, expiry: &Option<storage::Expiry>| {
            deleted_at.is_none_or(|d| timestamp > d) && !at.expired(expiry)
        };
        let marker_live = stored
            .liveness
            .as_ref()
            .is_some_and(|l| live(l.timestamp, &l.ttl));
        let cells = live_cells(def, stored.cells, at, &|c| live(c.timestamp, &c.expiry));
        if !marker_live && cells.is_empty() {
            return Ok(None);
        }
        Ok(Some(LiveRow {
            token: decoded.token,
            partition: decoded.partition,
            clustering: decoded.clustering,
            cells,
        }))
    }

    /// Adds the partition's static cells to this row's cells.
    pub(crate) fn with_static(mut self, static_cells: &LiveCells) -> LiveRow {
        self.cells.merge(static_cells);
        self
    }

    /// The row a partition with live static cells but no live clustering row reads as: its
    /// static cells, with null clustering and regular columns.
    pub(crate) fn static_only(decoded: storage::DecodedKey, static_cells: LiveCells) -> LiveRow {
        LiveRow {
            token: decoded.token,
            partition: decoded.partition,
            clustering: Vec::new(),
            cells: static_cells,
        }
    }

    /// Where the value of column `index` of `def` is in this row, if it has one.
    fn locate(&self, def: &TableDef, index: usize) -> Option<Slot> {
        let col = def.columns.get(index)?;
        Some(match col.kind {
            ColumnKind::PartitionKey => Slot::Partition(usize::try_from(col.position).ok()?),
            ColumnKind::Clustering => Slot::Clustering(usize::try_from(col.position).ok()?),
            ColumnKind::Regular | ColumnKind::Static => Slot::Cell(
                self.cells
                    .values
                    .binary_search_by_key(&col.id.0, |(id, _)| *id)
                    .ok()?,
            ),
        })
    }

    /// The value of column `index` of `def` in this row.
    pub(crate) fn value<'a>(&'a self, def: &TableDef, index: usize) -> Option<&'a Bytes> {
        match self.locate(def, index)? {
            Slot::Partition(i) => self.partition.get(i),
            Slot::Clustering(i) => self.clustering.get(i),
            Slot::Cell(i) => Some(&self.cells.values[i].1),
        }
    }

    /// Takes the value of column `index` out of the row (see [`Self::value`]); the row then
    /// holds an empty value in its place.
    pub(crate) fn take_value(&mut self, def: &TableDef, index: usize) -> Option<Bytes> {
        let slot = match self.locate(def, index)? {
            Slot::Partition(i) => self.partition.get_mut(i)?,
            Slot::Clustering(i) => self.clustering.get_mut(i)?,
            Slot::Cell(i) => &mut self.cells.values[i].1,
        };
        Some(std::mem::take(slot))
    }

    /// When the simple cell of column `index` was written, if it is live and the read kept
    /// write times.
    pub(crate) fn write_time(&self, def: &TableDef, index: usize) -> Option<WriteTime> {
        let id = def.columns.get(index)?.id.0;
        let times = &self.cells.write_times;
        times
            .binary_search_by_key(&id, |(id, _)| *id)
            .ok()
            .map(|i| times[i].1)
    }

    /// When each live element of multi-cell column `index` was written, in element order,
    /// when the read keeps write times.
    pub(crate) fn element_write_times(&self, def: &TableDef, index: usize) -> Vec<WriteTime> {
        let Some(id) = def.columns.get(index).map(|c| c.id.0) else {
            return Vec::new();
        };
        self.cells
            .element_times
            .iter()
            .filter(|(c, _, _)| *c == id)
            .map(|(_, _, t)| *t)
            .collect()
    }

    /// When the live element at `path` of multi-cell column `index` was written, when the
    /// read keeps write times.
    pub(crate) fn element_write_time(
        &self,
        def: &TableDef,
        index: usize,
        path: &[u8],
    ) -> Option<WriteTime> {
        let id = def.columns.get(index)?.id.0;
        self.cells
            .element_times
            .iter()
            .find(|(c, p, _)| *c == id && p.as_ref() == path)
            .map(|(_, _, t)| *t)
    }
}

/// The live cells of a partition's static row (none are live past a partition deletion).
pub(crate) fn static_cells(
    def: &TableDef,
    stored: StoredRow,
    at: &Liveness,
    partition_deleted_at: Option<i64>,
) -> LiveCells {
    let deleted_at = stored
        .deletion
        .as_ref()
        .map(|d| d.timestamp)
        .max(partition_deleted_at);
    live_cells(def, stored.cells, at, &|c: &Cell| {
        deleted_at.is_none_or(|d| c.timestamp > d) && !at.expired(&c.expiry)
    })
}

/// The highest deletion among `tombstones` covering the row with clustering suffix
/// `suffix`. The static row is outside every clustering range: a partition deletion reaches
/// it as a row deletion of its own (see `executor::modify`).
pub(crate) fn range_deleted_at(
    tombstones: &[RangeTombstone],
    suffix: &[u8],
    is_static: bool,
) -> Option<i64> {
    if is_static {
        None
    } else {
        RangeTombstone::shadowing(tombstones, suffix)
    }
}

fn write_time(cell: &Cell) -> WriteTime {
    WriteTime {
        timestamp: cell.timestamp,
        expires_at_seconds: cell.expiry.map(|e| e.expires_at_seconds),
    }
}

/// The latest drop time of the dropped column whose id re-added column `id` took back.
fn hidden_until(def: &TableDef, id: ColumnId) -> Option<i64> {
    def.dropped_columns
        .iter()
        .filter(|d| d.id == Some(id))
        .map(|d| d.dropped_time_micros)
        .max()
}

/// Live cell values by column id: a simple column's live cell, or a multi-cell column's live
/// elements assembled into one value.
fn live_cells(
    def: &TableDef,
    cells: Vec<(ColumnId, Cell)>,
    at: &Liveness,
    live: &dyn Fn(&Cell) -> bool,
) -> LiveCells {
    let mut out = Vec::with_capacity(cells.len());
    let mut write_times = Vec::new();
    let mut element_times = Vec::new();
    let mut dead = 0;
    // Mutable, so a single cell's value moves into the row instead of being shared again.
    let mut cells = cells;
    let mut rest = cells.as_mut_slice();
    while let Some(((id, _), _)) = rest.split_first() {
        let id = *id;
        let run = rest.iter().take_while(|(c, _)| *c == id).count();
        let (column, tail) = std::mem::take(&mut rest).split_at_mut(run);
        rest = tail;
        let first = &mut column[0].1;
        // A dropped column's cells stay stored but are not part of the row (a row holding
        // only such cells is not live); a re-added column shows only the cells written after
        // its drop. Only tables with dropped columns look.
        let hidden_until = if def.dropped_columns.is_empty() {
            None
        } else if def.column_by_id(id).is_none() {
            continue;
        } else {
            hidden_until(def, id)
        };
        let visible = |cell: &Cell| hidden_until.is_none_or(|t| cell.timestamp > t) && live(cell);
        let live: &dyn Fn(&Cell) -> bool = &visible;
        if run == 1 && first.path.is_none() {
            if !matches!(first.value, CellValue::Live(_)) || !live(first) {
                dead += 1;
                continue;
            }
            if at.keep_write_times {
                write_times.push((id.0, write_time(first)));
            }
            if let CellValue::Live(value) = &mut first.value {
                out.push((id.0, std::mem::take(value)));
            }
            continue;
        }
        let Some(col) = def.columns.iter().find(|c| c.id == id) else {
            continue;
        };
        let cells = multicell::live_element_cells(column.iter().map(|(_, c)| c), live);
        if at.keep_write_times {
            element_times.extend(cells.iter().filter_map(|cell| {
                let path = cell.path.clone()?;
                Some((id.0, path, write_time(cell)))
            }));
        }
        let elements = cells
            .into_iter()
            .filter_map(|cell| match (&cell.path, &cell.value) {
                (Some(path), CellValue::Live(value)) => Some((path.clone(), value.clone())),
                _ => None,
            })
            .collect();
        if let Some(value) = multicell::assemble(&col.ty, elements) {
            out.push((id.0, value));
        }
    }
    LiveCells {
        values: out,
        write_times,
        element_times,
        dead,
    }
}
