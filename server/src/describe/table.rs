//! `CREATE TABLE` text as Cassandra's `TableMetadata.appendCqlTo` writes it: the columns,
//! the primary key, the options; a virtual table as its commented structure, and with
//! internals the table's id and its dropped columns (see [`crate::describe::internals`]).

use cql::types::maybe_quote;
use storage::{ColumnKind, DroppedColumn, KeyspaceDef, TableDef};

use crate::describe::internals::{drop_statements, dropped, dropped_definition};
use crate::describe::text::{table_options, type_text};
use crate::schema::system_keyspaces::VIRTUAL_KEYSPACES;

/// `CREATE TABLE` for `t`; `internals` (`DESCRIBE ... WITH INTERNALS`) adds the table's id
/// and its dropped columns.
pub(crate) fn create_table_with(ks: &KeyspaceDef, t: &TableDef, internals: bool) -> String {
    let full_name = format!("{}.{}", maybe_quote(&ks.name), maybe_quote(&t.name));
    let virtual_table = VIRTUAL_KEYSPACES.contains(&ks.name.as_str());
    let mut out = if virtual_table {
        format!(
            "/*\nWarning: Table {full_name} is a virtual table and cannot be recreated with CQL.\n\
             Structure, for reference:\nVIRTUAL TABLE {full_name} (\n"
        )
    } else {
        format!("CREATE TABLE {full_name} (\n")
    };
    let dropped = if internals { dropped(t) } else { Vec::new() };
    out.push_str(&column_definitions(t, &dropped));
    out.push_str(") WITH ");
    out.push_str(&options(t, internals, virtual_table).join("\n    AND "));
    out.push(';');
    if virtual_table {
        out.push_str("\n*/");
    }
    if internals {
        out.push_str(&drop_statements(ks, t));
    }
    out
}

/// The column definitions, then the dropped ones (with internals), then the primary key
/// clause unless a lone partition key column says `PRIMARY KEY` itself.
fn column_definitions(t: &TableDef, dropped: &[&DroppedColumn]) -> String {
    let single_pk = t.partition_key.len() == 1 && t.clustering_key.is_empty();
    let mut out = String::new();
    for col in &t.columns {
        if dropped.iter().any(|d| d.name == col.name) {
            // Re-added after a drop: it comes back in the ALTER TABLE ... ADD after.
            continue;
        }
        out.push_str(&format!(
            "    {} {}",
            maybe_quote(&col.name),
            type_text(&col.ty)
        ));
        if col.kind == ColumnKind::Static {
            out.push_str(" static");
        }
        if single_pk && col.kind == ColumnKind::PartitionKey {
            out.push_str(" PRIMARY KEY");
        }
        out.push_str(",\n");
    }
    for d in dropped {
        out.push_str(&dropped_definition(d));
        out.push_str(",\n");
    }
    if single_pk {
        out.truncate(out.len() - 2);
        out.push('\n');
    } else {
        out.push_str(&format!("    PRIMARY KEY ({})\n", primary_key(t)));
    }
    out
}

/// `(p1, p2), c1, c2` or `p, c1`.
fn primary_key(t: &TableDef) -> String {
    let names = |idx: &[usize]| -> Vec<String> {
        idx.iter()
            .map(|&i| maybe_quote(&t.columns[i].name))
            .collect()
    };
    let pk = names(&t.partition_key);
    let pk_text = if pk.len() == 1 {
        pk[0].clone()
    } else {
        format!("({})", pk.join(", "))
    };
    let mut key = vec![pk_text];
    key.extend(names(&t.clustering_key));
    key.join(", ")
}

/// The `WITH` options: a virtual table shows its clustering order and comment only; the
/// id comes first with internals.
fn options(t: &TableDef, internals: bool, virtual_table: bool) -> Vec<String> {
    let mut options = if virtual_table {
        let mut options: Vec<String> = table_options(t)
            .into_iter()
            .filter(|o| o.starts_with("CLUSTERING ORDER BY"))
            .collect();
        options.push(format!(
            "comment = '{}'",
            t.params.comment.replace('\'', "''")
        ));
        options
    } else {
        table_options(t)
    };
    if internals {
        options.insert(0, format!("ID = {}", t.id));
    }
    options
}
