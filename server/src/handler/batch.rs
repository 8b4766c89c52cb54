//! BATCH: every statement (text or prepared id) is planned, then all their row updates are
//! committed in one storage transaction.

use std::sync::Arc;

use cql::frame::request::{Batch, BatchQuery};
use cql::frame::response::Response;
use cql::statement::ast::BatchKind;

use super::{check_value_count, Reply};
use crate::error::{CqlError, CqlResult};
use crate::executor;
use crate::node::Node;
use crate::transport::session::Session;

/// Runs a BATCH message.
pub(super) async fn handle(
    node: &Arc<Node>,
    session: &Arc<Session>,
    batch: Batch,
) -> CqlResult<Reply> {
    let keyspace = batch.keyspace.clone().or_else(|| session.keyspace());
    // A batch writes: it has no pages, and its Void answer no metadata.
    let options = executor::ExecOptions {
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
    let mut items = Vec::with_capacity(batch.statements.len());
    // The statements are consumed: their bound values move into the items.
    for item in batch.statements {
        let (statement, markers, statement_keyspace, prepared) = match &item.query {
            BatchQuery::Text(text) => {
                let parsed = cql::statement::parse(text)?;
                (
                    Arc::new(parsed.statement),
                    parsed.bind_count,
                    keyspace.clone(),
                    None,
                )
            }
            BatchQuery::Prepared(id) => {
                let Some(prepared) = node.prepared.get(id) else {
                    return Err(CqlError::Unprepared(id.clone()));
                };
                let markers = prepared.bind.specs.len();
                let ks = prepared.keyspace.clone().or_else(|| keyspace.clone());
                (prepared.statement.clone(), markers, ks, Some(prepared))
            }
        };
        check_value_count(markers, item.values.len())?;
        crate::auth::authorizer::authorize(
            node,
            session,
            &statement,
            statement_keyspace.as_deref(),
        )?;
        items.push(executor::BatchItem {
            statement,
            values: item.values,
            keyspace: statement_keyspace,
            prepared,
        });
    }
    let result = executor::execute_batch(node, kind, &items, &options).await?;
    Ok(Reply::new(Response::Result(result)))
}
