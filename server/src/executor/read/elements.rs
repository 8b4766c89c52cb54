//! Evaluating element and slice selection (`m[k]`, `s[e]`, `m[a..b]`) on serialized map and
//! set values, comparing keys with the collection's key comparator as Cassandra's
//! `ElementsSelector` does.

use std::cmp::Ordering;

use bytes::{BufMut, Bytes, BytesMut};
use cql::types::{ordering, ColumnType};

use crate::error::CqlResult;
use crate::executor::write::multicell::{collection_elements, map_entries};

/// `collection[key]`: a map's value at `key`, or `key` itself when a set holds it.
pub(crate) fn element(ty: &ColumnType, collection: &[u8], key: &[u8]) -> CqlResult<Option<Bytes>> {
    Ok(match ty {
        ColumnType::Map { key: key_type, .. } => map_entries(collection)?
            .into_iter()
            .find(|(k, _)| ordering::compare(key_type, k, key) == Ordering::Equal)
            .map(|(_, v)| v),
        ColumnType::Set { element, .. } => collection_elements(collection)?
            .into_iter()
            .find(|e| ordering::compare(element, e, key) == Ordering::Equal),
        _ => None,
    })
}

/// Whether a serialized collection holds `value`: among a list's or set's elements or a map's
/// values (`CONTAINS`), or among a map's keys (`CONTAINS KEY`, `key`). Other types hold
/// nothing.
pub(crate) fn contains(
    ty: &ColumnType,
    key: bool,
    collection: &[u8],
    value: &[u8],
) -> CqlResult<bool> {
    let same = |t: &ColumnType, a: &[u8]| ordering::compare(t, a, value) == Ordering::Equal;
    Ok(match ty {
        ColumnType::Map { key: key_type, .. } if key => map_entries(collection)?
            .iter()
            .any(|(k, _)| same(key_type, k)),
        ColumnType::Map {
            value: value_type, ..
        } => map_entries(collection)?
            .iter()
            .any(|(_, v)| same(value_type, v)),
        ColumnType::List { element, .. } | ColumnType::Set { element, .. } if !key => {
            collection_elements(collection)?
                .iter()
                .any(|e| same(element, e))
        }
        _ => false,
    })
}

/// `collection[from..to]`: the entries between two inclusive bounds (`None`: open), in the
/// collection's own type (empty when none is left, as Cassandra returns it).
pub(crate) fn slice(
    ty: &ColumnType,
    collection: &[u8],
    from: Option<&[u8]>,
    to: Option<&[u8]>,
) -> CqlResult<Option<Bytes>> {
    let within = |key_type: &ColumnType, k: &[u8]| {
        from.is_none_or(|f| ordering::compare(key_type, k, f) != Ordering::Less)
            && to.is_none_or(|t| ordering::compare(key_type, k, t) != Ordering::Greater)
    };
    // The kept entries, and the serialized parts each contributes (a map entry: key, value).
    let (count, parts): (usize, Vec<Bytes>) = match ty {
        ColumnType::Map { key, .. } => {
            let kept: Vec<(Bytes, Bytes)> = map_entries(collection)?
                .into_iter()
                .filter(|(k, _)| within(key, k))
                .collect();
            (
                kept.len(),
                kept.into_iter().flat_map(|(k, v)| [k, v]).collect(),
            )
        }
        ColumnType::Set { element, .. } => {
            let kept: Vec<Bytes> = collection_elements(collection)?
                .into_iter()
                .filter(|e| within(element, e))
                .collect();
            (kept.len(), kept)
        }
        _ => return Ok(None),
    };
    // A non-frozen collection has no empty value: an empty slice of one is null, as
    // Cassandra's `CollectionType.serializeForNativeProtocol` of no cells.
    if count == 0 && ty.is_multi_cell() {
        return Ok(None);
    }
    let mut out = BytesMut::new();
    out.put_i32(i32::try_from(count).unwrap_or(i32::MAX));
    for part in parts {
        out.put_i32(i32::try_from(part.len()).unwrap_or(i32::MAX));
        out.put_slice(&part);
    }
    Ok(Some(out.freeze()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serialize(parts: &[&[u8]], count: i32) -> Vec<u8> {
        let mut out = count.to_be_bytes().to_vec();
        for p in parts {
            out.extend_from_slice(&(p.len() as i32).to_be_bytes());
            out.extend_from_slice(p);
        }
        out
    }

    fn int(v: i32) -> Vec<u8> {
        v.to_be_bytes().to_vec()
    }

    fn map_type() -> ColumnType {
        ColumnType::Map {
            key: Box::new(ColumnType::Int),
            value: Box::new(ColumnType::Text),
            frozen: false,
        }
    }

    #[test]
    fn map_element_and_slice_compare_keys_by_type() {
        let (m1, m2, m3) = (int(-5), int(2), int(7));
        let map = serialize(&[&m1, b"a", &m2, b"b", &m3, b"c"], 3);
        let ty = map_type();
        assert_eq!(
            element(&ty, &map, &int(2)).unwrap().as_deref(),
            Some(&b"b"[..])
        );
        assert_eq!(element(&ty, &map, &int(3)).unwrap(), None);
        // Signed order: -5 is below 0, so [0..] keeps 2 and 7.
        let tail = slice(&ty, &map, Some(&int(0)), None).unwrap().unwrap();
        assert_eq!(tail.as_ref(), serialize(&[&m2, b"b", &m3, b"c"], 2));
        let middle = slice(&ty, &map, Some(&int(2)), Some(&int(2)))
            .unwrap()
            .unwrap();
        assert_eq!(middle.as_ref(), serialize(&[&m2, b"b"], 1));
        // Empty: a non-frozen map's slice is null, a frozen one's the empty map.
        assert_eq!(slice(&ty, &map, Some(&int(8)), None).unwrap(), None);
        let frozen = ColumnType::Map {
            key: Box::new(ColumnType::Int),
            value: Box::new(ColumnType::Text),
            frozen: true,
        };
        let empty = slice(&frozen, &map, Some(&int(8)), None).unwrap().unwrap();
        assert_eq!(empty.as_ref(), 0i32.to_be_bytes());
    }

    #[test]
    fn contains_looks_at_elements_values_or_keys() {
        let map = serialize(&[&int(1), b"a"], 1);
        assert!(contains(&map_type(), true, &map, &int(1)).unwrap());
        assert!(!contains(&map_type(), true, &map, b"a").unwrap());
        assert!(contains(&map_type(), false, &map, b"a").unwrap());
        let list = ColumnType::List {
            element: Box::new(ColumnType::Int),
            frozen: false,
        };
        let items = serialize(&[&int(3)], 1);
        assert!(contains(&list, false, &items, &int(3)).unwrap());
        assert!(!contains(&list, true, &items, &int(3)).unwrap());
    }

    #[test]
    fn set_element_is_the_element_when_present() {
        let ty = ColumnType::Set {
            element: Box::new(ColumnType::Text),
            frozen: true,
        };
        let set = serialize(&[b"a", b"c"], 2);
        assert_eq!(
            element(&ty, &set, b"c").unwrap().as_deref(),
            Some(&b"c"[..])
        );
        assert_eq!(element(&ty, &set, b"b").unwrap(), None);
        let head = slice(&ty, &set, None, Some(b"b")).unwrap().unwrap();
        assert_eq!(head.as_ref(), serialize(&[b"a"], 1));
    }
}
