//! The other outcomes and limits: `times`, `probability`, a delay that blocks nothing else,
//! no answer (the driver's own timeout), and a closed connection (the driver reconnects).

use std::time::{Duration, Instant};

use integration_tests::db_error;
use scylla::errors::{DbError, ExecutionError};
use scylla::statement::unprepared::Statement;
use serde_json::json;

use super::{add_fault, eventually, fired, setup};

const SELECT: &str = "SELECT v FROM t WHERE k = 1";

/// Whether `SELECT` on `session` succeeds.
async fn select_ok(session: &scylla::client::session::Session) -> bool {
    session.query_unpaged(SELECT, ()).await.is_ok()
}

#[tokio::test]
async fn times_fire_then_retire() {
    let (server, session) = setup("times").await;
    let id = add_fault(
        &server,
        json!({"when": {"table": "t"}, "then": {"error": "overloaded"}, "times": 2}),
    )
    .await;
    for left in [1, 0] {
        let err = session
            .query_unpaged(SELECT, ())
            .await
            .expect_err("faulted");
        assert_eq!(db_error(&err).map(|e| e.0), Some(DbError::Overloaded));
        let listed = super::list_faults(&server).await;
        let times_left = listed
            .iter()
            .find(|r| r["id"] == id)
            .map(|r| r["times_left"].clone());
        assert_eq!(times_left, (left > 0).then(|| json!(left)));
    }
    assert!(select_ok(&session).await, "retired after two fires");
}

#[tokio::test]
async fn probability_zero_never_fires_and_one_always_does() {
    let (server, session) = setup("dice").await;
    let never = add_fault(
        &server,
        json!({"when": {"table": "t"}, "then": {"error": "overloaded"}, "probability": 0}),
    )
    .await;
    for _ in 0..20 {
        assert!(select_ok(&session).await);
    }
    assert_eq!(fired(&server, &never).await, Some(0));
    let always = add_fault(
        &server,
        json!({"when": {"table": "t"}, "then": {"error": "is_bootstrapping"}, "probability": 1}),
    )
    .await;
    for _ in 0..20 {
        let err = session
            .query_unpaged(SELECT, ())
            .await
            .expect_err("faulted");
        assert_eq!(db_error(&err).map(|e| e.0), Some(DbError::IsBootstrapping));
    }
    assert_eq!(fired(&server, &always).await, Some(20));
    assert_eq!(fired(&server, &never).await, Some(0));
}

#[tokio::test]
async fn a_delay_holds_back_its_answer_only() {
    let (server, session) = setup("slow").await;
    add_fault(
        &server,
        json!({"when": {"query": "k = 1"}, "then": {"delay_ms": 800}}),
    )
    .await;
    let started = Instant::now();
    // The driver keeps one connection to the node: both requests share it.
    let slow = session.query_unpaged(SELECT, ());
    let quick = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        session
            .query_unpaged("SELECT v FROM t WHERE k = 2", ())
            .await
            .expect("quick");
        started.elapsed()
    };
    let (slow, quick) = tokio::join!(slow, quick);
    let (v,): (i32,) = slow
        .expect("the delayed answer")
        .into_rows_result()
        .expect("rows")
        .single_row()
        .expect("the row");
    assert_eq!(v, 10, "the real answer, late");
    assert!(started.elapsed() >= Duration::from_millis(800));
    assert!(
        quick < Duration::from_millis(600),
        "the other request waited: {quick:?}"
    );
}

#[tokio::test]
async fn a_dropped_request_times_out_in_the_driver_and_the_connection_goes_on() {
    let (server, session) = setup("dropped").await;
    let id = add_fault(
        &server,
        json!({"when": {"table": "t"}, "then": {"drop": true}, "times": 1}),
    )
    .await;
    let mut statement = Statement::new(SELECT);
    statement.set_request_timeout(Some(Duration::from_millis(300)));
    let err = session
        .query_unpaged(statement, ())
        .await
        .expect_err("no answer");
    assert!(
        matches!(err, ExecutionError::RequestTimeout(d) if d == Duration::from_millis(300)),
        "{err:?}"
    );
    assert_eq!(fired(&server, &id).await, None);
    assert!(
        select_ok(&session).await,
        "the same connection answers the next"
    );
}

#[tokio::test]
async fn a_closed_connection_is_reopened_by_the_driver() {
    let (server, session) = setup("closed").await;
    let id = add_fault(
        &server,
        json!({"when": {"table": "t"}, "then": {"close": true}, "times": 1}),
    )
    .await;
    let err = session.query_unpaged(SELECT, ()).await.expect_err("closed");
    assert!(
        matches!(
            err,
            ExecutionError::LastAttemptError(
                scylla::errors::RequestAttemptError::BrokenConnectionError(_)
            ) | ExecutionError::ConnectionPoolError(_)
        ),
        "{err:?}"
    );
    assert_eq!(fired(&server, &id).await, None);
    let reconnected = eventually(Duration::from_secs(10), || async {
        select_ok(&session).await.then_some(())
    })
    .await;
    assert!(reconnected.is_some(), "the driver reconnected");
}

#[tokio::test]
async fn a_long_delay_does_not_hold_the_server_back_from_stopping() {
    let (server, session) = setup("stopping").await;
    add_fault(
        &server,
        json!({"when": {"table": "t"}, "then": {"delay_ms": 60000}}),
    )
    .await;
    let session = std::sync::Arc::new(session);
    let waiting = tokio::spawn({
        let session = session.clone();
        async move { session.query_unpaged(SELECT, ()).await.is_ok() }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!waiting.is_finished(), "the answer is delayed");
    let started = Instant::now();
    server.stop().await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "stopping took {:?}",
        started.elapsed()
    );
    waiting.abort();
}
