//! EXECUTE: run a prepared statement by id; unknown ids answer UNPREPARED so drivers
//! re-prepare.

use std::borrow::Cow;
use std::sync::Arc;

use cql::frame::request::{Execute, Value};
use cql::frame::response::{Response, ResultBody, ResultMetadata};
use cql::statement::ast::Statement;

use super::{check_value_count, positional_values, Executed, Found, Reply};
use crate::error::{CqlError, CqlResult};
use crate::executor;
use crate::node::prepared::{result_metadata_id, PreparedStatement};
use crate::node::Node;
use crate::telemetry::metrics::StatementKind;
use crate::transport::session::Session;

/// Runs a prepared statement with the plan PREPARE made.
pub(super) async fn handle(
    node: &Arc<Node>,
    session: &Arc<Session>,
    execute: Execute,
    found: Found,
    kind: &mut StatementKind,
) -> CqlResult<Reply> {
    let Some(prepared) = found.or_else(|| node.prepared.get(&execute.id)) else {
        return Err(CqlError::Unprepared(execute.id.clone()));
    };
    *kind = StatementKind::of(&prepared.statement);
    let (values, options) = bind(&prepared, &execute)?;
    let planning = executor::Planning::Prepared(&prepared);
    let result = executor::execute(node, session, planning, &options, &values).await?;
    Ok(reply(result, &execute))
}

/// EXECUTE of a prepared read of one row by its whole primary key, answered on the caller's
/// thread as [`handle`] would answer it, or of a plain write, handed to the writer there.
/// Any other request is left (having done nothing a client sees) to [`handle`], with the
/// statement it names when it was found.
pub(super) fn handle_now(
    node: &Arc<Node>,
    session: &Arc<Session>,
    execute: &Execute,
    kind: &mut StatementKind,
) -> Executed {
    let Some(prepared) = node.prepared.get(&execute.id) else {
        return Executed::Later(None);
    };
    let planning = executor::Planning::Prepared(&prepared);
    let executed = match *prepared.statement {
        Statement::Select(_) => {
            let read = || {
                let (values, options) = bind(&prepared, execute)?;
                executor::read_one_row_now(node, session, planning, &options, &values)
            };
            read()
                .transpose()
                .map(|result| Executed::Now(result.map(|result| reply(result, execute))))
        }
        Statement::Insert(_) | Statement::Update(_) | Statement::Delete(_) => {
            let write = || {
                let (values, options) = bind(&prepared, execute)?;
                executor::write_now(node, session, planning, &options, &values)
            };
            write().transpose().map(|begun| match begun {
                Ok(begun) => Executed::Writing(begun, Vec::new()),
                Err(err) => Executed::Now(Err(err)),
            })
        }
        _ => None,
    };
    match executed {
        Some(executed) => {
            *kind = StatementKind::of(&prepared.statement);
            executed
        }
        None => Executed::Later(Some(prepared)),
    }
}

/// The request's values in marker order, as many as the statement has markers, and its
/// options.
fn bind<'e>(
    prepared: &PreparedStatement,
    execute: &'e Execute,
) -> CqlResult<(Cow<'e, [Value]>, executor::ExecOptions<'e>)> {
    let values = positional_values(&execute.params, &prepared.bind_names, Some(&prepared.bind))?;
    check_value_count(prepared.bind.specs.len(), values.len())?;
    Ok((values, executor::ExecOptions::from_request(&execute.params)))
}

/// The reply carrying a statement's result.
fn reply(mut result: ResultBody, execute: &Execute) -> Reply {
    if let (ResultBody::Rows(rows), Some(held)) = (&mut result, &execute.result_metadata_id) {
        announce_changed_metadata(&mut rows.metadata, held);
    }
    Reply::new(Response::Result(result))
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
