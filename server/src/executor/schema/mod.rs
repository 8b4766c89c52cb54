//! Schema statements applied. Each is planned (`planner::ddl`) against the catalog current
//! under the DDL lock, its change written durably through the storage writer (which builds
//! new indexes and views in the same transaction), installed as the new schema snapshot
//! (which changes `schema_version`), and only then answered and broadcast as SCHEMA_CHANGE —
//! so a client refreshing metadata after the result sees the change. TRUNCATE lives here
//! too: it changes no schema, but is refused as schema statements on system tables are.

#[cfg(test)]
pub(crate) mod tests;

use std::sync::Arc;

use cql::frame::response::{Event, ResultBody};
use cql::statement::ast::Statement;
use storage::{CatalogOp, WriteBatch};
use tracing::info;

use crate::error::{CqlResult, DdlError};
use crate::executor::write::submit::submit;
use crate::node::Node;
use crate::planner::ddl::{plan_schema_change, SchemaChangePlan, SchemaContext};
use crate::schema::is_system_keyspace;

/// Runs a schema statement: plans it under the DDL lock, then applies the plan (an
/// `IF [NOT] EXISTS` no-op answers VOID).
pub(crate) async fn execute(
    node: &Arc<Node>,
    statement: &Statement,
    session_keyspace: Option<&str>,
) -> CqlResult<ResultBody> {
    let _guard = node.ddl_lock().lock().await;
    let schema = node.schema();
    let datacenters = node.datacenters();
    let datacenters: Vec<&str> = datacenters.iter().map(String::as_str).collect();
    let context = SchemaContext {
        now_micros: node.clock().now_micros(),
        materialized_views_enabled: node.config().materialized_views_enabled,
        datacenters: &datacenters,
    };
    match plan_schema_change(&schema.catalog, statement, session_keyspace, context)? {
        Some(plan) => apply(node, plan).await,
        None => Ok(ResultBody::Void),
    }
}

/// Sends the plan's warnings, makes the change durable, installs the new catalog and
/// announces the change.
async fn apply(node: &Arc<Node>, plan: SchemaChangePlan) -> CqlResult<ResultBody> {
    for warning in plan.warnings {
        crate::telemetry::warnings::warn(warning);
    }
    submit(
        node,
        WriteBatch {
            rows: Vec::new(),
            catalog: plan.ops,
            range_tombstones: Vec::new(),
            counters: Vec::new(),
        },
    )
    .await?;
    node.install_catalog(plan.catalog);
    info!(change = ?plan.event, "schema changed");
    let _ = node.events().send(Event::SchemaChange(plan.event.clone()));
    Ok(ResultBody::SchemaChange(plan.event))
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
        node.traces().truncate(&table.def.name);
        return Ok(ResultBody::Void);
    }
    if table.kind == crate::schema::TableKind::Virtual
        && table.def.keyspace == crate::control::KEYSPACE
    {
        return crate::control::cql::truncate(node, &table.def.name).await;
    }
    if table.kind == crate::schema::TableKind::Virtual || is_system_keyspace(&table.def.keyspace) {
        return Err(DdlError::SystemKeyspaceNotModifiable {
            keyspace: table.def.keyspace.clone(),
        }
        .into());
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
