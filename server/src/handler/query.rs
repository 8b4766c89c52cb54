//! QUERY: parse the text, bind the values and execute.

use std::sync::Arc;

use cql::frame::request::Query;
use tracing::debug;

use super::{check_value_count, take_values, Started};
use crate::error::CqlResult;
use crate::executor::{self, Authorized, ExecOptions, Source};
use crate::node::Node;
use crate::planner::common::bind_info::bind_info;
use crate::telemetry::metrics::StatementKind;
use crate::telemetry::trace;
use crate::transport::session::Session;

/// Parses a statement, binds its values, authorizes and plans it, then runs it.
pub(super) fn begin(
    node: &Arc<Node>,
    session: &Arc<Session>,
    query: Query,
    kind: &mut StatementKind,
) -> CqlResult<Started> {
    let Query {
        query: text,
        mut params,
    } = query;
    trace::event(|| format!("Parsing {text}"));
    let parsed = cql::statement::parse(&text);
    // Role and permission statements name roles (and passwords): they stay out of the logs.
    // The text is looked at only when debug logging is on.
    debug!(query = %shown(&text, &parsed), "query");
    let parsed = parsed?;
    *kind = StatementKind::of(&parsed.statement);
    trace::event(|| "Preparing statement");
    // v5 may name the keyspace per request.
    let keyspace = params.keyspace.take().or_else(|| session.keyspace());
    let info = if params.value_names.is_some() {
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
    let values = take_values(&mut params, &names, info.as_ref())?;
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
    let options = ExecOptions::from_request(&params);
    let source = Source::Text {
        statement: Arc::new(parsed.statement),
        keyspace,
    };
    let bound = Authorized::new(node, session, source, values, None)?.plan(node, options)?;
    Ok(Started {
        outcome: executor::run(node, session, bound),
        held_metadata_id: None,
    })
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
