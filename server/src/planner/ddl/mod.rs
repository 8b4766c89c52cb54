//! Schema statements planned: validation with Cassandra's messages and the change they make,
//! computed from the catalog current under the DDL lock — as Cassandra's schema statements
//! (`AlterSchemaStatement.apply`) validate and compute against the schema current at
//! execution, not at PREPARE. Pure and synchronous: a catalog, a statement and a
//! [`SchemaContext`] in, a [`SchemaChangePlan`] out, which the executor applies
//! (`executor/ddl.rs`: storage, the new schema, events, warnings).
//!
//! One file per concern: `keyspace`, `table`, `index`, `user_type`, `rename` (ALTER TABLE
//! RENAME), `view` and `view_where` (materialized views), `disabled` (UDF and trigger
//! refusals), `system_guard` (the system keyspaces' refusals), `change` (the shared
//! vocabulary) and `print` (the plan's one-line form).

pub(crate) mod sai_options;

mod change;
mod disabled;
mod index;
mod keyspace;
mod print;
mod rename;
pub(crate) mod system_guard;
mod table;
mod user_type;
mod view;
mod view_where;

use cql::statement::ast::Statement;
use storage::Catalog;

use crate::error::{CqlResult, DdlError};

pub(crate) use change::SchemaChangePlan;
pub(crate) use view::check_no_bind_markers;

/// What planning a schema change reads from the node besides the catalog.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SchemaContext<'a> {
    /// The node's clock (microseconds since the epoch): stamps the columns ALTER TABLE
    /// adds and drops (unless `USING TIMESTAMP` says otherwise).
    pub(crate) now_micros: i64,
    /// `materialized_views_enabled`: whether CREATE MATERIALIZED VIEW is allowed.
    pub(crate) materialized_views_enabled: bool,
    /// The cluster's datacenters: the names NetworkTopologyStrategy accepts.
    pub(crate) datacenters: &'a [&'a str],
}

/// Plans the schema statement `statement` against `current`, the catalog current under the
/// DDL lock; `session_keyspace` qualifies unqualified names. `None`: nothing to change
/// (`IF [NOT] EXISTS` made it a no-op, or a disabled DROP FUNCTION/TRIGGER `IF EXISTS`).
///
/// # Errors
/// Cassandra's refusals, word for word: unknown or existing keyspaces, tables, indexes,
/// types and views, invalid names and options, system keyspaces, disabled features, and any
/// statement that is not a schema change.
pub(crate) fn plan_schema_change(
    current: &Catalog,
    statement: &Statement,
    session_keyspace: Option<&str>,
    context: SchemaContext<'_>,
) -> CqlResult<Option<SchemaChangePlan>> {
    let ks = session_keyspace;
    match statement {
        Statement::CreateKeyspace(stmt) => {
            keyspace::create_keyspace(current, stmt, context.datacenters)
        }
        Statement::AlterKeyspace(stmt) => {
            keyspace::alter_keyspace(current, stmt, context.datacenters)
        }
        Statement::DropKeyspace { name, if_exists } => {
            keyspace::drop_keyspace(current, &name.name, *if_exists)
        }
        Statement::CreateTable(stmt) => table::create_table(current, stmt, ks),
        Statement::DropTable { name, if_exists } => {
            table::drop_table(current, name, *if_exists, ks)
        }
        Statement::AlterTable(stmt) => table::alter_table(current, stmt, ks, context.now_micros),
        Statement::CreateIndex(stmt) => index::create_index(current, stmt, ks),
        Statement::DropIndex { name, if_exists } => {
            index::drop_index(current, name, *if_exists, ks)
        }
        Statement::CreateView(stmt) => {
            view::create_view(current, stmt, ks, context.materialized_views_enabled)
        }
        Statement::AlterView {
            name,
            if_exists,
            properties,
        } => view::alter_view(current, name, *if_exists, properties, ks),
        Statement::DropView { name, if_exists } => view::drop_view(current, name, *if_exists, ks),
        Statement::CreateType(stmt) => user_type::create_type(current, stmt, ks),
        Statement::AlterType(stmt) => user_type::alter_type(current, stmt, ks),
        Statement::DropType { name, if_exists } => {
            user_type::drop_type(current, name, *if_exists, ks)
        }
        Statement::Disabled(stmt) => disabled::refuse(current, stmt, ks),
        other => Err(DdlError::UnsupportedStatement {
            statement: other.to_string(),
        }
        .into()),
    }
}

#[cfg(test)]
mod tests;
