//! The testing guide's Rust fixture (docs/testing.md, "Fixtures: Rust"): a throwaway server
//! in process with its test controls, used through the CQL door. The guide holds the code
//! between the markers verbatim (a server test checks that it still does).

// guide: Rust fixture
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;

/// A throwaway server (in memory, any free port, test controls on) and a session to it.
async fn cqld() -> (server::SpawnedServer, Session) {
    let config = server::Config {
        port: 0,
        ..server::Config::default()
    };
    let server = server::spawn(config).await.expect("server starts");
    let session = SessionBuilder::new()
        .known_node_addr(server.addr())
        .build()
        .await
        .expect("driver connects");
    (server, session)
}

/// Runs a CQL statement that must succeed.
async fn cql(session: &Session, statement: &str) {
    session
        .query_unpaged(statement, &[])
        .await
        .unwrap_or_else(|err| panic!("{statement}: {err}"));
}

#[tokio::test]
async fn a_cache_entry_expires_after_its_ttl() {
    let (server, session) = cqld().await;
    cql(&session, "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").await;
    cql(
        &session,
        "CREATE TABLE app.cache (k text PRIMARY KEY, v text)",
    )
    .await;
    cql(
        &session,
        "INSERT INTO app.cache (k, v) VALUES ('a', 'x') USING TTL 3600",
    )
    .await;
    // Move the server's clock an hour forward instead of sleeping.
    cql(
        &session,
        "INSERT INTO test_control.commands (command, seconds) VALUES ('advance_clock', 3600)",
    )
    .await;
    let rows = session
        .query_unpaged("SELECT v FROM app.cache WHERE k = 'a'", &[])
        .await
        .expect("select")
        .into_rows_result()
        .expect("rows");
    assert_eq!(rows.rows_num(), 0);
    server.stop().await.expect("clean stop");
}
// guide end
