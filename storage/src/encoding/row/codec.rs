//! Row value layout, version 1. All integers big-endian.
//!
//! ```text
//! row      := version:u8 (=1) flags:u8 [liveness] [deletion] cell_count:u32 cell*
//! flags    := 0x01 liveness present | 0x02 liveness has TTL | 0x04 deletion present
//! liveness := timestamp:i64 [ttl_seconds:u32 expires_at_seconds:i64]
//! deletion := timestamp:i64 local_deletion_seconds:i64
//! cell     := column_id:u32 cflags:u8 timestamp:i64 [path_len:u32 path]
//!             [ttl_seconds:u32 expires_at_seconds:i64]
//!             (local_deletion_seconds:i64 | value_len:u32 value)
//! cflags   := 0x01 path present | 0x02 expiry present | 0x04 tombstone
//! ```
//! Unknown flag bits, unsorted cells and trailing bytes are corruption: a new layout gets a new
//! version byte.

use bytes::Bytes;

use super::Cell;
use super::CellValue;
use super::DeletionTime;
use super::Expiry;
use super::Liveness;
use super::StoredRow;
use crate::catalog::ColumnId;
use crate::encoding::input::Input;
use crate::error::StorageError;

/// The row format version this build writes (and the only one it reads).
pub(crate) const ROW_FORMAT_VERSION: u8 = 1;

pub(super) const ROW_LIVENESS: u8 = 0x01;
pub(super) const ROW_LIVENESS_TTL: u8 = 0x02;
pub(super) const ROW_DELETION: u8 = 0x04;

pub(super) const CELL_PATH: u8 = 0x01;
pub(super) const CELL_EXPIRY: u8 = 0x02;
pub(super) const CELL_TOMBSTONE: u8 = 0x04;

/// Serializes a row. Cells are written in the order given; keep them sorted by
/// `(ColumnId, path)`, as [`decode`] checks.
pub fn encode(row: &StoredRow) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(row, &mut out);
    out
}

/// At least the bytes [`encode`] writes for `row`: the row header, and each cell's fixed
/// part (column, flags, timestamp, expiry, lengths) plus its path and value.
pub(crate) fn encoded_len(row: &StoredRow) -> usize {
    let cells: usize = row
        .cells
        .iter()
        .map(|(_, cell)| {
            let value = match &cell.value {
                CellValue::Live(v) => v.len(),
                CellValue::Tombstone { .. } => 8,
            };
            40 + cell.path.as_ref().map_or(0, Bytes::len) + value
        })
        .sum();
    48 + cells
}

/// Appends `row`'s encoding (as [`encode`]) to `out`, reserving its size once.
pub(crate) fn encode_into(row: &StoredRow, out: &mut Vec<u8>) {
    out.reserve(encoded_len(row));
    out.push(ROW_FORMAT_VERSION);
    let mut flags = 0;
    if let Some(l) = &row.liveness {
        flags |= ROW_LIVENESS;
        if l.ttl.is_some() {
            flags |= ROW_LIVENESS_TTL;
        }
    }
    if row.deletion.is_some() {
        flags |= ROW_DELETION;
    }
    out.push(flags);
    if let Some(l) = &row.liveness {
        out.extend_from_slice(&l.timestamp.to_be_bytes());
        if let Some(e) = &l.ttl {
            put_expiry(e, out);
        }
    }
    if let Some(d) = &row.deletion {
        out.extend_from_slice(&d.timestamp.to_be_bytes());
        out.extend_from_slice(&d.local_deletion_seconds.to_be_bytes());
    }
    // A row never holds 2^32 cells: a CQL table has far fewer columns and collection elements
    // are bounded by the 2 GiB value limit.
    out.extend_from_slice(&(row.cells.len() as u32).to_be_bytes());
    for (id, cell) in &row.cells {
        put_cell(*id, cell, out);
    }
}

fn put_expiry(e: &Expiry, out: &mut Vec<u8>) {
    out.extend_from_slice(&e.ttl_seconds.to_be_bytes());
    out.extend_from_slice(&e.expires_at_seconds.to_be_bytes());
}

fn put_bytes(b: &[u8], out: &mut Vec<u8>) {
    // CQL values are at most 2 GiB ([bytes] has an i32 length), so they fit a u32.
    out.extend_from_slice(&(b.len() as u32).to_be_bytes());
    out.extend_from_slice(b);
}

fn put_cell(id: ColumnId, cell: &Cell, out: &mut Vec<u8>) {
    out.extend_from_slice(&id.0.to_be_bytes());
    let mut flags = 0;
    if cell.path.is_some() {
        flags |= CELL_PATH;
    }
    if cell.expiry.is_some() {
        flags |= CELL_EXPIRY;
    }
    if cell.is_tombstone() {
        flags |= CELL_TOMBSTONE;
    }
    out.push(flags);
    out.extend_from_slice(&cell.timestamp.to_be_bytes());
    if let Some(path) = &cell.path {
        put_bytes(path, out);
    }
    if let Some(e) = &cell.expiry {
        put_expiry(e, out);
    }
    match &cell.value {
        CellValue::Live(v) => put_bytes(v, out),
        CellValue::Tombstone {
            local_deletion_seconds,
        } => out.extend_from_slice(&local_deletion_seconds.to_be_bytes()),
    }
}

impl Input<'_> {
    fn expiry(&mut self) -> Result<Expiry, StorageError> {
        Ok(Expiry {
            ttl_seconds: self.u32()?,
            expires_at_seconds: self.i64()?,
        })
    }
}

/// Parses a row written by [`encode`].
///
/// # Errors
/// [`StorageError::Corrupt`] for an unknown version or flag, truncation, unsorted cells or
/// trailing bytes.
pub(crate) fn decode(bytes: &[u8]) -> Result<StoredRow, StorageError> {
    decode_with(bytes, &Bytes::copy_from_slice)
}

/// [`decode`] of a shared buffer: cell values and paths are slices of `bytes`, not copies
/// (one reference count instead of an allocation and a copy per cell).
///
/// # Errors
/// As [`decode`].
pub(crate) fn decode_shared(bytes: &Bytes) -> Result<StoredRow, StorageError> {
    decode_with(bytes, &|part| bytes.slice_ref(part))
}

/// [`decode`], making each value and path with `own` (given a subslice of `bytes`). Generic,
/// not `dyn`: a shared decode's `slice_ref` is inlined into the loop over the cells.
fn decode_with<F: Fn(&[u8]) -> Bytes>(bytes: &[u8], own: &F) -> Result<StoredRow, StorageError> {
    let mut input = Input::new(bytes, "row value");
    let version = input.u8()?;
    if version != ROW_FORMAT_VERSION {
        return Err(StorageError::corrupt(format!(
            "row value: unknown row format version {version}"
        )));
    }
    let flags = input.u8()?;
    if flags & !(ROW_LIVENESS | ROW_LIVENESS_TTL | ROW_DELETION) != 0
        || (flags & ROW_LIVENESS_TTL != 0 && flags & ROW_LIVENESS == 0)
    {
        return Err(StorageError::corrupt("row value: unknown row flags"));
    }
    let liveness = if flags & ROW_LIVENESS != 0 {
        let timestamp = input.i64()?;
        let ttl = if flags & ROW_LIVENESS_TTL != 0 {
            Some(input.expiry()?)
        } else {
            None
        };
        Some(Liveness { timestamp, ttl })
    } else {
        None
    };
    let deletion = if flags & ROW_DELETION != 0 {
        Some(DeletionTime {
            timestamp: input.i64()?,
            local_deletion_seconds: input.i64()?,
        })
    } else {
        None
    };
    let count = input.u32()?;
    // Each cell takes at least 17 bytes; refuse counts the input cannot hold before allocating.
    if u64::from(count) * 17 > input.bytes.len() as u64 {
        return Err(StorageError::corrupt("row value: cell count"));
    }
    let mut cells: Vec<(ColumnId, Cell)> = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let (id, cell) = decode_cell(&mut input, own)?;
        if let Some((prev_id, prev)) = cells.last() {
            if (*prev_id, &prev.path) >= (id, &cell.path) {
                return Err(StorageError::corrupt("row value: cells out of order"));
            }
        }
        cells.push((id, cell));
    }
    if !input.bytes.is_empty() {
        return Err(StorageError::corrupt("row value: trailing bytes"));
    }
    Ok(StoredRow {
        liveness,
        deletion,
        cells,
    })
}

fn decode_cell<F: Fn(&[u8]) -> Bytes>(
    input: &mut Input<'_>,
    own: &F,
) -> Result<(ColumnId, Cell), StorageError> {
    let id = ColumnId(input.u32()?);
    let flags = input.u8()?;
    if flags & !(CELL_PATH | CELL_EXPIRY | CELL_TOMBSTONE) != 0 {
        return Err(StorageError::corrupt("row value: unknown cell flags"));
    }
    let timestamp = input.i64()?;
    let path = if flags & CELL_PATH != 0 {
        Some(own(input.prefixed()?))
    } else {
        None
    };
    let expiry = if flags & CELL_EXPIRY != 0 {
        Some(input.expiry()?)
    } else {
        None
    };
    let value = if flags & CELL_TOMBSTONE != 0 {
        CellValue::Tombstone {
            local_deletion_seconds: input.i64()?,
        }
    } else {
        CellValue::Live(own(input.prefixed()?))
    };
    Ok((
        id,
        Cell {
            timestamp,
            expiry,
            path,
            value,
        },
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cell_strategy() -> impl Strategy<Value = Cell> {
        (
            any::<i64>(),
            proptest::option::of((any::<u32>(), any::<i64>())),
            proptest::option::of(proptest::collection::vec(any::<u8>(), 0..8)),
            prop_oneof![
                proptest::collection::vec(any::<u8>(), 0..16)
                    .prop_map(|v| CellValue::Live(Bytes::from(v))),
                any::<i64>().prop_map(|s| CellValue::Tombstone {
                    local_deletion_seconds: s
                }),
            ],
        )
            .prop_map(|(timestamp, expiry, path, value)| Cell {
                timestamp,
                expiry: expiry.map(|(ttl_seconds, expires_at_seconds)| Expiry {
                    ttl_seconds,
                    expires_at_seconds,
                }),
                path: path.map(Bytes::from),
                value,
            })
    }

    pub(crate) fn row_strategy() -> impl Strategy<Value = StoredRow> {
        (
            proptest::option::of((
                any::<i64>(),
                proptest::option::of((any::<u32>(), any::<i64>())),
            )),
            proptest::option::of((any::<i64>(), any::<i64>())),
            proptest::collection::btree_map(any::<(u8, Option<u8>)>(), cell_strategy(), 0..6),
        )
            .prop_map(|(liveness, deletion, cells)| StoredRow {
                liveness: liveness.map(|(timestamp, ttl)| Liveness {
                    timestamp,
                    ttl: ttl.map(|(ttl_seconds, expires_at_seconds)| Expiry {
                        ttl_seconds,
                        expires_at_seconds,
                    }),
                }),
                deletion: deletion.map(|(timestamp, local_deletion_seconds)| DeletionTime {
                    timestamp,
                    local_deletion_seconds,
                }),
                cells: cells
                    .into_iter()
                    .map(|((id, path), mut cell)| {
                        cell.path = path.map(|p| Bytes::from(vec![p]));
                        (ColumnId(u32::from(id)), cell)
                    })
                    .collect(),
            })
    }

    proptest! {
        #[test]
        fn round_trips(row in row_strategy()) {
            let bytes = encode(&row);
            prop_assert_eq!(decode(&bytes).unwrap(), row);
        }

        #[test]
        fn shared_decoding_matches_and_copies_nothing(row in row_strategy()) {
            let buffer = Bytes::from(encode(&row));
            let shared = decode_shared(&buffer).unwrap();
            prop_assert_eq!(&shared, &row);
            let range = buffer.as_ptr_range();
            for (_, cell) in &shared.cells {
                if let CellValue::Live(v) = &cell.value {
                    prop_assert!(v.is_empty() || range.contains(&v.as_ptr()));
                }
            }
        }

        #[test]
        fn encoded_len_is_enough(row in row_strategy()) {
            prop_assert!(encode(&row).len() <= encoded_len(&row));
        }

        #[test]
        fn truncation_is_corruption(row in row_strategy(), cut in any::<prop::sample::Index>()) {
            let bytes = encode(&row);
            let cut = cut.index(bytes.len());
            let corrupt = matches!(decode(&bytes[..cut]), Err(StorageError::Corrupt { .. }));
            prop_assert!(corrupt);
        }
    }

    #[test]
    fn byte_exact_small_row() {
        let row = StoredRow {
            liveness: Some(Liveness {
                timestamp: 5,
                ttl: None,
            }),
            deletion: None,
            cells: vec![(ColumnId(2), Cell::live(7, &b"ab"[..]))],
        };
        let mut expected = vec![1, 0x01, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1];
        expected.extend_from_slice(&[
            0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 2, b'a', b'b',
        ]);
        assert_eq!(encode(&row), expected);
    }

    #[test]
    fn rejects_unknown_version_and_unsorted_cells() {
        assert!(decode(&[2, 0, 0, 0, 0, 0]).is_err());
        let row = StoredRow {
            cells: vec![
                (ColumnId(3), Cell::live(1, &b""[..])),
                (ColumnId(1), Cell::live(1, &b""[..])),
            ],
            ..StoredRow::default()
        };
        assert!(decode(&encode(&row)).is_err());
        assert!(decode(&[]).is_err());
    }
}
