//! EXECUTE: run a prepared statement by id; unknown ids answer UNPREPARED so drivers
//! re-prepare.

use std::sync::Arc;

use cql::frame::request::Execute;

use super::{check_value_count, take_values, Started};
use crate::error::{CqlError, CqlResult};
use crate::executor::{self, Authorized, ExecOptions, Source};
use crate::node::Node;
use crate::telemetry::metrics::StatementKind;
use crate::transport::session::Session;

/// Binds a prepared statement's values, authorizes it and plans it (its cached plan while
/// the schema stays the same), then runs it.
pub(super) fn begin(
    node: &Arc<Node>,
    session: &Arc<Session>,
    execute: Execute,
    kind: &mut StatementKind,
) -> CqlResult<Started> {
    let Execute {
        id,
        result_metadata_id,
        mut params,
    } = execute;
    let Some(prepared) = node.prepared().get(&id) else {
        return Err(CqlError::Unprepared(id));
    };
    *kind = StatementKind::of(&prepared.statement);
    let values = take_values(&mut params, &prepared.bind_names, Some(&prepared.bind))?;
    check_value_count(prepared.bind.specs.len(), values.len())?;
    let options = ExecOptions::from_request(&params);
    let source = Source::Prepared(prepared);
    let bound = Authorized::new(node, session, source, values, None)?.plan(node, options)?;
    Ok(Started {
        outcome: executor::run(node, session, bound),
        held_metadata_id: result_metadata_id,
    })
}
