//! Role statements (`CREATE/ALTER/DROP ROLE|USER`, `LIST ROLES|USERS`, `GRANT/REVOKE role`)
//! run: planned (`planner::access`) against the catalog current under the DDL lock, as
//! Cassandra validates them at execution. Roles live in the catalog: a change is one durable
//! commit and installs a new catalog snapshot, as a schema change does (without changing the
//! schema version: roles are not schema).

use std::sync::Arc;

use cql::frame::response::ResultBody;
use cql::statement::ast::RoleStatement;
use storage::{CatalogOp, RoleDef};

use crate::auth::authenticator::{hash_password, DEFAULT_ROLE};
use crate::config::{Authenticator, Authorizer};
use crate::error::{CqlResult, UnauthorizedError};
use crate::executor::access::catalog::commit;
use crate::node::Node;
use crate::planner::access::{plan_access, AccessContext, AccessPlan, AccessStatement};
use crate::transport::session::Session;
use tracing::info;

/// Runs a role statement for the role logged in on `session`.
pub(crate) async fn execute(
    node: &Arc<Node>,
    session: &Session,
    statement: &RoleStatement,
) -> CqlResult<ResultBody> {
    // Every role statement needs a logged-in (not anonymous) role.
    let Some(user) = session.user() else {
        return Err(UnauthorizedError::Anonymous.into());
    };
    let guard = node.ddl_lock().lock().await;
    let schema = node.schema();
    let context = AccessContext {
        user: &user,
        authorizing: node.config().authorizer == Authorizer::Cassandra,
        session_keyspace: None,
    };
    let plan = plan_access(&schema.catalog, AccessStatement::Role(statement), context)?;
    let (ops, catalog, grant_to_creator) = match plan {
        AccessPlan::Rows(rows) => return Ok(rows.into_result()),
        AccessPlan::Change {
            ops,
            catalog,
            grant_to_creator,
        } => (ops, catalog, grant_to_creator),
    };
    commit(node, ops, catalog).await?;
    if let Some(created) = grant_to_creator {
        drop(guard);
        Box::pin(crate::executor::access::permissions::grant_to_creator(
            node, session, created,
        ))
        .await?;
    }
    Ok(ResultBody::Void)
}

/// Creates the default superuser when PasswordAuthenticator is in force and no role exists.
///
/// # Errors
/// The role cannot be stored.
pub(crate) async fn ensure_default_role(node: &Arc<Node>) -> CqlResult<()> {
    if node.config().authenticator != Authenticator::Password {
        return Ok(());
    }
    let _guard = node.ddl_lock().lock().await;
    let schema = node.schema();
    if !schema.catalog.roles.is_empty() {
        return Ok(());
    }
    let role = RoleDef {
        name: DEFAULT_ROLE.into(),
        is_superuser: true,
        can_login: true,
        salted_hash: Some(hash_password(DEFAULT_ROLE)?),
        ..RoleDef::default()
    };
    let mut catalog = schema.catalog.clone();
    catalog.roles.insert(role.name.clone(), role.clone());
    commit(node, vec![CatalogOp::PutRole(role)], catalog).await?;
    info!("created the default superuser role {DEFAULT_ROLE}");
    Ok(())
}
