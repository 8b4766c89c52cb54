//! Rules added, listed and removed through both doors: HTTP (`/faults`) and CQL
//! (`test_control.faults`).

use integration_tests::{db_error, query_error};
use scylla::errors::DbError;
use std::collections::BTreeMap;

use serde_json::json;

use super::{add_fault, list_faults, setup};

/// The ids of `test_control.faults`, in order.
async fn cql_ids(session: &scylla::client::session::Session) -> Vec<String> {
    let mut ids: Vec<String> = session
        .query_unpaged("SELECT id FROM test_control.faults", ())
        .await
        .expect("select faults")
        .into_rows_result()
        .expect("rows")
        .rows::<(String,)>()
        .expect("ids")
        .map(|row| row.expect("row").0)
        .collect();
    ids.sort();
    ids
}

#[tokio::test]
async fn rules_are_listed_and_removed_through_both_doors() {
    let (server, session) = setup("doors").await;
    let http_id = add_fault(
        &server,
        json!({"when": {"keyspace": "doors", "kind": "select", "query": "k = 1"},
               "then": {"error": "unavailable", "consistency": "QUORUM", "required": 3,
                        "alive": 1},
               "times": 5, "probability": 1}),
    )
    .await;
    session
        .query_unpaged(
            "INSERT INTO test_control.faults (id, table_name, kind, error, error_details, times) \
             VALUES ('cql1', 't', 'INSERT', 'write_timeout', \
             {'write_type': 'BATCH_LOG', 'received': '0', 'block_for': '1'}, 2)",
            (),
        )
        .await
        .expect("insert a rule");
    // Both fire as their door said.
    let err = session
        .query_unpaged("SELECT v FROM t WHERE k = 1", ())
        .await
        .expect_err("unavailable");
    assert!(matches!(
        db_error(&err),
        Some((
            DbError::Unavailable {
                required: 3,
                alive: 1,
                ..
            },
            _
        ))
    ));
    let err = session
        .query_unpaged("INSERT INTO t (k, v) VALUES (3, 30)", ())
        .await
        .expect_err("write timeout");
    assert!(matches!(
        db_error(&err),
        Some((DbError::WriteTimeout { .. }, _))
    ));
    // HTTP lists both, with their counts.
    let listed = list_faults(&server).await;
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["id"], json!(http_id));
    assert_eq!(
        listed[0]["when"],
        json!({"keyspace": "doors", "kind": "SELECT", "query": "k = 1"})
    );
    assert_eq!(
        listed[0]["then"],
        json!({"error": "unavailable", "consistency": "QUORUM", "required": 3, "alive": 1})
    );
    assert_eq!(
        (listed[0]["times_left"].clone(), listed[0]["fired"].clone()),
        (json!(4), json!(1))
    );
    assert_eq!(listed[1]["id"], json!("cql1"));
    assert_eq!(
        listed[1]["then"],
        json!({"error": "write_timeout", "received": 0, "block_for": 1, "write_type": "BATCH_LOG"})
    );
    // CQL lists both too.
    let (times, fired, details): (Option<i32>, Option<i32>, Option<BTreeMap<String, String>>) =
        session
            .query_unpaged(
                "SELECT times, fired, error_details FROM test_control.faults WHERE id = 'cql1'",
                (),
            )
            .await
            .expect("select a rule")
            .into_rows_result()
            .expect("rows")
            .single_row()
            .expect("the rule");
    assert_eq!((times, fired), (Some(1), Some(1)));
    let details = details.unwrap_or_default();
    assert_eq!(
        details.get("write_type").map(String::as_str),
        Some("BATCH_LOG")
    );
    let mut both = vec!["cql1".to_string(), http_id.clone()];
    both.sort();
    assert_eq!(cql_ids(&session).await, both);
    // An INSERT with an existing id replaces the rule.
    session
        .query_unpaged(
            "INSERT INTO test_control.faults (id, no_answer, probability) VALUES ('cql1', true, 0)",
            (),
        )
        .await
        .expect("replace");
    let listed = list_faults(&server).await;
    assert_eq!(listed[1]["then"], json!({"drop": true}));
    assert_eq!(listed[1]["fired"], json!(0));
    // Each door removes what the other added.
    session
        .query_unpaged(
            format!("DELETE FROM test_control.faults WHERE id = '{http_id}'"),
            (),
        )
        .await
        .expect("delete over CQL");
    let (status, _) = server.http("DELETE", "/faults/cql1", "").await;
    assert_eq!(status, 200);
    assert!(cql_ids(&session).await.is_empty());
    let (status, _) = server.http("DELETE", "/faults/cql1", "").await;
    assert_eq!(status, 404, "already gone");
    // Clearing: TRUNCATE and DELETE /faults.
    for _ in 0..2 {
        add_fault(&server, json!({"then": {"drop": true}, "probability": 0})).await;
    }
    session
        .query_unpaged("TRUNCATE test_control.faults", ())
        .await
        .expect("truncate");
    assert!(list_faults(&server).await.is_empty());
    add_fault(&server, json!({"then": {"drop": true}, "probability": 0})).await;
    server.http("DELETE", "/faults", "").await;
    assert!(cql_ids(&session).await.is_empty());
}

#[tokio::test]
async fn bad_rules_are_refused_by_both_doors() {
    let (server, session) = setup("refused").await;
    for body in [
        json!({"when": {"query": "("}, "then": {"drop": true}}),
        json!({"when": {"kind": "BATCH"}, "then": {"error": "unprepared"}}),
        json!({"then": {"error": "timeout"}}),
        json!({"when": {"table": "t"}}),
    ] {
        let (status, answer) = server.http("POST", "/faults", &body.to_string()).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer["error"].is_string(), "{answer}");
    }
    let (code, message) = query_error(
        &session,
        "INSERT INTO test_control.faults (id, query, no_answer) VALUES ('x', '(', true)",
    )
    .await;
    assert_eq!(code, DbError::Invalid);
    assert!(message.contains("invalid regular expression"), "{message}");
    let (code, message) = query_error(
        &session,
        "INSERT INTO test_control.faults (id, error, fired) VALUES ('x', 'overloaded', 3)",
    )
    .await;
    assert_eq!(code, DbError::Invalid);
    assert!(message.contains("fired"), "{message}");
    assert!(list_faults(&server).await.is_empty());
    // The controls' own statements are never faulted, so a rule for everything can still
    // be removed through CQL.
    add_fault(&server, json!({"then": {"error": "server_error"}})).await;
    session
        .query_unpaged("TRUNCATE test_control.faults", ())
        .await
        .expect("the control statement is not faulted");
    assert!(list_faults(&server).await.is_empty());
}

/// The lines of `docs/testing.md`'s "Injected faults" section: every `curl` body is
/// accepted over HTTP and every CQL INSERT through CQL, making the same twelve rules.
#[tokio::test]
async fn the_guides_lines_make_the_rules_they_say() {
    let (server, session) = setup("guide").await;
    let guide = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/testing.md"),
    )
    .expect("docs/testing.md");
    let section = guide
        .split("### Injected faults")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the section");
    let bodies: Vec<&str> = section
        .lines()
        .filter(|line| line.starts_with("curl -s -XPOST $H/faults -d '"))
        .filter_map(|line| line.split("-d '").nth(1)?.strip_suffix('\''))
        .collect();
    assert_eq!(bodies.len(), 12, "one per outcome");
    for body in &bodies {
        let (status, answer) = server.http("POST", "/faults", body).await;
        assert_eq!(status, 200, "{body}: {answer}");
    }
    let over_http = list_faults(&server).await;
    server.http("DELETE", "/faults", "").await;
    let inserts: Vec<&str> = section
        .lines()
        .filter(|line| line.starts_with("INSERT INTO test_control.faults"))
        .collect();
    assert_eq!(inserts.len(), 12, "one per outcome");
    for insert in &inserts {
        session
            .query_unpaged(insert.trim_end_matches(';'), ())
            .await
            .unwrap_or_else(|err| panic!("{insert}: {err}"));
    }
    let over_cql = list_faults(&server).await;
    // The same rules but for their ids.
    let without_id = |rules: Vec<serde_json::Value>| -> Vec<serde_json::Value> {
        rules
            .into_iter()
            .map(|mut rule| {
                rule.as_object_mut().map(|r| r.remove("id"));
                rule
            })
            .collect()
    };
    assert_eq!(without_id(over_http), without_id(over_cql));
}
