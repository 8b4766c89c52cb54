//! Tests of the rule registry: adding, replacing, listing, removing, firing `times` and
//! `probability`, and what a fired rule does to a request.

use cql::frame::request::{Query, QueryParameters};

use super::*;

fn rule(body: Value) -> FaultRule {
    FaultRule::from_json(body).expect("a valid rule")
}

fn query(text: &str) -> Request {
    Request::Query(Query {
        query: text.into(),
        params: params(),
    })
}

fn params() -> QueryParameters {
    QueryParameters {
        consistency: 1,
        values: Vec::new(),
        value_names: None,
        skip_metadata: false,
        page_size: None,
        paging_state: None,
        serial_consistency: None,
        default_timestamp: None,
        keyspace: None,
        now_in_seconds: None,
    }
}

/// A node, a session from 127.0.0.1, and the registry under test.
fn setup() -> (Node, Session, Faults) {
    let node = Node::open(crate::config::Config::default()).expect("node");
    let address = "127.0.0.1:9042".parse().expect("an address");
    (node, Session::new(address, address), Faults::default())
}

#[test]
fn no_rule_leaves_every_request_alone() {
    let (node, session, faults) = setup();
    assert!(faults
        .check(&node, &session, &query("SELECT * FROM ks.t"))
        .is_none());
    node.close();
}

#[test]
fn the_first_matching_rule_fires() {
    let (node, session, faults) = setup();
    faults.add(rule(
        json!({"when": {"table": "a"}, "then": {"drop": true}}),
    ));
    faults.add(rule(json!({"then": {"close": true}})));
    faults.add(rule(json!({"then": {"error": "overloaded"}})));
    let fired = faults.check(&node, &session, &query("SELECT * FROM ks.a"));
    assert!(matches!(
        fired,
        Some(Injection {
            delay: None,
            action: Action::Drop
        })
    ));
    let fired = faults.check(&node, &session, &query("SELECT * FROM ks.b"));
    assert!(matches!(
        fired,
        Some(Injection {
            action: Action::Close,
            ..
        })
    ));
    let fired = faults.check(&node, &session, &query("SELECT * FROM test_control.faults"));
    assert!(
        fired.is_none(),
        "the controls' own statements are never faulted"
    );
    let listed = faults.to_json();
    let fired: Vec<&Value> = listed
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| &r["fired"])
        .collect();
    assert_eq!(fired, [&json!(1), &json!(1), &json!(0)]);
    node.close();
}

#[test]
fn errors_and_delays_come_back_as_injections() {
    let (node, session, faults) = setup();
    faults.add(rule(
        json!({"then": {"error": "unavailable", "delay_ms": 7}}),
    ));
    let Some(Injection {
        delay,
        action: Action::Error(err),
    }) = faults.check(&node, &session, &query("INSERT INTO ks.t (k) VALUES (1)"))
    else {
        panic!("an error is injected");
    };
    assert_eq!(delay, Some(Duration::from_millis(7)));
    assert_eq!(err.error_body().code, 0x1000);
    node.close();
}

#[test]
fn times_retire_a_rule() {
    let (node, session, faults) = setup();
    let id = faults.add(rule(json!({"then": {"drop": true}, "times": 2})));
    assert_eq!(faults.to_json()[0]["times_left"], json!(2));
    let q = query("SELECT * FROM ks.t");
    assert!(faults.check(&node, &session, &q).is_some());
    assert_eq!(faults.to_json()[0]["times_left"], json!(1));
    assert_eq!(faults.to_json()[0]["id"], json!(id));
    assert!(faults.check(&node, &session, &q).is_some());
    assert_eq!(faults.to_json(), json!([]), "retired after its last fire");
    assert!(faults.check(&node, &session, &q).is_none());
    node.close();
}

#[test]
fn probability_zero_never_fires_and_one_always_does() {
    let (node, session, faults) = setup();
    faults.add(rule(json!({"then": {"drop": true}, "probability": 0})));
    let q = query("SELECT * FROM ks.t");
    assert!((0..200).all(|_| faults.check(&node, &session, &q).is_none()));
    faults.clear();
    faults.add(rule(json!({"then": {"drop": true}, "probability": 1})));
    assert!((0..200).all(|_| faults.check(&node, &session, &q).is_some()));
    faults.clear();
    faults.add(rule(json!({"then": {"drop": true}, "probability": 0.5})));
    let fired = (0..2000)
        .filter(|_| faults.check(&node, &session, &q).is_some())
        .count();
    assert!((800..1200).contains(&fired), "{fired} of 2000 at one half");
    node.close();
}

#[test]
fn an_id_given_replaces_its_rule() {
    let faults = Faults::default();
    let first = faults.add(rule(json!({"then": {"drop": true}})));
    let named = faults.add(rule(json!({"id": "x", "then": {"drop": true}})));
    assert_eq!(named, "x");
    faults.add(rule(json!({"id": "x", "then": {"close": true}})));
    let listed = faults.to_json();
    assert_eq!(listed.as_array().map(Vec::len), Some(2));
    assert_eq!(listed[1]["then"], json!({"close": true}));
    assert!(faults.remove(&first));
    assert!(!faults.remove(&first));
    assert_eq!(faults.rows().len(), 1);
    faults.clear();
    assert!(faults.rows().is_empty());
    assert_eq!(faults.count.load(Ordering::Relaxed), 0);
}

#[test]
fn rows_show_what_the_rule_does() {
    let faults = Faults::default();
    faults.add(rule(json!({
        "id": "r",
        "when": {"keyspace": "ks"},
        "then": {"error": "write_timeout", "write_type": "BATCH_LOG"},
        "times": 3
    })));
    let row = faults.rows().remove(0);
    let value = |name: &str| {
        row.iter()
            .find(|(column, _)| *column == name)
            .and_then(|(_, value)| value.clone())
    };
    assert_eq!(value("id"), Some(CqlValue::Text("r".into())));
    assert_eq!(value("keyspace_name"), Some(CqlValue::Text("ks".into())));
    assert_eq!(value("error"), Some(CqlValue::Text("write_timeout".into())));
    assert_eq!(
        value("error_details"),
        Some(CqlValue::Map(vec![(
            CqlValue::Text("write_type".into()),
            CqlValue::Text("BATCH_LOG".into())
        )]))
    );
    assert_eq!(value("times"), Some(CqlValue::Int(3)));
    assert_eq!(value("fired"), Some(CqlValue::Int(0)));
    assert_eq!(value("no_answer"), Some(CqlValue::Boolean(false)));
    assert_eq!(value("delay_ms"), None);
}

#[test]
fn unprepared_fires_on_execute_alone() {
    let (node, session, faults) = setup();
    faults.add(rule(json!({"then": {"error": "unprepared"}})));
    assert!(faults
        .check(&node, &session, &query("SELECT * FROM ks.t"))
        .is_none());
    let execute = Request::Execute(cql::frame::request::Execute {
        id: bytes::Bytes::from_static(&[1, 2, 3]),
        result_metadata_id: None,
        params: params(),
    });
    let Some(Injection {
        action: Action::Error(err),
        ..
    }) = faults.check(&node, &session, &execute)
    else {
        panic!("unprepared is injected");
    };
    assert_eq!(
        err.error_body().extra,
        cql::frame::response::ErrorExtra::Unprepared {
            id: bytes::Bytes::from_static(&[1, 2, 3])
        }
    );
    node.close();
}
