//! `ALTER TABLE ... RENAME a TO b [AND ...]`: primary-key columns only, with Cassandra 5.0's
//! messages (`AlterTableStatement.RenameColumns`). Cells are stored under column ids, so a
//! rename changes names only; the base's materialized views rename the column too (same id),
//! WHERE clause included, as Cassandra's `withRenamedPrimaryKeyColumn` does.

use std::sync::Arc;

use cql::frame::response::SchemaChangeType;
use cql::statement::ast::{Ident, Statement};
use storage::{Catalog, CatalogOp, ColumnDef, ColumnKind, TableDef};

use crate::error::{CqlResult, DdlError};
use crate::planner::ddl::change::{put_table, SchemaChangePlan};
use crate::planner::ddl::view::put_views;
use crate::planner::ddl::view_where::{for_each_column, where_text};

/// Plans the renames of `def`'s columns; `None` when `IF EXISTS` leaves nothing to do.
pub(crate) fn rename_columns(
    current: &Catalog,
    def: &Arc<TableDef>,
    renames: &[(Ident, Ident)],
    if_exists: bool,
) -> CqlResult<Option<SchemaChangePlan>> {
    let mut table = (**def).clone();
    let mut done: Vec<(String, String)> = Vec::new();
    for (old, new) in renames {
        let Some(column) = table.column(&old.name).cloned() else {
            if if_exists {
                continue;
            }
            return Err(DdlError::RenameColumnNotFound {
                column: old.to_string(),
                keyspace: def.keyspace.clone(),
                table: def.name.clone(),
            }
            .into());
        };
        check_renamable(&table, &column, old, new)?;
        if let Some(c) = table.columns.iter_mut().find(|c| c.id == column.id) {
            c.name = new.name.clone();
        }
        done.push((old.name.clone(), new.name.clone()));
    }
    if done.is_empty() {
        return Ok(None);
    }
    table.reindex();
    let mut change = put_table(current, table, SchemaChangeType::Updated);
    rename_in_views(&mut change, def.id, &done)?;
    Ok(Some(change))
}

/// Cassandra's refusals of renaming `column` (named `old`) to `new` in `table` (as the
/// earlier renames of the statement left it): not a primary key column, a name taken, a
/// column an index depends on.
fn check_renamable(
    table: &TableDef,
    column: &ColumnDef,
    old: &Ident,
    new: &Ident,
) -> CqlResult<()> {
    if !matches!(
        column.kind,
        ColumnKind::PartitionKey | ColumnKind::Clustering
    ) {
        return Err(DdlError::RenameNonPrimaryKey {
            column: old.to_string(),
        }
        .into());
    }
    if table.column(&new.name).is_some() {
        return Err(DdlError::RenameTargetExists {
            column: old.to_string(),
            new_name: new.to_string(),
            keyspace: table.keyspace.clone(),
            table: table.name.clone(),
        }
        .into());
    }
    let dependent: Vec<String> = table
        .indexes
        .iter()
        .filter(|i| i.column == column.id)
        .map(|i| i.name.clone())
        .collect();
    if !dependent.is_empty() {
        return Err(DdlError::RenameIndexedColumn {
            column: old.to_string(),
            indexes: dependent,
        }
        .into());
    }
    Ok(())
}

/// Renames the columns in every view of the base `base_id`, and writes the new layouts.
fn rename_in_views(
    change: &mut SchemaChangePlan,
    base_id: uuid::Uuid,
    done: &[(String, String)],
) -> CqlResult<()> {
    let views: Vec<Arc<TableDef>> = change
        .catalog
        .views_of(base_id)
        .into_iter()
        .cloned()
        .collect();
    if views.is_empty() {
        return Ok(());
    }
    for view in views {
        let mut new = (*view).clone();
        for (old, renamed) in done {
            if let Some(c) = new.columns.iter_mut().find(|c| &c.name == old) {
                c.name = renamed.clone();
            }
        }
        if let Some(def) = new.view.as_mut() {
            def.where_clause = renamed_where(&def.where_clause, done)?;
        }
        new.reindex();
        let new = Arc::new(new);
        if let Some(ks) = change.catalog.keyspaces.get_mut(&new.keyspace) {
            ks.tables.insert(new.name.clone(), new.clone());
        }
        change.ops.push(CatalogOp::PutTable(new));
    }
    if let Some(base) = change.catalog.table_by_id(base_id).cloned() {
        change.ops.push(put_views(&change.catalog, &base));
    }
    Ok(())
}

/// A view's WHERE clause text with the renamed columns.
fn renamed_where(text: &str, done: &[(String, String)]) -> CqlResult<String> {
    if text.is_empty() {
        return Ok(String::new());
    }
    let statement = cql::statement::parse_statement(&format!("SELECT * FROM x WHERE {text}"))?;
    let Statement::Select(mut select) = statement else {
        return Ok(text.to_string());
    };
    let mut rename = |ident: &mut Ident| {
        if let Some((_, new)) = done.iter().find(|(old, _)| *old == ident.name) {
            ident.name = new.clone();
        }
    };
    for relation in &mut select.where_clause {
        for_each_column(relation, &mut rename);
    }
    Ok(where_text(&select.where_clause))
}
