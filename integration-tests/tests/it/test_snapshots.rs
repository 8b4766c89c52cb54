//! Reset and named snapshots through both doors (HTTP and the `test_control` keyspace):
//! data and schema come back in any order, the driver's metadata follows from the events
//! alone, prepared statements are prepared again, and on disk a restore survives a restart.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use integration_tests::{query_error, TestServer};
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use server::Config;

async fn run(session: &Session, cql: &str) {
    session
        .query_unpaged(cql, ())
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"));
}

async fn rows(session: &Session, cql: &str) -> Vec<(i32, String)> {
    let mut rows: Vec<(i32, String)> = session
        .query_unpaged(cql, ())
        .await
        .unwrap_or_else(|e| panic!("{cql}: {e}"))
        .into_rows_result()
        .expect("rows")
        .rows::<(i32, String)>()
        .expect("typed rows")
        .map(|r| r.expect("row"))
        .collect();
    rows.sort();
    rows
}

/// Waits until the driver's metadata (refreshed by the server's events, never asked for)
/// says what `check` wants.
async fn until_metadata(session: &Session, what: &str, check: impl Fn(&Session) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check(session) {
        assert!(Instant::now() < deadline, "the driver never saw {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn tables_of(session: &Session, keyspace: &str) -> Option<Vec<String>> {
    let state = session.get_cluster_state();
    let ks = state.get_keyspace(keyspace)?;
    let mut names: Vec<String> = ks.tables.keys().cloned().collect();
    names.sort();
    Some(names)
}

const KS: &str =
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}";

/// A session whose metadata is refreshed every 100 ms, as the driver does by default (once a
/// minute): only the keyspaces SCHEMA_CHANGE events named since the last refresh are read.
async fn quick_metadata_session(server: &TestServer) -> Session {
    SessionBuilder::new()
        .known_node_addr(server.addr)
        .cluster_metadata_refresh_interval(Duration::from_millis(100))
        .build()
        .await
        .expect("driver session")
}

#[tokio::test]
async fn snapshots_restore_through_http_in_any_order_and_the_driver_follows() {
    let server = TestServer::start_with_http().await;
    let session = quick_metadata_session(&server).await;
    run(&session, KS).await;
    run(&session, "CREATE TABLE ks.a (k int PRIMARY KEY, v text)").await;
    run(&session, "INSERT INTO ks.a (k, v) VALUES (1, 'one')").await;
    let (status, body) = server.http("PUT", "/snapshots/first", "").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["tables"], 1);
    run(&session, "CREATE TABLE ks.b (k int PRIMARY KEY, v text)").await;
    run(&session, "INSERT INTO ks.b (k, v) VALUES (2, 'two')").await;
    run(&session, "UPDATE ks.a SET v = 'uno' WHERE k = 1").await;
    let (status, body) = server.http("PUT", "/snapshots/second", "").await;
    assert_eq!(status, 200, "{body}");
    run(&session, "DROP TABLE ks.a").await;
    let insert_b = session
        .prepare("INSERT INTO ks.b (k, v) VALUES (?, ?)")
        .await
        .expect("prepare");

    let wanted = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    for (name, tables, a) in [
        ("first", wanted(&["a"]), vec![(1, "one".to_string())]),
        ("second", wanted(&["a", "b"]), vec![(1, "uno".to_string())]),
        ("first", wanted(&["a"]), vec![(1, "one".to_string())]),
        ("second", wanted(&["a", "b"]), vec![(1, "uno".to_string())]),
    ] {
        let (status, body) = server
            .http("POST", &format!("/snapshots/{name}/restore"), "")
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["name"], name);
        assert_eq!(rows(&session, "SELECT k, v FROM ks.a").await, a);
        until_metadata(&session, &format!("the tables of {name}"), |s| {
            tables_of(s, "ks").as_ref() == Some(&tables)
        })
        .await;
    }
    // The prepared statements were dropped: the driver prepares again on UNPREPARED.
    session
        .execute_unpaged(&insert_b, (3, "three"))
        .await
        .expect("executed after preparing again");
    assert_eq!(
        rows(&session, "SELECT k, v FROM ks.b").await,
        [(2, "two".to_string()), (3, "three".to_string())]
    );
    let (_, listed) = server.http("GET", "/snapshots", "").await;
    let names: Vec<&str> = listed
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["first", "second"]);
    let (status, _) = server.http("DELETE", "/snapshots/first", "").await;
    assert_eq!(status, 200);
    let (status, body) = server.http("POST", "/snapshots/first/restore", "").await;
    assert_eq!(status, 404, "{body}");

    // A reset drops the keyspace; the driver forgets it.
    let (status, body) = server.http("POST", "/reset", "").await;
    assert_eq!(status, 200, "{body}");
    until_metadata(&session, "ks dropped", |s| tables_of(s, "ks").is_none()).await;
    let (_, message) = query_error(&session, "SELECT * FROM ks.b").await;
    assert!(message.contains("ks"), "{message}");
    // ...and the snapshots outlive it.
    let (status, _) = server.http("POST", "/snapshots/second/restore", "").await;
    assert_eq!(status, 200);
    until_metadata(&session, "ks again", |s| {
        tables_of(s, "ks") == Some(wanted(&["a", "b"]))
    })
    .await;
    assert_eq!(
        rows(&session, "SELECT k, v FROM ks.b").await,
        [(2, "two".to_string())]
    );
}

#[tokio::test]
async fn the_cql_door_takes_lists_restores_deletes_and_resets() {
    let server = TestServer::start().await;
    let session = server.session().await;
    run(&session, KS).await;
    run(&session, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)").await;
    run(&session, "INSERT INTO ks.t (k, v) VALUES (1, 'kept')").await;
    run(
        &session,
        "INSERT INTO test_control.snapshots (name) VALUES ('s1')",
    )
    .await;
    let listed: Vec<(String, Vec<String>, i32)> = session
        .query_unpaged(
            "SELECT name, keyspaces, tables FROM test_control.snapshots",
            (),
        )
        .await
        .expect("list")
        .into_rows_result()
        .expect("rows")
        .rows::<(String, Vec<String>, i32)>()
        .expect("typed")
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(listed, [("s1".to_string(), vec!["ks".to_string()], 1)]);
    run(&session, "INSERT INTO ks.t (k, v) VALUES (2, 'dropped')").await;
    run(&session, "TRUNCATE ks.t").await;
    run(
        &session,
        "INSERT INTO test_control.commands (command, name) VALUES ('restore', 's1')",
    )
    .await;
    assert_eq!(
        rows(&session, "SELECT k, v FROM ks.t").await,
        [(1, "kept".to_string())]
    );
    let (_, message) = query_error(
        &session,
        "INSERT INTO test_control.commands (command, name) VALUES ('restore', 'nope')",
    )
    .await;
    assert!(message.contains("no snapshot named nope"), "{message}");
    run(
        &session,
        "INSERT INTO test_control.commands (command) VALUES ('reset')",
    )
    .await;
    let (_, message) = query_error(&session, "SELECT * FROM ks.t").await;
    assert!(message.contains("ks"), "{message}");
    run(
        &session,
        "DELETE FROM test_control.snapshots WHERE name = 's1'",
    )
    .await;
    let left = session
        .query_unpaged("SELECT name FROM test_control.snapshots", ())
        .await
        .expect("list")
        .into_rows_result()
        .expect("rows")
        .rows_num();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn on_disk_a_restore_survives_a_restart() {
    let dir = tempfile::tempdir().expect("a directory");
    let config = || Config {
        data_dir: Some(dir.path().to_path_buf()),
        http_address: Some(SocketAddr::from(([127, 0, 0, 1], 0))),
        test_controls: Some(true),
        ..Config::default()
    };
    let server = TestServer::start_with(config()).await;
    let session = server.session().await;
    run(&session, KS).await;
    run(&session, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)").await;
    for k in 0..100 {
        run(
            &session,
            &format!("INSERT INTO ks.t (k, v) VALUES ({k}, 'snap')"),
        )
        .await;
    }
    let snapshot = rows(&session, "SELECT k, v FROM ks.t").await;
    let (status, body) = server.http("PUT", "/snapshots/s", "").await;
    assert_eq!(status, 200, "{body}");
    for k in 50..150 {
        run(
            &session,
            &format!("INSERT INTO ks.t (k, v) VALUES ({k}, 'later')"),
        )
        .await;
    }
    server.flush().await;
    run(&session, "INSERT INTO ks.t (k, v) VALUES (0, 'unflushed')").await;
    run(
        &session,
        "CREATE TABLE ks.extra (k int PRIMARY KEY, v text)",
    )
    .await;
    let (status, body) = server.http("POST", "/snapshots/s/restore", "").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(rows(&session, "SELECT k, v FROM ks.t").await, snapshot);
    drop(session);
    server.stop().await;

    let server = TestServer::start_with(config()).await;
    let session = server.session().await;
    assert_eq!(rows(&session, "SELECT k, v FROM ks.t").await, snapshot);
    let (_, message) = query_error(&session, "SELECT * FROM ks.extra").await;
    assert!(message.contains("extra"), "{message}");
    let (_, listed) = server.http("GET", "/snapshots", "").await;
    assert_eq!(listed[0]["name"], "s", "the snapshot survives the restart");
}
