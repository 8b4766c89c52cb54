//! Bound values holding sets or maps, put in Cassandra's canonical form: a driver may send a
//! set's elements (or a map's keys) in any order and repeated, and Cassandra deserializes a
//! bound collection into its sorted set or map before using it, so `{2, 1}` bound to a frozen
//! set key finds the row written as `{1, 2}`.

use bytes::Bytes;
use cql::types::{codec, ColumnType, CqlValue};

use super::literal::{sort_map, sort_set};
use crate::error::{CqlResult, ValueError};

/// Whether values of `ty` hold a set or map at some depth.
pub(crate) fn has_unordered(ty: &ColumnType) -> bool {
    match ty {
        ColumnType::Set { .. } | ColumnType::Map { .. } => true,
        ColumnType::List { element, .. } | ColumnType::Vector { element, .. } => {
            has_unordered(element)
        }
        ColumnType::Tuple(types) => types.iter().any(has_unordered),
        ColumnType::Udt { fields, .. } => fields.iter().any(|(_, t)| has_unordered(t)),
        _ => false,
    }
}

/// `bytes` (a valid serialized value of `ty`) with every set sorted and deduplicated and
/// every map sorted by key, at every depth.
pub(crate) fn canonical(ty: &ColumnType, bytes: Bytes) -> CqlResult<Bytes> {
    let value = codec::deserialize_value(ty, &bytes).map_err(ValueError::Codec)?;
    let mut out = Vec::with_capacity(bytes.len());
    codec::serialize_value(&normalize(value, ty), &mut out);
    Ok(Bytes::from(out))
}

fn normalize(value: CqlValue, ty: &ColumnType) -> CqlValue {
    match (value, ty) {
        (CqlValue::Set(items), ColumnType::Set { element, .. }) => {
            let items = items.into_iter().map(|v| normalize(v, element)).collect();
            CqlValue::Set(sort_set(items, element))
        }
        (CqlValue::Map(entries), ColumnType::Map { key, value, .. }) => {
            let entries = entries
                .into_iter()
                .map(|(k, v)| (normalize(k, key), normalize(v, value)))
                .collect();
            CqlValue::Map(sort_map(entries, key))
        }
        (CqlValue::List(items), ColumnType::List { element, .. }) => {
            CqlValue::List(items.into_iter().map(|v| normalize(v, element)).collect())
        }
        (CqlValue::Vector(items), ColumnType::Vector { element, .. }) => {
            CqlValue::Vector(items.into_iter().map(|v| normalize(v, element)).collect())
        }
        (CqlValue::Tuple(items), ColumnType::Tuple(types)) => CqlValue::Tuple(
            items
                .into_iter()
                .zip(types)
                .map(|(v, t)| v.map(|v| normalize(v, t)))
                .collect(),
        ),
        (CqlValue::Udt(fields), ColumnType::Udt { fields: types, .. }) => CqlValue::Udt(
            fields
                .into_iter()
                .zip(types)
                .map(|((name, v), (_, t))| (name, v.map(|v| normalize(v, t))))
                .collect(),
        ),
        (other, _) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(value: &CqlValue) -> Bytes {
        let mut out = Vec::new();
        codec::serialize_value(value, &mut out);
        Bytes::from(out)
    }

    #[test]
    fn nested_sets_and_maps_are_sorted_and_deduplicated() {
        let set = |element| ColumnType::Set {
            element: Box::new(element),
            frozen: true,
        };
        let ty = ColumnType::Map {
            key: Box::new(ColumnType::Int),
            value: Box::new(set(ColumnType::Int)),
            frozen: true,
        };
        let ints = |v: &[i32]| CqlValue::Set(v.iter().map(|&i| CqlValue::Int(i)).collect());
        let sent = CqlValue::Map(vec![
            (CqlValue::Int(2), ints(&[3, 1, 3])),
            (CqlValue::Int(1), ints(&[-5, 7])),
        ]);
        let expected = CqlValue::Map(vec![
            (CqlValue::Int(1), ints(&[-5, 7])),
            (CqlValue::Int(2), ints(&[1, 3])),
        ]);
        assert!(has_unordered(&ty));
        assert!(!has_unordered(&ColumnType::Int));
        assert_eq!(
            canonical(&ty, bytes_of(&sent)).unwrap(),
            bytes_of(&expected)
        );
    }
}
