//! The README's in-process example ("Using it in tests"): a throwaway server on the test's
//! own runtime, any free port, in memory. The README holds the test below verbatim (a server
//! test checks that it still does).

// README: in-process
use scylla::client::session_builder::SessionBuilder;

#[tokio::test]
async fn a_throwaway_server_in_process() {
    // In memory (the default Config has no data directory), on any free port.
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
    session
        .query_unpaged(
            "CREATE KEYSPACE ks WITH replication = \
             {'class': 'SimpleStrategy', 'replication_factor': 1}",
            &[],
        )
        .await
        .expect("create keyspace");
    session
        .query_unpaged("CREATE TABLE ks.t (k int PRIMARY KEY, v text)", &[])
        .await
        .expect("create table");
    session
        .query_unpaged("INSERT INTO ks.t (k, v) VALUES (?, ?)", (1, "one"))
        .await
        .expect("insert");
    let (v,): (String,) = session
        .query_unpaged("SELECT v FROM ks.t WHERE k = ?", (1,))
        .await
        .expect("select")
        .into_rows_result()
        .expect("rows")
        .single_row()
        .expect("one row");
    assert_eq!(v, "one");
    server.stop().await.expect("clean stop");
}
// README end
