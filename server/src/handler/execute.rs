//! EXECUTE: run a prepared statement by id; unknown ids answer UNPREPARED so drivers
//! re-prepare.

use std::sync::Arc;

use cql::frame::request::Execute;
use cql::frame::response::{Response, ResultBody, ResultMetadata};

use super::{check_value_count, positional_values, Reply};
use crate::error::{CqlError, CqlResult};
use crate::executor;
use crate::metrics::StatementKind;
use crate::node::Node;
use crate::prepared::result_metadata_id;
use crate::session::Session;

/// Runs a prepared statement with the plan PREPARE made.
pub(super) async fn handle(
    node: &Arc<Node>,
    session: &Arc<Session>,
    execute: Execute,
    kind: &mut StatementKind,
) -> CqlResult<Reply> {
    let Some(prepared) = node.prepared.get(&execute.id) else {
        return Err(CqlError::Unprepared(execute.id.clone()));
    };
    *kind = StatementKind::of(&prepared.statement);
    let values = positional_values(&execute.params, &prepared.bind_names, Some(&prepared.bind))?;
    check_value_count(prepared.bind.specs.len(), values.len())?;
    let planning = executor::Planning::Prepared(&prepared);
    let options = executor::ExecOptions::from_request(&execute.params);
    let mut result = executor::execute(node, session, planning, &options, &values).await?;
    if let (ResultBody::Rows(rows), Some(held)) = (&mut result, &execute.result_metadata_id) {
        announce_changed_metadata(&mut rows.metadata, held);
    }
    Ok(Reply::new(Response::Result(result)))
}

/// v5: when the columns differ from those of the metadata id the client executed with (the
/// table changed since PREPARE), the result carries full metadata and the new id, whatever
/// the client asked (native_protocol_v5.spec, Metadata_changed).
fn announce_changed_metadata(metadata: &mut ResultMetadata, held: &[u8]) {
    let current = result_metadata_id(&metadata.columns);
    if current.as_ref() != held {
        metadata.no_metadata = false;
        metadata.new_metadata_id = Some(current);
    }
}
