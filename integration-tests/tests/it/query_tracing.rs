//! Query tracing through the driver: a traced QUERY, EXECUTE and BATCH get a session id in
//! their response, and `session.get_tracing_info` finds the session row and the events of
//! the request's real steps in `system_traces`. Raw frames check the flag in every protocol
//! version and that untraced answers stay untraced.

use integration_tests::{default_params, query_rows, session_in, RawConnection, TestServer};
use scylla::client::session::Session;
use scylla::observability::tracing::TracingInfo;
use scylla::statement::batch::{Batch, BatchType};
use scylla::statement::unprepared::Statement;

use cql::frame::request::{Query, Request};
use cql::frame::{encode_request_frame_for, flags, parse_header, ProtocolVersion, HEADER_LEN};

async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))",
            &[],
        )
        .await
        .unwrap();
    for c in 0..3 {
        session
            .query_unpaged("INSERT INTO t (k, c, v) VALUES (1, ?, 'x')", (c,))
            .await
            .unwrap();
    }
    session
        .query_unpaged("DELETE FROM t WHERE k = 1 AND c = 2", &[])
        .await
        .unwrap();
    session
}

fn activities(info: &TracingInfo) -> Vec<String> {
    info.events
        .iter()
        .map(|e| e.activity.clone().unwrap_or_default())
        .collect()
}

fn assert_session(info: &TracingInfo, request: &str) {
    assert_eq!(info.command.as_deref(), Some("QUERY"));
    assert_eq!(info.request.as_deref(), Some(request));
    assert_eq!(info.client, Some("127.0.0.1".parse().unwrap()));
    assert_eq!(info.coordinator, Some("127.0.0.1".parse().unwrap()));
    assert!(info.duration.is_some_and(|d| d > 0), "{info:?}");
    assert!(info.started_at.is_some());
    let last = info
        .events
        .iter()
        .filter_map(|e| e.source_elapsed)
        .max()
        .unwrap_or(0);
    assert!(info.duration.unwrap_or(0) >= last, "{info:?}");
    for event in &info.events {
        assert_eq!(event.source, Some("127.0.0.1".parse().unwrap()));
        assert!(event.thread.as_deref().is_some_and(|t| !t.is_empty()));
    }
}

#[tokio::test]
async fn traced_query_execute_and_batch_leave_sessions_and_events() {
    let server = TestServer::start().await;
    let session = table(&server).await;

    // QUERY.
    let mut query = Statement::new("SELECT k, c, v FROM t WHERE k = 1");
    query.set_tracing(true);
    let result = session.query_unpaged(query, &[]).await.unwrap();
    let id = result.tracing_id().expect("a tracing id");
    assert_eq!(id.get_version_num(), 1, "a time-based uuid");
    let info = session.get_tracing_info(&id).await.unwrap();
    assert_session(&info, "Execute CQL3 query");
    let params = info.parameters.clone().unwrap_or_default();
    assert_eq!(
        params.get("query").map(String::as_str),
        Some("SELECT k, c, v FROM t WHERE k = 1")
    );
    // The driver's defaults.
    assert_eq!(
        params.get("consistency_level").map(String::as_str),
        Some("LOCAL_QUORUM")
    );
    assert!(
        params.contains_key("serial_consistency_level"),
        "{params:?}"
    );
    let events = activities(&info);
    assert_eq!(
        events.first().map(String::as_str),
        Some("Parsing SELECT k, c, v FROM t WHERE k = 1")
    );
    for expected in [
        "Preparing statement",
        "Query plan: Select ks.t partitions[k = 1]",
        "Executing single-partition query on t",
        "Read 2 live rows and 1 tombstone cells",
        "Examined 3 stored rows in 1 partitions, returning 2 rows",
    ] {
        assert!(
            events.iter().any(|e| e == expected),
            "{expected}: {events:?}"
        );
    }

    // EXECUTE, with its bound values named as Cassandra names them.
    let mut prepared = session
        .prepare("SELECT v FROM t WHERE k = ? AND c = ?")
        .await
        .unwrap();
    prepared.set_tracing(true);
    let result = session.execute_unpaged(&prepared, (1, 0)).await.unwrap();
    let id = result.tracing_id().expect("a tracing id");
    let info = session.get_tracing_info(&id).await.unwrap();
    assert_session(&info, "Execute CQL3 prepared query");
    let params = info.parameters.clone().unwrap_or_default();
    assert_eq!(params.get("bound_var_0_k").map(String::as_str), Some("1"));
    assert_eq!(params.get("bound_var_1_c").map(String::as_str), Some("0"));
    assert_eq!(
        params.get("query").map(String::as_str),
        Some("SELECT v FROM t WHERE k = ? AND c = ?")
    );
    let events = activities(&info);
    assert!(
        !events.iter().any(|e| e.starts_with("Parsing")),
        "{events:?}"
    );
    for expected in [
        "Executing single-partition query on t",
        "Read 1 live rows and 0 tombstone cells",
        "Examined 1 stored rows in 1 partitions, returning 1 rows",
    ] {
        assert!(
            events.iter().any(|e| e == expected),
            "{expected}: {events:?}"
        );
    }

    // BATCH: the mutation's steps.
    let insert = session
        .prepare("INSERT INTO t (k, c, v) VALUES (?, ?, ?)")
        .await
        .unwrap();
    let mut batch = Batch::new(BatchType::Logged);
    batch.append_statement(insert.clone());
    batch.append_statement(insert);
    batch.set_tracing(true);
    let result = session
        .batch(&batch, ((2, 0, "a"), (2, 1, "b")))
        .await
        .unwrap();
    let id = result.tracing_id().expect("a tracing id");
    let info = session.get_tracing_info(&id).await.unwrap();
    assert_session(&info, "Execute batch of CQL3 queries");
    let events = activities(&info);
    assert_eq!(
        events,
        [
            "Determining replicas for mutation",
            "Appending to commitlog",
            "Adding to t memtable"
        ]
    );
    let writer = info.events.last().and_then(|e| e.thread.clone());
    assert_eq!(writer.as_deref(), Some("MutationStage-1"));

    // The rows are ordinary rows of system_traces, and TRUNCATE clears them.
    let sessions: Vec<(uuid::Uuid, String)> = query_rows(
        &session,
        "SELECT session_id, request FROM system_traces.sessions",
        &[],
    )
    .await;
    assert_eq!(sessions.len(), 3, "{sessions:?}");
    session
        .query_unpaged("TRUNCATE system_traces.sessions", &[])
        .await
        .unwrap();
    assert!(trace_sessions(&session).await.is_empty());
}

#[tokio::test]
async fn untraced_requests_leave_no_trace() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let result = session
        .query_unpaged("SELECT * FROM t WHERE k = 1", &[])
        .await
        .unwrap();
    assert!(result.tracing_id().is_none());
    assert!(trace_sessions(&session).await.is_empty());
}

/// The session id comes first in the body, in v3 and v4 (v5 is covered by the Python
/// driver's tests, which trace over v5 segments).
#[tokio::test]
async fn the_tracing_flag_works_in_every_protocol_version() {
    let server = TestServer::start().await;
    for version in [ProtocolVersion::V3, ProtocolVersion::V4] {
        let mut raw = RawConnection::connect(server.addr).await;
        let startup = Request::Startup(cql::frame::request::Startup {
            options: vec![("CQL_VERSION".into(), "3.0.0".into())],
        });
        raw.send_bytes(&encode_request_frame_for(version, 0, &startup, None))
            .await;
        let mut header = [0u8; HEADER_LEN];
        assert!(raw.read_exact(&mut header).await, "READY");
        let query = Request::Query(Query {
            query: "SELECT release_version FROM system.local".into(),
            params: default_params(),
        });
        let mut frame = encode_request_frame_for(version, 7, &query, None);
        frame[1] |= flags::TRACING;
        raw.send_bytes(&frame).await;
        assert!(raw.read_exact(&mut header).await);
        let parsed = parse_header(&header).unwrap();
        assert_ne!(parsed.flags & flags::TRACING, 0, "{version:?}");
        let mut body = vec![0u8; parsed.length as usize];
        assert!(raw.read_exact(&mut body).await);
        let id = uuid::Uuid::from_slice(&body[..16]).unwrap();
        assert_eq!(id.get_version_num(), 1);
    }
}

/// The ids of the trace sessions kept.
async fn trace_sessions(session: &scylla::client::session::Session) -> Vec<(uuid::Uuid,)> {
    query_rows(
        session,
        "SELECT session_id FROM system_traces.sessions",
        &[],
    )
    .await
}
