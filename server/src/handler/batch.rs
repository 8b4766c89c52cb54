//! BATCH: every statement (text or prepared id) is bound, authorized and planned, then all
//! their row updates are committed in one storage transaction.

use std::sync::Arc;

use cql::frame::request::{Batch, BatchQuery};
use cql::statement::ast::BatchKind;

use super::{check_value_count, Started};
use crate::error::{CqlError, CqlResult};
use crate::executor::{self, Authorized, BoundBatch, ExecOptions, Source};
use crate::node::Node;
use crate::transport::session::Session;

/// Binds a BATCH message: every statement parsed or looked up and authorized in turn, then
/// all of them planned; the executor runs the batch.
pub(super) fn begin(node: &Arc<Node>, session: &Arc<Session>, batch: Batch) -> CqlResult<Started> {
    let keyspace = batch.keyspace.clone().or_else(|| session.keyspace());
    // A batch writes: it has no pages, and its Void answer no metadata.
    let options = ExecOptions {
        consistency: batch.consistency,
        serial_consistency: batch.serial_consistency,
        page_size: None,
        paging_state: None,
        skip_metadata: false,
        timestamp: batch.default_timestamp,
    };
    let kind = if batch.is_counter() {
        BatchKind::Counter
    } else if batch.is_logged() {
        BatchKind::Logged
    } else {
        BatchKind::Unlogged
    };
    let mut statements = Vec::with_capacity(batch.statements.len());
    // The statements are consumed: their bound values move into the bound batch.
    for item in batch.statements {
        let (source, markers) = match item.query {
            BatchQuery::Text(text) => {
                let parsed = cql::statement::parse(&text)?;
                let source = Source::Text {
                    statement: Arc::new(parsed.statement),
                    keyspace: keyspace.clone(),
                };
                (source, parsed.bind_count)
            }
            BatchQuery::Prepared(id) => {
                let Some(prepared) = node.prepared().get(&id) else {
                    return Err(CqlError::Unprepared(id));
                };
                let markers = prepared.bind.specs.len();
                (Source::Prepared(prepared), markers)
            }
        };
        check_value_count(markers, item.values.len())?;
        let default_keyspace = keyspace.as_deref();
        statements.push(Authorized::new(
            node,
            session,
            source,
            item.values,
            default_keyspace,
        )?);
    }
    let bound = BoundBatch::new(node, kind, statements, options)?;
    Ok(Started {
        outcome: executor::run_batch(node, session, bound),
        held_metadata_id: None,
    })
}
