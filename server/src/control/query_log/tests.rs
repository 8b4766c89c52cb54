//! The ring (capacity, eviction, limits, order) and how entries read: bound values as CQL
//! literals, redaction, JSON.

use std::time::Duration;

use bytes::Bytes;
use cql::frame::request::Value;
use cql::types::{codec, CqlValue};
use serde_json::json;

use super::entry::{Logged, Noted, Values};
use super::outcome::{Answered, Outcome};
use super::*;
use crate::planner::select::tests::schema;

fn outcome(result: Answered) -> Outcome {
    Outcome {
        result,
        warnings: Vec::new(),
        latency: Duration::from_micros(250),
    }
}

/// An entry of a QUERY of `text` without values, answered with no rows.
fn push_query(log: &QueryLog, text: &str) {
    let noted = Noted::sample("QUERY", Noted::text_sample(text, &[]));
    log.push(noted, outcome(Answered::Void));
}

fn texts(log: &QueryLog, limit: Option<usize>) -> Vec<String> {
    let schema = schema(&[]);
    let json = log.to_json(limit, &schema);
    json.as_array()
        .expect("an array")
        .iter()
        .map(|entry| entry["query"].as_str().expect("a query").to_string())
        .collect()
}

fn value(value: CqlValue) -> Value {
    let mut out = Vec::new();
    codec::serialize_value(&value, &mut out);
    Value::Bytes(Bytes::from(out))
}

#[test]
fn the_ring_keeps_the_newest_entries_newest_last() {
    let log = QueryLog::new(3);
    assert!(log.is_recording());
    for n in 1..=5 {
        push_query(&log, &format!("SELECT {n}"));
    }
    assert_eq!(texts(&log, None), ["SELECT 3", "SELECT 4", "SELECT 5"]);
    assert_eq!(texts(&log, Some(2)), ["SELECT 4", "SELECT 5"]);
    assert_eq!(texts(&log, Some(0)), Vec::<String>::new());
    assert_eq!(texts(&log, Some(10)).len(), 3);
    let ids: Vec<_> = log
        .to_json(None, &schema(&[]))
        .as_array()
        .expect("array")
        .iter()
        .map(|e| e["id"].as_i64().expect("an id"))
        .collect();
    assert_eq!(ids, [3, 4, 5]);
}

#[test]
fn clearing_empties_the_log_and_numbers_go_on() {
    let log = QueryLog::new(10);
    push_query(&log, "SELECT 1");
    log.clear();
    assert_eq!(texts(&log, None), Vec::<String>::new());
    push_query(&log, "SELECT 2");
    let json = log.to_json(None, &schema(&[]));
    assert_eq!(json[0]["id"], 2);
}

#[test]
fn a_log_of_no_entries_records_nothing() {
    let log = QueryLog::new(0);
    assert!(!log.is_recording());
    push_query(&log, "SELECT 1");
    assert_eq!(texts(&log, None), Vec::<String>::new());
    assert!(log.rows(&schema(&[])).is_empty());
}

#[test]
fn bound_values_print_as_literals_of_their_markers_types() {
    let schema = schema(&["CREATE TABLE t (k int, c text, v list<int>, PRIMARY KEY (k, c))"]);
    let values = [
        value(CqlValue::Int(7)),
        value(CqlValue::Text("it's".into())),
        value(CqlValue::List(vec![CqlValue::Int(1), CqlValue::Int(2)])),
    ];
    let log = QueryLog::new(10);
    let insert = "INSERT INTO t (k, c, v) VALUES (?, ?, ?)";
    log.push(
        Noted::sample("QUERY", Noted::text_sample(insert, &values)),
        outcome(Answered::Void),
    );
    let unset = [
        Value::Null,
        Value::Unset,
        value(CqlValue::List(vec![CqlValue::Int(3)])),
    ];
    log.push(
        Noted::sample("QUERY", Noted::text_sample(insert, &unset)),
        outcome(Answered::Void),
    );
    // A statement that no longer plans (its table is gone): values as blobs.
    let gone = "INSERT INTO gone (k) VALUES (?)";
    log.push(
        Noted::sample("QUERY", Noted::text_sample(gone, &values[..1])),
        outcome(Answered::Void),
    );
    let json = log.to_json(None, &schema);
    assert_eq!(json[0]["bound_values"], json!(["7", "'it''s'", "[1, 2]"]));
    assert_eq!(json[1]["bound_values"], json!(["null", "unset", "[3]"]));
    assert_eq!(json[2]["bound_values"], json!(["0x00000007"]));
}

#[test]
fn named_values_show_their_names() {
    let specs = [cql::frame::response::ColumnSpec {
        keyspace: "ks".into(),
        table: "t".into(),
        name: "k".into(),
        ty: cql::types::ColumnType::Int,
    }];
    let sent = [
        value(CqlValue::Int(3)),
        Value::Bytes(Bytes::from(vec![0; 5000])),
    ];
    let names = ["K".to_string(), "other".to_string()];
    let values = Values::copy(&sent, Some(&names));
    assert_eq!(
        render::literals(&values, Some(&specs)),
        ["K = 3", "other = <a value of 5000 bytes>"]
    );
}

#[test]
fn statements_with_passwords_are_redacted() {
    let log = QueryLog::new(10);
    let secret = [value(CqlValue::Text("hunter2".into()))];
    let statement = Noted::text_sample("CREATE ROLE r WITH PASSWORD = ? AND LOGIN = true", &secret);
    log.push(Noted::sample("QUERY", statement), outcome(Answered::Void));
    let json = log.to_json(None, &schema(&[]));
    assert_eq!(json[0]["query"], crate::telemetry::redact::HIDDEN_STATEMENT);
    assert_eq!(
        json[0]["bound_values"],
        json!([crate::telemetry::redact::HIDDEN_VALUE])
    );
    assert!(!json.to_string().contains("hunter2"));
}

#[test]
fn a_batch_shows_its_statements_and_all_their_values() {
    let schema = schema(&["CREATE TABLE t (k int PRIMARY KEY, v text)"]);
    let one = [value(CqlValue::Int(1))];
    let statements = vec![
        Noted::text_sample("INSERT INTO t (k) VALUES (?)", &one),
        Noted::text_sample("DELETE FROM t WHERE k = 2", &[]),
        Logged::UnknownId(Bytes::from_static(&[0xab])),
    ];
    let log = QueryLog::new(10);
    let batch = Logged::Batch {
        kind: 1,
        statements,
    };
    log.push(Noted::sample("BATCH", batch), outcome(Answered::Void));
    let json = log.to_json(None, &schema);
    assert_eq!(
        json[0]["query"],
        "BEGIN UNLOGGED BATCH INSERT INTO t (k) VALUES (?); DELETE FROM t WHERE k = 2; \
         <unknown prepared statement 0xab>; APPLY BATCH"
    );
    assert_eq!(json[0]["bound_values"], json!(["1"]));
}

#[test]
fn every_field_reads_as_json_and_as_a_row() {
    let log = QueryLog::new(10);
    let mut noted = Noted::sample("EXECUTE", Noted::text_sample("SELECT * FROM t", &[]));
    noted.options = entry::Options {
        consistency: Some(0x0006),
        serial_consistency: Some(0x0009),
        page_size: Some(100),
        paging_state: Some(true),
        default_timestamp: Some(1_700_000_000_000_000),
    };
    noted.at_micros = 1_700_000_000_123_456;
    noted.add_examined(examined::Examined {
        reads: 1,
        rows: 12,
        tombstones: 3,
    });
    let result = Answered::Rows {
        returned: 4,
        applied: None,
    };
    let mut outcome = outcome(result);
    outcome.warnings = vec!["careful".into()];
    log.push(noted, outcome);
    let json = log.to_json(Some(1), &schema(&[]));
    assert_eq!(
        json[0],
        json!({
            "coordinator": "127.0.0.1", "id": 1, "at": "2023-11-14T22:13:20.123Z",
            "connection": "10.0.0.7:40000", "client_address": "10.0.0.7",
            "driver_name": null, "driver_version": null, "keyspace_name": "ks",
            "opcode": "EXECUTE", "query": "SELECT * FROM t", "bound_values": [],
            "consistency": "LOCAL_QUORUM", "serial_consistency": "LOCAL_SERIAL",
            "page_size": 100, "paging_state_sent": true,
            "default_timestamp": 1_700_000_000_000_000_i64,
            "result": "rows", "rows_returned": 4, "applied": null,
            "error_code": null, "error_message": null, "warnings": ["careful"],
            "rows_examined": 12, "tombstones_examined": 3, "latency_us": 250,
        })
    );
    let rows = log.rows(&schema(&[]));
    let columns: Vec<&str> = rows[0].iter().map(|(name, _)| *name).collect();
    let def = crate::control::keyspace_def();
    let table: Vec<&str> = def.tables["queries"]
        .columns
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    let mut sorted = columns.clone();
    sorted.sort_unstable();
    let mut expected = table.clone();
    expected.sort_unstable();
    assert_eq!(sorted, expected, "every column of the table, and no other");
}

#[test]
fn http_requests_show_their_line_body_and_status() {
    let log = QueryLog::new(10);
    let http = Logged::Http {
        line: "POST /faults".into(),
        body: Some(r#"{"kind": "it's"}"#.into()),
    };
    let failed = Answered::Http {
        status: 404,
        error: Some("no fault".into()),
    };
    log.push(Noted::sample("HTTP", http), outcome(failed));
    let ok = Logged::Http {
        line: "POST /reset".into(),
        body: None,
    };
    let answered = Answered::Http {
        status: 200,
        error: None,
    };
    log.push(Noted::sample("HTTP", ok), outcome(answered));
    let json = log.to_json(None, &schema(&[]));
    assert_eq!(json[0]["query"], "POST /faults");
    assert_eq!(json[0]["bound_values"], json!([r#"'{"kind": "it''s"}'"#]));
    assert_eq!(
        (
            &json[0]["result"],
            &json[0]["error_code"],
            &json[0]["error_message"]
        ),
        (&json!("error"), &json!(404), &json!("no fault"))
    );
    assert_eq!(
        (&json[1]["result"], &json[1]["error_code"]),
        (&json!("ok"), &json!(null))
    );
}

#[test]
fn counting_adds_reads_to_a_noted_request_only() {
    let mut noted = Some(Noted::sample("QUERY", Logged::Nothing));
    let read = examined::Examined {
        reads: 1,
        rows: 5,
        tombstones: 1,
    };
    let output = examined::counting_now(&mut noted, || {
        examined::add_for_test(read);
        examined::add_for_test(read);
        9
    });
    assert_eq!(output, 9);
    let counted = noted.as_ref().and_then(|n| n.examined);
    assert_eq!(
        counted.map(|e| (e.reads, e.rows, e.tombstones)),
        Some((2, 10, 2))
    );
    let mut quiet = Some(Noted::sample("QUERY", Logged::Nothing));
    examined::counting_now(&mut quiet, || ());
    assert_eq!(quiet.and_then(|n| n.examined), None, "no read, no counts");
}

#[test]
fn with_the_controls_off_the_log_records_nothing() {
    let off = crate::control::Controls::new(false, 10_000);
    assert!(!off.queries().is_recording());
    let on = crate::control::Controls::new(true, 10_000);
    assert!(on.queries().is_recording());
    assert!(!crate::control::Controls::new(true, 0)
        .queries()
        .is_recording());
}
