//! Tests of rules from both doors.

use std::collections::BTreeMap;

use super::*;

fn row(values: Vec<(&str, CqlValue)>) -> ControlRow {
    ControlRow {
        values: values
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<BTreeMap<_, _>>(),
        deleted: false,
    }
}

fn text(s: &str) -> CqlValue {
    CqlValue::Text(s.into())
}

#[test]
fn a_body_becomes_a_rule() {
    let rule = FaultRule::from_json(json!({
        "when": {"keyspace": "ks", "kind": "INSERT"},
        "then": {"error": "write_timeout", "write_type": "SIMPLE", "received": 0, "block_for": 1},
        "times": 2,
        "probability": 0.5
    }))
    .expect("a rule");
    assert_eq!(
        (rule.id.as_deref(), rule.times, rule.probability),
        (None, Some(2), 0.5)
    );
    assert_eq!(
        Value::Object(rule.to_json()),
        json!({
            "when": {"keyspace": "ks", "kind": "INSERT"},
            "then": {"error": "write_timeout", "write_type": "SIMPLE", "received": 0,
                     "block_for": 1},
            "times": 2,
            "probability": 0.5
        })
    );
}

#[test]
fn bad_bodies_are_refused() {
    for (body, words) in [
        (json!({}), "needs \"then\""),
        (json!([]), "must be a JSON object"),
        (
            json!({"then": {"drop": true}, "times": 0}),
            "\"times\" must be an integer",
        ),
        (
            json!({"then": {"drop": true}, "probability": 1.5}),
            "from 0 to 1",
        ),
        (
            json!({"then": {"drop": true}, "whenever": {}}),
            "unknown field \"whenever\"",
        ),
        (
            json!({"when": {"kind": "BATCH"}, "then": {"error": "unprepared"}}),
            "only EXECUTE carries one, not BATCH",
        ),
        (
            json!({"when": {"kind": "PREPARE"}, "then": {"error": "unprepared"}}),
            "not PREPARE",
        ),
    ] {
        let err = FaultRule::from_json(body.clone()).expect_err("refused");
        assert!(err.to_string().contains(words), "{body}: {err}");
    }
    let any = FaultRule::from_json(json!({"then": {"error": "unprepared"}}));
    assert!(any.is_ok(), "unprepared for any kind applies to EXECUTEs");
}

#[test]
fn a_row_becomes_the_same_rule() {
    let details = CqlValue::Map(vec![
        (text("consistency"), text("QUORUM")),
        (text("required"), text("3")),
        (text("alive"), text("1")),
    ]);
    let rule = FaultRule::from_row(&row(vec![
        ("id", text("u1")),
        ("keyspace_name", text("ks")),
        ("table_name", text("users")),
        ("kind", text("select")),
        ("query", text("^SELECT")),
        ("consistency", text("ONE")),
        ("client", text("127.0.0.1")),
        ("error", text("unavailable")),
        ("error_details", details),
        ("times", CqlValue::Int(1)),
        ("probability", CqlValue::Double(1.0)),
    ]))
    .expect("a rule");
    assert_eq!(rule.id.as_deref(), Some("u1"));
    assert_eq!(
        Value::Object(rule.to_json()),
        json!({
            "when": {"keyspace": "ks", "table": "users", "kind": "SELECT", "query": "^SELECT",
                     "consistency": "ONE", "client": "127.0.0.1"},
            "then": {"error": "unavailable", "consistency": "QUORUM", "required": 3, "alive": 1},
            "times": 1,
            "probability": 1.0
        })
    );
}

#[test]
fn row_flags_are_drop_close_and_delay() {
    let drop = FaultRule::from_row(&row(vec![
        ("id", text("d")),
        ("no_answer", CqlValue::Boolean(true)),
    ]))
    .expect("a rule");
    assert_eq!(drop.then.outcome, Outcome::Drop);
    let close = FaultRule::from_row(&row(vec![
        ("id", text("c")),
        ("close_connection", CqlValue::Boolean(true)),
        ("delay_ms", CqlValue::Int(20)),
    ]))
    .expect("a rule");
    assert_eq!(close.then.outcome, Outcome::Close);
    assert_eq!(close.then.delay, Some(std::time::Duration::from_millis(20)));
    let nothing = FaultRule::from_row(&row(vec![("id", text("n"))]));
    assert!(nothing.is_err());
    let counted = FaultRule::from_row(&row(vec![
        ("id", text("n")),
        ("no_answer", CqlValue::Boolean(true)),
        ("fired", CqlValue::Int(3)),
    ]));
    assert!(counted
        .expect_err("refused")
        .to_string()
        .contains("fired is not set by an INSERT"));
}
