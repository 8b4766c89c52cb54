//! Schema statements. Each change is computed against the current catalog under the DDL lock,
//! written durably through the storage writer, installed as the new schema snapshot (which
//! changes `schema_version`), and only then answered and broadcast as SCHEMA_CHANGE — so a
//! client refreshing metadata after the result sees the change.

use std::sync::Arc;

use cql::frame::response::{Event, ResultBody, SchemaChange, SchemaChangeTarget, SchemaChangeType};
use cql::statement::ast::{
    AlterKeyspace, AlterTable, AlterTableAction, CreateKeyspace, CreateTable, Ident, QualifiedName,
    Statement,
};
use storage::{Catalog, CatalogOp, KeyspaceDef, TableDef, WriteBatch};
use tracing::info;
use uuid::Uuid;

use crate::authz::Resource;
use crate::error::{CqlError, CqlResult, DdlError, SchemaError};
use crate::executor::index_ddl;
use crate::executor::modify::submit;
use crate::executor::schema_change::{put_table, valid_name, Change, NAME_LENGTH};
use crate::executor::system_guard::{
    check as guard,
    SchemaPermission::{Alter, Create, Drop},
};
use crate::executor::user_types;
use crate::executor::view_ddl;
use crate::node::Node;
use crate::planner::keyspace_of;
use crate::schema::is_system_keyspace;
use crate::table_def::options::{keyspace_params, table_params};
use crate::table_def::types::TypeScope;
use crate::table_def::{added_columns, altered_table, create_table_def};

fn not_modifiable(keyspace: &str) -> CqlError {
    DdlError::SystemKeyspaceNotModifiable {
        keyspace: keyspace.to_string(),
    }
    .into()
}

/// Runs a schema statement.
pub(crate) async fn execute(
    node: &Arc<Node>,
    statement: &Statement,
    session_keyspace: Option<&str>,
) -> CqlResult<ResultBody> {
    let _guard = node.ddl_lock.lock().await;
    let schema = node.schema();
    let current = &schema.catalog;
    let change = match statement {
        Statement::CreateKeyspace(stmt) => create_keyspace(current, stmt)?,
        Statement::AlterKeyspace(stmt) => alter_keyspace(current, stmt)?,
        Statement::DropKeyspace { name, if_exists } => {
            drop_keyspace(current, &name.name, *if_exists)?
        }
        Statement::CreateTable(stmt) => create_table(current, stmt, session_keyspace)?,
        Statement::DropTable { name, if_exists } => {
            drop_table(current, name, *if_exists, session_keyspace)?
        }
        Statement::AlterTable(stmt) => {
            alter_table(current, stmt, session_keyspace, node.clock.now_micros())?
        }
        Statement::CreateIndex(stmt) => index_ddl::create_index(current, stmt, session_keyspace)?,
        Statement::DropIndex { name, if_exists } => {
            index_ddl::drop_index(current, name, *if_exists, session_keyspace)?
        }
        Statement::CreateView(stmt) => {
            let enabled = node.config.materialized_views_enabled;
            let change = view_ddl::create_view(current, stmt, session_keyspace, enabled)?;
            if change.is_some() {
                crate::warnings::warn(view_ddl::USAGE_WARNING.to_string());
            }
            change
        }
        Statement::AlterView {
            name,
            if_exists,
            properties,
        } => view_ddl::alter_view(current, name, *if_exists, properties, session_keyspace)?,
        Statement::DropView { name, if_exists } => {
            view_ddl::drop_view(current, name, *if_exists, session_keyspace)?
        }
        Statement::CreateType(stmt) => user_types::create_type(current, stmt, session_keyspace)?,
        Statement::AlterType(stmt) => user_types::alter_type(current, stmt, session_keyspace)?,
        Statement::DropType { name, if_exists } => {
            user_types::drop_type(current, name, *if_exists, session_keyspace)?
        }
        other => {
            return Err(DdlError::UnsupportedStatement {
                statement: other.to_string(),
            }
            .into())
        }
    };
    match change {
        Some(change) => apply(node, change).await,
        None => Ok(ResultBody::Void),
    }
}

/// `ALTER KEYSPACE`: its replication and durable writes, checked as Cassandra does.
fn alter_keyspace(current: &Catalog, stmt: &AlterKeyspace) -> CqlResult<Option<Change>> {
    let name = &stmt.name.name;
    guard(Alter, &Resource::Keyspace(name.clone()))?;
    if is_system_keyspace(name) {
        return Err(not_modifiable(name));
    }
    match current.keyspaces.get(name) {
        None if stmt.if_exists => Ok(None),
        None => Err(SchemaError::UnknownKeyspace {
            keyspace: name.clone(),
        }
        .into()),
        Some(ks) => {
            let (replication, durable_writes) = keyspace_params(
                name,
                &stmt.properties,
                ks.replication.clone(),
                ks.durable_writes,
            )?;
            let mut new = ks.clone();
            new.replication = replication;
            new.durable_writes = durable_writes;
            Ok(Some(put_keyspace(current, new, SchemaChangeType::Updated)))
        }
    }
}

/// `DROP KEYSPACE`.
fn drop_keyspace(current: &Catalog, name: &str, if_exists: bool) -> CqlResult<Option<Change>> {
    guard(Drop, &Resource::Keyspace(name.to_string()))?;
    match current.keyspaces.get(name) {
        None if if_exists => Ok(None),
        None => Err(SchemaError::UnknownKeyspace {
            keyspace: name.to_string(),
        }
        .into()),
        Some(_) => {
            let mut catalog = current.clone();
            catalog.keyspaces.remove(name);
            Ok(Some(Change {
                ops: vec![CatalogOp::DropKeyspace(name.to_string())],
                catalog,
                event: event(
                    SchemaChangeType::Dropped,
                    SchemaChangeTarget::Keyspace {
                        keyspace: name.to_string(),
                    },
                ),
            }))
        }
    }
}

/// `DROP TABLE` (not of a view, nor of a table views still depend on).
fn drop_table(
    current: &Catalog,
    name: &QualifiedName,
    if_exists: bool,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<Change>> {
    let keyspace = keyspace_of(name, session_keyspace)?;
    let table = &name.name.name;
    guard(Drop, &Resource::Table(keyspace.clone(), table.clone()))?;
    let existing = current
        .keyspaces
        .get(&keyspace)
        .and_then(|ks| ks.tables.get(table));
    match existing {
        None if if_exists => Ok(None),
        None => Err(SchemaError::UnknownTable {
            keyspace,
            table: table.clone(),
        }
        .into()),
        Some(def) if def.is_view() => Err(DdlError::DropTableOnView.into()),
        Some(def) if !current.views_of(def.id).is_empty() => {
            Err(DdlError::DropTableWithViews { keyspace }.into())
        }
        Some(def) => {
            let mut catalog = current.clone();
            if let Some(ks) = catalog.keyspaces.get_mut(&keyspace) {
                ks.tables.remove(table);
            }
            Ok(Some(Change {
                ops: vec![CatalogOp::DropTable {
                    keyspace: keyspace.clone(),
                    name: table.clone(),
                    id: def.id,
                }],
                catalog,
                event: event(
                    SchemaChangeType::Dropped,
                    SchemaChangeTarget::Table {
                        keyspace,
                        table: table.clone(),
                    },
                ),
            }))
        }
    }
}

/// Makes a schema change durable, installs the new catalog and announces the change.
async fn apply(node: &Arc<Node>, change: Change) -> CqlResult<ResultBody> {
    submit(
        node,
        WriteBatch {
            rows: Vec::new(),
            catalog: change.ops,
            range_tombstones: Vec::new(),
            counters: Vec::new(),
        },
    )
    .await?;
    node.install_catalog(change.catalog);
    info!(change = ?change.event, "schema changed");
    let _ = node.events.send(Event::SchemaChange(change.event.clone()));
    Ok(ResultBody::SchemaChange(change.event))
}

fn event(change: SchemaChangeType, target: SchemaChangeTarget) -> SchemaChange {
    SchemaChange { change, target }
}

fn put_keyspace(current: &Catalog, ks: KeyspaceDef, change: SchemaChangeType) -> Change {
    let mut catalog = current.clone();
    let name = ks.name.clone();
    let mut record = ks.clone();
    record.tables.clear();
    catalog.keyspaces.insert(name.clone(), ks);
    Change {
        ops: vec![CatalogOp::PutKeyspace(record)],
        catalog,
        event: event(change, SchemaChangeTarget::Keyspace { keyspace: name }),
    }
}

fn create_keyspace(current: &Catalog, stmt: &CreateKeyspace) -> CqlResult<Option<Change>> {
    let name = &stmt.name.name;
    if !valid_name(name) {
        return Err(DdlError::InvalidKeyspaceName {
            keyspace: name.clone(),
            max_length: NAME_LENGTH,
        }
        .into());
    }
    let (replication, durable_writes) =
        keyspace_params(name, &stmt.properties, Default::default(), true)?;
    if current.keyspaces.contains_key(name) || is_system_keyspace(name) {
        if stmt.if_not_exists {
            return Ok(None);
        }
        return Err(CqlError::AlreadyExists {
            message: format!("Cannot add existing keyspace \"{name}\""),
            keyspace: name.clone(),
            table: String::new(),
        });
    }
    let ks = KeyspaceDef {
        name: name.clone(),
        replication,
        durable_writes,
        tables: Default::default(),
        types: Default::default(),
    };
    Ok(Some(put_keyspace(current, ks, SchemaChangeType::Created)))
}

fn create_table(
    current: &Catalog,
    stmt: &CreateTable,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<Change>> {
    let keyspace = keyspace_of(&stmt.name, session_keyspace)?;
    let table = &stmt.name.name.name;
    guard(Create, &Resource::Keyspace(keyspace.clone()))?;
    let Some(ks) = current.keyspaces.get(&keyspace) else {
        return Err(SchemaError::UnknownKeyspace { keyspace }.into());
    };
    if !valid_name(table) {
        return Err(DdlError::InvalidTableName {
            table: table.clone(),
            max_length: NAME_LENGTH,
        }
        .into());
    }
    let scope = TypeScope {
        keyspace: &keyspace,
        types: &ks.types,
    };
    let def = create_table_def(stmt, scope, Uuid::new_v4())?;
    if ks.tables.contains_key(table) {
        if stmt.if_not_exists {
            return Ok(None);
        }
        return Err(CqlError::AlreadyExists {
            message: format!(
                "Cannot add already existing table \"{table}\" to keyspace \"{keyspace}\""
            ),
            keyspace,
            table: table.clone(),
        });
    }
    Ok(Some(put_table(current, def, SchemaChangeType::Created)))
}

fn alter_table(
    current: &Catalog,
    stmt: &AlterTable,
    session_keyspace: Option<&str>,
    now_micros: i64,
) -> CqlResult<Option<Change>> {
    let keyspace = keyspace_of(&stmt.name, session_keyspace)?;
    let table = &stmt.name.name.name;
    guard(Alter, &Resource::Table(keyspace.clone(), table.clone()))?;
    let Some(def) = current
        .keyspaces
        .get(&keyspace)
        .and_then(|ks| ks.tables.get(table))
    else {
        if stmt.if_exists {
            return Ok(None);
        }
        return Err(SchemaError::UnknownTable {
            keyspace,
            table: table.clone(),
        }
        .into());
    };
    if def.is_view() {
        return Err(DdlError::AlterTableOnView.into());
    }
    let has_views = !current.views_of(def.id).is_empty();
    let new_def = match &stmt.action {
        AlterTableAction::Add {
            if_not_exists,
            columns,
        } => {
            let types = current
                .keyspaces
                .get(&def.keyspace)
                .map(|ks| ks.types.clone())
                .unwrap_or_default();
            let added = added_columns(def, &types, columns, *if_not_exists)?;
            if added.is_empty() {
                return Ok(None);
            }
            altered_table(def, added, &[], now_micros)
        }
        AlterTableAction::Drop {
            if_exists,
            columns,
            timestamp,
        } => {
            let dropped = dropped_columns(def, columns, *if_exists, has_views)?;
            if dropped.is_empty() {
                return Ok(None);
            }
            altered_table(def, Vec::new(), &dropped, timestamp.unwrap_or(now_micros))
        }
        AlterTableAction::With(properties) => {
            let mut new = (**def).clone();
            new.params = table_params(properties, def.params.clone())?;
            new
        }
        AlterTableAction::Rename { if_exists, renames } => {
            return crate::executor::rename::rename_columns(current, def, renames, *if_exists)
        }
        AlterTableAction::AlterType { .. } => return Err(DdlError::AlterColumnType.into()),
    };
    let mut change = put_table(current, new_def, SchemaChangeType::Updated);
    if has_views {
        view_ddl::follow_base(&mut change, def.id);
    }
    Ok(Some(change))
}

/// The columns `ALTER TABLE ... DROP` removes, with Cassandra's refusals: a missing column
/// (unless IF EXISTS), a primary key column, any column of a table with views, a column an
/// index depends on.
fn dropped_columns(
    def: &TableDef,
    columns: &[Ident],
    if_exists: bool,
    has_views: bool,
) -> CqlResult<Vec<String>> {
    let mut dropped = Vec::new();
    for ident in columns {
        match def.column(&ident.name) {
            None if if_exists => {}
            None => {
                return Err(DdlError::DropColumnNotFound {
                    column: ident.name.clone(),
                    table: def.name.clone(),
                }
                .into())
            }
            Some(col)
                if matches!(
                    col.kind,
                    storage::ColumnKind::PartitionKey | storage::ColumnKind::Clustering
                ) =>
            {
                return Err(DdlError::DropPrimaryKeyColumn {
                    column: ident.name.clone(),
                }
                .into())
            }
            Some(_) if has_views => {
                return Err(DdlError::DropColumnWithViews {
                    column: ident.name.clone(),
                    table: def.name.clone(),
                }
                .into())
            }
            Some(col) => {
                index_ddl::check_no_dependent_indexes(def, col)?;
                dropped.push(ident.name.clone())
            }
        }
    }
    Ok(dropped)
}

/// TRUNCATE: removes every row of a user table.
pub(crate) async fn truncate(
    node: &Arc<Node>,
    name: &cql::statement::ast::QualifiedName,
    session_keyspace: Option<&str>,
) -> CqlResult<ResultBody> {
    let schema = node.schema();
    let table = crate::planner::resolve_table(&schema, name, session_keyspace)?;
    if table.def.keyspace == "system_traces" {
        // Cassandra lets the trace tables be truncated; ours live in the node's trace log.
        node.traces.truncate(&table.def.name);
        return Ok(ResultBody::Void);
    }
    if table.kind == crate::schema::TableKind::Virtual || is_system_keyspace(&table.def.keyspace) {
        return Err(not_modifiable(&table.def.keyspace));
    }
    if table.def.is_view() {
        return Err(DdlError::TruncateView.into());
    }
    // A base table's views are truncated with it, in the same transaction.
    let mut catalog = vec![CatalogOp::TruncateTable { id: table.def.id }];
    for view in schema.catalog.views_of(table.def.id) {
        catalog.push(CatalogOp::TruncateTable { id: view.id });
    }
    submit(
        node,
        WriteBatch {
            rows: Vec::new(),
            catalog,
            range_tombstones: Vec::new(),
            counters: Vec::new(),
        },
    )
    .await?;
    Ok(ResultBody::Void)
}
