//! QUERY: parse the text, bind the values and execute.

use std::sync::Arc;

use cql::frame::request::Query;
use cql::frame::response::{Response, ResultBody};
use tracing::debug;

use super::{check_value_count, positional_values, Reply};
use crate::error::CqlResult;
use crate::executor;
use crate::node::Node;
use crate::planner::common::bind_info::bind_info;
use crate::telemetry::metrics::StatementKind;
use crate::telemetry::trace;
use crate::transport::session::Session;

/// Runs an unprepared statement.
pub(super) async fn handle(
    node: &Arc<Node>,
    session: &Arc<Session>,
    query: Query,
    kind: &mut StatementKind,
) -> CqlResult<Reply> {
    trace::event(|| format!("Parsing {}", query.query));
    let parsed = cql::statement::parse(&query.query);
    // Role and permission statements name roles (and passwords): they stay out of the logs.
    // The text is looked at only when debug logging is on.
    debug!(query = %shown(&query.query, &parsed), "query");
    let parsed = parsed?;
    *kind = StatementKind::of(&parsed.statement);
    trace::event(|| "Preparing statement");
    // v5 may name the keyspace per request.
    let keyspace = query.params.keyspace.clone().or_else(|| session.keyspace());
    let info = if query.params.value_names.is_some() {
        Some(bind_info(
            &node.schema(),
            &parsed.statement,
            parsed.bind_count,
            keyspace.as_deref(),
        )?)
    } else {
        None
    };
    let names: Vec<Option<String>> = parsed
        .bind_names
        .iter()
        .map(|n| n.as_ref().map(|i| i.name.clone()))
        .collect();
    let values = positional_values(&query.params, &names, info.as_ref())?;
    crate::planner::ddl::check_no_bind_markers(&parsed.statement)?;
    if parsed.bind_count != values.len() {
        // Cassandra prepares a statement before it counts the values: a statement its
        // planner refuses gets the planner's error, not the count's.
        crate::planner::plan::plan_statement(
            &node.schema(),
            &parsed.statement,
            keyspace.as_deref(),
        )?;
    }
    check_value_count(parsed.bind_count, values.len())?;
    let options = executor::ExecOptions::from_request(&query.params);
    let planning = executor::Planning::Now {
        statement: &parsed.statement,
        keyspace: keyspace.as_deref(),
    };
    let result = executor::execute(node, session, planning, &options, &values).await?;
    Ok(Reply::new(Response::Result(result)))
}

/// What the debug log shows of a statement.
fn shown<'a>(
    text: &'a str,
    parsed: &Result<cql::statement::ParsedStatement, cql::statement::ParseError>,
) -> &'a str {
    match parsed {
        Ok(parsed) if names_roles(&parsed.statement) => crate::telemetry::redact::HIDDEN_STATEMENT,
        _ => truncate(text),
    }
}

/// Whether a statement names roles, which logs never show.
fn names_roles(statement: &cql::statement::ast::Statement) -> bool {
    matches!(
        statement,
        cql::statement::ast::Statement::Role(_) | cql::statement::ast::Statement::Permission(_)
    )
}

/// The statement text for debug logs, cut to a readable length; a statement that may carry a
/// password (`CREATE ROLE ... PASSWORD`) is not shown, so secrets never reach the logs.
pub(super) fn truncate(text: &str) -> &str {
    if crate::telemetry::redact::may_carry_password(text) {
        return crate::telemetry::redact::HIDDEN_STATEMENT;
    }
    match text.char_indices().nth(200) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

#[allow(dead_code)]
fn _assert_result_body(_: ResultBody) {}
