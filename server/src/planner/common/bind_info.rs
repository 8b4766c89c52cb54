//! The bind markers' metadata PREPARE returns (and QUERY checks values against), for any
//! statement: a batch's statements one after another, an EXPLAIN's as its statement's.

use cql::statement::ast::Statement;

use crate::error::{CqlResult, RestrictionError};
use crate::planner::common::bind;
use crate::planner::common::bind::BindInfo;
use crate::planner::modify::batch_bind;
use crate::schema::Schema;

/// Computes bind metadata for `statement` with `bind_count` markers.
pub(crate) fn bind_info(
    schema: &Schema,
    statement: &Statement,
    bind_count: usize,
    session_keyspace: Option<&str>,
) -> CqlResult<BindInfo> {
    if bind_count == 0 {
        // Still compute pk indexes? With no markers there are none to report.
        return Ok(BindInfo::default());
    }
    let (specs, pk_markers) = match statement {
        Statement::Batch(batch) => {
            batch_bind::collect(schema, batch, bind_count, session_keyspace)?
        }
        // EXPLAIN binds exactly as the statement it explains.
        Statement::Explain(explain) => {
            bind::collect(schema, &explain.statement, bind_count, session_keyspace)?
        }
        _ => bind::collect(schema, statement, bind_count, session_keyspace)?,
    };
    let mut complete = Vec::with_capacity(bind_count);
    for (i, spec) in specs.into_iter().enumerate() {
        match spec {
            Some(spec) => complete.push(spec),
            None => return Err(RestrictionError::UnpreparableMarker { index: i }.into()),
        }
    }
    let pk_indexes = if pk_markers.iter().all(Option::is_some) {
        pk_markers.into_iter().flatten().collect()
    } else {
        Vec::new()
    };
    Ok(BindInfo {
        specs: complete,
        pk_indexes,
    })
}
