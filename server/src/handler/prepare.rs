//! PREPARE: parse, plan, compute bind and result metadata, cache the statement and its plan
//! under Cassandra's id.

use std::sync::Arc;

use cql::frame::request::Prepare;
use cql::frame::response::{Prepared, PreparedMetadata, Response, ResultBody, ResultMetadata};

use super::Reply;
use crate::error::CqlResult;
use crate::node::prepared::{result_metadata_id, statement_id, PlanCache, PreparedStatement};
use crate::node::Node;
use crate::planner::common::bind_info::bind_info;
use crate::planner::plan::{plan_statement, StatementPlan};
use crate::telemetry::trace;
use crate::transport::session::Session;

/// The result metadata a statement's execution will return: the columns of a SELECT plan.
pub(super) fn result_metadata(plan: &StatementPlan) -> ResultMetadata {
    match plan {
        StatementPlan::Select(plan) => ResultMetadata {
            columns: plan.columns.clone(),
            paging_state: None,
            no_metadata: plan.columns.is_empty(),
            new_metadata_id: None,
        },
        StatementPlan::Explain { inner, .. } => match inner.table() {
            Some(table) => ResultMetadata {
                columns: crate::planner::explain::columns(table),
                paging_state: None,
                no_metadata: false,
                new_metadata_id: None,
            },
            None => ResultMetadata::empty(),
        },
        StatementPlan::Modify(_)
        | StatementPlan::Use(_)
        | StatementPlan::Truncate(_)
        | StatementPlan::Describe(_)
        | StatementPlan::Unplanned => ResultMetadata::empty(),
    }
}

/// Prepares a statement.
pub(super) fn handle(
    node: &Arc<Node>,
    session: &Arc<Session>,
    prepare: &Prepare,
) -> CqlResult<Reply> {
    trace::event(|| format!("Parsing {}", prepare.query));
    let parsed = cql::statement::parse(&prepare.query)?;
    trace::event(|| "Preparing statement");
    let keyspace = prepare.keyspace.clone().or_else(|| session.keyspace());
    let schema = node.schema();
    // Plan first, as Cassandra validates a statement when preparing it: its errors (unknown
    // columns, refused restrictions) come before any about the markers. EXECUTE reuses this
    // plan while the schema stays the same.
    let plan = plan_statement(&schema, &parsed.statement, keyspace.as_deref())?;
    let result_metadata = result_metadata(&plan);
    let info = bind_info(
        &schema,
        &parsed.statement,
        parsed.bind_count,
        keyspace.as_deref(),
    )?;
    let id = statement_id(keyspace.as_deref(), &prepare.query);
    let metadata = PreparedMetadata {
        pk_indexes: info.pk_indexes.clone(),
        columns: info.specs.clone(),
    };
    let statement = Arc::new(PreparedStatement {
        id: id.clone(),
        query: prepare.query.clone(),
        may_carry_password: crate::telemetry::redact::may_carry_password(&prepare.query),
        keyspace,
        statement: Arc::new(parsed.statement),
        bind: info,
        bind_names: parsed
            .bind_names
            .iter()
            .map(|n| n.as_ref().map(|i| i.name.clone()))
            .collect(),
        plan: PlanCache::new(schema, plan),
    });
    node.prepared().insert(statement);
    let prepared = Prepared {
        id,
        result_metadata_id: result_metadata_id(&result_metadata.columns),
        metadata,
        result_metadata,
    };
    Ok(Reply::new(Response::Result(ResultBody::Prepared(prepared))))
}
