//! Table definitions from CQL: the validation of CREATE and ALTER TABLE (and the keyspace,
//! type and option clauses they use) and their translation into catalog definitions, with
//! Cassandra's checks and messages (`CreateTableStatement`, `CreateKeyspaceStatement`).
//!
//! It sits below the schema and the planner: the schema builds the system keyspaces' tables
//! with it, and DDL planning builds user tables with it.
//!
//! - [`types`]: CQL type names resolved against a keyspace's user types.
//! - [`options`]: `WITH` options of tables and keyspaces.
//! - [`compression`]: the `compression` option; `caching`, `compaction` (with
//!   `compaction_strategies`), `speculative_retry` and `param_ranges` the other checked ones.
//! - [`dropped_columns`]: re-adding a dropped column.

mod caching;
mod compaction;
mod compaction_strategies;
mod compaction_unified;
pub(crate) mod compression;
pub(crate) mod dropped_columns;
mod java_hash_order;
mod java_number;
pub(crate) mod options;
mod param_ranges;
mod speculative_retry;
pub(crate) mod types;

use std::collections::{BTreeMap, HashSet};

use cql::statement::ast::{ColumnDefinition, CqlType, CreateTable, Ident, Order};
use cql::types::ColumnType;
use storage::{ClusteringOrder, ColumnDef, ColumnId, ColumnKind, TableDef, TableParams};
use uuid::Uuid;

use crate::error::{CqlResult, DdlError};
use crate::schema::table_def::options::new_table_params;
use crate::schema::table_def::types::{
    non_frozen_udt_with_non_frozen_collection, resolve_type, TypeScope, UserTypes,
};

/// A column of a table being built, before ids are assigned.
#[derive(Debug, Clone)]
pub(crate) struct NewColumn {
    pub name: String,
    pub ty: ColumnType,
    pub kind: ColumnKind,
    pub position: i32,
    pub order: ClusteringOrder,
}

/// Builds a `TableDef`: assigns column ids in the given order, and lets `TableDef::new` order
/// the columns as Cassandra lists them.
pub(crate) fn build_table_def(
    keyspace: &str,
    name: &str,
    id: Uuid,
    columns: Vec<NewColumn>,
    params: TableParams,
) -> TableDef {
    let defs = columns
        .into_iter()
        .enumerate()
        .map(|(i, c)| ColumnDef {
            id: ColumnId(i as u32),
            name: c.name,
            ty: c.ty,
            kind: c.kind,
            position: c.position,
            order: c.order,
        })
        .collect();
    TableDef::new(id, keyspace, name, defs, params)
}

/// Each column's type and whether it is static, by name.
type ColumnTypes = BTreeMap<String, (ColumnType, bool)>;

/// Translates `CREATE TABLE` into a table definition, applying Cassandra's validation.
pub(crate) fn create_table_def(
    stmt: &CreateTable,
    scope: TypeScope<'_>,
    id: Uuid,
) -> CqlResult<TableDef> {
    let keyspace = scope.keyspace;
    let table = stmt.name.name.name.as_str();
    let written = written_name(stmt);
    check_clustering_order_duplicates(stmt, &written)?;
    let (types, inline_pk) = column_types(stmt, scope, &written)?;
    let (partition, clustering) = primary_key(stmt, &inline_pk, &written)?;
    validate_key_columns(&partition, &clustering, &types, table)?;
    let orders = clustering_orders(stmt, &clustering)?;
    let mut columns = key_columns(&partition, &clustering, &orders, &types);
    let has_statics = stmt.columns.iter().any(|c| c.is_static);
    if clustering.is_empty() && has_statics {
        return Err(DdlError::StaticWithoutClustering.into());
    }
    let key_names: HashSet<&str> = partition
        .iter()
        .chain(clustering.iter())
        .map(|i| i.name.as_str())
        .collect();
    let has_counters = types.values().any(|(ty, _)| ty.is_counter());
    for (name, (ty, is_static)) in &types {
        if key_names.contains(name.as_str()) {
            continue;
        }
        if has_counters && !ty.is_counter() {
            return Err(DdlError::MixedCounterColumns.into());
        }
        columns.push(NewColumn {
            name: name.clone(),
            ty: ty.clone(),
            kind: non_key_kind(*is_static),
            position: -1,
            order: ClusteringOrder::None,
        });
    }
    let params = new_table_params(&stmt.properties)?;
    if has_counters && params.default_time_to_live > 0 {
        return Err(DdlError::CounterTableTtl.into());
    }
    Ok(build_table_def(keyspace, table, id, columns, params))
}

/// The table as the statement names it (`ks.t` or `t`), as 5.0's parser-time checks print
/// it (`QualifiedName.toString` in `CreateTableStatement.Raw`): the duplicate-column,
/// primary-key-count and duplicate-ordering messages. The later checks name the table alone.
fn written_name(stmt: &CreateTable) -> String {
    match &stmt.name.keyspace {
        Some(keyspace) => format!("{}.{}", keyspace.name, stmt.name.name.name),
        None => stmt.name.name.name.clone(),
    }
}

/// A column named twice in CLUSTERING ORDER BY, which 5.0's parser refuses
/// (`CreateTableStatement.Raw.extendClusteringOrder`) before any other check.
fn check_clustering_order_duplicates(stmt: &CreateTable, table: &str) -> CqlResult<()> {
    for (n, (ident, _)) in stmt.clustering_order.iter().enumerate() {
        if stmt.clustering_order[..n]
            .iter()
            .any(|(seen, _)| seen.name == ident.name)
        {
            return Err(DdlError::DuplicateClusteringOrder {
                column: ident.name.clone(),
                table: table.to_string(),
            }
            .into());
        }
    }
    Ok(())
}

/// The declared columns' types (no name twice, no non-frozen UDT holding a non-frozen
/// collection) and the columns declared `PRIMARY KEY` inline.
fn column_types<'a>(
    stmt: &'a CreateTable,
    scope: TypeScope<'_>,
    table: &str,
) -> CqlResult<(ColumnTypes, Vec<&'a Ident>)> {
    let mut types = ColumnTypes::new();
    let mut inline_pk: Vec<&Ident> = Vec::new();
    for col in &stmt.columns {
        if types.contains_key(&col.name.name) {
            return Err(DdlError::DuplicateColumn {
                column: col.name.name.clone(),
                table: table.to_string(),
            }
            .into());
        }
        let ty = resolve_type(&col.ty, scope, true)?;
        types.insert(col.name.name.clone(), (ty, col.is_static));
        if col.primary_key {
            inline_pk.push(&col.name);
        }
    }
    if types
        .values()
        .any(|(ty, _)| non_frozen_udt_with_non_frozen_collection(ty))
    {
        return Err(DdlError::NestedNonFrozenCollection.into());
    }
    Ok((types, inline_pk))
}

/// The partition key columns, then the clustering columns with their `orders`.
fn key_columns(
    partition: &[&Ident],
    clustering: &[&Ident],
    orders: &[ClusteringOrder],
    types: &ColumnTypes,
) -> Vec<NewColumn> {
    let mut columns = Vec::new();
    for (pos, ident) in partition.iter().enumerate() {
        let (ty, _) = types[&ident.name].clone();
        columns.push(NewColumn {
            name: ident.name.clone(),
            ty,
            kind: ColumnKind::PartitionKey,
            position: pos as i32,
            order: ClusteringOrder::None,
        });
    }
    for (pos, ident) in clustering.iter().enumerate() {
        let (ty, _) = types[&ident.name].clone();
        columns.push(NewColumn {
            name: ident.name.clone(),
            ty,
            kind: ColumnKind::Clustering,
            position: pos as i32,
            order: orders[pos],
        });
    }
    columns
}

fn primary_key<'a>(
    stmt: &'a CreateTable,
    inline_pk: &[&'a Ident],
    table: &str,
) -> CqlResult<(Vec<&'a Ident>, Vec<&'a Ident>)> {
    let has_clause = !stmt.partition_key.is_empty();
    if inline_pk.len() + usize::from(has_clause) > 1 {
        return Err(DdlError::MultiplePrimaryKeys {
            table: table.to_string(),
        }
        .into());
    }
    if let Some(column) = inline_pk.first() {
        return Ok((vec![*column], Vec::new()));
    }
    if !has_clause {
        return Err(DdlError::NoPrimaryKey {
            table: table.to_string(),
        }
        .into());
    }
    Ok((
        stmt.partition_key.iter().collect(),
        stmt.clustering_key.iter().collect(),
    ))
}

fn validate_key_columns(
    partition: &[&Ident],
    clustering: &[&Ident],
    types: &ColumnTypes,
    table: &str,
) -> CqlResult<()> {
    let mut seen = HashSet::new();
    for ident in partition.iter().chain(clustering.iter()) {
        let Some((ty, is_static)) = types.get(&ident.name) else {
            return Err(DdlError::UnknownKeyColumn {
                column: ident.name.clone(),
                table: table.to_string(),
            }
            .into());
        };
        if !seen.insert(ident.name.as_str()) {
            return Err(DdlError::DuplicateKeyColumn {
                column: ident.name.clone(),
                table: table.to_string(),
            }
            .into());
        }
        if ty.is_multi_cell() {
            return Err(DdlError::NonFrozenKeyColumn {
                column: ident.name.clone(),
                ty: Box::new(ty.clone()),
            }
            .into());
        }
        if ty.is_counter() {
            return Err(DdlError::CounterKeyColumn {
                column: ident.name.clone(),
            }
            .into());
        }
        if ty.references_duration() {
            return Err(DdlError::DurationKeyColumn {
                column: ident.name.clone(),
            }
            .into());
        }
        if *is_static {
            return Err(DdlError::StaticKeyColumn {
                column: ident.name.clone(),
            }
            .into());
        }
    }
    Ok(())
}

/// Each clustering column's order from CLUSTERING ORDER BY, checked as 5.0's
/// `CreateTableStatement.builder` does: no column outside the clustering key (all such listed
/// at once), then the listed columns in key order with none skipped.
fn clustering_orders(stmt: &CreateTable, clustering: &[&Ident]) -> CqlResult<Vec<ClusteringOrder>> {
    let not_clustering: Vec<String> = stmt
        .clustering_order
        .iter()
        .filter(|(ident, _)| !clustering.iter().any(|c| c.name == ident.name))
        .map(|(ident, _)| ident.name.clone())
        .collect();
    if !not_clustering.is_empty() {
        return Err(DdlError::ClusteringOrderNotClustering {
            columns: not_clustering,
        }
        .into());
    }
    for ((ident, _), expected) in stmt.clustering_order.iter().zip(clustering) {
        if ident.name != expected.name {
            let listed = stmt
                .clustering_order
                .iter()
                .any(|(i, _)| i.name == expected.name);
            return Err(if listed {
                DdlError::ClusteringOrderMismatch {
                    expected: expected.name.clone(),
                    found: ident.name.clone(),
                }
            } else {
                DdlError::MissingClusteringOrder {
                    column: expected.name.clone(),
                }
            }
            .into());
        }
    }
    Ok(clustering
        .iter()
        .map(|c| {
            if declared_reversed(stmt, c) {
                return ClusteringOrder::Desc;
            }
            match stmt.clustering_order.iter().find(|(i, _)| i.name == c.name) {
                Some((_, Order::Desc)) => ClusteringOrder::Desc,
                _ => ClusteringOrder::Asc,
            }
        })
        .collect())
}

/// Whether clustering column `column` is declared with a custom type Cassandra reads as
/// reversed (`'ReversedType(Int32Type)'`, `'LongType(reversed=true)'`). Cassandra keeps such a
/// column's `ReversedType` whatever CLUSTERING ORDER says (`CreateTableStatement.builder`
/// wraps a DESC column in one more), and records the column as `desc` in
/// `system_schema.columns`, which is how it reads back after a restart: so DESC here. The
/// type itself is the base type, as `system_schema` shows it.
fn declared_reversed(stmt: &CreateTable, column: &Ident) -> bool {
    stmt.columns.iter().any(|c| {
        c.name.name == column.name
            && matches!(&c.ty, CqlType::Custom(class)
                if cql::types::marshal::parse_class_type(class).is_ok_and(|t| t.reversed))
    })
}

/// Column definitions added by `ALTER TABLE ADD`, validated against the table.
pub(crate) fn added_columns(
    table: &TableDef,
    types: &UserTypes,
    columns: &[ColumnDefinition],
    if_not_exists: bool,
) -> CqlResult<Vec<NewColumn>> {
    let mut added = Vec::new();
    for col in columns {
        if table.column(&col.name.name).is_some()
            || added.iter().any(|c: &NewColumn| c.name == col.name.name)
        {
            if if_not_exists {
                continue;
            }
            return Err(DdlError::ColumnExists {
                column: col.name.name.clone(),
            }
            .into());
        }
        let scope = TypeScope {
            keyspace: &table.keyspace,
            types,
        };
        let ty = resolve_type(&col.ty, scope, true)?;
        if col.is_static && table.clustering_key.is_empty() {
            return Err(DdlError::StaticWithoutClustering.into());
        }
        if non_frozen_udt_with_non_frozen_collection(&ty) {
            return Err(DdlError::NestedNonFrozenCollectionColumn {
                column: col.name.name.clone(),
            }
            .into());
        }
        crate::schema::table_def::dropped_columns::check_readded(
            table,
            &col.name.name,
            &ty,
            col.is_static,
        )?;
        check_counter_mix(table, &col.name.name, &ty)?;
        added.push(NewColumn {
            name: col.name.name.clone(),
            ty,
            kind: non_key_kind(col.is_static),
            position: -1,
            order: ClusteringOrder::None,
        });
    }
    Ok(added)
}

/// A counter column may only join a counter table and any other column only a table
/// without counters (a table with no regular or static column takes either).
fn check_counter_mix(table: &TableDef, column: &str, ty: &ColumnType) -> CqlResult<()> {
    let is_counter_table = table.columns.iter().any(|c| c.ty.is_counter());
    if is_counter_table != ty.is_counter() && table.regular_and_static_columns().next().is_some() {
        let column = column.to_string();
        return Err(if ty.is_counter() {
            DdlError::CounterInNonCounterTable { column }
        } else {
            DdlError::NonCounterInCounterTable { column }
        }
        .into());
    }
    Ok(())
}

/// The kind of a column outside the primary key.
fn non_key_kind(is_static: bool) -> ColumnKind {
    if is_static {
        ColumnKind::Static
    } else {
        ColumnKind::Regular
    }
}

/// A new definition of `table` with `added` columns appended and `dropped` removed. An added
/// column takes back the id of a dropped column of its name (its cells written before the
/// drop stay hidden, newer ones show, as in Cassandra); any other takes a fresh id.
pub(crate) fn altered_table(
    table: &TableDef,
    added: Vec<NewColumn>,
    dropped: &[String],
    drop_time_micros: i64,
) -> TableDef {
    let mut def = table.clone();
    for name in dropped {
        if let Some(pos) = def.columns.iter().position(|c| &c.name == name) {
            let col = def.columns.remove(pos);
            def.dropped_columns.push(storage::DroppedColumn {
                name: col.name,
                ty: col.ty,
                kind: col.kind,
                dropped_time_micros: drop_time_micros,
                id: Some(col.id),
            });
        }
    }
    for c in added {
        let previous = def
            .dropped_columns
            .iter()
            .rev()
            .find(|d| d.name == c.name)
            .and_then(|d| d.id)
            .filter(|&id| def.column_by_id(id).is_none());
        let id = previous.unwrap_or_else(|| {
            def.next_column_id += 1;
            ColumnId(def.next_column_id - 1)
        });
        def.columns.push(ColumnDef {
            id,
            name: c.name,
            ty: c.ty,
            kind: c.kind,
            position: -1,
            order: ClusteringOrder::None,
        });
    }
    def.reindex();
    def
}
