//! Each injected error arrives as the scylla driver's typed `DbError`, with its fields and
//! Cassandra's message.

use integration_tests::db_error;
use scylla::errors::{DbError, WriteType};
use scylla::statement::Consistency;
use serde_json::json;

use super::{add_fault, fired, setup};

/// The error a statement on `t` gets from a one-shot rule answering `then`.
async fn injected(
    server: &integration_tests::TestServer,
    session: &scylla::client::session::Session,
    then: serde_json::Value,
    cql: &str,
) -> (DbError, String) {
    let id = add_fault(
        server,
        json!({"when": {"keyspace": "errs", "table": "t"}, "then": then, "times": 1}),
    )
    .await;
    let err = session.query_unpaged(cql, ()).await.expect_err(cql);
    assert_eq!(
        fired(server, &id).await,
        None,
        "the rule retired after one fire"
    );
    db_error(&err).unwrap_or_else(|| panic!("{cql}: not a database error: {err:?}"))
}

#[tokio::test]
async fn every_error_arrives_as_the_drivers_typed_error() {
    let (server, session) = setup("errs").await;
    let select = "SELECT v FROM t WHERE k = 1";
    let insert = "INSERT INTO t (k, v) VALUES (2, 20)";

    let then = json!({"error": "unavailable", "consistency": "QUORUM", "required": 3, "alive": 1});
    let (err, message) = injected(&server, &session, then, select).await;
    assert_eq!(
        err,
        DbError::Unavailable {
            consistency: Consistency::Quorum,
            required: 3,
            alive: 1
        }
    );
    assert_eq!(message, "Cannot achieve consistency level QUORUM");

    // Unset details come from the request: the driver's default LOCAL_QUORUM, one replica.
    let (err, message) =
        injected(&server, &session, json!({"error": "read_timeout"}), select).await;
    assert_eq!(
        err,
        DbError::ReadTimeout {
            consistency: Consistency::LocalQuorum,
            received: 0,
            required: 1,
            data_present: false
        }
    );
    assert_eq!(message, "Operation timed out - received only 0 responses.");

    let (err, message) =
        injected(&server, &session, json!({"error": "write_timeout"}), insert).await;
    assert_eq!(
        err,
        DbError::WriteTimeout {
            consistency: Consistency::LocalQuorum,
            received: 0,
            required: 1,
            write_type: WriteType::Simple
        }
    );
    assert_eq!(message, "Operation timed out - received only 0 responses.");

    let then = json!({"error": "read_failure", "reason": "READ_TOO_MANY_TOMBSTONES",
                      "data_present": true});
    let (err, message) = injected(&server, &session, then, select).await;
    assert_eq!(
        err,
        DbError::ReadFailure {
            consistency: Consistency::LocalQuorum,
            received: 0,
            required: 1,
            numfailures: 1,
            data_present: true
        }
    );
    assert_eq!(
        message,
        "Operation failed - received 0 responses and 1 failures: \
         READ_TOO_MANY_TOMBSTONES from /127.0.0.1:7000"
    );

    let then = json!({"error": "write_failure", "write_type": "CAS", "num_failures": 2});
    let (err, _) = injected(&server, &session, then, insert).await;
    assert_eq!(
        err,
        DbError::WriteFailure {
            consistency: Consistency::LocalQuorum,
            received: 0,
            required: 1,
            numfailures: 2,
            write_type: WriteType::Cas
        }
    );

    let then = json!({"error": "overloaded", "message": "too busy"});
    let (err, message) = injected(&server, &session, then, select).await;
    assert_eq!((err, message.as_str()), (DbError::Overloaded, "too busy"));
    let (err, message) = injected(
        &server,
        &session,
        json!({"error": "is_bootstrapping"}),
        select,
    )
    .await;
    assert_eq!(
        (err, message.as_str()),
        (
            DbError::IsBootstrapping,
            "Cannot read from a bootstrapping node"
        )
    );
    let then = json!({"error": "server_error", "message": "disk on fire"});
    let (err, message) = injected(&server, &session, then, select).await;
    assert_eq!(
        (err, message.as_str()),
        (DbError::ServerError, "disk on fire")
    );

    // Nothing was written by the failed INSERTs.
    let rows = session
        .query_unpaged("SELECT k FROM t WHERE k = 2", ())
        .await
        .expect("read")
        .into_rows_result()
        .expect("rows")
        .rows_num();
    assert_eq!(rows, 0);
}

/// An UNPREPARED rule for any kind applies to EXECUTE alone: a QUERY cannot carry an id.
#[tokio::test]
async fn unprepared_leaves_queries_alone() {
    let (server, session) = setup("unprep_q").await;
    let id = add_fault(
        &server,
        json!({"when": {"table": "t"}, "then": {"error": "unprepared"}}),
    )
    .await;
    session
        .query_unpaged("SELECT v FROM t WHERE k = 1", ())
        .await
        .expect("a QUERY is not faulted by unprepared");
    assert_eq!(fired(&server, &id).await, Some(0));
}

/// Only requests whose client address and consistency match fire a rule.
#[tokio::test]
async fn rules_match_the_client_and_the_consistency() {
    let (server, session) = setup("who").await;
    let elsewhere = add_fault(
        &server,
        json!({"when": {"client": "127.0.0.2"}, "then": {"error": "overloaded"}}),
    )
    .await;
    let other_level = add_fault(
        &server,
        json!({"when": {"consistency": "ALL"}, "then": {"error": "overloaded"}}),
    )
    .await;
    let here = add_fault(
        &server,
        json!({"when": {"client": "127.0.0.1", "consistency": "LOCAL_QUORUM", "table": "t"},
               "then": {"error": "is_bootstrapping"}}),
    )
    .await;
    let err = session
        .query_unpaged("SELECT v FROM t WHERE k = 1", ())
        .await
        .expect_err("faulted");
    assert_eq!(db_error(&err).map(|e| e.0), Some(DbError::IsBootstrapping));
    assert_eq!(fired(&server, &elsewhere).await, Some(0));
    assert_eq!(fired(&server, &other_level).await, Some(0));
    assert_eq!(fired(&server, &here).await, Some(1));
}
