//! Non-frozen collections and UDTs stored as one cell per element (Cassandra's complex
//! columns), and their assembly back into one serialized value on read.
//!
//! Cell paths are storage's layout ([`storage::cell_path`]): a list element's position, a set
//! element's or map key's serialized bytes, a UDT field's index. List positions come from the
//! writer: appends take fresh increasing server timestamps, prepends their negation.
//!
//! A path-less tombstone of the column is the collection's deletion: it shadows every
//! element written at or before its timestamp.

use bytes::{BufMut, Bytes, BytesMut};
use cql::types::{ordering, ColumnType};
use storage::{cell_path, Cell, CellValue};

/// The path of list position `position`.
pub(crate) use storage::cell_path::list_element as list_path;
/// The path of UDT field `index`.
pub(crate) use storage::cell_path::udt_field as field_path;

use crate::error::{CqlError, CqlResult, ModifyError};

/// A stored element: its cell path and value.
pub(crate) type Element = (Bytes, Bytes);

fn malformed() -> CqlError {
    ModifyError::MalformedCollection.into()
}

fn read_i32(input: &mut &[u8]) -> CqlResult<i32> {
    let (head, rest) = input.split_first_chunk::<4>().ok_or_else(malformed)?;
    *input = rest;
    Ok(i32::from_be_bytes(*head))
}

fn read_bytes(input: &mut &[u8]) -> CqlResult<Option<Bytes>> {
    let len = read_i32(input)?;
    if len < 0 {
        return Ok(None);
    }
    let len = len as usize;
    if input.len() < len {
        return Err(malformed());
    }
    let (head, rest) = input.split_at(len);
    *input = rest;
    Ok(Some(Bytes::copy_from_slice(head)))
}

/// The elements of a serialized list or set value.
pub(crate) fn collection_elements(mut bytes: &[u8]) -> CqlResult<Vec<Bytes>> {
    let count = read_i32(&mut bytes)?.max(0) as usize;
    let mut out = Vec::with_capacity(count.min(bytes.len() / 4));
    for _ in 0..count {
        out.push(read_bytes(&mut bytes)?.ok_or_else(malformed)?);
    }
    Ok(out)
}

/// The entries of a serialized map value.
pub(crate) fn map_entries(mut bytes: &[u8]) -> CqlResult<Vec<(Bytes, Bytes)>> {
    let count = read_i32(&mut bytes)?.max(0) as usize;
    let mut out = Vec::with_capacity(count.min(bytes.len() / 8));
    for _ in 0..count {
        let key = read_bytes(&mut bytes)?.ok_or_else(malformed)?;
        let value = read_bytes(&mut bytes)?.ok_or_else(malformed)?;
        out.push((key, value));
    }
    Ok(out)
}

/// The fields of a serialized UDT value (missing trailing fields are null).
pub(crate) fn udt_fields(mut bytes: &[u8], count: usize) -> CqlResult<Vec<Option<Bytes>>> {
    let mut out = Vec::with_capacity(count);
    while out.len() < count && !bytes.is_empty() {
        out.push(read_bytes(&mut bytes)?);
    }
    out.resize(count, None);
    Ok(out)
}

/// The elements of a whole value of the multi-cell type `ty`. List elements take their
/// positions from `positions` (one per element, increasing).
pub(crate) fn elements_of(
    ty: &ColumnType,
    bytes: &[u8],
    positions: &mut dyn FnMut() -> i64,
) -> CqlResult<Vec<Element>> {
    Ok(match ty {
        ColumnType::List { .. } => collection_elements(bytes)?
            .into_iter()
            .map(|v| (list_path(positions()), v))
            .collect(),
        ColumnType::Set { .. } => collection_elements(bytes)?
            .into_iter()
            .map(|v| (v, Bytes::new()))
            .collect(),
        ColumnType::Map { .. } => map_entries(bytes)?,
        ColumnType::Udt { fields, .. } => udt_fields(bytes, fields.len())?
            .into_iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| (field_path(i), v)))
            .collect(),
        _ => return Err(ModifyError::NotMultiCell { ty: ty.clone() }.into()),
    })
}

fn put_value(out: &mut BytesMut, value: &[u8]) {
    out.put_i32(value.len() as i32);
    out.put_slice(value);
}

/// Serializes a list whose elements may be null (a -1 length), as Cassandra's
/// `CollectionSerializer.pack` writes one.
pub(crate) fn list_of_nullable(values: &[Option<Bytes>]) -> Bytes {
    let mut out = BytesMut::with_capacity(4 + values.len() * 12);
    out.put_i32(values.len() as i32);
    for value in values {
        match value {
            Some(value) => put_value(&mut out, value),
            None => out.put_i32(-1),
        }
    }
    out.freeze()
}

/// Serializes the live elements of a multi-cell column (in path byte order) as one value
/// of `ty`; `None` when there are none (an empty non-frozen collection is null).
pub(crate) fn assemble(ty: &ColumnType, mut elements: Vec<Element>) -> Option<Bytes> {
    if elements.is_empty() {
        return None;
    }
    let mut out = BytesMut::new();
    match ty {
        ColumnType::Udt { fields, .. } => {
            let mut next = 0usize;
            for (path, value) in &elements {
                let index = cell_path::udt_field_index(path).unwrap_or(usize::MAX);
                if index >= fields.len() || index < next {
                    continue;
                }
                for _ in next..index {
                    out.put_i32(-1);
                }
                put_value(&mut out, value);
                next = index + 1;
            }
            for _ in next..fields.len() {
                out.put_i32(-1);
            }
        }
        ColumnType::Set { element, .. } => {
            elements.sort_by(|a, b| ordering::compare(element, &a.0, &b.0));
            out.put_i32(elements.len() as i32);
            for (path, _) in &elements {
                put_value(&mut out, path);
            }
        }
        ColumnType::Map { key, .. } => {
            elements.sort_by(|a, b| ordering::compare(key, &a.0, &b.0));
            out.put_i32(elements.len() as i32);
            for (path, value) in &elements {
                put_value(&mut out, path);
                put_value(&mut out, value);
            }
        }
        _ => {
            out.put_i32(elements.len() as i32);
            for (_, value) in &elements {
                put_value(&mut out, value);
            }
        }
    }
    Some(out.freeze())
}

/// The live elements of one multi-cell column from its cells (path-less first, as stored).
/// `live` says whether a cell survives row deletions and expiry.
pub(crate) fn live_elements<'a>(
    cells: impl Iterator<Item = &'a Cell>,
    live: &dyn Fn(&Cell) -> bool,
) -> Vec<Element> {
    live_element_cells(cells, live)
        .into_iter()
        .filter_map(|cell| match (&cell.path, &cell.value) {
            (Some(path), CellValue::Live(value)) => Some((path.clone(), value.clone())),
            _ => None,
        })
        .collect()
}

/// The live element cells of one multi-cell column (see [`live_elements`]).
pub(crate) fn live_element_cells<'a>(
    cells: impl Iterator<Item = &'a Cell>,
    live: &dyn Fn(&Cell) -> bool,
) -> Vec<&'a Cell> {
    let mut deleted_at: Option<i64> = None;
    let mut out = Vec::new();
    for cell in cells {
        match (&cell.path, &cell.value) {
            (None, CellValue::Tombstone { .. }) => {
                deleted_at = deleted_at.max(Some(cell.timestamp));
            }
            (Some(_), CellValue::Live(_))
                if live(cell) && deleted_at.is_none_or(|d| cell.timestamp > d) =>
            {
                out.push(cell);
            }
            _ => {}
        }
    }
    out
}

/// The elements a later operation of one statement sees: the stored `elements` with the
/// cells earlier operations produced (`pending`, in order) applied over them, as Cassandra
/// merges a statement's pending updates into the row it read. A path-less tombstone (the
/// column replaced) drops the stored elements.
pub(crate) fn with_pending<'a>(
    elements: Vec<Element>,
    pending: impl Iterator<Item = &'a Cell> + Clone,
) -> Vec<Element> {
    let replaced = pending.clone().any(|cell| cell.path.is_none());
    let mut merged: std::collections::BTreeMap<Bytes, Bytes> = if replaced {
        Default::default()
    } else {
        elements.into_iter().collect()
    };
    for cell in pending {
        let Some(path) = &cell.path else {
            continue;
        };
        match &cell.value {
            CellValue::Live(value) => {
                merged.insert(path.clone(), value.clone());
            }
            CellValue::Tombstone { .. } => {
                merged.remove(path);
            }
        }
    }
    merged.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cql::types::{codec, CqlValue};

    fn serialized(value: &CqlValue) -> Vec<u8> {
        let mut out = Vec::new();
        codec::serialize_value(value, &mut out);
        out
    }

    fn int_set() -> ColumnType {
        ColumnType::Set {
            element: Box::new(ColumnType::Int),
            frozen: false,
        }
    }

    #[test]
    fn list_positions_sort_as_numbers() {
        assert!(list_path(-5) < list_path(-1));
        assert!(list_path(-1) < list_path(0));
        assert!(list_path(0) < list_path(7));
    }

    #[test]
    fn sets_reassemble_in_element_order() {
        let ty = int_set();
        let value = serialized(&CqlValue::Set(vec![CqlValue::Int(-3), CqlValue::Int(2)]));
        let mut elements = elements_of(&ty, &value, &mut || 0).unwrap();
        // Stored paths sort by bytes (2 before -3); reading sorts by the element type.
        elements.reverse();
        assert_eq!(assemble(&ty, elements).unwrap().as_ref(), value.as_slice());
        assert_eq!(assemble(&ty, Vec::new()), None);
    }

    #[test]
    fn lists_keep_their_positions() {
        let ty = ColumnType::List {
            element: Box::new(ColumnType::Text),
            frozen: false,
        };
        let value = serialized(&CqlValue::List(vec![
            CqlValue::Text("a".into()),
            CqlValue::Text("b".into()),
        ]));
        let mut next = 10;
        let elements = elements_of(&ty, &value, &mut || {
            next += 1;
            next
        })
        .unwrap();
        assert_eq!(elements[0].0, list_path(11));
        assert_eq!(elements[1].0, list_path(12));
        assert_eq!(assemble(&ty, elements).unwrap().as_ref(), value.as_slice());
    }

    #[test]
    fn udt_fields_fill_missing_with_null() {
        let ty = ColumnType::Udt {
            keyspace: "ks".into(),
            name: "u".into(),
            fields: vec![
                ("a".into(), ColumnType::Int),
                ("b".into(), ColumnType::Int),
                ("c".into(), ColumnType::Int),
            ],
            frozen: false,
        };
        let elements = vec![(field_path(1), Bytes::from_static(&[0, 0, 0, 9]))];
        let value = assemble(&ty, elements).unwrap();
        assert_eq!(
            value.as_ref(),
            &[255, 255, 255, 255, 0, 0, 0, 4, 0, 0, 0, 9, 255, 255, 255, 255][..]
        );
        let fields = udt_fields(&value, 3).unwrap();
        assert_eq!(fields[1].as_deref(), Some(&[0, 0, 0, 9][..]));
        assert_eq!(fields[2], None);
    }

    #[test]
    fn collection_deletion_shadows_older_elements() {
        let element = |ts: i64, path: &'static [u8]| Cell {
            path: Some(Bytes::from_static(path)),
            ..Cell::live(ts, Bytes::new())
        };
        let cells = [
            Cell::tombstone(5, 0),
            element(5, b"old"),
            element(6, b"new"),
        ];
        let live = live_elements(cells.iter(), &|_| true);
        assert_eq!(live, vec![(Bytes::from_static(b"new"), Bytes::new())]);
    }

    #[test]
    fn later_operations_see_earlier_cells_of_the_statement() {
        let path = |n: u8| Bytes::from(vec![n]);
        let stored = vec![
            (path(1), path(10)),
            (path(2), path(20)),
            (path(3), path(30)),
        ];
        let at = |mut cell: Cell, p: u8| {
            cell.path = Some(path(p));
            cell
        };
        let pending = [at(Cell::tombstone(5, 0), 2), at(Cell::live(5, path(40)), 4)];
        assert_eq!(
            with_pending(stored.clone(), pending.iter()),
            vec![
                (path(1), path(10)),
                (path(3), path(30)),
                (path(4), path(40))
            ]
        );
        let replaced = [Cell::tombstone(4, 0), at(Cell::live(5, path(7)), 9)];
        assert_eq!(
            with_pending(stored, replaced.iter()),
            vec![(path(9), path(7))]
        );
    }
}
