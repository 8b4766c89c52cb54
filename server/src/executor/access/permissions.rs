//! `GRANT`, `REVOKE` and `LIST` of permissions (CassandraAuthorizer) run: planned
//! (`planner::access`) against the catalog current under the DDL lock, then committed or
//! answered. Permissions are kept with the role they are granted to, in the catalog.

use std::sync::Arc;

use cql::frame::response::ResultBody;
use cql::statement::ast::PermissionStatement;

use crate::auth::authorizer::Resource;
use crate::config::Authorizer;
use crate::error::{AccessError, CqlResult, UnauthorizedError};
use crate::executor::access::catalog::commit_plan;
use crate::node::Node;
use crate::planner::access::{
    plan_access, plan_creator_grant, plan_revoke_all_on, AccessContext, AccessPlan, AccessStatement,
};
use crate::transport::session::Session;

/// Runs a permission statement for the role logged in on `session`.
pub(crate) async fn execute(
    node: &Arc<Node>,
    session: &Session,
    statement: &PermissionStatement,
    keyspace: Option<&str>,
) -> CqlResult<ResultBody> {
    if node.config().authorizer == Authorizer::AllowAll {
        return Err(AccessError::AllowAllAuthorizer {
            operation: operation_name(statement).to_string(),
        }
        .into());
    }
    let Some(user) = session.user() else {
        return Err(UnauthorizedError::Anonymous.into());
    };
    let _guard = node.ddl_lock().lock().await;
    let schema = node.schema();
    let context = AccessContext {
        user: &user,
        authorizing: true,
        session_keyspace: keyspace,
    };
    match plan_access(
        &schema.catalog,
        AccessStatement::Permission(statement),
        context,
    )? {
        AccessPlan::Rows(rows) => Ok(rows.into_result()),
        change @ AccessPlan::Change { .. } => {
            commit_plan(node, change).await?;
            Ok(ResultBody::Void)
        }
    }
}

/// The statement as Cassandra names it when the AllowAllAuthorizer refuses it.
fn operation_name(statement: &PermissionStatement) -> &'static str {
    match statement {
        PermissionStatement::Grant { .. } => "GRANT",
        PermissionStatement::Revoke { .. } => "REVOKE",
        PermissionStatement::List { .. } => "LIST PERMISSIONS",
    }
}

/// Grants the creator of a keyspace, table or role every permission that applies to it, as
/// Cassandra does, when CassandraAuthorizer is in force.
///
/// # Errors
/// The grant cannot be stored.
pub(crate) async fn grant_to_creator(
    node: &Arc<Node>,
    session: &Session,
    resource: Resource,
) -> CqlResult<()> {
    let Some(user) = session.user() else {
        return Ok(());
    };
    if node.config().authorizer == Authorizer::AllowAll {
        return Ok(());
    }
    let _guard = node.ddl_lock().lock().await;
    match plan_creator_grant(&node.schema().catalog, &user, &resource) {
        Some(plan) => commit_plan(node, plan).await,
        None => Ok(()),
    }
}

/// Revokes every permission on `dropped` (a keyspace with its tables and views, a table or a
/// view) from every role, as Cassandra does when it is dropped, so that a resource
/// re-created under the same name starts with none.
///
/// # Errors
/// The change cannot be stored.
pub(crate) async fn revoke_all_on(node: &Arc<Node>, dropped: Resource) -> CqlResult<()> {
    let _guard = node.ddl_lock().lock().await;
    match plan_revoke_all_on(&node.schema().catalog, &dropped) {
        Some(plan) => commit_plan(node, plan).await,
        None => Ok(()),
    }
}
