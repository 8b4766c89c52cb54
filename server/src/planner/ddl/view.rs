//! `CREATE`, `ALTER` and `DROP MATERIALIZED VIEW`: validation with Cassandra 5.0's messages
//! (`CreateViewStatement`, `AlterViewStatement`, `DropViewStatement`) and the catalog change.
//! A view is a table whose record carries a [`ViewDef`]; its columns keep the base columns'
//! ids. Every change that touches a base table's views also sends `CatalogOp::PutViews`, so
//! the storage writer maintains (and, for a new view, builds) the view rows in the same
//! transaction. Events are `SCHEMA_CHANGE ... TABLE ks view`, as Cassandra sends them.

use std::collections::HashSet;
use std::sync::Arc;

use cql::frame::response::SchemaChangeType;
use cql::statement::ast::{CreateView, Order, Property, QualifiedName, SelectExpr};
use storage::{Catalog, CatalogOp, ClusteringOrder, ColumnDef, ColumnKind, TableDef, ViewDef};
use uuid::Uuid;

use crate::error::{AlreadyExists, CqlResult, DdlError, OptionsError, SchemaError, ViewError};
use crate::planner::ddl::change::{table_event, valid_table_name, SchemaChangePlan};
use crate::planner::ddl::system_guard::{check as guard, SchemaPermission, SchemaResource};
use crate::planner::ddl::view_where::{view_filters, where_text};
use crate::planner::keyspace_of;
use crate::schema::table_def::options::{altered_table_params, new_table_params};

/// Cassandra's `View.USAGE_WARNING`, sent with every CREATE MATERIALIZED VIEW.
pub(crate) const USAGE_WARNING: &str =
    "Materialized views are experimental and are not recommended for production use.";

/// Checks made before the statement is applied (`CreateViewStatement.Raw.prepare`).
fn check_raw(stmt: &CreateView, keyspace: &str) -> CqlResult<()> {
    let view = &stmt.name.name.name;
    let mut seen = HashSet::new();
    for (column, _) in &stmt.clustering_order {
        if !seen.insert(&column.name) {
            return Err(ViewError::DuplicateClusteringOrder {
                column: column.name.clone(),
                view: view.clone(),
            }
            .into());
        }
    }
    if stmt
        .base
        .keyspace
        .as_ref()
        .is_some_and(|k| k.name != keyspace)
    {
        return Err(ViewError::OtherKeyspace.into());
    }
    check_no_bind_markers_in(stmt)
}

fn check_no_bind_markers_in(stmt: &CreateView) -> CqlResult<()> {
    if stmt.has_bind_markers {
        return Err(ViewError::BindMarkers.into());
    }
    Ok(())
}

/// Cassandra refuses a CREATE MATERIALIZED VIEW with bind markers as it prepares it, before
/// counting the values bound: checked ahead of that count.
pub(crate) fn check_no_bind_markers(statement: &cql::statement::ast::Statement) -> CqlResult<()> {
    match statement {
        cql::statement::ast::Statement::CreateView(view) => check_no_bind_markers_in(view),
        _ => Ok(()),
    }
}

/// Plans `CREATE MATERIALIZED VIEW`; `None` when `IF NOT EXISTS` makes it a no-op. The plan
/// carries Cassandra's usage warning. `enabled` is the node's `materialized_views_enabled`.
pub(crate) fn create_view(
    current: &Catalog,
    stmt: &CreateView,
    session_keyspace: Option<&str>,
    enabled: bool,
) -> CqlResult<Option<SchemaChangePlan>> {
    let keyspace = keyspace_of(&stmt.name, session_keyspace)?;
    let base = SchemaResource::Table(keyspace.clone(), stmt.base.name.name.clone());
    guard(SchemaPermission::Alter, &base)?;
    check_raw(stmt, &keyspace)?;
    if !enabled {
        return Err(ViewError::Disabled.into());
    }
    let Some(ks) = current.keyspaces.get(&keyspace) else {
        return Err(SchemaError::UnknownKeyspace { keyspace }.into());
    };
    let view_name = &stmt.name.name.name;
    let base_name = &stmt.base.name.name;
    let Some(base) = ks.tables.get(base_name).filter(|t| !t.is_view()) else {
        return Err(ViewError::UnknownBaseTable {
            table: base_name.clone(),
        }
        .into());
    };
    if view_exists(ks.tables.get(view_name), stmt, &keyspace)? {
        return Ok(None);
    }
    let def = Arc::new(view_def(base, stmt, &keyspace)?);
    let mut catalog = current.clone();
    if let Some(ks) = catalog.keyspaces.get_mut(&keyspace) {
        ks.tables.insert(def.name.clone(), def.clone());
    }
    let ops = vec![CatalogOp::PutTable(def.clone()), put_views(&catalog, base)];
    let event = table_event(SchemaChangeType::Created, &keyspace, view_name);
    let mut plan = SchemaChangePlan::new(ops, catalog, event);
    plan.warnings.push(USAGE_WARNING.to_string());
    Ok(Some(plan))
}

/// Whether the view exists already and `IF NOT EXISTS` makes the statement a no-op;
/// Cassandra's error when a table holds the name, or without `IF NOT EXISTS`.
fn view_exists(
    existing: Option<&Arc<TableDef>>,
    stmt: &CreateView,
    keyspace: &str,
) -> CqlResult<bool> {
    let view_name = &stmt.name.name.name;
    match existing {
        None => Ok(false),
        Some(existing) if !existing.is_view() => Err(ViewError::TableNameTaken {
            view: view_name.clone(),
        }
        .into()),
        Some(_) if stmt.if_not_exists => Ok(true),
        Some(_) => Err(AlreadyExists::Table {
            keyspace: keyspace.to_string(),
            table: view_name.clone(),
        }
        .into()),
    }
}

/// The `PutViews` operation for `base` as `catalog` holds its views.
pub(crate) fn put_views(catalog: &Catalog, base: &Arc<TableDef>) -> CatalogOp {
    CatalogOp::PutViews {
        base: base.clone(),
        views: catalog.views_of(base.id).into_iter().cloned().collect(),
    }
}

/// Validates the statement against `base` and builds the view's table definition.
fn view_def(base: &TableDef, stmt: &CreateView, keyspace: &str) -> CqlResult<TableDef> {
    let view_name = &stmt.name.name.name;
    if !valid_table_name(view_name) {
        return Err(ViewError::InvalidName {
            view: view_name.clone(),
        }
        .into());
    }
    if base.is_counter_table() {
        return Err(ViewError::CounterBase.into());
    }
    if base.params.gc_grace_seconds == 0 {
        return Err(ViewError::ZeroGcGraceBase {
            view: view_name.clone(),
            base: base.name.clone(),
        }
        .into());
    }
    let selected = selected_columns(base, stmt)?;
    if let Some(s) = selected.iter().find(|c| c.kind == ColumnKind::Static) {
        return Err(ViewError::StaticColumn {
            column: s.name.clone(),
            view: view_name.clone(),
        }
        .into());
    }
    let key = key_columns(base, stmt, &selected)?;
    check_where(base, stmt, &key)?;
    let mut params = new_table_params(&stmt.properties)?;
    if stmt
        .properties
        .iter()
        .any(|p| p.name.eq_ignore_ascii_case("default_time_to_live"))
        && params.default_time_to_live != 0
    {
        return Err(ViewError::DefaultTtl.into());
    }
    params.default_time_to_live = 0;
    let id = view_id(&stmt.properties)?;
    let mut columns = key.clone();
    for column in &selected {
        if !key.iter().any(|k| k.id == column.id) {
            let mut regular = column.clone();
            regular.kind = ColumnKind::Regular;
            regular.position = -1;
            regular.order = ClusteringOrder::None;
            columns.push(regular);
        }
    }
    let mut def = TableDef::new(id, keyspace, view_name.as_str(), columns, params);
    def.next_column_id = base.next_column_id;
    def.view = Some(ViewDef {
        base_id: base.id,
        base_name: base.name.clone(),
        include_all_columns: stmt.selectors.is_empty(),
        where_clause: where_text(&stmt.where_clause),
        filters: view_filters(base, &stmt.where_clause)?,
    });
    Ok(def)
}

/// The `id` table option, or a new id.
fn view_id(properties: &[Property]) -> CqlResult<Uuid> {
    let Some(prop) = properties
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case("id"))
    else {
        return Ok(Uuid::new_v4());
    };
    let text = prop.value.to_string();
    let text = text.trim_matches('\'');
    Uuid::parse_str(text).map_err(|_| OptionsError::InvalidTableId.into())
}

/// The base columns the SELECT clause names (every column for `*`).
fn selected_columns(base: &TableDef, stmt: &CreateView) -> CqlResult<Vec<ColumnDef>> {
    if stmt.selectors.is_empty() {
        return Ok(base.columns.clone());
    }
    let mut out: Vec<ColumnDef> = Vec::new();
    for selector in &stmt.selectors {
        if selector.alias.is_some() {
            return Err(ViewError::Alias {
                selector: selector.to_string(),
            }
            .into());
        }
        let SelectExpr::Column(ident) = &selector.expr else {
            return Err(ViewError::NotAColumn {
                expression: selector.expr.to_string(),
            }
            .into());
        };
        let Some(column) = base.column(&ident.name) else {
            return Err(ViewError::UndefinedColumn {
                column: ident.clone(),
                table: base.name.clone(),
            }
            .into());
        };
        if !out.iter().any(|c| c.id == column.id) {
            out.push(column.clone());
        }
    }
    Ok(out)
}

/// The view's key columns (kinds, positions and orders set), checked as Cassandra does.
fn key_columns(
    base: &TableDef,
    stmt: &CreateView,
    selected: &[ColumnDef],
) -> CqlResult<Vec<ColumnDef>> {
    let view_name = &stmt.name.name.name;
    if stmt.partition_key.is_empty() {
        return Err(ViewError::NoPartitionKey {
            view: view_name.clone(),
        }
        .into());
    }
    let mut key: Vec<ColumnDef> = Vec::new();
    let partition = stmt.partition_key.iter().map(|c| (c, true));
    let clustering = stmt.clustering_key.iter().map(|c| (c, false));
    for (position, (ident, in_partition)) in partition.chain(clustering).enumerate() {
        let name = &ident.name;
        let column = base
            .column(name)
            .filter(|c| selected.iter().any(|s| s.id == c.id))
            .ok_or_else(|| ViewError::UnknownKeyColumn {
                column: ident.clone(),
                view: view_name.clone(),
            })?;
        if key.iter().any(|k| k.id == column.id) {
            return Err(ViewError::DuplicateKeyColumn {
                column: ident.clone(),
                view: view_name.clone(),
            }
            .into());
        }
        check_key_type(column, ident)?;
        let mut column = column.clone();
        if in_partition {
            column.kind = ColumnKind::PartitionKey;
            column.position = position as i32;
            column.order = ClusteringOrder::None;
        } else {
            column.position = (position - stmt.partition_key.len()) as i32;
            column.order = clustering_order(stmt, base, &column);
            column.kind = ColumnKind::Clustering;
        }
        key.push(column);
    }
    let names: Vec<&str> = stmt
        .clustering_key
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    let ordered: Vec<&str> = stmt
        .clustering_order
        .iter()
        .map(|(c, _)| c.name.as_str())
        .collect();
    if !ordered.is_empty() && names != ordered {
        return Err(ViewError::ClusteringOrderMismatch.into());
    }
    check_base_key_included(base, &key, stmt)?;
    Ok(key)
}

fn check_key_type(column: &ColumnDef, ident: &cql::statement::ast::Ident) -> CqlResult<()> {
    let ty = &column.ty;
    let column = ident.clone();
    if ty.is_multi_cell() {
        let ty = ty.clone();
        return Err(match ty {
            cql::types::ColumnType::Udt { .. } => ViewError::NonFrozenUdtKey { ty, column },
            _ => ViewError::NonFrozenCollectionKey { ty, column },
        }
        .into());
    }
    if ty.is_counter() {
        return Err(DdlError::CounterKeyColumn {
            column: column.to_string(),
        }
        .into());
    }
    if ty.references_duration() {
        return Err(DdlError::DurationKeyColumn {
            column: column.to_string(),
        }
        .into());
    }
    Ok(())
}

/// The order of a view clustering column: as the statement says, else the base column's
/// (a DESC base clustering column stays DESC, as Cassandra keeps its reversed type).
fn clustering_order(stmt: &CreateView, base: &TableDef, column: &ColumnDef) -> ClusteringOrder {
    if let Some((_, order)) = stmt
        .clustering_order
        .iter()
        .find(|(c, _)| c.name == column.name)
    {
        return match order {
            Order::Asc => ClusteringOrder::Asc,
            Order::Desc => ClusteringOrder::Desc,
        };
    }
    match base.column_by_id(column.id).map(|c| c.order) {
        Some(ClusteringOrder::Desc) => ClusteringOrder::Desc,
        _ => ClusteringOrder::Asc,
    }
}

/// Every base key column must be in the view key, and at most one other column.
fn check_base_key_included(base: &TableDef, key: &[ColumnDef], stmt: &CreateView) -> CqlResult<()> {
    let in_key = |c: &ColumnDef| key.iter().any(|k| k.id == c.id);
    let base_key: Vec<&ColumnDef> = base
        .partition_key_columns()
        .chain(base.clustering_columns())
        .collect();
    let missing: Vec<String> = base_key
        .iter()
        .filter(|c| !in_key(c))
        .map(|c| c.name.clone())
        .collect();
    if !missing.is_empty() {
        return Err(ViewError::MissingBaseKey {
            view: stmt.name.name.name.clone(),
            columns: missing,
            base: base.name.clone(),
        }
        .into());
    }
    let extra: Vec<String> = key
        .iter()
        .filter(|k| !base_key.iter().any(|b| b.id == k.id))
        .map(|c| c.name.clone())
        .collect();
    if extra.len() > 1 {
        return Err(ViewError::TooManyNonKeyColumns { columns: extra }.into());
    }
    Ok(())
}

/// The WHERE clause must restrict every view key column (`IS NOT NULL` or otherwise), and
/// columns outside the base key only with `IS NOT NULL`.
fn check_where(base: &TableDef, stmt: &CreateView, key: &[ColumnDef]) -> CqlResult<()> {
    use cql::statement::ast::{Operator, Relation};
    let mut restricted: HashSet<String> = HashSet::new();
    let mut illegal: Vec<String> = Vec::new();
    for relation in &stmt.where_clause {
        let (column, is_not_null) = match relation {
            Relation::Token { .. } => return Err(ViewError::TokenRelation.into()),
            Relation::Single { column, op, .. } => (column, *op == Operator::IsNot),
            Relation::In { column, .. } | Relation::Element { column, .. } => (column, false),
            Relation::Multi { columns, .. } | Relation::MultiIn { columns, .. } => {
                restricted.extend(columns.iter().map(|c| c.name.clone()));
                continue;
            }
        };
        let Some(def) = base.column(&column.name) else {
            return Err(SchemaError::UndefinedColumn {
                column: column.to_string(),
            }
            .into());
        };
        let base_key = matches!(def.kind, ColumnKind::PartitionKey | ColumnKind::Clustering);
        // Names are compared as printed: a name needing quotes may be listed twice.
        let listed = illegal
            .iter()
            .any(|c| cql::types::maybe_quote(c) == def.name);
        if !base_key && !is_not_null && !listed {
            illegal.push(def.name.clone());
        }
        restricted.insert(column.name.clone());
    }
    let unrestricted: Vec<String> = key
        .iter()
        .filter(|c| !restricted.contains(&c.name))
        .map(|c| c.name.clone())
        .collect();
    if !unrestricted.is_empty() {
        return Err(ViewError::UnrestrictedKey {
            columns: unrestricted,
        }
        .into());
    }
    if !illegal.is_empty() {
        return Err(ViewError::IllegalRestriction { columns: illegal }.into());
    }
    Ok(())
}

/// Finds the view `name`, or answers for `IF EXISTS` / with Cassandra's message.
fn existing_view<'a>(
    current: &'a Catalog,
    name: &QualifiedName,
    if_exists: bool,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<(String, &'a Arc<TableDef>)>> {
    let keyspace = keyspace_of(name, session_keyspace)?;
    let view = &name.name.name;
    match current.table(&keyspace, view).filter(|t| t.is_view()) {
        Some(def) => Ok(Some((keyspace, def))),
        None if if_exists => Ok(None),
        None => Err(ViewError::UnknownView {
            keyspace,
            view: view.clone(),
        }
        .into()),
    }
}

/// Plans `ALTER MATERIALIZED VIEW ... WITH`.
pub(crate) fn alter_view(
    current: &Catalog,
    name: &QualifiedName,
    if_exists: bool,
    properties: &[Property],
    session_keyspace: Option<&str>,
) -> CqlResult<Option<SchemaChangePlan>> {
    let Some((keyspace, def)) = existing_view(current, name, if_exists, session_keyspace)? else {
        return Ok(None);
    };
    let params = altered_table_params(properties, def.params.clone())?;
    if params.gc_grace_seconds == 0 {
        return Err(ViewError::ZeroGcGrace.into());
    }
    if params.default_time_to_live > 0 {
        return Err(ViewError::ForbiddenDefaultTtl.into());
    }
    let mut new = (**def).clone();
    new.params = params;
    let new = Arc::new(new);
    let mut catalog = current.clone();
    if let Some(ks) = catalog.keyspaces.get_mut(&keyspace) {
        ks.tables.insert(new.name.clone(), new.clone());
    }
    let event = table_event(SchemaChangeType::Updated, &keyspace, &new.name);
    Ok(Some(SchemaChangePlan::new(
        vec![CatalogOp::PutTable(new)],
        catalog,
        event,
    )))
}

/// Plans `DROP MATERIALIZED VIEW`.
pub(crate) fn drop_view(
    current: &Catalog,
    name: &QualifiedName,
    if_exists: bool,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<SchemaChangePlan>> {
    let Some((keyspace, def)) = existing_view(current, name, if_exists, session_keyspace)? else {
        return Ok(None);
    };
    let mut catalog = current.clone();
    if let Some(ks) = catalog.keyspaces.get_mut(&keyspace) {
        ks.tables.remove(&def.name);
    }
    let mut ops = vec![CatalogOp::DropTable {
        keyspace: keyspace.clone(),
        name: def.name.clone(),
        id: def.id,
    }];
    let base_id = def.view.as_ref().map(|v| v.base_id);
    if let Some(base) = base_id.and_then(|id| catalog.table_by_id(id)).cloned() {
        ops.push(put_views(&catalog, &base));
    }
    let event = table_event(SchemaChangeType::Dropped, &keyspace, &def.name);
    Ok(Some(SchemaChangePlan::new(ops, catalog, event)))
}

/// After an ALTER TABLE of a base with views: columns it added join the views that selected
/// `*` (with the same ids), and the writer gets the new layouts.
pub(crate) fn follow_base(change: &mut SchemaChangePlan, base_id: Uuid) {
    let Some(base) = change.catalog.table_by_id(base_id).cloned() else {
        return;
    };
    let views: Vec<Arc<TableDef>> = change
        .catalog
        .views_of(base_id)
        .into_iter()
        .cloned()
        .collect();
    for view in views {
        let all = view.view.as_ref().is_some_and(|v| v.include_all_columns);
        let added: Vec<ColumnDef> = base
            .columns
            .iter()
            .filter(|c| all && view.column_by_id(c.id).is_none())
            .cloned()
            .collect();
        if added.is_empty() {
            continue;
        }
        let mut new = (*view).clone();
        new.columns.extend(added);
        new.reindex();
        new.next_column_id = base.next_column_id;
        let new = Arc::new(new);
        if let Some(ks) = change.catalog.keyspaces.get_mut(&new.keyspace) {
            ks.tables.insert(new.name.clone(), new.clone());
        }
        change.ops.push(CatalogOp::PutTable(new));
    }
    change.ops.push(put_views(&change.catalog, &base));
}

/// `PutViews` for every base table among `changed` (or base of a view among them) that has
/// views, as `catalog` now holds them: after a change of column types (ALTER TYPE).
pub(crate) fn refresh_views(catalog: &Catalog, changed: &[Arc<TableDef>]) -> Vec<CatalogOp> {
    let mut bases: Vec<Uuid> = Vec::new();
    for table in changed {
        let base = table.view.as_ref().map_or(table.id, |v| v.base_id);
        if !bases.contains(&base) && !catalog.views_of(base).is_empty() {
            bases.push(base);
        }
    }
    bases
        .into_iter()
        .filter_map(|id| catalog.table_by_id(id))
        .map(|base| put_views(catalog, base))
        .collect()
}
