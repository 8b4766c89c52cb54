//! What the scylla driver (1.9) does on injected faults, as its sources say:
//! `DefaultRetryPolicy` retries UNAVAILABLE once on the next target of the plan and
//! WRITE_TIMEOUT once on the same target only for an idempotent BATCH_LOG write;
//! `SimpleSpeculativeExecutionPolicy` sends another attempt when the first is slow; an
//! UNPREPARED answer to EXECUTE makes it prepare again and execute once more.
//!
//! A load-balancing plan holds each node once, so with one node "the next target" does not
//! exist: [`EveryNodeTwice`] names the node a second time (as a shard hint the driver
//! ignores for Cassandra), which is how the retry to "another" node and a speculative
//! attempt can reach this one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use integration_tests::db_error;
use scylla::client::execution_profile::ExecutionProfile;
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::cluster::{ClusterState, NodeRef};
use scylla::errors::{DbError, WriteType};
use scylla::observability::history::{AttemptResult, HistoryCollector, StructuredHistory};
use scylla::policies::load_balancing::{FallbackPlan, LoadBalancingPolicy, RoutingInfo};
use scylla::policies::retry::RetryDecision;
use scylla::policies::speculative_execution::SimpleSpeculativeExecutionPolicy;
use scylla::routing::Shard;
use scylla::statement::unprepared::Statement;
use serde_json::json;

use super::{add_fault, fired, list_faults, setup};

/// A plan naming every node twice: first without a shard, then with shard 0.
#[derive(Debug)]
struct EveryNodeTwice;

impl LoadBalancingPolicy for EveryNodeTwice {
    fn pick<'a>(
        &'a self,
        _request: &'a RoutingInfo,
        cluster: &'a ClusterState,
    ) -> Option<(NodeRef<'a>, Option<Shard>)> {
        cluster.get_nodes_info().first().map(|node| (node, None))
    }

    fn fallback<'a>(
        &'a self,
        _request: &'a RoutingInfo,
        cluster: &'a ClusterState,
    ) -> FallbackPlan<'a> {
        Box::new(cluster.get_nodes_info().iter().map(|node| (node, Some(0))))
    }

    fn name(&self) -> String {
        "EveryNodeTwice".into()
    }
}

/// A session in keyspace `keyspace` whose plans name the node twice, with `speculative`
/// execution if given.
async fn twice_session(
    server: &integration_tests::TestServer,
    keyspace: &str,
    speculative: Option<SimpleSpeculativeExecutionPolicy>,
) -> Session {
    let profile = ExecutionProfile::builder()
        .load_balancing_policy(Arc::new(EveryNodeTwice))
        .speculative_execution_policy(speculative.map(|p| Arc::new(p) as _))
        .build();
    let session = SessionBuilder::new()
        .known_node_addr(server.addr)
        .default_execution_profile_handle(profile.into_handle())
        .build()
        .await
        .expect("driver session");
    session
        .use_keyspace(keyspace, false)
        .await
        .expect("use keyspace");
    session
}

/// `cql` as a statement whose attempts `history` records.
fn recorded(cql: &str, history: &Arc<HistoryCollector>, idempotent: bool) -> Statement {
    let mut statement = Statement::new(cql);
    statement.set_is_idempotent(idempotent);
    statement.set_history_listener(history.clone());
    statement
}

/// The retry decisions of the only request's attempts, in order (`None`: succeeded).
fn decisions(history: &StructuredHistory) -> Vec<Option<RetryDecision>> {
    assert_eq!(history.requests.len(), 1, "{history}");
    history.requests[0]
        .non_speculative_fiber
        .attempts
        .iter()
        .map(|attempt| match &attempt.result {
            Some(AttemptResult::Error(_, _, decision)) => Some(decision.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn default_retry_policy_retries_unavailable_on_the_next_target_then_raises() {
    let (server, session) = setup("unav").await;
    let id = add_fault(
        &server,
        json!({"when": {"table": "t"}, "then": {"error": "unavailable"}}),
    )
    .await;
    // One node, one target: the decision is to retry on the next target, and there is none.
    let history = Arc::new(HistoryCollector::new());
    let err = session
        .query_unpaged(recorded("SELECT v FROM t WHERE k = 1", &history, false), ())
        .await
        .expect_err("unavailable");
    assert!(matches!(
        db_error(&err),
        Some((DbError::Unavailable { .. }, _))
    ));
    assert_eq!(
        decisions(&history.clone_structured_history()),
        [Some(RetryDecision::RetryNextTarget(None))]
    );
    assert_eq!(fired(&server, &id).await, Some(1));
    // With the node named twice the retry happens, once, and the second UNAVAILABLE is raised.
    let twice = twice_session(&server, "unav", None).await;
    let history = Arc::new(HistoryCollector::new());
    let err = twice
        .query_unpaged(recorded("SELECT v FROM t WHERE k = 1", &history, false), ())
        .await
        .expect_err("unavailable twice");
    assert!(matches!(
        db_error(&err),
        Some((DbError::Unavailable { .. }, _))
    ));
    assert_eq!(
        decisions(&history.clone_structured_history()),
        [
            Some(RetryDecision::RetryNextTarget(None)),
            Some(RetryDecision::DontRetry)
        ]
    );
    assert_eq!(fired(&server, &id).await, Some(3));
}

#[tokio::test]
async fn default_retry_policy_on_write_timeout() {
    let (server, session) = setup("wto").await;
    let insert = "INSERT INTO t (k, v) VALUES (5, 50)";
    // SIMPLE: never retried, idempotent or not.
    let simple = add_fault(
        &server,
        json!({"when": {"table": "t"}, "then": {"error": "write_timeout", "write_type": "SIMPLE"}}),
    )
    .await;
    let history = Arc::new(HistoryCollector::new());
    let err = session
        .query_unpaged(recorded(insert, &history, true), ())
        .await
        .expect_err("write timeout");
    let write_type = match db_error(&err) {
        Some((DbError::WriteTimeout { write_type, .. }, _)) => write_type,
        other => panic!("not a write timeout: {other:?}"),
    };
    assert_eq!(write_type, WriteType::Simple);
    assert_eq!(
        decisions(&history.clone_structured_history()),
        [Some(RetryDecision::DontRetry)]
    );
    assert_eq!(fired(&server, &simple).await, Some(1));
    server.http("DELETE", "/faults", "").await;

    // BATCH_LOG, idempotent: retried once on the same node, then raised.
    let batch_log = add_fault(
        &server,
        json!({"when": {"table": "t"},
               "then": {"error": "write_timeout", "write_type": "BATCH_LOG"}}),
    )
    .await;
    let history = Arc::new(HistoryCollector::new());
    let err = session
        .query_unpaged(recorded(insert, &history, true), ())
        .await
        .expect_err("write timeout twice");
    assert!(matches!(
        db_error(&err),
        Some((DbError::WriteTimeout { .. }, _))
    ));
    assert_eq!(
        decisions(&history.clone_structured_history()),
        [
            Some(RetryDecision::RetrySameTarget(None)),
            Some(RetryDecision::DontRetry)
        ]
    );
    assert_eq!(fired(&server, &batch_log).await, Some(2));

    // BATCH_LOG but not idempotent: not retried.
    let history = Arc::new(HistoryCollector::new());
    session
        .query_unpaged(recorded(insert, &history, false), ())
        .await
        .expect_err("write timeout");
    assert_eq!(
        decisions(&history.clone_structured_history()),
        [Some(RetryDecision::DontRetry)]
    );
    assert_eq!(fired(&server, &batch_log).await, Some(3));
    server.http("DELETE", "/faults", "").await;

    // A one-shot BATCH_LOG timeout: the retry gets past it and the row is written.
    let once = add_fault(
        &server,
        json!({"when": {"table": "t"}, "times": 1,
               "then": {"error": "write_timeout", "write_type": "BATCH_LOG"}}),
    )
    .await;
    let history = Arc::new(HistoryCollector::new());
    session
        .query_unpaged(recorded(insert, &history, true), ())
        .await
        .expect("the retry succeeds");
    assert_eq!(
        decisions(&history.clone_structured_history()),
        [Some(RetryDecision::RetrySameTarget(None)), None]
    );
    assert_eq!(fired(&server, &once).await, None, "retired");
    let (v,): (i32,) = session
        .query_unpaged("SELECT v FROM t WHERE k = 5", ())
        .await
        .expect("read")
        .into_rows_result()
        .expect("rows")
        .single_row()
        .expect("the row");
    assert_eq!(v, 50);
}

#[tokio::test]
async fn a_delayed_answer_triggers_speculative_execution() {
    let (server, _session) = setup("spec").await;
    let select = "SELECT v FROM t WHERE k = 1";
    let rule = json!({"when": {"table": "t", "kind": "SELECT"}, "then": {"delay_ms": 1500},
                      "times": 1});
    // Without speculative execution the delayed answer is waited for.
    let plain = twice_session(&server, "spec", None).await;
    add_fault(&server, rule.clone()).await;
    let started = Instant::now();
    let history = Arc::new(HistoryCollector::new());
    plain
        .query_unpaged(recorded(select, &history, true), ())
        .await
        .expect("the delayed answer");
    assert!(started.elapsed() >= Duration::from_millis(1500));
    assert!(history.clone_structured_history().requests[0]
        .speculative_fibers
        .is_empty());
    // With it, a second attempt goes out after 100 ms and is answered at once.
    let speculative = SimpleSpeculativeExecutionPolicy {
        max_retry_count: 1,
        retry_interval: Duration::from_millis(100),
    };
    let session = twice_session(&server, "spec", Some(speculative)).await;
    add_fault(&server, rule).await;
    let started = Instant::now();
    let history = Arc::new(HistoryCollector::new());
    let (v,): (i32,) = session
        .query_unpaged(recorded(select, &history, true), ())
        .await
        .expect("the speculative answer")
        .into_rows_result()
        .expect("rows")
        .single_row()
        .expect("the row");
    let elapsed = started.elapsed();
    assert_eq!(v, 10);
    assert!(elapsed < Duration::from_millis(1200), "took {elapsed:?}");
    let history = history.clone_structured_history();
    let request = &history.requests[0];
    assert_eq!(request.speculative_fibers.len(), 1, "{history}");
    assert!(matches!(
        request.speculative_fibers[0].attempts[0].result,
        Some(AttemptResult::Success(_))
    ));
    assert!(
        list_faults(&server).await.is_empty(),
        "the delay fired once"
    );
}

#[tokio::test]
async fn unprepared_makes_the_driver_prepare_again() {
    let (server, session) = setup("reprep").await;
    let prepared = session
        .prepare("INSERT INTO t (k, v) VALUES (?, ?)")
        .await
        .expect("prepare");
    // A rule that only counts PREPAREs of this text (a zero delay, then the real answer).
    let prepares = add_fault(
        &server,
        json!({"when": {"kind": "PREPARE", "query": "^INSERT INTO t "}, "then": {"delay_ms": 0}}),
    )
    .await;
    let unprepared = add_fault(
        &server,
        json!({"when": {"kind": "INSERT", "table": "t"}, "then": {"error": "unprepared"},
               "times": 1}),
    )
    .await;
    session
        .execute_unpaged(&prepared, (7, 70))
        .await
        .expect("re-prepared and executed");
    assert_eq!(
        fired(&server, &unprepared).await,
        None,
        "fired once, retired"
    );
    assert_eq!(
        fired(&server, &prepares).await,
        Some(1),
        "prepared again once"
    );
    let (v,): (i32,) = session
        .query_unpaged("SELECT v FROM t WHERE k = 7", ())
        .await
        .expect("read")
        .into_rows_result()
        .expect("rows")
        .single_row()
        .expect("the row");
    assert_eq!(v, 70);
}
