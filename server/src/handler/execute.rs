//! EXECUTE: run a prepared statement by id; unknown ids answer UNPREPARED so drivers
//! re-prepare.

use std::sync::Arc;

use cql::frame::request::Execute;
use cql::frame::response::Response;

use super::{check_value_count, positional_values, Reply};
use crate::error::{CqlError, CqlResult};
use crate::executor;
use crate::node::Node;
use crate::session::Session;

/// Runs a prepared statement with the plan PREPARE made.
pub(super) async fn handle(
    node: &Arc<Node>,
    session: &Arc<Session>,
    execute: Execute,
) -> CqlResult<Reply> {
    let Some(prepared) = node.prepared.get(&execute.id) else {
        return Err(CqlError::Unprepared(execute.id.clone()));
    };
    let values = positional_values(&execute.params, &prepared.bind_names, Some(&prepared.bind))?;
    check_value_count(prepared.bind.specs.len(), values.len())?;
    let planning = executor::Planning::Prepared(&prepared);
    let result = executor::execute(node, session, planning, &execute.params, &values).await?;
    Ok(Reply::new(Response::Result(result)))
}
