//! Storage-attached indexes (Cassandra 5.0's `USING 'sai'`) through the driver: ranges on
//! numeric and time columns, collection lookups and intersections without ALLOW FILTERING,
//! filtering exactly where 5.0 asks for it, text analysis options, paging in token order,
//! index entries that follow writes, and DESCRIBE and `system_schema.indexes`.

use std::collections::BTreeSet;

use integration_tests::{query_all_pages, query_error, query_rows, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;

const ALLOW_FILTERING: &str = "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING";

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

/// The `k` of the rows of `table` matching `condition`, sorted.
async fn keys(session: &Session, table: &str, condition: &str) -> Vec<i32> {
    let cql = format!("SELECT k FROM {table} WHERE {condition}");
    let rows: Vec<(i32,)> = query_rows(session, cql.as_str(), &[]).await;
    let set: BTreeSet<i32> = rows.into_iter().map(|(k,)| k).collect();
    set.into_iter().collect()
}

async fn refused(session: &Session, cql: &str) -> String {
    let (code, message) = query_error(session, cql).await;
    assert_eq!(code, DbError::Invalid, "{cql}: {message}");
    message
}

/// A table with one column of each range-capable type, indexed with SAI after the first
/// rows are written (backfill) and before the rest.
async fn numbers(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    run(
        &session,
        "CREATE TABLE n (k int PRIMARY KEY, i int, b bigint, sm smallint, ti tinyint, \
         vi varint, de decimal, f float, do double, d date, tm time, ts timestamp, \
         tu timeuuid, ip inet, other int)",
    )
    .await;
    let rows = [
        "(1, -20, -2000000000000, -200, -20, -123456789012345678901234567890, -1.5, -2.5, -2.5, '1999-12-31', '01:00:00', '1999-12-31 00:00:00+0000', 00000000-0000-1000-8000-000000000000, '10.0.0.1', 1)",
        "(2, 0, 0, 0, 0, 0, 0, 0, 0, '2020-01-01', '12:00:00', '2020-01-01 00:00:00+0000', 10000000-0000-1000-8000-000000000000, '127.0.0.1', 2)",
    ];
    let columns = "(k, i, b, sm, ti, vi, de, f, do, d, tm, ts, tu, ip, other)";
    for row in rows {
        run(&session, &format!("INSERT INTO n {columns} VALUES {row}")).await;
    }
    for column in [
        "i", "b", "sm", "ti", "vi", "de", "f", "do", "d", "tm", "ts", "tu", "ip",
    ] {
        run(
            &session,
            &format!("CREATE INDEX ON n ({column}) USING 'sai'"),
        )
        .await;
    }
    let rows = [
        "(3, 15, 3000000000000, 300, 30, 123456789012345678901234567890, 2.25, 3.5, 3.5, '2021-06-01', '18:30:00', '2021-06-01 12:00:00+0000', 20000000-0000-1000-8000-000000000000, '::1', 3)",
        "(4, 40, 4000000000000, 400, 40, 99999999999999999999999999999999, 100.5, 40.5, 40.5, '2024-02-29', '23:59:59', '2024-02-29 00:00:00+0000', 30000000-0000-1000-8000-000000000000, '192.168.1.1', 4)",
    ];
    for row in rows {
        run(&session, &format!("INSERT INTO n {columns} VALUES {row}")).await;
    }
    session
}

#[tokio::test]
async fn ranges_on_every_numeric_and_time_type_need_no_filtering() {
    let server = TestServer::start().await;
    let session = numbers(&server).await;
    let cases: &[(&str, &[i32])] = &[
        ("i > 0", &[3, 4]),
        ("i >= 0", &[2, 3, 4]),
        ("i < 0", &[1]),
        ("i <= 15 AND i > -20", &[2, 3]),
        ("i = 15", &[3]),
        ("b > 0 AND b < 4000000000000", &[3]),
        ("sm >= 300", &[3, 4]),
        ("ti < 30", &[1, 2]),
        ("vi > 0", &[3, 4]),
        ("vi < 123456789012345678901234567890", &[1, 2]),
        ("de > 2", &[3, 4]),
        ("de <= 0", &[1, 2]),
        ("f > -3.0 AND f < 3.5", &[1, 2]),
        ("do >= 3.5", &[3, 4]),
        ("d < '2021-01-01'", &[1, 2]),
        ("d >= '2021-06-01' AND d <= '2024-02-29'", &[3, 4]),
        ("tm > '12:00:00'", &[3, 4]),
        ("ts < '2020-06-01 00:00:00+0000'", &[1, 2]),
        ("tu > 10000000-0000-1000-8000-000000000000", &[3, 4]),
        // IPv4 addresses compare as their IPv4-mapped IPv6 form, as SAI indexes them.
        ("ip > '::1'", &[1, 2, 4]),
        ("ip >= '127.0.0.1'", &[2, 4]),
    ];
    for (condition, expected) in cases {
        assert_eq!(
            keys(&session, "n", condition).await,
            *expected,
            "{condition}"
        );
    }
    // Two SAI-indexed columns intersect without filtering.
    assert_eq!(keys(&session, "n", "i > 0 AND d < '2022-01-01'").await, [3]);
    // A non-indexed column still needs ALLOW FILTERING, then filters.
    let message = refused(&session, "SELECT k FROM n WHERE i > 0 AND other = 4").await;
    assert_eq!(message, ALLOW_FILTERING);
    assert_eq!(
        keys(&session, "n", "i > 0 AND other = 4 ALLOW FILTERING").await,
        [4]
    );
    // IN is not an SAI operator: it filters.
    let message = refused(&session, "SELECT k FROM n WHERE i IN (0, 15)").await;
    assert_eq!(message, ALLOW_FILTERING);
    assert_eq!(
        keys(&session, "n", "i IN (0, 15) ALLOW FILTERING").await,
        [2, 3]
    );
}

#[tokio::test]
async fn range_entries_follow_updates_deletes_and_ttl() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE u (k int, c int, v int, PRIMARY KEY (k, c))",
    )
    .await;
    run(&session, "CREATE INDEX ON u (v) USING 'sai'").await;
    for (k, c, v) in [(1, 1, 10), (1, 2, 20), (2, 1, 30), (3, 1, 40)] {
        run(
            &session,
            &format!("INSERT INTO u (k, c, v) VALUES ({k}, {c}, {v})"),
        )
        .await;
    }
    assert_eq!(keys(&session, "u", "v > 15").await, [1, 2, 3]);
    run(&session, "UPDATE u SET v = 5 WHERE k = 1 AND c = 2").await;
    run(&session, "DELETE v FROM u WHERE k = 2 AND c = 1").await;
    run(&session, "DELETE FROM u WHERE k = 3").await;
    assert!(keys(&session, "u", "v > 15").await.is_empty());
    assert_eq!(keys(&session, "u", "v < 15").await, [1]);
    let rows: Vec<(i32, i32)> = query_rows(&session, "SELECT c, v FROM u WHERE v <= 10", &[]).await;
    assert_eq!(
        rows.into_iter().collect::<BTreeSet<_>>(),
        [(1, 10), (2, 5)].into()
    );
    // With a partition key, SAI ranges need no filtering either.
    assert_eq!(keys(&session, "u", "k = 1 AND v > 7").await, [1]);
    run(
        &session,
        "INSERT INTO u (k, c, v) VALUES (9, 1, 99) USING TTL 1",
    )
    .await;
    assert_eq!(keys(&session, "u", "v > 50").await, [9]);
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert!(keys(&session, "u", "v > 50").await.is_empty());
    // Dropped and re-created, the index is rebuilt from the rows.
    run(&session, "DROP INDEX u_v_idx").await;
    assert_eq!(
        refused(&session, "SELECT k FROM u WHERE v > 7").await,
        ALLOW_FILTERING
    );
    run(&session, "CREATE INDEX ON u (v) USING 'sai'").await;
    assert_eq!(keys(&session, "u", "v > 7").await, [1]);
}

#[tokio::test]
async fn collection_indexes_and_intersections() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE c (k int PRIMARY KEY, a int, s set<int>, l list<text>, \
         m map<text, int>, x int)",
    )
    .await;
    run(
        &session,
        "INSERT INTO c (k, a, s, l, m, x) VALUES (1, 10, {1, 2}, ['p'], {'a': 1, 'b': 2}, 1)",
    )
    .await;
    run(
        &session,
        "INSERT INTO c (k, a, s, l, m, x) VALUES (2, 20, {2, 3}, ['q'], {'b': 1}, 2)",
    )
    .await;
    run(
        &session,
        "INSERT INTO c (k, a, s, l, m, x) VALUES (3, 1, {2}, ['p', 'q'], {'c': 3}, 3)",
    )
    .await;
    for target in ["a", "s", "l", "keys(m)"] {
        run(
            &session,
            &format!("CREATE INDEX ON c ({target}) USING 'sai'"),
        )
        .await;
    }
    run(
        &session,
        "CREATE INDEX m_values ON c (values(m)) USING 'sai'",
    )
    .await;
    run(
        &session,
        "CREATE INDEX m_entries ON c (entries(m)) USING 'sai'",
    )
    .await;
    assert_eq!(keys(&session, "c", "a > 5 AND s CONTAINS 2").await, [1, 2]);
    assert_eq!(keys(&session, "c", "l CONTAINS 'q'").await, [2, 3]);
    assert_eq!(keys(&session, "c", "m CONTAINS KEY 'b'").await, [1, 2]);
    assert_eq!(keys(&session, "c", "m CONTAINS 1").await, [1, 2]);
    assert_eq!(keys(&session, "c", "m['b'] = 1").await, [2]);
    assert_eq!(
        keys(
            &session,
            "c",
            "m CONTAINS KEY 'b' AND s CONTAINS 3 AND a >= 20"
        )
        .await,
        [2]
    );
    run(&session, "UPDATE c SET s = s - {2} WHERE k = 1").await;
    assert_eq!(keys(&session, "c", "s CONTAINS 2").await, [2, 3]);
    assert_eq!(
        refused(&session, "SELECT k FROM c WHERE s CONTAINS 2 AND x = 3").await,
        ALLOW_FILTERING
    );
    assert_eq!(
        keys(&session, "c", "s CONTAINS 2 AND x = 3 ALLOW FILTERING").await,
        [3]
    );
}

#[tokio::test]
async fn text_analysis_options_match_as_cassandra() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE w (k int PRIMARY KEY, plain text, ci text, nf text, fold text, \
         every text)",
    )
    .await;
    let rows = [
        (1, "Hello"),
        (2, "hello"),
        (3, "Cre\u{300}me"),
        (4, "Crème"),
        (5, "CRÈME"),
    ];
    for (k, text) in rows {
        run(
            &session,
            &format!(
                "INSERT INTO w (k, plain, ci, nf, fold, every) VALUES ({k}, '{text}', '{text}', '{text}', '{text}', '{text}')"
            ),
        )
        .await;
    }
    run(&session, "CREATE INDEX ON w (plain) USING 'sai'").await;
    run(
        &session,
        "CREATE INDEX ON w (ci) USING 'sai' WITH OPTIONS = {'case_sensitive': false}",
    )
    .await;
    run(
        &session,
        "CREATE INDEX ON w (nf) USING 'sai' WITH OPTIONS = {'normalize': 'true'}",
    )
    .await;
    run(
        &session,
        "CREATE INDEX ON w (fold) USING 'sai' WITH OPTIONS = {'ascii': 'TRUE'}",
    )
    .await;
    run(
        &session,
        "CREATE INDEX ON w (every) USING 'sai' WITH OPTIONS = \
         {'case_sensitive': 'false', 'normalize': 'true', 'ascii': 'true'}",
    )
    .await;
    assert_eq!(keys(&session, "w", "plain = 'hello'").await, [2]);
    assert_eq!(keys(&session, "w", "ci = 'hello'").await, [1, 2]);
    assert_eq!(keys(&session, "w", "ci = 'HELLO'").await, [1, 2]);
    assert_eq!(keys(&session, "w", "nf = 'Crème'").await, [3, 4]);
    // Folding alone leaves a decomposed accent (a combining mark) in place, as Lucene's
    // ASCIIFoldingFilter does; with `normalize` it is composed first, then folded.
    assert_eq!(keys(&session, "w", "fold = 'Creme'").await, [4]);
    assert_eq!(keys(&session, "w", "every = 'creme'").await, [3, 4, 5]);
    // Rows written after the index are analyzed too.
    run(&session, "INSERT INTO w (k, ci) VALUES (6, 'HeLLo')").await;
    assert_eq!(keys(&session, "w", "ci = 'hello'").await, [1, 2, 6]);
    // Collections of text are analyzed element by element.
    run(
        &session,
        "CREATE TABLE tags (k int PRIMARY KEY, s set<text>, m map<text, int>)",
    )
    .await;
    run(
        &session,
        "INSERT INTO tags (k, s, m) VALUES (1, {'Rust', 'Go'}, {'Key': 1})",
    )
    .await;
    run(
        &session,
        "INSERT INTO tags (k, s, m) VALUES (2, {'rust'}, {'key': 2})",
    )
    .await;
    run(
        &session,
        "INSERT INTO tags (k, s, m) VALUES (3, {'Java'}, {'other': 3})",
    )
    .await;
    run(
        &session,
        "CREATE INDEX ON tags (s) USING 'sai' WITH OPTIONS = {'case_sensitive': 'false'}",
    )
    .await;
    run(
        &session,
        "CREATE INDEX ON tags (keys(m)) USING 'sai' WITH OPTIONS = {'case_sensitive': 'false'}",
    )
    .await;
    assert_eq!(keys(&session, "tags", "s CONTAINS 'RUST'").await, [1, 2]);
    assert_eq!(keys(&session, "tags", "m CONTAINS KEY 'KEY'").await, [1, 2]);
    assert_eq!(
        keys(
            &session,
            "tags",
            "s CONTAINS 'rust' AND m CONTAINS KEY 'key'"
        )
        .await,
        [1, 2]
    );
    // Text takes no ranges: filtering, as in Cassandra 5.0.
    assert_eq!(
        refused(&session, "SELECT k FROM w WHERE plain > 'a'").await,
        ALLOW_FILTERING
    );
}

#[tokio::test]
async fn create_index_refusals_use_cassandras_messages() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE r (k int, c text, v int, t text, bl blob, l list<blob>, \
         PRIMARY KEY (k, c))",
    )
    .await;
    let cases = [
        ("CREATE INDEX ON r (bl) USING 'sai'", "Unsupported type: blob"),
        ("CREATE INDEX ON r (values(l)) USING 'sai'", "Unsupported type: blob"),
        (
            "CREATE INDEX ON r (v) USING 'sai' WITH OPTIONS = {'case_sensitive': 'false'}",
            "CQL type int cannot be analyzed.",
        ),
        (
            "CREATE INDEX ON r (c) USING 'sai' WITH OPTIONS = {'case_sensitive': 'false'}",
            "Analysis options are not supported on primary key columns, but found {'case_sensitive': 'false'}",
        ),
        (
            "CREATE INDEX ON r (t) USING 'sai' WITH OPTIONS = {'normalize': 'yes'}",
            "Illegal value for boolean option 'normalize': yes",
        ),
        (
            "CREATE INDEX ON r (t) USING 'sai' WITH OPTIONS = {'ascii': ''}",
            "Empty value for boolean option 'ascii'",
        ),
    ];
    for (cql, expected) in cases {
        assert_eq!(refused(&session, cql).await, expected, "{cql}");
    }
    run(&session, "CREATE INDEX ON r (t) USING 'sai'").await;
    assert_eq!(
        refused(
            &session,
            "CREATE INDEX ON r (t) USING 'sai' WITH OPTIONS = {'case_sensitive': 'false'}"
        )
        .await,
        "Cannot create more than one storage-attached index on the same column: t"
    );
}

#[tokio::test]
async fn paging_returns_sai_results_in_token_order() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TABLE p (k int PRIMARY KEY, v int)").await;
    run(&session, "CREATE INDEX ON p (v) USING 'sai'").await;
    for k in 0..60 {
        run(
            &session,
            &format!("INSERT INTO p (k, v) VALUES ({k}, {})", k % 20),
        )
        .await;
    }
    let cql = "SELECT token(k), k FROM p WHERE v >= 5 AND v < 15";
    let paged: Vec<(i64, i32)> = query_all_pages(&session, cql, 7).await;
    let unpaged: Vec<(i64, i32)> = query_rows(&session, cql, &[]).await;
    assert_eq!(paged.len(), 30);
    assert_eq!(paged, unpaged);
    let tokens: Vec<i64> = paged.iter().map(|(t, _)| *t).collect();
    let mut sorted = tokens.clone();
    sorted.sort();
    assert_eq!(tokens, sorted);
    let expected: BTreeSet<i32> = (0..60).filter(|k| (5..15).contains(&(k % 20))).collect();
    assert_eq!(
        paged.iter().map(|(_, k)| *k).collect::<BTreeSet<_>>(),
        expected
    );
}

#[tokio::test]
async fn describe_and_schema_rows_show_sai_indexes_as_cassandra() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE d (k int PRIMARY KEY, t text, v int)",
    )
    .await;
    run(
        &session,
        "CREATE INDEX ON d (t) USING 'sai' WITH OPTIONS = {'case_sensitive': 'false', 'ascii': 'true'}",
    )
    .await;
    run(
        &session,
        "CREATE CUSTOM INDEX v_idx ON d (v) USING 'StorageAttachedIndex'",
    )
    .await;
    let described: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE INDEX ks.d_t_idx", &[]).await;
    assert_eq!(
        described[0].3,
        "CREATE CUSTOM INDEX d_t_idx ON ks.d (t) USING 'sai' WITH OPTIONS = {'ascii': 'true', 'case_sensitive': 'false'};"
    );
    let described: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE INDEX ks.v_idx", &[]).await;
    assert_eq!(
        described[0].3,
        "CREATE CUSTOM INDEX v_idx ON ks.d (v) USING 'StorageAttachedIndex';"
    );
    let rows: Vec<(String, String, std::collections::HashMap<String, String>)> = query_rows(
        &session,
        "SELECT index_name, kind, options FROM system_schema.indexes WHERE keyspace_name = 'ks' AND table_name = 'd'",
        &[],
    )
    .await;
    let t = rows.iter().find(|r| r.0 == "d_t_idx").expect("d_t_idx");
    assert_eq!(t.1, "CUSTOM");
    let expected: std::collections::HashMap<String, String> = [
        ("class_name", "sai"),
        ("target", "t"),
        ("case_sensitive", "false"),
        ("ascii", "true"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(t.2, expected);
}
