//! Corners of native functions and casts that Cassandra 5.0 takes: `minTimeuuid` and
//! `maxTimeuuid` over every timestamp, casts of `token(...)` and of other selectors.

use integration_tests::{query_single_row, session_in, TestServer};
use scylla::client::session::Session;
use scylla::value::CqlTimeuuid;

async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    session
        .query_unpaged("CREATE TABLE t (k int PRIMARY KEY, v int)", &[])
        .await
        .unwrap();
    session
        .query_unpaged("INSERT INTO t (k, v) VALUES (1, 2)", &[])
        .await
        .unwrap();
    session
}

/// Any timestamp gives Cassandra's timeuuid (its long arithmetic wraps; no range check).
#[tokio::test]
async fn timeuuid_bounds_take_every_timestamp() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let (min, max): (CqlTimeuuid, CqlTimeuuid) = query_single_row(
        &session,
        "SELECT minTimeuuid(-9223372036854775808), maxTimeuuid(9223372036854775807) FROM t",
        (),
    )
    .await;
    assert_eq!(min.to_string(), "13814000-1dd2-11b2-8080-808080808080");
    assert_eq!(max.to_string(), "13813fff-1dd2-11b2-7f7f-7f7f7f7f7f7f");
    let (before_1582,): (CqlTimeuuid,) =
        query_single_row(&session, "SELECT minTimeuuid(-12219292800001) FROM t", ()).await;
    assert_eq!(
        before_1582.to_string(),
        "ffffd8f0-ffff-ffff-8080-808080808080"
    );
}
