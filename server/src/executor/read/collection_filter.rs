//! Row-by-row checks of collection restrictions: `CONTAINS`, `CONTAINS KEY` and
//! `m[key] = value`, over a column's serialized (assembled) collection value.

use bytes::Bytes;
use cql::statement::ast::Operator;
use cql::types::{ordering, ColumnType};
use std::cmp::Ordering;

use crate::executor::read::elements::{contains, element};

/// Whether `value` (serialized, of type `ty`) passes the collection checks among `checks`
/// and every `m[key] = value` of `elements`. Other operators are left to the caller.
pub(crate) fn passes(
    ty: &ColumnType,
    value: &Bytes,
    checks: &[(Operator, Vec<Bytes>)],
    elements: &[(Bytes, Bytes)],
) -> bool {
    let wanted = checks
        .iter()
        .any(|(op, _)| matches!(op, Operator::Contains | Operator::ContainsKey));
    if !wanted && elements.is_empty() {
        return true;
    }
    let holds = |op: &Operator, operand: &Bytes| match op {
        Operator::Contains => contains(ty, false, value, operand).unwrap_or(false),
        Operator::ContainsKey => contains(ty, true, value, operand).unwrap_or(false),
        _ => true,
    };
    let checks_hold = checks
        .iter()
        .all(|(op, operands)| operands.iter().all(|o| holds(op, o)));
    match ty {
        // `m[key] = value` entries exist only for maps.
        ColumnType::Map {
            value: value_ty, ..
        } => {
            checks_hold
                && elements.iter().all(|(k, v)| {
                    element(ty, value, k).ok().flatten().is_some_and(|found| {
                        ordering::compare(value_ty, &found, v) == Ordering::Equal
                    })
                })
        }
        _ => checks_hold && elements.is_empty() && ty.is_collection(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serialized(items: &[&[u8]]) -> Bytes {
        let mut out = (items.len() as i32).to_be_bytes().to_vec();
        for item in items {
            out.extend_from_slice(&(item.len() as i32).to_be_bytes());
            out.extend_from_slice(item);
        }
        Bytes::from(out)
    }

    fn text(s: &str) -> Bytes {
        Bytes::copy_from_slice(s.as_bytes())
    }

    #[test]
    fn contains_checks_elements_and_map_values() {
        let set = ColumnType::Set {
            element: Box::new(ColumnType::Text),
            frozen: false,
        };
        let value = serialized(&[b"a", b"b"]);
        let contains = |s: &str| vec![(Operator::Contains, vec![text(s)])];
        assert!(passes(&set, &value, &contains("b"), &[]));
        assert!(!passes(&set, &value, &contains("c"), &[]));

        let map = ColumnType::Map {
            key: Box::new(ColumnType::Text),
            value: Box::new(ColumnType::Text),
            frozen: false,
        };
        // One entry: the count, then key and value.
        let mut value = serialized(&[b"k", b"v"]).to_vec();
        value[..4].copy_from_slice(&1i32.to_be_bytes());
        let value = Bytes::from(value);
        assert!(passes(&map, &value, &contains("v"), &[]));
        assert!(!passes(&map, &value, &contains("k"), &[]));
        let key = vec![(Operator::ContainsKey, vec![text("k")])];
        assert!(passes(&map, &value, &key, &[]));
        assert!(passes(&map, &value, &[], &[(text("k"), text("v"))]));
        assert!(!passes(&map, &value, &[], &[(text("k"), text("w"))]));
    }
}
