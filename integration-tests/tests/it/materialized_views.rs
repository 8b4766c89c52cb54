//! Materialized views through the driver: the `materialized_views_enabled` setting, CREATE /
//! ALTER / DROP with Cassandra 5.0's messages, view rows that follow every kind of base write
//! (moves between view partitions, deletions, TTLs), the build over existing rows,
//! `system_schema.views`, DESCRIBE, and the refusals of writes to views.

use integration_tests::{query_error, query_rows, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use server::Config;

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

async fn start() -> TestServer {
    TestServer::start_with(Config {
        materialized_views_enabled: true,
        ..Config::default()
    })
    .await
}

const VIEW: &str = "CREATE MATERIALIZED VIEW mv AS SELECT * FROM t \
                    WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL \
                    PRIMARY KEY (v, k, c)";

async fn view_rows(session: &Session) -> Vec<(i32, i32, i32, Option<i32>)> {
    let mut rows: Vec<(i32, i32, i32, Option<i32>)> =
        query_rows(session, "SELECT v, k, c, w FROM mv", &[]).await;
    rows.sort();
    rows
}

async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    run(
        &session,
        "CREATE TABLE t (k int, c int, v int, w int, PRIMARY KEY (k, c))",
    )
    .await;
    session
}

#[tokio::test]
async fn views_are_refused_unless_enabled() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    let (code, message) = query_error(&session, VIEW).await;
    assert_eq!(code, DbError::Invalid);
    assert_eq!(
        message,
        "Materialized views are disabled. Enable in cassandra.yaml to use."
    );
}

#[tokio::test]
async fn view_rows_follow_base_writes() {
    let server = start().await;
    let session = table(&server).await;
    run(
        &session,
        "INSERT INTO t (k, c, v, w) VALUES (1, 1, 10, 100)",
    )
    .await;
    // Built over the rows already there.
    run(&session, VIEW).await;
    assert_eq!(view_rows(&session).await, [(10, 1, 1, Some(100))]);
    run(
        &session,
        "INSERT INTO t (k, c, v, w) VALUES (1, 2, 20, 200)",
    )
    .await;
    // Moving a row to another view partition.
    run(&session, "UPDATE t SET v = 30 WHERE k = 1 AND c = 1").await;
    assert_eq!(
        view_rows(&session).await,
        [(20, 1, 2, Some(200)), (30, 1, 1, Some(100))]
    );
    // A view query by its partition key uses the same planner as a table.
    let rows: Vec<(i32, i32)> = query_rows(&session, "SELECT k, c FROM mv WHERE v = 30", &[]).await;
    assert_eq!(rows, [(1, 1)]);
    // An older timestamp loses in the base and moves nothing.
    run(
        &session,
        "UPDATE t USING TIMESTAMP 1 SET v = 40 WHERE k = 1 AND c = 1",
    )
    .await;
    assert_eq!(view_rows(&session).await.len(), 2);
    // Nulling the view key column removes the view row.
    run(&session, "UPDATE t SET v = null WHERE k = 1 AND c = 2").await;
    assert_eq!(view_rows(&session).await, [(30, 1, 1, Some(100))]);
    // Row, range and partition deletions.
    run(&session, "INSERT INTO t (k, c, v) VALUES (2, 1, 50)").await;
    run(&session, "INSERT INTO t (k, c, v) VALUES (2, 2, 60)").await;
    run(&session, "DELETE FROM t WHERE k = 2 AND c > 1").await;
    assert_eq!(view_rows(&session).await.len(), 2);
    run(&session, "DELETE FROM t WHERE k = 2").await;
    run(&session, "DELETE FROM t WHERE k = 1 AND c = 1").await;
    assert!(view_rows(&session).await.is_empty());
    // A batch writes base and view rows together.
    run(
        &session,
        "BEGIN BATCH INSERT INTO t (k, c, v) VALUES (3, 1, 70); \
         UPDATE t SET w = 7 WHERE k = 3 AND c = 1; APPLY BATCH",
    )
    .await;
    assert_eq!(view_rows(&session).await, [(70, 3, 1, Some(7))]);
    // TRUNCATE of the base empties its views.
    run(&session, "TRUNCATE t").await;
    assert!(view_rows(&session).await.is_empty());
}

#[tokio::test]
async fn view_rows_expire_with_the_base() {
    let server = start().await;
    let session = table(&server).await;
    run(&session, VIEW).await;
    run(
        &session,
        "INSERT INTO t (k, c, v, w) VALUES (1, 1, 10, 1) USING TTL 100",
    )
    .await;
    let ttl: Vec<(Option<i32>,)> = query_rows(&session, "SELECT ttl(w) FROM mv", &[]).await;
    assert!(ttl[0].0.is_some_and(|t| t > 90 && t <= 100));
    server.advance_clock(std::time::Duration::from_secs(101));
    assert!(view_rows(&session).await.is_empty());
}

#[tokio::test]
async fn views_refuse_writes_and_table_statements() {
    let server = start().await;
    let session = table(&server).await;
    run(&session, VIEW).await;
    let refused = [
        (
            "INSERT INTO mv (v, k, c) VALUES (1, 1, 1)",
            "Cannot directly modify a materialized view",
        ),
        (
            "DELETE FROM mv WHERE v = 1",
            "Cannot directly modify a materialized view",
        ),
        (
            "TRUNCATE mv",
            "Cannot TRUNCATE materialized view directly; must truncate base table instead",
        ),
        (
            "DROP TABLE mv",
            "Cannot use DROP TABLE on a materialized view. Please use DROP MATERIALIZED VIEW instead.",
        ),
        (
            "ALTER TABLE mv WITH comment = 'x'",
            "Cannot use ALTER TABLE on a materialized view; use ALTER MATERIALIZED VIEW instead",
        ),
        (
            "DROP TABLE t",
            "Cannot drop a table when materialized views still depend on it (ks)",
        ),
        (
            "ALTER TABLE t DROP w",
            "Cannot drop column w on base table t with materialized views",
        ),
        (
            "CREATE INDEX ON mv (w)",
            "Secondary indexes on materialized views aren't supported",
        ),
        (
            "CREATE MATERIALIZED VIEW mv2 AS SELECT * FROM t WHERE k IS NOT NULL PRIMARY KEY (k, c)",
            "Primary key columns c must be restricted with 'IS NOT NULL' or otherwise",
        ),
        (
            "CREATE MATERIALIZED VIEW mv2 AS SELECT * FROM t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (k)",
            "Cannot create materialized view 'mv2' without primary key columns c from base table 't'",
        ),
        (
            "CREATE MATERIALIZED VIEW mv2 AS SELECT * FROM t WHERE v IS NOT NULL AND w IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, w, k, c)",
            "Cannot include more than one non-primary key column in materialized view primary key (got v, w)",
        ),
        (
            "CREATE MATERIALIZED VIEW mv2 AS SELECT * FROM t WHERE k = ? PRIMARY KEY (k, c)",
            "Bind variables are not allowed in CREATE MATERIALIZED VIEW statements",
        ),
        (
            "CREATE MATERIALIZED VIEW mv2 AS SELECT k, c, v FROM t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (k, c) WITH COMPACT STORAGE",
            "COMPACT STORAGE tables are not allowed starting with version 4.0",
        ),
        (
            "ALTER MATERIALIZED VIEW nope WITH comment = 'x'",
            "Materialized view 'ks.nope' doesn't exist",
        ),
    ];
    for (cql, expected) in refused {
        let (code, message) = query_error(&session, cql).await;
        assert_eq!(
            (code, message.as_str()),
            (DbError::Invalid, expected),
            "{cql}"
        );
    }
    run(&session, "ALTER MATERIALIZED VIEW mv WITH comment = 'hi'").await;
    run(&session, "DROP MATERIALIZED VIEW mv").await;
    run(&session, "DROP MATERIALIZED VIEW IF EXISTS mv").await;
    run(&session, "DROP TABLE t").await;
}

#[tokio::test]
async fn views_are_listed_and_described() {
    let server = start().await;
    let session = table(&server).await;
    run(&session, VIEW).await;
    let rows: Vec<(String, String, bool, String)> = query_rows(
        &session,
        "SELECT view_name, base_table_name, include_all_columns, where_clause \
         FROM system_schema.views WHERE keyspace_name = 'ks'",
        &[],
    )
    .await;
    assert_eq!(
        rows,
        [(
            "mv".to_string(),
            "t".to_string(),
            true,
            "v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL".to_string()
        )]
    );
    let tables: Vec<(String,)> = query_rows(
        &session,
        "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'ks'",
        &[],
    )
    .await;
    assert_eq!(tables, [("t".to_string(),)]);
    let columns: Vec<(String, String)> = query_rows(
        &session,
        "SELECT column_name, kind FROM system_schema.columns \
         WHERE keyspace_name = 'ks' AND table_name = 'mv'",
        &[],
    )
    .await;
    assert_eq!(columns.len(), 4);
    let described: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE MATERIALIZED VIEW mv", &[]).await;
    assert!(described[0]
        .3
        .starts_with("CREATE MATERIALIZED VIEW ks.mv AS\n    SELECT *\n    FROM ks.t\n"));
    let keyspace: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE KEYSPACE ks", &[]).await;
    let kinds: Vec<&str> = keyspace.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(kinds, ["keyspace", "table", "materialized_view"]);
}

#[tokio::test]
async fn select_star_views_take_added_columns() {
    let server = start().await;
    let session = table(&server).await;
    run(&session, VIEW).await;
    run(&session, "ALTER TABLE t ADD x int").await;
    run(&session, "INSERT INTO t (k, c, v, x) VALUES (1, 1, 10, 5)").await;
    let rows: Vec<(i32, Option<i32>)> = query_rows(&session, "SELECT v, x FROM mv", &[]).await;
    assert_eq!(rows, [(10, Some(5))]);
}

#[tokio::test]
async fn renaming_base_key_columns_renames_them_in_views() {
    let server = start().await;
    let session = table(&server).await;
    run(&session, VIEW).await;
    run(&session, "ALTER TABLE t RENAME k TO k2 AND c TO c2").await;
    run(&session, "INSERT INTO t (k2, c2, v) VALUES (1, 2, 3)").await;
    let rows: Vec<(i32, i32, i32)> = query_rows(&session, "SELECT v, k2, c2 FROM mv", &[]).await;
    assert_eq!(rows, [(3, 1, 2)]);
    let (where_clause,): (String,) = query_rows(
        &session,
        "SELECT where_clause FROM system_schema.views WHERE keyspace_name = 'ks'",
        &[],
    )
    .await
    .remove(0);
    assert_eq!(
        where_clause,
        "v IS NOT NULL AND k2 IS NOT NULL AND c2 IS NOT NULL"
    );
    let refused = [
        ("ALTER TABLE t RENAME v TO x", "Cannot rename non PRIMARY KEY column v"),
        ("ALTER TABLE t RENAME nope TO x", "Column nope was not found in table ks.t"),
        (
            "ALTER TABLE t RENAME k2 TO w",
            "Cannot rename column k2 to w in table 'ks.t'; another column with that name already exists",
        ),
    ];
    for (cql, expected) in refused {
        let (code, message) = query_error(&session, cql).await;
        assert_eq!(
            (code, message.as_str()),
            (DbError::Invalid, expected),
            "{cql}"
        );
    }
}

#[tokio::test]
async fn a_user_type_in_a_view_key_can_gain_fields() {
    let server = start().await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TYPE u (a int)").await;
    run(&session, "CREATE TABLE tu (k int PRIMARY KEY, f frozen<u>)").await;
    run(
        &session,
        "CREATE MATERIALIZED VIEW mu AS SELECT * FROM tu \
         WHERE f IS NOT NULL AND k IS NOT NULL PRIMARY KEY (f, k)",
    )
    .await;
    run(&session, "INSERT INTO tu (k, f) VALUES (1, {a: 1})").await;
    run(&session, "ALTER TYPE u ADD b int").await;
    run(&session, "INSERT INTO tu (k, f) VALUES (2, {a: 1, b: 2})").await;
    run(&session, "UPDATE tu SET f = {a: 5, b: 6} WHERE k = 1").await;
    let mut keys: Vec<(i32,)> = query_rows(&session, "SELECT k FROM mu", &[]).await;
    keys.sort();
    assert_eq!(keys, [(1,), (2,)]);
}
