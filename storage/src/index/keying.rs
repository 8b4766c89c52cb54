//! How an index keys the indexed value of its entries ([`TermKeying`]).
//!
//! Legacy secondary indexes, and storage-attached indexes whose values only take equality,
//! key the serialized bytes (one blob component): equality is by bytes. A storage-attached
//! index on a value type that takes ranges (Cassandra 5.0's non-literal SAI types: numbers,
//! dates and times, `timeuuid`, `inet`) keys the value's order-preserving key component
//! (`encoding::key`), so `a > 15` is one byte range of entries. An SAI index on text whose
//! analysis options change values keys the analyzed text (`analyzer`).

use std::ops::Bound;

use cql::types::ColumnType;
use serde::{Deserialize, Serialize};

use super::analyzer::Analyzer;
use crate::catalog::type_text::parse_type;
use crate::catalog::ClusteringOrder;
use crate::catalog::ColumnKind;
use crate::catalog::IndexDef;
use crate::catalog::IndexTargetKind;
use crate::catalog::TableDef;
use crate::encoding::key::encode_component;
use crate::encoding::key::prefix_end;
use crate::encoding::key::KeyColumn;
use crate::error::StorageError;

/// Entry-key bounds (start, end) of a range of indexed values.
pub type EntryRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// How an index keys its values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum TermKeying {
    /// One blob component of the serialized bytes.
    #[default]
    Bytes,
    /// The typed, order-preserving component of a value of type `ty` (CQL text).
    Typed {
        /// The CQL text of the value type (a native type).
        ty: String,
    },
    /// One blob component of the analyzed UTF-8 text.
    Analyzed {
        /// The analysis options.
        analyzer: Analyzer,
    },
}

/// The native types whose storage-attached indexes answer ranges (not `text`, `ascii`,
/// `boolean`, `uuid`, nor frozen or composite values: Cassandra's `IndexTermType.supports`).
pub fn takes_ranges(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Int
            | ColumnType::Bigint
            | ColumnType::Smallint
            | ColumnType::Tinyint
            | ColumnType::Varint
            | ColumnType::Decimal
            | ColumnType::Float
            | ColumnType::Double
            | ColumnType::Date
            | ColumnType::Time
            | ColumnType::Timestamp
            | ColumnType::Timeuuid
            | ColumnType::Inet
    )
}

/// Whether `ty` is a string type (text analysis applies to it).
pub fn is_string(ty: &ColumnType) -> bool {
    matches!(ty, ColumnType::Text | ColumnType::Ascii)
}

/// The type of the values `target` indexes on a column of type `ty`: the column type, a
/// list or set element, a map key or value; `None` for map entries (a pair) and `full()`.
pub fn term_type(ty: &ColumnType, target: IndexTargetKind) -> Option<&ColumnType> {
    match (ty, target) {
        (
            ColumnType::List { element, .. } | ColumnType::Set { element, .. },
            IndexTargetKind::Values,
        ) => Some(element),
        (ColumnType::Map { value, .. }, IndexTargetKind::Values) => Some(value),
        (ColumnType::Map { key, .. }, IndexTargetKind::Keys) => Some(key),
        (_, IndexTargetKind::Entries | IndexTargetKind::Full) => None,
        (other, _) => Some(other),
    }
}

/// How `index` of `table` keys its values. Only storage-attached (custom) indexes on regular
/// and static columns key anything but bytes; vector indexes key bytes.
pub fn term_keying(table: &TableDef, index: &IndexDef) -> TermKeying {
    if index.custom_class.is_none() {
        return TermKeying::Bytes;
    }
    let Some(column) = table.column_by_id(index.column) else {
        return TermKeying::Bytes;
    };
    if !matches!(column.kind, ColumnKind::Regular | ColumnKind::Static) {
        return TermKeying::Bytes;
    }
    let Some(ty) = term_type(&column.ty, index.target) else {
        return TermKeying::Bytes;
    };
    if takes_ranges(ty) {
        return TermKeying::Typed { ty: ty.to_string() };
    }
    let analyzer = Analyzer::from_options(&index.options);
    if is_string(ty) && analyzer.transforms() {
        return TermKeying::Analyzed { analyzer };
    }
    TermKeying::Bytes
}

/// IPv4 addresses as their IPv4-mapped IPv6 form, as SAI indexes `inet` (so `'127.0.0.1'`
/// sorts among IPv6 addresses as `::ffff:127.0.0.1`).
fn inet_as_v6(value: &[u8]) -> Vec<u8> {
    if value.len() == 4 {
        let mut out = vec![0u8; 10];
        out.extend_from_slice(&[0xFF, 0xFF]);
        out.extend_from_slice(value);
        return out;
    }
    value.to_vec()
}

fn blob(value: &[u8], out: &mut Vec<u8>) -> Result<(), StorageError> {
    let column = KeyColumn {
        ty: &ColumnType::Blob,
        order: ClusteringOrder::Asc,
    };
    encode_component(column, value, out)
}

impl TermKeying {
    /// The value type of a typed keying, parsed.
    pub(crate) fn typed(&self) -> Result<Option<ColumnType>, StorageError> {
        match self {
            TermKeying::Typed { ty } => parse_type(ty)
                .map(Some)
                .map_err(|e| StorageError::corrupt(format!("index value type {ty}: {e}"))),
            _ => Ok(None),
        }
    }

    /// Appends the component of one indexed value.
    ///
    /// # Errors
    /// A value of the wrong width for a typed keying.
    pub fn push(&self, value: &[u8], out: &mut Vec<u8>) -> Result<(), StorageError> {
        match self {
            TermKeying::Bytes => blob(value, out),
            TermKeying::Analyzed { analyzer } => blob(&analyzer.analyze_bytes(value), out),
            TermKeying::Typed { .. } => {
                let ty = self.typed()?.unwrap_or(ColumnType::Blob);
                let column = KeyColumn {
                    ty: &ty,
                    order: ClusteringOrder::Asc,
                };
                if ty == ColumnType::Inet {
                    return encode_component(column, &inet_as_v6(value), out);
                }
                encode_component(column, value, out)
            }
        }
    }

    /// The entry prefix of one value: every entry of `value` starts with it.
    ///
    /// # Errors
    /// As [`TermKeying::push`].
    pub fn prefix(&self, value: &[u8]) -> Result<Vec<u8>, StorageError> {
        let mut out = Vec::new();
        self.push(value, &mut out)?;
        Ok(out)
    }

    /// The entry-key bounds of the values between `lower` and `upper` (value, inclusive),
    /// each side unbounded when absent. Components are prefix-free, so an inclusive bound
    /// takes every entry of its value and an exclusive one none.
    ///
    /// # Errors
    /// As [`TermKeying::push`].
    pub fn range(
        &self,
        lower: Option<(&[u8], bool)>,
        upper: Option<(&[u8], bool)>,
    ) -> Result<EntryRange, StorageError> {
        let start = match lower {
            None => Bound::Unbounded,
            Some((value, true)) => Bound::Included(self.prefix(value)?),
            Some((value, false)) => after(self.prefix(value)?),
        };
        let end = match upper {
            None => Bound::Unbounded,
            Some((value, false)) => Bound::Excluded(self.prefix(value)?),
            Some((value, true)) => after(self.prefix(value)?),
        };
        Ok((start, end))
    }
}

/// The bound just past every key starting with `prefix`.
fn after(prefix: Vec<u8>) -> Bound<Vec<u8>> {
    match prefix_end(&prefix) {
        Some(end) => Bound::Included(end),
        None => Bound::Excluded(prefix),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(v: i32) -> Vec<u8> {
        v.to_be_bytes().to_vec()
    }

    #[test]
    fn typed_keys_sort_as_values() {
        let keying = TermKeying::Typed { ty: "int".into() };
        let keys: Vec<Vec<u8>> = [-5, -1, 0, 3, 100]
            .iter()
            .map(|v| keying.prefix(&int(*v)).unwrap())
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
    }

    #[test]
    fn range_bounds_take_or_skip_their_value() {
        let keying = TermKeying::Typed { ty: "int".into() };
        let entry = |v: i32| {
            let mut k = keying.prefix(&int(v)).unwrap();
            k.extend_from_slice(b"rowkey");
            k
        };
        let (start, end) = keying
            .range(Some((&int(5), false)), Some((&int(9), true)))
            .unwrap();
        let inside = |k: &Vec<u8>| {
            (match &start {
                Bound::Included(s) => k >= s,
                Bound::Excluded(s) => k > s,
                Bound::Unbounded => true,
            }) && (match &end {
                Bound::Included(e) => k <= e,
                Bound::Excluded(e) => k < e,
                Bound::Unbounded => true,
            })
        };
        assert!(!inside(&entry(5)));
        assert!(inside(&entry(6)));
        assert!(inside(&entry(9)));
        assert!(!inside(&entry(10)));
    }

    #[test]
    fn analyzed_keys_meet_across_case() {
        let keying = TermKeying::Analyzed {
            analyzer: Analyzer {
                case_sensitive: false,
                ..Analyzer::default()
            },
        };
        assert_eq!(
            keying.prefix(b"Hello").unwrap(),
            keying.prefix(b"hELLO").unwrap()
        );
    }
}
