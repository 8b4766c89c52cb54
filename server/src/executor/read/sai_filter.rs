//! Equality on a column whose storage-attached index analyzes text (`case_sensitive`,
//! `normalize`, `ascii`): Cassandra 5.0 compares the analyzed forms, in the index and when
//! it re-checks rows, so `txt = 'hello'` matches `'Hello'` under `case_sensitive: false`;
//! `CONTAINS` and `CONTAINS KEY` on collections of text likewise.

use cql::types::ColumnType;

use crate::executor::write::multicell::{collection_elements, map_entries};

use storage::index::{term_keying, Analyzer, TermKeying};
use storage::{IndexTargetKind, TableDef};

/// The analyzer of the storage-attached index with `target` on column `column` (by
/// position), if that index changes values.
pub(crate) fn analyzer(def: &TableDef, column: usize, target: IndexTargetKind) -> Option<Analyzer> {
    let id = def.columns.get(column)?.id;
    def.indexes
        .iter()
        .filter(|i| i.column == id && i.target == target)
        .find_map(|i| match term_keying(def, i) {
            TermKeying::Analyzed { analyzer } => Some(analyzer),
            _ => None,
        })
}

/// Whether the stored `value` equals the already analyzed `operand` once analyzed.
pub(crate) fn equals(analyzer: &Analyzer, value: &[u8], operand: &[u8]) -> bool {
    analyzer.analyze_bytes(value) == operand
}

/// Whether the collection `value` of type `ty` holds a value (a map key when `key`) whose
/// analyzed form is the already analyzed `operand`.
pub(crate) fn contains(
    ty: &ColumnType,
    key: bool,
    value: &[u8],
    analyzer: &Analyzer,
    operand: &[u8],
) -> bool {
    let same = |element: &[u8]| equals(analyzer, element, operand);
    match ty {
        ColumnType::Map { .. } => map_entries(value)
            .map(|entries| {
                entries
                    .iter()
                    .any(|(k, v)| if key { same(k) } else { same(v) })
            })
            .unwrap_or(false),
        ColumnType::List { .. } | ColumnType::Set { .. } if !key => collection_elements(value)
            .map(|elements| elements.iter().any(|e| same(e)))
            .unwrap_or(false),
        _ => false,
    }
}
