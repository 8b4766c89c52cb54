//! Cassandra's reconciliation of an update with the existing row (`db/rows/Cells.java`
//! `resolveRegular`, `LivenessInfo.supersedes`, `DeletionTime.supersedes`).

use std::cmp::Ordering;

use super::Cell;
use super::CellValue;
use super::DeletionTime;
use super::Liveness;
use super::StoredRow;

/// Merges `update` into `existing`, as Cassandra reconciles two versions of a row:
/// - the row deletion with the higher timestamp wins (ties: the later local deletion time);
/// - the row marker with the higher timestamp wins (ties: an expiring marker beats a plain one,
///   then the later expiry);
/// - per cell (same column and path) [`reconcile`] picks the winner;
/// - finally the row deletion removes the marker and every cell with timestamp <= its own,
///   and a path-less tombstone of a column (a non-frozen collection's or UDT's complex
///   deletion) removes that column's element cells with timestamp <= its own.
///
/// The result is the same whichever argument is the existing row. Counter sums are changed by
/// `crate::writer::counter` (deltas), never by this merge.
pub(crate) fn merge(existing: StoredRow, update: StoredRow) -> StoredRow {
    let deletion = pick(existing.deletion, update.deletion, deletion_supersedes);
    let liveness = pick(existing.liveness, update.liveness, liveness_supersedes);
    let mut cells = Vec::with_capacity(existing.cells.len().max(update.cells.len()));
    let mut left = existing.cells.into_iter().peekable();
    let mut right = update.cells.into_iter().peekable();
    loop {
        let order = match (left.peek(), right.peek()) {
            (Some((lid, l)), Some((rid, r))) => (lid, &l.path).cmp(&(rid, &r.path)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => break,
        };
        let next = match order {
            Ordering::Less => left.next(),
            Ordering::Greater => right.next(),
            Ordering::Equal => match (left.next(), right.next()) {
                (Some((id, l)), Some((_, r))) => Some((id, reconcile(l, r))),
                (l, r) => l.or(r),
            },
        };
        cells.extend(next);
    }
    let shadowed = |timestamp: i64| deletion.is_some_and(|d| timestamp <= d.timestamp);
    cells.retain(|(_, c)| !shadowed(c.timestamp));
    drop_shadowed_elements(&mut cells);
    StoredRow {
        liveness: liveness.filter(|l| !shadowed(l.timestamp)),
        deletion,
        cells,
    }
}

/// Removes element cells (with a path) shadowed by their column's path-less tombstone, which
/// sorts right before them. Simple columns have no element cells, so this only ever touches
/// non-frozen collections and UDTs.
fn drop_shadowed_elements(cells: &mut Vec<(crate::catalog::ColumnId, Cell)>) {
    let mut complex_deletion: Option<(crate::catalog::ColumnId, i64)> = None;
    cells.retain(|(id, cell)| {
        if cell.path.is_none() {
            complex_deletion = cell.is_tombstone().then_some((*id, cell.timestamp));
            return true;
        }
        !matches!(complex_deletion, Some((d, ts)) if d == *id && cell.timestamp <= ts)
    });
}

fn pick<T>(a: Option<T>, b: Option<T>, supersedes: fn(&T, &T) -> bool) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if supersedes(&b, &a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

fn deletion_supersedes(a: &DeletionTime, b: &DeletionTime) -> bool {
    (a.timestamp, a.local_deletion_seconds) > (b.timestamp, b.local_deletion_seconds)
}

fn liveness_supersedes(a: &Liveness, b: &Liveness) -> bool {
    if a.timestamp != b.timestamp {
        return a.timestamp > b.timestamp;
    }
    match (&a.ttl, &b.ttl) {
        (Some(x), Some(y)) => x.expires_at_seconds > y.expires_at_seconds,
        (x, y) => x.is_some() && y.is_none(),
    }
}

/// Cassandra's local deletion time of a cell: the tombstone's deletion time, the expiring
/// cell's expiry, or none for a plain live cell.
fn local_deletion_time(cell: &Cell) -> Option<i64> {
    match (&cell.value, &cell.expiry) {
        (
            CellValue::Tombstone {
                local_deletion_seconds,
            },
            _,
        ) => Some(*local_deletion_seconds),
        (CellValue::Live(_), Some(e)) => Some(e.expires_at_seconds),
        (CellValue::Live(_), None) => None,
    }
}

/// Java's `ByteBuffer.compareTo`: bytes compared as *signed* values, then by length.
fn java_bytes_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let a = a.iter().map(|&x| x as i8);
    let b = b.iter().map(|&x| x as i8);
    a.cmp(b)
}

fn value_bytes(cell: &Cell) -> &[u8] {
    match &cell.value {
        CellValue::Live(v) => v,
        CellValue::Tombstone { .. } => &[],
    }
}

/// Picks the winner of two versions of one cell (`Cells.resolveRegular`): the higher
/// timestamp; on a tie, a tombstone or expiring cell beats a plain live cell, a tombstone
/// beats an expiring cell, then the later local deletion time, then the greater value
/// (compared as Java compares `ByteBuffer`s: signed bytes). Commutative.
pub fn reconcile(left: Cell, right: Cell) -> Cell {
    if left.timestamp != right.timestamp {
        return if left.timestamp > right.timestamp {
            left
        } else {
            right
        };
    }
    let (ldt_left, ldt_right) = (local_deletion_time(&left), local_deletion_time(&right));
    if ldt_left.is_some() || ldt_right.is_some() {
        if ldt_left.is_some() != ldt_right.is_some() {
            return if ldt_left.is_some() { left } else { right };
        }
        if left.is_tombstone() != right.is_tombstone() {
            return if left.is_tombstone() { left } else { right };
        }
        if ldt_left != ldt_right {
            return if ldt_left > ldt_right { left } else { right };
        }
    }
    if java_bytes_cmp(value_bytes(&left), value_bytes(&right)) != Ordering::Less {
        left
    } else {
        right
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ColumnId;
    use crate::encoding::row::Expiry;

    fn row(cells: Vec<(u32, Cell)>) -> StoredRow {
        StoredRow {
            cells: cells.into_iter().map(|(i, c)| (ColumnId(i), c)).collect(),
            ..StoredRow::default()
        }
    }

    fn expiring(ts: i64, value: &'static [u8], expires: i64) -> Cell {
        Cell {
            expiry: Some(Expiry {
                ttl_seconds: 10,
                expires_at_seconds: expires,
            }),
            ..Cell::live(ts, value)
        }
    }

    fn element(ts: i64, path: &'static [u8]) -> Cell {
        Cell {
            path: Some(bytes::Bytes::from_static(path)),
            ..Cell::live(ts, &b""[..])
        }
    }

    #[test]
    fn collection_tombstone_drops_older_elements() {
        let merged = merge(
            row(vec![(3, element(5, b"a")), (3, element(9, b"b"))]),
            row(vec![(3, Cell::tombstone(7, 100))]),
        );
        assert_eq!(
            merged.cells,
            vec![
                (ColumnId(3), Cell::tombstone(7, 100)),
                (ColumnId(3), element(9, b"b")),
            ]
        );
        // A tombstone of another column leaves the elements alone.
        let merged = merge(
            row(vec![(3, element(5, b"a"))]),
            row(vec![(2, Cell::tombstone(7, 100))]),
        );
        assert_eq!(merged.cells.len(), 2);
    }

    #[test]
    fn higher_timestamp_wins() {
        let merged = merge(
            row(vec![
                (1, Cell::live(5, &b"old"[..])),
                (2, Cell::live(1, &b"x"[..])),
            ]),
            row(vec![
                (1, Cell::live(4, &b"new"[..])),
                (3, Cell::live(9, &b"y"[..])),
            ]),
        );
        assert_eq!(
            merged,
            row(vec![
                (1, Cell::live(5, &b"old"[..])),
                (2, Cell::live(1, &b"x"[..])),
                (3, Cell::live(9, &b"y"[..]))
            ])
        );
    }

    #[test]
    fn ties_follow_cassandra() {
        // Tombstone beats live and expiring; expiring beats plain live.
        let t = Cell::tombstone(5, 100);
        assert_eq!(reconcile(Cell::live(5, &b"z"[..]), t.clone()), t);
        assert_eq!(reconcile(expiring(5, b"a", 50), t.clone()), t);
        let e = expiring(5, b"a", 50);
        assert_eq!(reconcile(Cell::live(5, &b"z"[..]), e.clone()), e);
        // Two expiring cells: the later expiry, regardless of value.
        let later = expiring(5, b"a", 60);
        assert_eq!(reconcile(e.clone(), later.clone()), later);
        // Two tombstones: the later deletion time.
        assert_eq!(reconcile(Cell::tombstone(5, 1), t.clone()), t);
        // Live values: greater value as signed bytes, so 0x7F beats 0x80.
        let small = Cell::live(5, &[0x80u8][..]);
        let big = Cell::live(5, &[0x7Fu8][..]);
        assert_eq!(reconcile(small.clone(), big.clone()), big);
        assert_eq!(reconcile(big.clone(), small), big);
        assert_eq!(
            reconcile(Cell::live(5, &b"ab"[..]), Cell::live(5, &b"a"[..])),
            Cell::live(5, &b"ab"[..])
        );
    }

    #[test]
    fn row_deletion_shadows_older_data() {
        let existing = StoredRow {
            liveness: Some(Liveness {
                timestamp: 10,
                ttl: None,
            }),
            deletion: None,
            cells: vec![
                (ColumnId(1), Cell::live(10, &b"a"[..])),
                (ColumnId(2), Cell::live(30, &b"b"[..])),
            ],
        };
        let delete = StoredRow {
            deletion: Some(DeletionTime {
                timestamp: 20,
                local_deletion_seconds: 7,
            }),
            ..StoredRow::default()
        };
        let merged = merge(existing, delete);
        assert_eq!(merged.liveness, None);
        assert_eq!(merged.cells, vec![(ColumnId(2), Cell::live(30, &b"b"[..]))]);
        // A later write with an older timestamp stays shadowed.
        let late = merge(merged.clone(), row(vec![(1, Cell::live(20, &b"c"[..]))]));
        assert_eq!(late, merged);
        // An older deletion does not replace a newer one.
        let older = StoredRow {
            deletion: Some(DeletionTime {
                timestamp: 15,
                local_deletion_seconds: 99,
            }),
            ..StoredRow::default()
        };
        assert_eq!(merge(merged.clone(), older).deletion, merged.deletion);
    }

    #[test]
    fn liveness_ties_prefer_expiring() {
        let plain = Liveness {
            timestamp: 3,
            ttl: None,
        };
        let ttl = Liveness {
            timestamp: 3,
            ttl: Some(Expiry {
                ttl_seconds: 1,
                expires_at_seconds: 9,
            }),
        };
        let a = StoredRow {
            liveness: Some(plain),
            ..StoredRow::default()
        };
        let b = StoredRow {
            liveness: Some(ttl),
            ..StoredRow::default()
        };
        assert_eq!(merge(a.clone(), b.clone()).liveness, Some(ttl));
        assert_eq!(merge(b, a).liveness, Some(ttl));
    }

    proptest::proptest! {
        #[test]
        fn merge_is_commutative_and_idempotent(
            a in super::super::codec::tests::row_strategy(),
            b in super::super::codec::tests::row_strategy(),
        ) {
            let ab = merge(a.clone(), b.clone());
            proptest::prop_assert_eq!(&ab, &merge(b.clone(), a.clone()));
            proptest::prop_assert_eq!(&merge(ab.clone(), b), &ab);
        }
    }
}
