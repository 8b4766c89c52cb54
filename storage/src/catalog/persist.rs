//! The catalog's on-disk form: one JSON record per keyspace (`keyspace/<name>`), per table
//! (`table/<keyspace>/<name>`) and per user-defined type (`type/<keyspace>/<name>`) in the
//! redb `schema` table. Column and field types are stored as CQL text; user type names in
//! them resolve against the keyspace's types.
//!
//! The records are private serde structs, so the public model can change shape without
//! changing the format silently; a record change that old builds cannot read needs a new
//! storage format version.

use std::collections::BTreeMap;
use std::sync::Arc;

use redb::ReadableTable;
use redb::TableError;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use cql::types::ColumnType;

use crate::catalog::type_text::parse_type_with;
use crate::catalog::type_text::TypeTextError;
use crate::catalog::Catalog;
use crate::catalog::ClusteringOrder;
use crate::catalog::ColumnDef;
use crate::catalog::ColumnId;
use crate::catalog::ColumnKind;
use crate::catalog::DroppedColumn;
use crate::catalog::IndexDef;
use crate::catalog::IndexTargetKind;
use crate::catalog::KeyspaceDef;
use crate::catalog::TableDef;
use crate::catalog::TableParams;
use crate::catalog::UserTypeDef;
use crate::error::StorageError;
use crate::store::tables::SCHEMA;

const KEYSPACE_PREFIX: &str = "keyspace/";
const TABLE_PREFIX: &str = "table/";
const TYPE_PREFIX: &str = "type/";

/// The `schema` key of a keyspace record.
pub(crate) fn keyspace_key(name: &str) -> String {
    format!("{KEYSPACE_PREFIX}{name}")
}

/// The `schema` key of a table record.
pub(crate) fn table_key(keyspace: &str, name: &str) -> String {
    format!("{TABLE_PREFIX}{keyspace}/{name}")
}

/// The `schema` key of a user type record.
pub(crate) fn type_key(keyspace: &str, name: &str) -> String {
    format!("{TYPE_PREFIX}{keyspace}/{name}")
}

#[derive(Serialize, Deserialize)]
struct TypeRecord {
    keyspace: String,
    name: String,
    /// `[name, type text]` per field.
    fields: Vec<(String, String)>,
}

#[derive(Serialize, Deserialize)]
struct KeyspaceRecord {
    name: String,
    replication: BTreeMap<String, String>,
    durable_writes: bool,
}

#[derive(Serialize, Deserialize)]
struct ColumnRecord {
    id: u32,
    name: String,
    #[serde(rename = "type")]
    ty: String,
    kind: String,
    position: i32,
    clustering_order: String,
}

#[derive(Serialize, Deserialize)]
struct DroppedRecord {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    kind: String,
    dropped_time_micros: i64,
    /// Absent in records written before dropped columns kept their id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<u32>,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct TableRecord {
    pub(crate) id: String,
    pub(crate) keyspace: String,
    name: String,
    columns: Vec<ColumnRecord>,
    params: TableParams,
    next_column_id: u32,
    dropped_columns: Vec<DroppedRecord>,
    /// Absent in records written before secondary indexes existed.
    #[serde(default)]
    indexes: Vec<IndexRecord>,
    /// Present only for materialized views.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    view: Option<crate::catalog::ViewDef>,
}

#[derive(Serialize, Deserialize)]
struct IndexRecord {
    id: String,
    name: String,
    column: u32,
    /// `IndexTargetKind::as_str`.
    target: String,
    #[serde(default)]
    custom_class: Option<String>,
    #[serde(default)]
    options: BTreeMap<String, String>,
}

fn to_json<T: Serialize>(value: &T) -> Vec<u8> {
    // Serializing these records cannot fail: every map has string keys and no field is a
    // type serde_json rejects.
    serde_json::to_vec(value).unwrap_or_default()
}

/// The JSON record of a keyspace (its tables are separate records).
pub(crate) fn encode_keyspace(ks: &KeyspaceDef) -> Vec<u8> {
    to_json(&KeyspaceRecord {
        name: ks.name.clone(),
        replication: ks.replication.clone(),
        durable_writes: ks.durable_writes,
    })
}

/// The JSON record of a user type.
pub(crate) fn encode_type(t: &UserTypeDef) -> Vec<u8> {
    to_json(&TypeRecord {
        keyspace: t.keyspace.clone(),
        name: t.name.clone(),
        fields: t
            .fields
            .iter()
            .map(|(n, ty)| (n.clone(), ty.to_string()))
            .collect(),
    })
}

/// The JSON record of a table.
pub(crate) fn encode_table(t: &TableDef) -> Vec<u8> {
    to_json(&TableRecord {
        id: t.id.to_string(),
        keyspace: t.keyspace.clone(),
        name: t.name.clone(),
        columns: t
            .columns
            .iter()
            .map(|c| ColumnRecord {
                id: c.id.0,
                name: c.name.clone(),
                ty: c.ty.to_string(),
                kind: c.kind.as_str().into(),
                position: c.position,
                clustering_order: c.order.as_str().into(),
            })
            .collect(),
        params: t.params.clone(),
        next_column_id: t.next_column_id,
        dropped_columns: t
            .dropped_columns
            .iter()
            .map(|d| DroppedRecord {
                name: d.name.clone(),
                ty: d.ty.to_string(),
                kind: d.kind.as_str().into(),
                dropped_time_micros: d.dropped_time_micros,
                id: d.id.map(|id| id.0),
            })
            .collect(),
        indexes: t
            .indexes
            .iter()
            .map(|i| IndexRecord {
                id: i.id.to_string(),
                name: i.name.clone(),
                column: i.column.0,
                target: i.target.as_str().into(),
                custom_class: i.custom_class.clone(),
                options: i.options.clone(),
            })
            .collect(),
        view: t.view.clone(),
    })
}

fn corrupt(key: &str, why: impl std::fmt::Display) -> StorageError {
    StorageError::corrupt(format!("schema record {key:?}: {why}"))
}

fn decode_keyspace(key: &str, bytes: &[u8]) -> Result<KeyspaceDef, StorageError> {
    let r: KeyspaceRecord = serde_json::from_slice(bytes).map_err(|e| corrupt(key, e))?;
    Ok(KeyspaceDef {
        name: r.name,
        replication: r.replication,
        durable_writes: r.durable_writes,
        tables: BTreeMap::new(),
        types: BTreeMap::new(),
    })
}

/// A type-name lookup over the resolved types of one keyspace.
fn lookup(types: &BTreeMap<String, Arc<UserTypeDef>>) -> impl Fn(&str) -> Option<ColumnType> + '_ {
    |name| types.get(name).map(|t| t.column_type(false))
}

/// Resolves type records in dependency order: a record resolves once every type its fields
/// name has.
fn resolve_types(
    records: Vec<(String, TypeRecord)>,
    catalog: &mut Catalog,
) -> Result<(), StorageError> {
    let mut pending = records;
    while !pending.is_empty() {
        let before = pending.len();
        let mut unresolved = Vec::new();
        for (key, record) in pending {
            let ks = catalog
                .keyspaces
                .get_mut(&record.keyspace)
                .ok_or_else(|| corrupt(&key, "no keyspace"))?;
            let fields: Result<Vec<(String, ColumnType)>, TypeTextError> = record
                .fields
                .iter()
                .map(|(n, text)| Ok((n.clone(), parse_type_with(text, &lookup(&ks.types))?)))
                .collect();
            match fields {
                Ok(fields) => {
                    let def = UserTypeDef {
                        keyspace: record.keyspace.clone(),
                        name: record.name.clone(),
                        fields,
                    };
                    ks.types.insert(def.name.clone(), Arc::new(def));
                }
                Err(_) => unresolved.push((key, record)),
            }
        }
        if unresolved.len() == before {
            let (key, _) = &unresolved[0];
            return Err(corrupt(key, "field types do not resolve"));
        }
        pending = unresolved;
    }
    Ok(())
}

/// Parses a table record's JSON.
pub(crate) fn parse_table_record(key: &str, bytes: &[u8]) -> Result<TableRecord, StorageError> {
    serde_json::from_slice(bytes).map_err(|e| corrupt(key, e))
}

fn decode_table(
    key: &str,
    bytes: &[u8],
    udt: &dyn Fn(&str) -> Option<ColumnType>,
) -> Result<TableDef, StorageError> {
    let r = parse_table_record(key, bytes)?;
    let parse_type = |text: &str| parse_type_with(text, udt);
    let id = Uuid::parse_str(&r.id).map_err(|e| corrupt(key, e))?;
    let kind = |s: &str| ColumnKind::parse(s).ok_or_else(|| corrupt(key, "column kind"));
    let columns = r
        .columns
        .into_iter()
        .map(|c| {
            Ok(ColumnDef {
                id: ColumnId(c.id),
                ty: parse_type(&c.ty).map_err(|e| corrupt(key, e))?,
                kind: kind(&c.kind)?,
                position: c.position,
                order: ClusteringOrder::parse(&c.clustering_order)
                    .ok_or_else(|| corrupt(key, "clustering order"))?,
                name: c.name,
            })
        })
        .collect::<Result<Vec<_>, StorageError>>()?;
    let dropped_columns = r
        .dropped_columns
        .into_iter()
        .map(|d| {
            Ok(DroppedColumn {
                ty: parse_type(&d.ty).map_err(|e| corrupt(key, e))?,
                kind: kind(&d.kind)?,
                dropped_time_micros: d.dropped_time_micros,
                id: d.id.map(ColumnId),
                name: d.name,
            })
        })
        .collect::<Result<Vec<_>, StorageError>>()?;
    let indexes = r
        .indexes
        .into_iter()
        .map(|i| {
            Ok(IndexDef {
                id: Uuid::parse_str(&i.id).map_err(|e| corrupt(key, e))?,
                column: ColumnId(i.column),
                target: IndexTargetKind::parse(&i.target)
                    .ok_or_else(|| corrupt(key, "index target"))?,
                custom_class: i.custom_class,
                options: i.options,
                name: i.name,
            })
        })
        .collect::<Result<Vec<_>, StorageError>>()?;
    let mut table = TableDef::new(id, r.keyspace, r.name, columns, r.params);
    table.next_column_id = r.next_column_id;
    table.dropped_columns = dropped_columns;
    table.indexes = indexes;
    table.view = r.view;
    if table.partition_key.is_empty() {
        return Err(corrupt(key, "table without partition key"));
    }
    Ok(table)
}

/// Loads the whole catalog from the `schema` table (an absent table is an empty catalog).
pub(crate) fn load(txn: &redb::ReadTransaction) -> Result<Catalog, StorageError> {
    let table = match txn.open_table(SCHEMA) {
        Ok(t) => t,
        Err(TableError::TableDoesNotExist(_)) => return Ok(Catalog::default()),
        Err(e) => return Err(e.into()),
    };
    let mut records = Vec::new();
    for entry in table.iter()? {
        let (key, value) = entry?;
        records.push((key.value().to_string(), value.value().to_vec()));
    }
    decode_records(&records)
}

/// The catalog the `schema` records `records` (key, JSON) describe.
///
/// # Errors
/// [`StorageError::Corrupt`] for a record that does not decode or names what is not there.
pub(crate) fn decode_records(records: &[(String, Vec<u8>)]) -> Result<Catalog, StorageError> {
    let mut catalog = Catalog::default();
    let mut tables = Vec::new();
    let mut types = Vec::new();
    for (key, value) in records {
        let (key, value) = (key.as_str(), value.as_slice());
        if key.starts_with(KEYSPACE_PREFIX) {
            let ks = decode_keyspace(key, value)?;
            catalog.keyspaces.insert(ks.name.clone(), ks);
        } else if key.starts_with(TABLE_PREFIX) {
            let record = parse_table_record(key, value)?;
            tables.push((key.to_string(), record.keyspace, value.to_vec()));
        } else if crate::catalog::role::is_role_key(key) {
            let role = crate::catalog::role::decode_role(value).map_err(|e| corrupt(key, e))?;
            catalog.roles.insert(role.name.clone(), role);
        } else if key.starts_with(TYPE_PREFIX) {
            let record: TypeRecord = serde_json::from_slice(value).map_err(|e| corrupt(key, e))?;
            types.push((key.to_string(), record));
        } else {
            return Err(corrupt(key, "unknown record kind"));
        }
    }
    resolve_types(types, &mut catalog)?;
    for (key, keyspace, bytes) in tables {
        let ks = catalog
            .keyspaces
            .get_mut(&keyspace)
            .ok_or_else(|| corrupt(&key, "no keyspace"))?;
        let table = decode_table(&key, &bytes, &lookup(&ks.types))?;
        ks.tables.insert(table.name.clone(), Arc::new(table));
    }
    Ok(catalog)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::tests::sample_table;

    #[test]
    fn table_record_round_trips() {
        let mut t = sample_table();
        t.next_column_id = 9;
        t.params.comment = "hi".into();
        t.dropped_columns.push(DroppedColumn {
            name: "old".into(),
            ty: ColumnType::Map {
                key: Box::new(ColumnType::Text),
                value: Box::new(ColumnType::Int),
                frozen: false,
            },
            kind: ColumnKind::Regular,
            dropped_time_micros: 42,
            id: Some(ColumnId(5)),
        });
        t.indexes.push(IndexDef {
            id: Uuid::from_u128(7),
            name: "t_v_idx".into(),
            column: ColumnId(2),
            target: IndexTargetKind::Keys,
            custom_class: Some("StorageAttachedIndex".into()),
            options: BTreeMap::from([("a".into(), "b".into())]),
        });
        let key = table_key("ks", "t");
        assert_eq!(decode_table(&key, &encode_table(&t), &|_| None).unwrap(), t);
    }

    #[test]
    fn bad_records_are_corruption() {
        assert!(matches!(
            decode_table("table/ks/t", b"{", &|_| None),
            Err(StorageError::Corrupt { .. })
        ));
    }
}
