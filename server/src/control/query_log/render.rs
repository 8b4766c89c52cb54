//! An entry as the log shows it: one row of `test_control.queries` ([`row`]), which the HTTP
//! door sends as a JSON object of the same fields ([`to_json`]).
//!
//! Bound values become CQL literals here, typed by their statement's bind markers: a
//! prepared statement's own, a text statement's found by parsing it again against the
//! schema of the moment the log is read. A value whose type is unknown (the text no longer
//! plans, or was cut) is shown as a blob, `0x...`; `null` and `unset` as such.

use std::collections::HashMap;

use cql::frame::response::ColumnSpec;
use cql::types::{ColumnType, CqlValue};
use serde_json::{json, Map};

use super::entry::{Entry, Kept, Logged, Noted, Values, MAX_TEXT_BYTES};
use super::outcome::Answered;
use crate::eval::datetime::print::format_timestamp;
use crate::planner::common::bind_info::bind_info;
use crate::schema::Schema;
use crate::system::{bigint, text, NamedRow};
use crate::telemetry::redact::{HIDDEN_STATEMENT, HIDDEN_VALUE};
use crate::telemetry::trace::{consistency_name, literal};

/// The types of text statements' bind markers, found once per log read.
pub(super) struct Binder<'a> {
    schema: &'a Schema,
    /// By (text, keyspace): the markers' specs, `None` when the text does not bind.
    found: HashMap<(&'a str, Option<&'a str>), Option<Vec<ColumnSpec>>>,
}

impl<'a> Binder<'a> {
    /// A binder against `schema`.
    pub(super) fn new(schema: &'a Schema) -> Binder<'a> {
        Binder {
            schema,
            found: HashMap::new(),
        }
    }

    /// The specs of the markers of `text`, run in `keyspace`.
    fn specs(&mut self, text: &'a str, keyspace: Option<&'a str>) -> Option<&[ColumnSpec]> {
        let schema = self.schema;
        self.found
            .entry((text, keyspace))
            .or_insert_with(|| {
                let parsed = cql::statement::parse(text).ok()?;
                bind_info(schema, &parsed.statement, parsed.bind_count, keyspace)
                    .ok()
                    .map(|info| info.specs)
            })
            .as_deref()
    }
}

/// The row of `entry` in `test_control.queries`, its columns in the table's order.
pub(super) fn row<'a>(entry: &'a Entry, binder: &mut Binder<'a>) -> NamedRow {
    let noted = &entry.noted;
    let options = noted.options;
    let mut row = vec![
        ("coordinator", Some(CqlValue::Inet(noted.coordinator))),
        ("id", bigint(entry.id)),
        (
            "at",
            Some(CqlValue::Timestamp(noted.at_micros.div_euclid(1000))),
        ),
        ("connection", text(noted.client.to_string())),
        ("client_address", Some(CqlValue::Inet(noted.client.ip()))),
        (
            "driver_name",
            noted
                .driver
                .as_ref()
                .and_then(|d| d.name.clone())
                .and_then(text),
        ),
        (
            "driver_version",
            noted
                .driver
                .as_ref()
                .and_then(|d| d.version.clone())
                .and_then(text),
        ),
        ("keyspace_name", noted.keyspace.clone().and_then(text)),
        ("opcode", text(noted.opcode)),
        ("query", query_text(&noted.statement).and_then(text)),
        ("bound_values", Some(text_list(bound_values(noted, binder)))),
        (
            "consistency",
            options.consistency.map(consistency_name).and_then(text),
        ),
        (
            "serial_consistency",
            options
                .serial_consistency
                .map(consistency_name)
                .and_then(text),
        ),
        ("page_size", options.page_size.map(CqlValue::Int)),
        (
            "paging_state_sent",
            options.paging_state.map(CqlValue::Boolean),
        ),
        (
            "default_timestamp",
            options.default_timestamp.map(CqlValue::Bigint),
        ),
    ];
    row.extend(result_columns(&entry.outcome.result));
    row.extend([
        ("warnings", Some(text_list(entry.outcome.warnings.clone()))),
        ("rows_examined", noted.examined.and_then(|e| bigint(e.rows))),
        (
            "tombstones_examined",
            noted.examined.and_then(|e| bigint(e.tombstones)),
        ),
        (
            "latency_us",
            bigint(u64::try_from(entry.outcome.latency.as_micros()).unwrap_or(u64::MAX)),
        ),
    ]);
    row
}

/// `result`, `rows_returned`, `applied`, `error_code` and `error_message`.
fn result_columns(result: &Answered) -> NamedRow {
    let (kind, rows, applied, code, message) = match result {
        Answered::Void => ("void", None, None, None, None),
        Answered::Rows { returned, applied } => {
            let rows = i32::try_from(*returned).unwrap_or(i32::MAX);
            ("rows", Some(rows), *applied, None, None)
        }
        Answered::SetKeyspace => ("set_keyspace", None, None, None, None),
        Answered::Prepared => ("prepared", None, None, None, None),
        Answered::SchemaChange => ("schema_change", None, None, None, None),
        Answered::Error { code, message } => ("error", None, None, Some(*code), Some(message)),
        Answered::Other => ("other", None, None, None, None),
        Answered::Http { error: None, .. } => ("ok", None, None, None, None),
        Answered::Http {
            status,
            error: Some(message),
        } => ("error", None, None, Some(i32::from(*status)), Some(message)),
    };
    vec![
        ("result", text(kind)),
        ("rows_returned", rows.map(CqlValue::Int)),
        ("applied", applied.map(CqlValue::Boolean)),
        ("error_code", code.map(CqlValue::Int)),
        ("error_message", message.cloned().and_then(text)),
    ]
}

/// The statement's text as shown: a prepared statement's own, a batch's statements inside
/// `BEGIN ... APPLY BATCH`, an HTTP request's line.
fn query_text(statement: &Logged) -> Option<String> {
    match statement {
        Logged::Nothing => None,
        Logged::Hidden { .. } => Some(HIDDEN_STATEMENT.to_string()),
        Logged::Text { text, .. } => Some(text.to_string()),
        Logged::Prepared { statement, .. } => Some(cut(&statement.query)),
        Logged::UnknownId(id) => Some(format!(
            "<unknown prepared statement 0x{}>",
            crate::error::hex(id)
        )),
        Logged::Batch { kind, statements } => {
            let kind = match kind {
                1 => "UNLOGGED ",
                2 => "COUNTER ",
                _ => "",
            };
            let texts: Vec<String> = statements.iter().filter_map(query_text).collect();
            Some(format!(
                "BEGIN {kind}BATCH {}; APPLY BATCH",
                texts.join("; ")
            ))
        }
        Logged::Http { line, .. } => Some(line.clone()),
    }
}

/// A prepared statement's text, cut as a kept text is.
fn cut(text: &str) -> String {
    if text.len() <= MAX_TEXT_BYTES {
        return text.to_string();
    }
    let mut end = MAX_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

/// Every bound value of the request as a CQL literal, in order (a batch's statement by
/// statement).
fn bound_values<'a>(noted: &'a Noted, binder: &mut Binder<'a>) -> Vec<String> {
    let mut out = Vec::new();
    statement_values(
        &noted.statement,
        noted.keyspace.as_deref(),
        binder,
        &mut out,
    );
    out
}

fn statement_values<'a>(
    statement: &'a Logged,
    keyspace: Option<&'a str>,
    binder: &mut Binder<'a>,
    out: &mut Vec<String>,
) {
    match statement {
        Logged::Nothing | Logged::UnknownId(_) => {}
        Logged::Hidden { values } => out.extend((0..*values).map(|_| HIDDEN_VALUE.to_string())),
        Logged::Text {
            text,
            cut: false,
            values,
        } => {
            let specs = binder.specs(text, keyspace);
            out.extend(literals(values, specs));
        }
        Logged::Text { values, .. } => out.extend(literals(values, None)),
        Logged::Prepared { statement, values } => {
            out.extend(literals(values, Some(&statement.bind.specs)));
        }
        Logged::Batch { statements, .. } => {
            for statement in statements {
                statement_values(statement, keyspace, binder, out);
            }
        }
        Logged::Http { body, .. } => {
            out.extend(
                body.as_ref()
                    .map(|b| literal::literal(&CqlValue::Text(b.to_string()))),
            );
        }
    }
}

/// `values` as CQL literals, typed by `specs` (by position, or by name when sent by name:
/// then shown as `name = literal`).
pub(super) fn literals(values: &Values, specs: Option<&[ColumnSpec]>) -> Vec<String> {
    let Some(names) = &values.names else {
        return values
            .values
            .iter()
            .enumerate()
            .map(|(i, kept)| {
                let ty = specs.and_then(|s| s.get(i)).map(|s| &s.ty);
                value_literal(values, kept, ty)
            })
            .collect();
    };
    values
        .values
        .iter()
        .zip(names)
        .map(|(kept, name)| {
            let spec = specs
                .into_iter()
                .flatten()
                .find(|spec| spec.name.eq_ignore_ascii_case(name));
            format!(
                "{name} = {}",
                value_literal(values, kept, spec.map(|s| &s.ty))
            )
        })
        .collect()
}

/// One value of `values` as a CQL literal of type `ty` (a blob when the type is unknown).
fn value_literal(values: &Values, kept: &Kept, ty: Option<&ColumnType>) -> String {
    match (kept, values.value(kept)) {
        (_, Some(value)) => literal::bound_value(ty.unwrap_or(&ColumnType::Blob), Some(&value)),
        (Kept::TooLong(length), None) => format!("<a value of {length} bytes>"),
        (_, None) => "?".to_string(),
    }
}

fn text_list(items: Vec<String>) -> CqlValue {
    CqlValue::List(items.into_iter().map(CqlValue::Text).collect())
}

/// A row as a JSON object of the same fields: timestamps as ISO-8601 text, addresses as
/// text, lists as arrays, absent values as `null`.
pub(super) fn to_json(row: &NamedRow) -> serde_json::Value {
    let fields: Map<String, serde_json::Value> = row
        .iter()
        .map(|(name, value)| {
            (
                name.to_string(),
                value.as_ref().map_or(json!(null), json_value),
            )
        })
        .collect();
    serde_json::Value::Object(fields)
}

fn json_value(value: &CqlValue) -> serde_json::Value {
    match value {
        CqlValue::Text(s) | CqlValue::Ascii(s) => json!(s),
        CqlValue::Int(n) => json!(n),
        CqlValue::Bigint(n) => json!(n),
        CqlValue::Boolean(b) => json!(b),
        CqlValue::Inet(address) => json!(address.to_string()),
        CqlValue::Timestamp(millis) => json!(format_timestamp(*millis)),
        CqlValue::List(items) => items.iter().map(json_value).collect(),
        other => json!(literal::literal(other)),
    }
}
