//! `system_schema.*` (Cassandra 5.0 layout) and `system_virtual_schema.*`, built from the
//! schema snapshot. System keyspaces are included: clients need their metadata too.

use cql::types::CqlValue;
use storage::{KeyspaceDef, TableDef, TableParams};

use crate::schema::system_keyspaces::VIRTUAL_KEYSPACES;
use crate::schema::Schema;
use crate::system::{text, text_map, NamedRow};

/// Rows of `system_schema.<table>` (`virtual_schema == false`) or
/// `system_virtual_schema.<table>` (`true`), of the keyspaces `only` names when given.
pub(crate) fn rows(
    schema: &Schema,
    table: &str,
    virtual_schema: bool,
    only: Option<&[String]>,
) -> Vec<NamedRow> {
    let wanted = |ks: &&KeyspaceDef| only.is_none_or(|names| names.contains(&ks.name));
    let keyspaces: Vec<&KeyspaceDef> = schema
        .all_keyspaces()
        .filter(|ks| VIRTUAL_KEYSPACES.contains(&ks.name.as_str()) == virtual_schema)
        .filter(wanted)
        .collect();
    let mut rows = Vec::new();
    for ks in keyspaces {
        match (virtual_schema, table) {
            (false, "keyspaces") => rows.push(keyspace_row(ks)),
            (true, "keyspaces") => rows.push(vec![("keyspace_name", text(ks.name.clone()))]),
            (false, "tables") => rows.extend(
                ks.tables
                    .values()
                    .filter(|t| !t.is_view())
                    .map(|t| table_row(t)),
            ),
            (false, "views") => rows.extend(ks.tables.values().filter_map(|t| view_row(t))),
            (true, "tables") => rows.extend(ks.tables.values().map(|t| {
                vec![
                    ("keyspace_name", text(t.keyspace.clone())),
                    ("table_name", text(t.name.clone())),
                    ("comment", text(t.params.comment.clone())),
                ]
            })),
            (_, "columns") => {
                for t in ks.tables.values() {
                    rows.extend(column_rows(t));
                }
            }
            (false, "types") => rows.extend(ks.types.values().map(|t| {
                let names = t.fields.iter().map(|(n, _)| CqlValue::Text(n.clone()));
                let types = t
                    .fields
                    .iter()
                    .map(|(_, ty)| CqlValue::Text(ty.to_string()));
                vec![
                    ("keyspace_name", text(t.keyspace.clone())),
                    ("type_name", text(t.name.clone())),
                    ("field_names", Some(CqlValue::List(names.collect()))),
                    ("field_types", Some(CqlValue::List(types.collect()))),
                ]
            })),
            (false, "indexes") => {
                for t in ks.tables.values() {
                    rows.extend(index_rows(t));
                }
            }
            (false, "dropped_columns") => {
                for t in ks.tables.values() {
                    rows.extend(dropped_rows(t));
                }
            }
            _ => {}
        }
    }
    rows
}

/// `system."IndexInfo"`: one row per built index, keyed by keyspace (its `table_name`
/// column holds the keyspace name, as in Cassandra). `CREATE INDEX` builds the index in the
/// transaction that creates it, so every index is listed as soon as it exists.
pub(crate) fn built_indexes(schema: &Schema) -> Vec<NamedRow> {
    schema
        .all_keyspaces()
        .flat_map(|ks| ks.tables.values())
        .flat_map(|t| {
            t.indexes.iter().map(|index| {
                vec![
                    ("table_name", text(t.keyspace.clone())),
                    ("index_name", text(index.name.clone())),
                    ("value", None),
                ]
            })
        })
        .collect()
}

/// `system_distributed.view_build_status`: every view is built by the transaction that
/// creates it, so each has this node's `SUCCESS` row.
pub(crate) fn view_build_status(schema: &Schema, host_id: uuid::Uuid) -> Vec<NamedRow> {
    schema
        .all_keyspaces()
        .flat_map(|ks| ks.tables.values())
        .filter(|t| t.is_view())
        .map(|t| {
            vec![
                ("keyspace_name", text(t.keyspace.clone())),
                ("view_name", text(t.name.clone())),
                ("host_id", Some(CqlValue::Uuid(host_id))),
                ("status", text("SUCCESS")),
            ]
        })
        .collect()
}

/// `system.built_views`: every view, built at its creation.
pub(crate) fn built_views(schema: &Schema) -> Vec<NamedRow> {
    schema
        .all_keyspaces()
        .flat_map(|ks| ks.tables.values())
        .filter(|t| t.is_view())
        .map(|t| {
            vec![
                ("keyspace_name", text(t.keyspace.clone())),
                ("view_name", text(t.name.clone())),
                ("status_replicated", Some(CqlValue::Boolean(true))),
            ]
        })
        .collect()
}

/// `system_schema.views`: a view's base, WHERE clause and options.
fn view_row(t: &TableDef) -> Option<NamedRow> {
    let view = t.view.as_ref()?;
    let mut row = vec![
        ("keyspace_name", text(t.keyspace.clone())),
        ("view_name", text(t.name.clone())),
        ("base_table_id", Some(CqlValue::Uuid(view.base_id))),
        ("base_table_name", text(view.base_name.clone())),
        (
            "include_all_columns",
            Some(CqlValue::Boolean(view.include_all_columns)),
        ),
        ("where_clause", text(view.where_clause.clone())),
        ("id", Some(CqlValue::Uuid(t.id))),
    ];
    row.extend(option_columns(&t.params));
    Some(row)
}

fn keyspace_row(ks: &KeyspaceDef) -> NamedRow {
    vec![
        ("keyspace_name", text(ks.name.clone())),
        ("durable_writes", Some(CqlValue::Boolean(ks.durable_writes))),
        ("replication", text_map(&ks.replication)),
    ]
}

fn table_row(t: &TableDef) -> NamedRow {
    let mut flags = vec![CqlValue::Text("compound".into())];
    if t.columns.iter().any(|c| c.ty.is_counter()) {
        flags.push(CqlValue::Text("counter".into()));
    }
    let mut row = vec![
        ("keyspace_name", text(t.keyspace.clone())),
        ("table_name", text(t.name.clone())),
        ("flags", Some(CqlValue::Set(flags))),
        ("id", Some(CqlValue::Uuid(t.id))),
    ];
    row.extend(option_columns(&t.params));
    row
}

/// The table-option columns shared by `tables` and `views`.
pub(crate) fn option_columns(p: &TableParams) -> NamedRow {
    vec![
        (
            "additional_write_policy",
            text(p.additional_write_policy.clone()),
        ),
        (
            "allow_auto_snapshot",
            p.allow_auto_snapshot.map(CqlValue::Boolean),
        ),
        (
            "bloom_filter_fp_chance",
            Some(CqlValue::Double(p.bloom_filter_fp_chance)),
        ),
        ("caching", text_map(&p.caching)),
        ("cdc", p.cdc.map(CqlValue::Boolean)),
        ("comment", text(p.comment.clone())),
        ("compaction", text_map(&p.compaction)),
        ("compression", text_map(&p.compression)),
        (
            "crc_check_chance",
            Some(CqlValue::Double(p.crc_check_chance)),
        ),
        ("dclocal_read_repair_chance", Some(CqlValue::Double(0.0))),
        (
            "default_time_to_live",
            Some(CqlValue::Int(p.default_time_to_live)),
        ),
        (
            "extensions",
            Some(CqlValue::Map(
                p.extensions
                    .iter()
                    .map(|(k, v)| (CqlValue::Text(k.clone()), CqlValue::Blob(v.clone())))
                    .collect(),
            )),
        ),
        ("gc_grace_seconds", Some(CqlValue::Int(p.gc_grace_seconds))),
        (
            "incremental_backups",
            p.incremental_backups.map(CqlValue::Boolean),
        ),
        (
            "max_index_interval",
            Some(CqlValue::Int(p.max_index_interval)),
        ),
        ("memtable", p.memtable.clone().map(CqlValue::Text)),
        (
            "memtable_flush_period_in_ms",
            Some(CqlValue::Int(p.memtable_flush_period_in_ms)),
        ),
        (
            "min_index_interval",
            Some(CqlValue::Int(p.min_index_interval)),
        ),
        ("read_repair", text(p.read_repair.clone())),
        ("read_repair_chance", Some(CqlValue::Double(0.0))),
        ("speculative_retry", text(p.speculative_retry.clone())),
    ]
}

fn column_rows(t: &TableDef) -> Vec<NamedRow> {
    t.columns
        .iter()
        .map(|c| {
            vec![
                ("keyspace_name", text(t.keyspace.clone())),
                ("table_name", text(t.name.clone())),
                ("column_name", text(c.name.clone())),
                ("clustering_order", text(c.order.as_str())),
                (
                    "column_name_bytes",
                    Some(CqlValue::Blob(c.name.as_bytes().to_vec())),
                ),
                ("kind", text(c.kind.as_str())),
                ("position", Some(CqlValue::Int(c.position))),
                ("type", text(c.ty.to_string())),
            ]
        })
        .collect()
}

/// `system_schema.indexes`: kind `CUSTOM` or `COMPOSITES`; options hold `target` (and
/// `class_name` with a custom index's own options).
fn index_rows(t: &TableDef) -> Vec<NamedRow> {
    t.indexes
        .iter()
        .filter_map(|index| {
            let column = t.column_by_id(index.column)?;
            let mut options = index.options.clone();
            options.insert("target".into(), index.target_text(column));
            let kind = if index.custom_class.is_some() {
                "CUSTOM"
            } else {
                "COMPOSITES"
            };
            Some(vec![
                ("keyspace_name", text(t.keyspace.clone())),
                ("table_name", text(t.name.clone())),
                ("index_name", text(index.name.clone())),
                ("kind", text(kind)),
                ("options", text_map(&options)),
            ])
        })
        .collect()
}

fn dropped_rows(t: &TableDef) -> Vec<NamedRow> {
    t.dropped_columns
        .iter()
        .map(|d| {
            vec![
                ("keyspace_name", text(t.keyspace.clone())),
                ("table_name", text(t.name.clone())),
                ("column_name", text(d.name.clone())),
                (
                    "dropped_time",
                    Some(CqlValue::Timestamp(d.dropped_time_micros / 1000)),
                ),
                ("kind", text(d.kind.as_str())),
                ("type", text(d.ty.to_string())),
            ]
        })
        .collect()
}
