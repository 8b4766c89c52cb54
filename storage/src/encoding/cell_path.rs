//! Cell paths: which element of a non-frozen collection or UDT (a multi-cell column, stored
//! one cell per element) a cell holds. Cells sort by path within their column, so a path's
//! byte order is the order elements are read back in.
//!
//! - list: the element's position, an `i64` with the sign bit flipped, big-endian, so byte
//!   order is position order. Appends take fresh increasing server timestamps, prepends their
//!   negation, so they sort before everything appended and before earlier prepends
//!   (Cassandra uses time UUIDs for the same purpose);
//! - set: the element's serialized bytes (the cell value is empty);
//! - map: the key's serialized bytes (the cell value is the map value);
//! - UDT: the field's position as a big-endian `u16` (as Cassandra does).

use bytes::Bytes;

/// The path of the list element at `position`.
pub fn list_element(position: i64) -> Bytes {
    Bytes::copy_from_slice(&((position as u64) ^ (1 << 63)).to_be_bytes())
}

/// The position of the list element whose path is `path`; `None` for a path of another
/// shape.
pub fn list_position(path: &[u8]) -> Option<i64> {
    let bytes: [u8; 8] = path.try_into().ok()?;
    Some((u64::from_be_bytes(bytes) ^ (1 << 63)) as i64)
}

/// The path of UDT field `index`.
pub fn udt_field(index: usize) -> Bytes {
    Bytes::copy_from_slice(&(index as u16).to_be_bytes())
}

/// The field index of the UDT cell whose path is `path`; `None` for a path of another shape.
pub fn udt_field_index(path: &[u8]) -> Option<usize> {
    let bytes: [u8; 2] = path.try_into().ok()?;
    Some(usize::from(u16::from_be_bytes(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_positions_sort_as_numbers_and_read_back() {
        let positions = [i64::MIN, -5, -1, 0, 7, i64::MAX];
        for pair in positions.windows(2) {
            assert!(list_element(pair[0]) < list_element(pair[1]), "{pair:?}");
        }
        for position in positions {
            assert_eq!(list_position(&list_element(position)), Some(position));
        }
        assert_eq!(list_position(b"short"), None);
    }

    #[test]
    fn udt_fields_sort_by_index_and_read_back() {
        assert!(udt_field(1) < udt_field(2));
        assert!(udt_field(2) < udt_field(300));
        assert_eq!(udt_field(1).as_ref(), &[0, 1]);
        assert_eq!(udt_field_index(&udt_field(300)), Some(300));
        assert_eq!(udt_field_index(&[1]), None);
    }
}
