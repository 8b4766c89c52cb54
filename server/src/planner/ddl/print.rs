//! `Display` for [`SchemaChangePlan`]: one line saying what the executor applies, for tests
//! and debug logs, in the style of `SelectPlan`'s and `ModifyPlan`'s. The catalog records
//! print through private helpers here, so storage's types keep no printing of their own.

use std::collections::BTreeMap;
use std::fmt;

use cql::frame::response::{SchemaChange, SchemaChangeTarget};
use storage::{CatalogOp, ClusteringOrder, ColumnKind, IndexDef, TableDef, TableParams};

use crate::planner::ddl::change::SchemaChangePlan;

/// A one-line description, for tests and debug logs:
///
/// `{EVENT}: {op}; {op}; ..` then ` warning "{text}"` per client warning, where `{EVENT}` is
/// the SCHEMA_CHANGE answered (`CREATED KEYSPACE ks`, `UPDATED TABLE ks.t`, `DROPPED TYPE
/// ks.address`, `.. FUNCTION ks.f(int, text)`) and the storage operations print in the order
/// the writer applies them:
/// - `put keyspace {ks} replication {{key: value, ..}}`, then ` durable_writes false` when
///   so; `drop keyspace {ks}`;
/// - `put table {ks}.{t} ({column} {type}[ static], .., PRIMARY KEY ({pk}, {c}, ..))` (a
///   composite partition key in its own parentheses), then, each when present:
///   ` clustering order ({c} ASC|DESC, ..)` when a clustering column is DESC,
///   ` with {option} = {value}, ..` for the options that differ from the defaults,
///   ` indexes [{name} on {target}[ using '{class}'][ {{option: value, ..}}], ..]` and
///   ` dropped [{column} at {micros}, ..]` (when each column was dropped);
/// - a view as `put view {ks}.{v} of {base} (..)` like a table, then ` where {clause}`;
/// - `drop table {ks}.{t}`, `put type {ks}.{t} ({field} {type}, ..)`, `drop type {ks}.{t}`,
///   `put views of {ks}.{base} [{view}, ..]` (the views the writer maintains from then on),
///   `truncate table {id}`, `put role {role}`, `drop role {role}`.
///
/// Names print unquoted, types as CQL; ids (which are new each time) never print, but for a
/// truncate's.
impl fmt::Display for SchemaChangePlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_event(f, &self.event)?;
        for (n, op) in self.ops.iter().enumerate() {
            f.write_str(if n == 0 { ": " } else { "; " })?;
            write_op(f, op)?;
        }
        for warning in &self.warnings {
            write!(f, " warning {warning:?}")?;
        }
        Ok(())
    }
}

fn write_event(f: &mut fmt::Formatter<'_>, event: &SchemaChange) -> fmt::Result {
    write!(f, "{} {} ", event.change.as_str(), event.target.as_str())?;
    match &event.target {
        SchemaChangeTarget::Keyspace { keyspace } => f.write_str(keyspace),
        SchemaChangeTarget::Table {
            keyspace,
            table: name,
        }
        | SchemaChangeTarget::Type { keyspace, name } => write!(f, "{keyspace}.{name}"),
        SchemaChangeTarget::Function {
            keyspace,
            name,
            arg_types,
        }
        | SchemaChangeTarget::Aggregate {
            keyspace,
            name,
            arg_types,
        } => write!(f, "{keyspace}.{name}({})", arg_types.join(", ")),
    }
}

fn write_op(f: &mut fmt::Formatter<'_>, op: &CatalogOp) -> fmt::Result {
    match op {
        CatalogOp::PutKeyspace(ks) => {
            write!(f, "put keyspace {} replication ", ks.name)?;
            write_map(f, &ks.replication)?;
            if !ks.durable_writes {
                f.write_str(" durable_writes false")?;
            }
            Ok(())
        }
        CatalogOp::DropKeyspace(name) => write!(f, "drop keyspace {name}"),
        CatalogOp::PutTable(def) => write_table(f, def),
        CatalogOp::DropTable { keyspace, name, .. } => write!(f, "drop table {keyspace}.{name}"),
        CatalogOp::PutType(def) => {
            write!(f, "put type {}.{} (", def.keyspace, def.name)?;
            for (n, (field, ty)) in def.fields.iter().enumerate() {
                let comma = if n == 0 { "" } else { ", " };
                write!(f, "{comma}{field} {ty}")?;
            }
            f.write_str(")")
        }
        CatalogOp::DropType { keyspace, name } => write!(f, "drop type {keyspace}.{name}"),
        CatalogOp::TruncateTable { id } => write!(f, "truncate table {id}"),
        CatalogOp::PutRole(role) => write!(f, "put role {}", role.name),
        CatalogOp::DropRole(name) => write!(f, "drop role {name}"),
        CatalogOp::PutViews { base, views } => {
            let names: Vec<&str> = views.iter().map(|v| v.name.as_str()).collect();
            write!(
                f,
                "put views of {}.{} [{}]",
                base.keyspace,
                base.name,
                names.join(", ")
            )
        }
    }
}

/// A table or view record: its columns and key, then what differs from a plain table.
fn write_table(f: &mut fmt::Formatter<'_>, def: &TableDef) -> fmt::Result {
    match &def.view {
        Some(view) => write!(
            f,
            "put view {}.{} of {} (",
            def.keyspace, def.name, view.base_name
        )?,
        None => write!(f, "put table {}.{} (", def.keyspace, def.name)?,
    }
    for column in &def.columns {
        let kind = if column.kind == ColumnKind::Static {
            " static"
        } else {
            ""
        };
        write!(f, "{} {}{kind}, ", column.name, column.ty)?;
    }
    write_primary_key(f, def)?;
    f.write_str(")")?;
    write_clustering_order(f, def)?;
    write_options(f, &def.params)?;
    write_indexes(f, def)?;
    if !def.dropped_columns.is_empty() {
        let dropped: Vec<String> = def
            .dropped_columns
            .iter()
            .map(|c| format!("{} at {}", c.name, c.dropped_time_micros))
            .collect();
        write!(f, " dropped [{}]", dropped.join(", "))?;
    }
    if let Some(view) = def.view.as_ref().filter(|v| !v.where_clause.is_empty()) {
        write!(f, " where {}", view.where_clause)?;
    }
    Ok(())
}

fn write_primary_key(f: &mut fmt::Formatter<'_>, def: &TableDef) -> fmt::Result {
    let names = |indexes: &[usize]| -> Vec<&str> {
        indexes
            .iter()
            .filter_map(|&i| def.columns.get(i))
            .map(|c| c.name.as_str())
            .collect()
    };
    let partition = names(&def.partition_key).join(", ");
    let mut key = if def.partition_key.len() > 1 {
        vec![format!("({partition})")]
    } else {
        vec![partition]
    };
    key.extend(names(&def.clustering_key).into_iter().map(str::to_string));
    write!(f, "PRIMARY KEY ({})", key.join(", "))
}

/// ` clustering order (..)`, only when some clustering column is DESC.
fn write_clustering_order(f: &mut fmt::Formatter<'_>, def: &TableDef) -> fmt::Result {
    let clustering: Vec<_> = def.clustering_columns().collect();
    if !clustering.iter().any(|c| c.order == ClusteringOrder::Desc) {
        return Ok(());
    }
    let orders: Vec<String> = clustering
        .iter()
        .map(|c| match c.order {
            ClusteringOrder::Desc => format!("{} DESC", c.name),
            _ => format!("{} ASC", c.name),
        })
        .collect();
    write!(f, " clustering order ({})", orders.join(", "))
}

/// ` with {option} = {value}, ..` for the options that differ from a new table's.
fn write_options(f: &mut fmt::Formatter<'_>, params: &TableParams) -> fmt::Result {
    let defaults = option_texts(&TableParams::default());
    let changed: Vec<String> = option_texts(params)
        .into_iter()
        .zip(defaults)
        .filter(|(option, default)| option != default)
        .map(|((name, value), _)| format!("{name} = {value}"))
        .collect();
    if changed.is_empty() {
        return Ok(());
    }
    write!(f, " with {}", changed.join(", "))
}

/// Every table option by its CQL name, its value as CQL prints it.
fn option_texts(p: &TableParams) -> Vec<(&'static str, String)> {
    let text = |s: &str| format!("'{}'", s.replace('\'', "''"));
    let flag = |b: Option<bool>| b.map_or("null".to_string(), |b| b.to_string());
    let map = |m: &BTreeMap<String, String>| {
        let pairs: Vec<String> = m.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        format!("{{{}}}", pairs.join(", "))
    };
    vec![
        ("additional_write_policy", text(&p.additional_write_policy)),
        ("allow_auto_snapshot", flag(p.allow_auto_snapshot)),
        (
            "bloom_filter_fp_chance",
            p.bloom_filter_fp_chance.to_string(),
        ),
        ("caching", map(&p.caching)),
        ("cdc", flag(p.cdc)),
        ("comment", text(&p.comment)),
        ("compaction", map(&p.compaction)),
        ("compression", map(&p.compression)),
        (
            "memtable",
            p.memtable.as_deref().map_or("null".into(), text),
        ),
        ("crc_check_chance", p.crc_check_chance.to_string()),
        ("default_time_to_live", p.default_time_to_live.to_string()),
        ("extensions", format!("{:?}", p.extensions)),
        ("gc_grace_seconds", p.gc_grace_seconds.to_string()),
        ("incremental_backups", flag(p.incremental_backups)),
        ("max_index_interval", p.max_index_interval.to_string()),
        (
            "memtable_flush_period_in_ms",
            p.memtable_flush_period_in_ms.to_string(),
        ),
        ("min_index_interval", p.min_index_interval.to_string()),
        ("read_repair", text(&p.read_repair)),
        ("speculative_retry", text(&p.speculative_retry)),
    ]
}

fn write_indexes(f: &mut fmt::Formatter<'_>, def: &TableDef) -> fmt::Result {
    if def.indexes.is_empty() {
        return Ok(());
    }
    let indexes: Vec<String> = def.indexes.iter().map(|i| index_text(def, i)).collect();
    write!(f, " indexes [{}]", indexes.join(", "))
}

/// `{name} on {target}[ using '{class}'][ {options}]` (the class is not repeated among the
/// options).
fn index_text(def: &TableDef, index: &IndexDef) -> String {
    let target = match def.column_by_id(index.column) {
        Some(column) => index.target_text(column),
        None => format!("column {}", index.column.0),
    };
    let mut out = format!("{} on {target}", index.name);
    if let Some(class) = &index.custom_class {
        out.push_str(&format!(" using '{class}'"));
    }
    let options: BTreeMap<String, String> = index
        .options
        .iter()
        .filter(|(k, _)| k.as_str() != "class_name")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !options.is_empty() {
        let pairs: Vec<String> = options.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        out.push_str(&format!(" {{{}}}", pairs.join(", ")));
    }
    out
}

fn write_map(f: &mut fmt::Formatter<'_>, map: &BTreeMap<String, String>) -> fmt::Result {
    let pairs: Vec<String> = map.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    write!(f, "{{{}}}", pairs.join(", "))
}
