//! Equality on a column whose storage-attached index analyzes text (`case_sensitive`,
//! `normalize`, `ascii`): Cassandra 5.0 compares the analyzed forms, in the index and when
//! it re-checks rows, so `txt = 'hello'` matches `'Hello'` under `case_sensitive: false`.

use storage::index::{term_keying, Analyzer, TermKeying};
use storage::{IndexTargetKind, TableDef};

/// The analyzer of the storage-attached index on column `column` (by position), if that
/// index changes values.
pub(crate) fn analyzer(def: &TableDef, column: usize) -> Option<Analyzer> {
    let id = def.columns.get(column)?.id;
    def.indexes
        .iter()
        .filter(|i| i.column == id && i.target == IndexTargetKind::Simple)
        .find_map(|i| match term_keying(def, i) {
            TermKeying::Analyzed { analyzer } => Some(analyzer),
            _ => None,
        })
}

/// Whether the stored `value` equals the already analyzed `operand` once analyzed.
pub(crate) fn equals(analyzer: &Analyzer, value: &[u8], operand: &[u8]) -> bool {
    analyzer.analyze_bytes(value) == operand
}
