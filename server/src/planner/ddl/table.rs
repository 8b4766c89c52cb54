//! `CREATE`, `ALTER` and `DROP TABLE`, with Cassandra's checks and messages
//! (`CreateTableStatement`, `AlterTableStatement`, `DropTableStatement`). A base table's
//! views follow an ALTER (see [`crate::planner::ddl::view::follow_base`]).

use std::sync::Arc;

use cql::frame::response::SchemaChangeType;
use cql::statement::ast::{AlterTable, AlterTableAction, CreateTable, Ident, QualifiedName};
use storage::{Catalog, CatalogOp, ColumnKind, TableDef};
use uuid::Uuid;

use crate::error::{AlreadyExists, CqlResult, DdlError, SchemaError};
use crate::planner::ddl::change::{
    put_table, table_event, valid_table_name, SchemaChangePlan, TABLE_NAME_LENGTH,
};
use crate::planner::ddl::index::check_no_dependent_indexes;
use crate::planner::ddl::rename::rename_columns;
use crate::planner::ddl::system_guard::SchemaPermission::{Alter, Create, Drop};
use crate::planner::ddl::system_guard::{check as guard, SchemaResource};
use crate::planner::ddl::view::follow_base;
use crate::planner::keyspace_of;
use crate::schema::table_def::options::altered_table_params;
use crate::schema::table_def::types::TypeScope;
use crate::schema::table_def::{added_columns, altered_table, create_table_def};

/// `CREATE TABLE`; `None` when `IF NOT EXISTS` makes it a no-op.
pub(crate) fn create_table(
    current: &Catalog,
    stmt: &CreateTable,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<SchemaChangePlan>> {
    let keyspace = keyspace_of(&stmt.name, session_keyspace)?;
    let table = &stmt.name.name.name;
    guard(Create, &SchemaResource::Keyspace(keyspace.clone()))?;
    let Some(ks) = current.keyspaces.get(&keyspace) else {
        return Err(SchemaError::UnknownKeyspace { keyspace }.into());
    };
    if !valid_table_name(table) {
        return Err(DdlError::InvalidTableName {
            table: table.clone(),
            max_length: TABLE_NAME_LENGTH,
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
        return Err(AlreadyExists::Table {
            keyspace,
            table: table.clone(),
        }
        .into());
    }
    Ok(Some(put_table(current, def, SchemaChangeType::Created)))
}

/// `DROP TABLE` (not of a view, nor of a table views still depend on); `None` when
/// `IF EXISTS` makes it a no-op.
pub(crate) fn drop_table(
    current: &Catalog,
    name: &QualifiedName,
    if_exists: bool,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<SchemaChangePlan>> {
    let keyspace = keyspace_of(name, session_keyspace)?;
    let table = &name.name.name;
    guard(
        Drop,
        &SchemaResource::Table(keyspace.clone(), table.clone()),
    )?;
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
            let op = CatalogOp::DropTable {
                keyspace: keyspace.clone(),
                name: table.clone(),
                id: def.id,
            };
            let event = table_event(SchemaChangeType::Dropped, &keyspace, table);
            Ok(Some(SchemaChangePlan::new(vec![op], catalog, event)))
        }
    }
}

/// `ALTER TABLE`; `None` when `IF [NOT] EXISTS` leaves nothing to do. `now_micros` stamps
/// the columns it drops (unless the statement gives `USING TIMESTAMP`) and adds.
pub(crate) fn alter_table(
    current: &Catalog,
    stmt: &AlterTable,
    session_keyspace: Option<&str>,
    now_micros: i64,
) -> CqlResult<Option<SchemaChangePlan>> {
    let keyspace = keyspace_of(&stmt.name, session_keyspace)?;
    let table = &stmt.name.name.name;
    guard(
        Alter,
        &SchemaResource::Table(keyspace.clone(), table.clone()),
    )?;
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
    if let AlterTableAction::Rename { if_exists, renames } = &stmt.action {
        return rename_columns(current, def, renames, *if_exists);
    }
    let has_views = !current.views_of(def.id).is_empty();
    let Some(new_def) = altered_def(current, def, &stmt.action, has_views, now_micros)? else {
        return Ok(None);
    };
    let mut change = put_table(current, new_def, SchemaChangeType::Updated);
    if has_views {
        follow_base(&mut change, def.id);
    }
    Ok(Some(change))
}

/// The table `def` becomes under `action` (ADD, DROP or WITH); `None` when `IF [NOT] EXISTS`
/// leaves no column to add or drop.
fn altered_def(
    current: &Catalog,
    def: &Arc<TableDef>,
    action: &AlterTableAction,
    has_views: bool,
    now_micros: i64,
) -> CqlResult<Option<TableDef>> {
    match action {
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
            Ok(Some(altered_table(def, added, &[], now_micros)))
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
            let when = timestamp.unwrap_or(now_micros);
            Ok(Some(altered_table(def, Vec::new(), &dropped, when)))
        }
        AlterTableAction::With(properties) => {
            let mut new = (**def).clone();
            new.params = altered_table_params(properties, def.params.clone())?;
            Ok(Some(new))
        }
        // Planned by `rename_columns` before this is reached.
        AlterTableAction::Rename { .. } => Ok(None),
        AlterTableAction::AlterType { .. } => Err(DdlError::AlterColumnType.into()),
    }
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
            Some(col) if matches!(col.kind, ColumnKind::PartitionKey | ColumnKind::Clustering) => {
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
                check_no_dependent_indexes(def, col)?;
                dropped.push(ident.name.clone())
            }
        }
    }
    Ok(dropped)
}
