//! PREPARE: parse, compute bind and result metadata, cache under Cassandra's id.

use std::sync::Arc;

use cql::frame::request::Prepare;
use cql::frame::response::{
    ColumnSpec, Prepared, PreparedMetadata, Response, ResultBody, ResultMetadata,
};
use cql::statement::ast::Statement;

use super::Reply;
use crate::error::CqlResult;
use crate::node::Node;
use crate::planner::bind::bind_info;
use crate::planner::modify::{plan_delete, plan_insert, plan_update};
use crate::planner::select::plan_select;
use crate::prepared::{statement_id, PreparedStatement};
use crate::schema::Schema;
use crate::session::Session;

/// The result metadata a statement's execution will return (columns of a SELECT).
pub(super) fn result_metadata(
    schema: &Schema,
    statement: &Statement,
    keyspace: Option<&str>,
) -> CqlResult<ResultMetadata> {
    let columns = match statement {
        Statement::Select(select) => {
            let plan = plan_select(schema, select, keyspace)?;
            let def = &plan.table.def;
            plan.outputs
                .iter()
                .map(|o| ColumnSpec {
                    keyspace: def.keyspace.clone(),
                    table: def.name.clone(),
                    name: o.name.clone(),
                    ty: o.ty.clone(),
                })
                .collect()
        }
        _ => Vec::new(),
    };
    let no_metadata = columns.is_empty();
    Ok(ResultMetadata {
        columns,
        paging_state: None,
        no_metadata,
    })
}

/// Plans an INSERT, UPDATE or DELETE for its errors only (its plan is made at execution).
fn check_modification(
    schema: &Schema,
    statement: &Statement,
    keyspace: Option<&str>,
) -> CqlResult<()> {
    match statement {
        Statement::Insert(stmt) => plan_insert(schema, stmt, keyspace).map(drop),
        Statement::Update(stmt) => plan_update(schema, stmt, keyspace).map(drop),
        Statement::Delete(stmt) => plan_delete(schema, stmt, keyspace).map(drop),
        _ => Ok(()),
    }
}

/// Prepares a statement.
pub(super) fn handle(
    node: &Arc<Node>,
    session: &Arc<Session>,
    prepare: &Prepare,
) -> CqlResult<Reply> {
    let parsed = cql::statement::parse(&prepare.query)?;
    let keyspace = session.keyspace();
    let schema = node.schema();
    // Plan first, as Cassandra validates a statement when preparing it: its errors (unknown
    // columns, refused restrictions) come before any about the markers.
    let result_metadata = result_metadata(&schema, &parsed.statement, keyspace.as_deref())?;
    check_modification(&schema, &parsed.statement, keyspace.as_deref())?;
    let info = bind_info(
        &schema,
        &parsed.statement,
        parsed.bind_count,
        keyspace.as_deref(),
    )?;
    let id = statement_id(keyspace.as_deref(), &prepare.query);
    let statement = Arc::new(PreparedStatement {
        id: id.clone(),
        query: prepare.query.clone(),
        keyspace,
        statement: Arc::new(parsed.statement),
        bind_specs: info.specs.clone(),
        pk_indexes: info.pk_indexes.clone(),
        result_metadata: result_metadata.clone(),
        bind_names: parsed
            .bind_names
            .iter()
            .map(|n| n.as_ref().map(|i| i.name.clone()))
            .collect(),
    });
    node.prepared.insert(statement);
    let prepared = Prepared {
        id,
        metadata: PreparedMetadata {
            pk_indexes: info.pk_indexes,
            columns: info.specs,
        },
        result_metadata,
    };
    Ok(Reply::new(Response::Result(ResultBody::Prepared(prepared))))
}
