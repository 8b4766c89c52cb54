//! The `system_traces.sessions` and `system_traces.events` rows, read from the node's
//! [`TraceLog`] (the trace sessions it keeps in memory).

use std::net::IpAddr;

use cql::types::CqlValue;
use uuid::Uuid;

use super::{text, NamedRow};
use crate::telemetry::trace::{Event, SessionRow, TraceLog, INTERNODE_PORT};

/// The rows of `system_traces.<table>`.
pub(crate) fn rows(log: &TraceLog, table: &str, source: IpAddr) -> Vec<NamedRow> {
    log.read(|sessions| match table {
        "sessions" => sessions
            .iter()
            .filter_map(|r| r.session.as_ref().map(|s| session_row(r.id, s)))
            .collect(),
        "events" => sessions
            .iter()
            .flat_map(|r| r.events.iter().map(move |e| event_row(r.id, e, source)))
            .collect(),
        _ => Vec::new(),
    })
}

fn session_row(id: Uuid, s: &SessionRow) -> NamedRow {
    vec![
        ("session_id", Some(CqlValue::Uuid(id))),
        ("client", Some(CqlValue::Inet(s.client))),
        ("command", text(s.command)),
        ("coordinator", Some(CqlValue::Inet(s.coordinator))),
        ("coordinator_port", Some(CqlValue::Int(INTERNODE_PORT))),
        ("duration", Some(CqlValue::Int(s.duration_micros))),
        ("parameters", parameters(&s.parameters)),
        ("request", text(s.request)),
        ("started_at", Some(CqlValue::Timestamp(s.started_at_millis))),
    ]
}

/// The `parameters` map<text, text>, ordered by key as Cassandra stores it; null when empty.
fn parameters(parameters: &[(String, String)]) -> Option<CqlValue> {
    if parameters.is_empty() {
        return None;
    }
    let mut entries: Vec<(String, String)> = parameters.to_vec();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Some(CqlValue::Map(
        entries
            .into_iter()
            .map(|(k, v)| (CqlValue::Text(k), CqlValue::Text(v)))
            .collect(),
    ))
}

fn event_row(id: Uuid, e: &Event, source: IpAddr) -> NamedRow {
    vec![
        ("session_id", Some(CqlValue::Uuid(id))),
        ("event_id", Some(CqlValue::Timeuuid(e.id))),
        ("activity", text(e.activity.clone())),
        ("source", Some(CqlValue::Inet(source))),
        ("source_elapsed", Some(CqlValue::Int(e.elapsed_micros))),
        ("source_port", Some(CqlValue::Int(INTERNODE_PORT))),
        ("thread", text(e.thread)),
    ]
}
