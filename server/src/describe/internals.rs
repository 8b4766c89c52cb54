//! What `DESCRIBE ... WITH INTERNALS` adds to a table's `CREATE TABLE` (Cassandra's
//! `TableMetadata.appendCqlTo` with dropped columns and internals): the table's id, its
//! dropped columns among the columns, then one `ALTER TABLE ... DROP ... USING TIMESTAMP` per
//! dropped column and an `ALTER TABLE ... ADD` for each one added back, so the output replays
//! the table's history.

use std::collections::BTreeMap;

use cql::types::maybe_quote;
use storage::{ColumnKind, DroppedColumn, KeyspaceDef, TableDef};

/// The latest drop of each dropped column name, by name.
pub(crate) fn dropped(t: &TableDef) -> Vec<&DroppedColumn> {
    let mut latest: BTreeMap<&str, &DroppedColumn> = BTreeMap::new();
    for d in &t.dropped_columns {
        let newer = latest
            .get(d.name.as_str())
            .is_none_or(|seen| seen.dropped_time_micros <= d.dropped_time_micros);
        if newer {
            latest.insert(&d.name, d);
        }
    }
    latest.into_values().collect()
}

/// A dropped column as its definition in `CREATE TABLE` (without the separator).
pub(crate) fn dropped_definition(d: &DroppedColumn) -> String {
    let mut text = format!("    {} {}", maybe_quote(&d.name), d.ty);
    if d.kind == ColumnKind::Static {
        text.push_str(" static");
    }
    text
}

/// The statements after `CREATE TABLE`: each dropped column dropped again at its time, and
/// added back when the table has it again.
pub(crate) fn drop_statements(ks: &KeyspaceDef, t: &TableDef) -> String {
    let table = format!("{}.{}", maybe_quote(&ks.name), maybe_quote(&t.name));
    let mut out = String::new();
    for d in dropped(t) {
        out.push_str(&format!(
            "\nALTER TABLE {table} DROP {} USING TIMESTAMP {};",
            maybe_quote(&d.name),
            d.dropped_time_micros
        ));
        if let Some(column) = t.column(&d.name) {
            let mut added = format!(
                "\nALTER TABLE {table} ADD {} {}",
                maybe_quote(&column.name),
                column.ty
            );
            if column.kind == ColumnKind::Static {
                added.push_str(" static");
            }
            out.push_str(&added);
            out.push(';');
        }
    }
    out
}
