//! Virtual system tables. Each is computed on read from the schema snapshot and node state,
//! and comes out as stored rows keyed exactly like user rows, so the same planner and executor
//! serve both (and `system_schema` scans come out in token order, as in Cassandra).

mod auth_tables;
mod clients_table;
pub(crate) mod key_distribution;
mod latency_tables;
pub(crate) mod local;
mod peers;
mod run_tables;
mod schema_tables;
mod settings;
mod size_estimates;
pub(crate) mod traces;

use bytes::Bytes;
use cql::types::{codec, CqlValue};
use storage::{Cell, CellValue, Liveness, StoredRow, TableDef};

use crate::error::CqlResult;
use crate::node::Node;
use crate::schema::Schema;
use crate::telemetry::metrics::table_latency::LatencyKind;
use crate::transport::session::Session;

/// One generated row: values by column name (missing columns are null).
pub(crate) type NamedRow = Vec<(&'static str, Option<CqlValue>)>;

/// Every row of the virtual table `table`, sorted by storage key; for a `system_schema` or
/// `system_virtual_schema` table, only the rows of `keyspaces` when given.
pub(crate) fn rows(
    node: &Node,
    schema: &Schema,
    session: &Session,
    table: &TableDef,
    keyspaces: Option<&[String]>,
) -> CqlResult<Vec<(Vec<u8>, StoredRow)>> {
    let named = match (table.keyspace.as_str(), table.name.as_str()) {
        ("system", "local") => vec![local::local_row(node, schema, session)],
        ("system", "peers") => peers::rows(node, schema, session, false),
        ("system", "peers_v2") => peers::rows(node, schema, session, true),
        ("system", "IndexInfo") => schema_tables::built_indexes(schema),
        ("system", "built_views") => schema_tables::built_views(schema),
        ("system", "size_estimates") => size_estimates::rows(node, schema, false)?,
        ("system", "table_estimates") => size_estimates::rows(node, schema, true)?,
        ("system_distributed", "view_build_status") => {
            schema_tables::view_build_status(schema, node.host_id())
        }
        ("system_schema", name) => schema_tables::rows(schema, name, false, keyspaces),
        ("system_virtual_schema", name) => schema_tables::rows(schema, name, true, keyspaces),
        ("system_auth", "roles") => auth_tables::roles(schema),
        ("system_auth", "role_members") => auth_tables::role_members(schema),
        ("system_auth", "role_permissions") => auth_tables::role_permissions(schema),
        ("system_traces", name) => traces::rows(node.traces(), name, session.local.ip()),
        ("system_views", "key_distribution") => key_distribution::rows(node, schema)?,
        ("system_views", "table_runs") => run_tables::table_runs(node, schema)?,
        ("system_views", "disk_usage") => run_tables::disk_usage(node, schema)?,
        ("system_views", "sstable_tasks") => run_tables::sstable_tasks(node, schema),
        ("system_views", "settings") => settings::rows(node.config()),
        ("system_views", "clients") => clients_table::rows(node),
        ("system_views", "local_read_latency") => {
            latency_tables::rows(node, schema, LatencyKind::Read)
        }
        ("system_views", "local_scan_latency") => {
            latency_tables::rows(node, schema, LatencyKind::Scan)
        }
        ("system_views", "local_write_latency") => {
            latency_tables::rows(node, schema, LatencyKind::Write)
        }
        (crate::control::KEYSPACE, name) => crate::control::tables::rows(node, name),
        _ => Vec::new(),
    };
    let mut rows = named
        .into_iter()
        .map(|row| to_stored(table, row))
        .collect::<CqlResult<Vec<_>>>()?;
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(rows)
}

/// Turns a named row into a storage key and row.
fn to_stored(table: &TableDef, row: NamedRow) -> CqlResult<(Vec<u8>, StoredRow)> {
    let value_of = |name: &str| -> Option<Bytes> {
        row.iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.as_ref())
            .map(serialize)
    };
    let key_values = |indexes: &[usize]| -> Vec<Bytes> {
        indexes
            .iter()
            .map(|&i| value_of(&table.columns[i].name).unwrap_or_default())
            .collect()
    };
    let pk = key_values(&table.partition_key);
    let ck = key_values(&table.clustering_key);
    let key = storage::row_key(table, &pk, &ck)?;
    let mut cells = Vec::new();
    for col in &table.columns {
        if matches!(
            col.kind,
            storage::ColumnKind::PartitionKey | storage::ColumnKind::Clustering
        ) {
            continue;
        }
        if let Some(bytes) = value_of(&col.name) {
            cells.push((
                col.id,
                Cell {
                    timestamp: 0,
                    expiry: None,
                    value: CellValue::Live(bytes),
                    path: None,
                },
            ));
        }
    }
    cells.sort_by_key(|(id, _)| id.0);
    let stored = StoredRow {
        liveness: Some(Liveness {
            timestamp: 0,
            ttl: None,
        }),
        deletion: None,
        cells,
    };
    Ok((key, stored))
}

fn serialize(value: &CqlValue) -> Bytes {
    let mut out = Vec::new();
    codec::serialize_value(value, &mut out);
    Bytes::from(out)
}

/// `text` value.
pub(crate) fn text(s: impl Into<String>) -> Option<CqlValue> {
    Some(CqlValue::Text(s.into()))
}

/// `bigint` value of a count or size (saturating at `i64::MAX`).
pub(crate) fn bigint(n: u64) -> Option<CqlValue> {
    Some(CqlValue::Bigint(i64::try_from(n).unwrap_or(i64::MAX)))
}

/// `frozen<map<text, text>>` value from string pairs.
pub(crate) fn text_map<'a>(
    entries: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Option<CqlValue> {
    Some(CqlValue::Map(
        entries
            .into_iter()
            .map(|(k, v)| (CqlValue::Text(k.clone()), CqlValue::Text(v.clone())))
            .collect(),
    ))
}
