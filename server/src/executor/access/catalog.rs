//! Storing changes to roles and permissions: durably first, then installed in the node's
//! catalog, for the role and permission statements alike.

use storage::{Catalog, CatalogOp, WriteBatch};

use crate::error::CqlResult;
use crate::executor::write::submit::submit;
use crate::node::Node;
use crate::planner::access::AccessPlan;

/// Stores role or permission changes (`ops`) durably, then installs `catalog`, which holds them.
///
/// # Errors
/// The write fails (a full disk, storage failure).
pub(crate) async fn commit(node: &Node, ops: Vec<CatalogOp>, catalog: Catalog) -> CqlResult<()> {
    if ops.is_empty() {
        return Ok(());
    }
    let batch = WriteBatch {
        catalog: ops,
        ..WriteBatch::default()
    };
    submit(node, batch).await?;
    node.install_catalog(catalog);
    Ok(())
}

/// Commits a planned change (see [`commit`]); a listing changes nothing. What the creator is
/// then granted is the caller's to grant.
///
/// # Errors
/// The write fails (a full disk, storage failure).
pub(crate) async fn commit_plan(node: &Node, plan: AccessPlan) -> CqlResult<()> {
    match plan {
        AccessPlan::Change { ops, catalog, .. } => commit(node, ops, catalog).await,
        AccessPlan::Rows(_) => Ok(()),
    }
}
