//! The test controls through both doors: HTTP (`http_address`) and CQL (`test_control`).

use integration_tests::{query_error, TestServer};

/// `/ready` answers 200 once clients are accepted, naming where.
#[tokio::test]
async fn ready_names_the_cql_address() {
    let server = TestServer::start_with_http().await;
    let _session = server.session().await;
    let (status, body) = server.http("GET", "/ready", "").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ready"], true);
    assert_eq!(body["cql_address"], server.addr.to_string());
    let (status, body) = server.http("GET", "/nowhere", "").await;
    assert_eq!(status, 404, "{body}");
}

/// The clock moves forward through both doors and reads back through both; it never moves
/// backwards.
#[tokio::test]
async fn the_clock_moves_forward_through_both_doors() {
    let server = TestServer::start_with_http().await;
    let session = server.session().await;
    let (status, body) = server
        .http("POST", "/clock/advance", r#"{"seconds": 3600}"#)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["offset_seconds"], 3600.0);
    session
        .query_unpaged(
            "INSERT INTO test_control.commands (command, seconds) VALUES ('advance_clock', 60)",
            (),
        )
        .await
        .expect("advance through CQL");
    let (offset,): (f64,) = session
        .query_unpaged("SELECT offset_seconds FROM test_control.clock", ())
        .await
        .expect("read the clock")
        .into_rows_result()
        .expect("rows")
        .single_row()
        .expect("one row");
    assert_eq!(offset, 3660.0);
    let (_, body) = server.http("GET", "/clock", "").await;
    assert_eq!(body["offset_seconds"], 3660.0);
    let (status, body) = server
        .http("POST", "/clock/advance", r#"{"seconds": -5}"#)
        .await;
    assert_eq!(status, 400, "{body}");
    let (_, message) = query_error(
        &session,
        "INSERT INTO test_control.commands (command, seconds) VALUES ('advance_clock', -5)",
    )
    .await;
    assert!(message.contains("only moves forward"), "{message}");
}

/// The time read from `system.local` (`SELECT toTimestamp(now()) FROM system.local`, the
/// usual way to ask a server its time) and `currentTimestamp()` follow the moved clock.
#[tokio::test]
async fn the_time_in_system_local_follows_the_clock() {
    let server = TestServer::start_with_http().await;
    let session = server.session().await;
    let day_ms = 86_400_000_i64;
    let server_time = || async {
        let (now, current): (scylla::value::CqlTimestamp, scylla::value::CqlTimestamp) = session
            .query_unpaged(
                "SELECT toTimestamp(now()), currentTimestamp() FROM system.local",
                (),
            )
            .await
            .expect("read the time")
            .into_rows_result()
            .expect("rows")
            .single_row()
            .expect("one row");
        (now.0, current.0)
    };
    let wall_ms = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_millis() as i64
    };
    let before = wall_ms();
    let (now, current) = server_time().await;
    assert!(now >= before && now < before + day_ms, "{now} {before}");
    assert!(
        current >= before && current < before + day_ms,
        "{current} {before}"
    );
    let (status, body) = server
        .http("POST", "/clock/advance", r#"{"seconds": 86401}"#)
        .await;
    assert_eq!(status, 200, "{body}");
    let (now, current) = server_time().await;
    let after = wall_ms();
    assert!(now >= after + day_ms, "{now} {after}");
    assert!(current >= after + day_ms, "{current} {after}");
}

/// The CQL door refuses what means nothing: an unknown command, a read-only table, a
/// control write in a batch.
#[tokio::test]
async fn the_cql_door_refuses_what_means_nothing() {
    let server = TestServer::start().await;
    let session = server.session().await;
    let (_, message) = query_error(
        &session,
        "INSERT INTO test_control.commands (command) VALUES ('explode')",
    )
    .await;
    assert!(message.contains("unknown command explode"), "{message}");
    let (_, message) = query_error(
        &session,
        "INSERT INTO test_control.status (key, ready) VALUES ('local', false)",
    )
    .await;
    assert!(message.contains("read-only"), "{message}");
    let (_, message) = query_error(
        &session,
        "BEGIN BATCH INSERT INTO test_control.commands (command) VALUES ('reset'); APPLY BATCH",
    )
    .await;
    assert!(
        message.contains("cannot be written in a BATCH"),
        "{message}"
    );
}

/// With the controls off (on disk, by default) the keyspace does not exist.
#[tokio::test]
async fn controls_are_off_on_disk_by_default() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start_in(dir.path()).await;
    let session = server.session().await;
    let (_, message) = query_error(&session, "SELECT * FROM test_control.clock").await;
    assert!(message.contains("test_control"), "{message}");
}
