//! Secondary indexes through the driver: CREATE/DROP INDEX with Cassandra's names and
//! errors, indexed queries without ALLOW FILTERING, index entries that follow every kind of
//! write, backfill of existing rows, collection indexes, and reads that touch only the
//! matching rows.

use std::collections::HashMap;

use integration_tests::{query_all_pages, query_error, query_rows, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;

const ALLOW_FILTERING: &str = "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING";

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

async fn keys_where(session: &Session, condition: &str) -> Vec<(i32, i32)> {
    let cql = format!("SELECT k, c FROM t WHERE {condition}");
    let mut rows: Vec<(i32, i32)> = query_rows(session, cql.as_str(), &[]).await;
    rows.sort();
    rows
}

async fn table(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    run(
        &session,
        "CREATE TABLE t (k int, c int, v int, s int static, PRIMARY KEY (k, c))",
    )
    .await;
    session
}

#[tokio::test]
async fn indexed_queries_follow_every_mutation() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "INSERT INTO t (k, c, v) VALUES (1, 1, 10)").await;
    run(&session, "INSERT INTO t (k, c, v) VALUES (2, 1, 10)").await;
    // Without an index a regular column needs ALLOW FILTERING.
    let (code, message) = query_error(&session, "SELECT k, c FROM t WHERE v = 10").await;
    assert_eq!(
        (code, message.as_str()),
        (DbError::Invalid, ALLOW_FILTERING)
    );

    // Backfill: rows written before the index are found.
    run(&session, "CREATE INDEX ON t (v)").await;
    assert_eq!(keys_where(&session, "v = 10").await, [(1, 1), (2, 1)]);

    run(&session, "INSERT INTO t (k, c, v) VALUES (3, 1, 10)").await;
    run(&session, "UPDATE t SET v = 20 WHERE k = 1 AND c = 1").await;
    assert_eq!(keys_where(&session, "v = 10").await, [(2, 1), (3, 1)]);
    assert_eq!(keys_where(&session, "v = 20").await, [(1, 1)]);

    run(&session, "DELETE v FROM t WHERE k = 2 AND c = 1").await;
    run(&session, "DELETE FROM t WHERE k = 3").await;
    assert!(keys_where(&session, "v = 10").await.is_empty());
    run(&session, "INSERT INTO t (k, c, v) VALUES (4, 1, 10)").await;
    run(&session, "INSERT INTO t (k, c, v) VALUES (4, 2, 10)").await;
    run(&session, "DELETE FROM t WHERE k = 4 AND c > 1").await;
    assert_eq!(keys_where(&session, "v = 10").await, [(4, 1)]);

    // Restricted to one partition, and combined with another filter only with ALLOW FILTERING.
    assert_eq!(keys_where(&session, "k = 1 AND v = 20").await, [(1, 1)]);
    let (code, message) =
        query_error(&session, "SELECT k FROM t WHERE v = 10 AND c = 1 AND s = 1").await;
    assert_eq!(
        (code, message.as_str()),
        (DbError::Invalid, ALLOW_FILTERING)
    );
    assert_eq!(
        keys_where(&session, "v = 10 AND s = 1 ALLOW FILTERING").await,
        []
    );

    // Paging through index results one row at a time.
    for k in 10..15 {
        run(
            &session,
            &format!("INSERT INTO t (k, c, v) VALUES ({k}, 1, 30)"),
        )
        .await;
    }
    let paged: Vec<(i32, i32)> =
        query_all_pages(&session, "SELECT k, c FROM t WHERE v = 30", 2).await;
    let unpaged: Vec<(i32, i32)> =
        query_rows(&session, "SELECT k, c FROM t WHERE v = 30", &[]).await;
    assert_eq!(paged.len(), 5);
    assert_eq!(paged, unpaged);
}

#[tokio::test]
async fn an_indexed_lookup_reads_only_matching_rows() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "CREATE INDEX t_v ON t (v)").await;
    for k in 0..50 {
        run(
            &session,
            &format!("INSERT INTO t (k, c, v) VALUES ({k}, 0, {})", k % 10),
        )
        .await;
    }
    let before = server.rows_read();
    assert_eq!(keys_where(&session, "v = 3").await.len(), 5);
    let read = server.rows_read() - before;
    assert!(read <= 10, "read {read} rows for 5 matches");
}

#[tokio::test]
async fn static_and_clustering_column_indexes() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "INSERT INTO t (k, c, v, s) VALUES (1, 1, 1, 7)").await;
    run(&session, "INSERT INTO t (k, c, v) VALUES (1, 2, 2)").await;
    run(&session, "INSERT INTO t (k, c, v, s) VALUES (2, 1, 3, 8)").await;
    run(&session, "CREATE INDEX ON t (s)").await;
    run(&session, "CREATE INDEX ON t (c)").await;
    assert_eq!(keys_where(&session, "s = 7").await, [(1, 1), (1, 2)]);
    run(&session, "UPDATE t SET s = 8 WHERE k = 1").await;
    assert!(keys_where(&session, "s = 7").await.is_empty());
    assert_eq!(
        keys_where(&session, "s = 8").await,
        [(1, 1), (1, 2), (2, 1)]
    );
    assert_eq!(keys_where(&session, "c = 1").await, [(1, 1), (2, 1)]);

    // A partition with only static content matches a static restriction, as Cassandra reads
    // whole partitions when only static columns are restricted.
    run(&session, "INSERT INTO t (k, s) VALUES (3, 9)").await;
    let found: Vec<(i32,)> = query_rows(&session, "SELECT k FROM t WHERE s = 9", &[]).await;
    assert_eq!(found, [(3,)]);
    let filtered: Vec<(i32,)> =
        query_rows(&session, "SELECT k FROM t WHERE s = 9 AND k = 3", &[]).await;
    assert_eq!(filtered, [(3,)]);
    run(&session, "DELETE FROM t WHERE k = 3").await;
    assert!(keys_where(&session, "s = 9").await.is_empty());
}

#[tokio::test]
async fn collection_indexes() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TABLE c (k int PRIMARY KEY, l list<text>, s set<int>, m map<text, int>, f frozen<list<int>>)").await;
    run(
        &session,
        "INSERT INTO c (k, l, s, m, f) VALUES (1, ['a', 'b'], {1, 2}, {'x': 1, 'y': 2}, [1, 2])",
    )
    .await;
    run(
        &session,
        "INSERT INTO c (k, l, s, m, f) VALUES (2, ['b'], {2}, {'x': 2}, [3])",
    )
    .await;
    run(&session, "CREATE INDEX ON c (l)").await;
    run(&session, "CREATE INDEX ON c (values(s))").await;
    run(&session, "CREATE INDEX ON c (keys(m))").await;
    run(&session, "CREATE INDEX ON c (entries(m))").await;
    run(&session, "CREATE INDEX ON c (full(f))").await;
    let keys = |rows: Vec<(i32,)>| {
        let mut keys: Vec<i32> = rows.into_iter().map(|(k,)| k).collect();
        keys.sort();
        keys
    };
    let select = |condition: &str| format!("SELECT k FROM c WHERE {condition}");
    assert_eq!(
        keys(query_rows(&session, select("l CONTAINS 'b'").as_str(), &[]).await),
        [1, 2]
    );
    assert_eq!(
        keys(query_rows(&session, select("s CONTAINS 1").as_str(), &[]).await),
        [1]
    );
    assert_eq!(
        keys(query_rows(&session, select("m CONTAINS KEY 'y'").as_str(), &[]).await),
        [1]
    );
    assert_eq!(
        keys(query_rows(&session, select("m['x'] = 2").as_str(), &[]).await),
        [2]
    );
    assert_eq!(
        keys(query_rows(&session, select("f = [3]").as_str(), &[]).await),
        [2]
    );

    // Element operations keep the entries in step.
    run(&session, "UPDATE c SET l = l - ['b'] WHERE k = 1").await;
    run(&session, "UPDATE c SET m['y'] = 5, s = s + {7} WHERE k = 2").await;
    run(&session, "DELETE m['x'] FROM c WHERE k = 1").await;
    assert_eq!(
        keys(query_rows(&session, select("l CONTAINS 'b'").as_str(), &[]).await),
        [2]
    );
    assert_eq!(
        keys(query_rows(&session, select("m CONTAINS KEY 'y'").as_str(), &[]).await),
        [1, 2]
    );
    assert_eq!(
        keys(query_rows(&session, select("s CONTAINS 7").as_str(), &[]).await),
        [2]
    );
    assert!(keys(query_rows(&session, select("m['x'] = 1").as_str(), &[]).await).is_empty());
}

#[tokio::test]
async fn ddl_names_errors_schema_rows_and_drop() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "CREATE TABLE pk2 (a int, b int, v int, m map<int, int>, f frozen<set<int>>, PRIMARY KEY ((a, b)))").await;
    run(&session, "CREATE INDEX ON t (v)").await;
    run(&session, "CREATE INDEX IF NOT EXISTS ON t (v)").await;
    run(&session, "CREATE INDEX ON pk2 (a)").await;
    let cases = [
        ("CREATE INDEX other ON t (v)", "Index other is a duplicate of existing index t_v_idx"),
        ("CREATE INDEX t_v_idx ON t (c)", "Index 't_v_idx' already exists"),
        ("CREATE INDEX ON t (k)", "Cannot create secondary index on the only partition key column k"),
        ("CREATE INDEX ON pk2 (keys(v))", "Cannot create keys() index on v. Non-collection columns only support simple indexes"),
        ("CREATE INDEX ON pk2 (full(m))", "full() indexes can only be created on frozen collections"),
        ("CREATE INDEX ON pk2 (values(f))", "Cannot create values() index on frozen column f. Frozen collections are immutable and must be fully indexed by using the 'full(f)' modifier"),
        ("DROP INDEX nope", "Index 'ks.nope' doesn't exist'"),
    ];
    for (cql, expected) in cases {
        let (code, message) = query_error(&session, cql).await;
        assert_eq!(
            (code, message.as_str()),
            (DbError::Invalid, expected),
            "{cql}"
        );
    }
    let rows: Vec<(String, String, String, HashMap<String, String>)> = query_rows(
        &session,
        "SELECT table_name, index_name, kind, options FROM system_schema.indexes WHERE keyspace_name = 'ks'",
        &[],
    )
    .await;
    let names: Vec<(&str, &str, &str, &str)> = rows
        .iter()
        .map(|(t, i, k, o)| (t.as_str(), i.as_str(), k.as_str(), o["target"].as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("pk2", "pk2_a_idx", "COMPOSITES", "a"),
            ("t", "t_v_idx", "COMPOSITES", "v")
        ]
    );

    run(
        &session,
        "CREATE CUSTOM INDEX sai_v ON pk2 (v) USING 'StorageAttachedIndex'",
    )
    .await;
    run(&session, "INSERT INTO pk2 (a, b, v) VALUES (1, 2, 3)").await;
    let found: Vec<(i32,)> = query_rows(&session, "SELECT a FROM pk2 WHERE v = 3", &[]).await;
    assert_eq!(found, [(1,)]);

    run(&session, "DROP INDEX t_v_idx").await;
    run(&session, "DROP INDEX IF EXISTS t_v_idx").await;
    let (code, message) = query_error(&session, "SELECT k FROM t WHERE v = 1").await;
    assert_eq!(
        (code, message.as_str()),
        (DbError::Invalid, ALLOW_FILTERING)
    );
    // A second index on the column gets the next free default name.
    run(&session, "CREATE INDEX ON t (v)").await;
    run(&session, "CREATE INDEX t_v_idx_1 ON t (s)").await;
    run(&session, "DROP INDEX t_v_idx").await;
    run(&session, "CREATE INDEX ON t (v)").await;
    let names: Vec<(String,)> = query_rows(
        &session,
        "SELECT index_name FROM system_schema.indexes WHERE keyspace_name = 'ks' AND table_name = 't'",
        &[],
    )
    .await;
    assert_eq!(
        names,
        [("t_v_idx".to_string(),), ("t_v_idx_1".to_string(),)]
    );
}

/// GeminiDB (seed 003) "Use secondary indexes": orders looked up by a non-key column.
#[tokio::test]
async fn geminidb_secondary_index_on_orders() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TABLE orders (userid text, orderid int, amount int, status text, PRIMARY KEY (userid, orderid))").await;
    run(
        &session,
        "INSERT INTO orders (userid, orderid, amount, status) VALUES ('abc', 1, 10, 'paid')",
    )
    .await;
    run(
        &session,
        "INSERT INTO orders (userid, orderid, amount, status) VALUES ('abc', 2, 20, 'new')",
    )
    .await;
    run(
        &session,
        "INSERT INTO orders (userid, orderid, amount, status) VALUES ('xyz', 1, 30, 'paid')",
    )
    .await;
    run(&session, "CREATE INDEX orders_status ON orders (status)").await;
    let mut paid: Vec<(String, i32)> = query_rows(
        &session,
        "SELECT userid, orderid FROM orders WHERE status = 'paid'",
        &[],
    )
    .await;
    paid.sort();
    assert_eq!(paid, [("abc".to_string(), 1), ("xyz".to_string(), 1)]);
    let mine: Vec<(i32,)> = query_rows(
        &session,
        "SELECT orderid FROM orders WHERE userid = 'abc' AND status = 'new'",
        &[],
    )
    .await;
    assert_eq!(mine, [(2,)]);
}

#[tokio::test]
async fn built_indexes_dependent_columns_and_prepared_lookups() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE p (k int PRIMARY KEY, v int, m map<text, int>)",
    )
    .await;
    run(&session, "CREATE INDEX ON p (v)").await;
    run(&session, "CREATE INDEX ON p (keys(m))").await;
    // Built at once, so listed in system."IndexInfo" (keyed by keyspace).
    let built: Vec<(String,)> = query_rows(
        &session,
        "SELECT index_name FROM system.\"IndexInfo\" WHERE table_name = 'ks'",
        &[],
    )
    .await;
    assert_eq!(built, [("p_m_idx".to_string(),), ("p_v_idx".to_string(),)]);
    let (code, message) = query_error(&session, "ALTER TABLE p DROP v").await;
    assert_eq!(
        (code, message.as_str()),
        (
            DbError::Invalid,
            "Cannot drop column v because it has dependent secondary indexes (p_v_idx)"
        )
    );

    run(&session, "INSERT INTO p (k, v, m) VALUES (1, 5, {'a': 1})").await;
    let by_value = session
        .prepare("SELECT k FROM p WHERE v = ?")
        .await
        .unwrap();
    let rows = session.execute_unpaged(&by_value, (5,)).await.unwrap();
    let found: Vec<(i32,)> = rows
        .into_rows_result()
        .unwrap()
        .rows::<(i32,)>()
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(found, [(1,)]);
    let by_key = session
        .prepare("SELECT k FROM p WHERE m CONTAINS KEY ?")
        .await
        .unwrap();
    let spec = by_key.get_variable_col_specs().get_by_index(0).unwrap();
    assert_eq!(spec.name(), "key(m)");
    let rows = session.execute_unpaged(&by_key, ("a",)).await.unwrap();
    assert_eq!(rows.into_rows_result().unwrap().rows_num(), 1);
}

#[tokio::test]
async fn indexed_values_must_be_shorter_than_64_kib() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(
        &session,
        "CREATE TABLE big (k int PRIMARY KEY, v text, m map<text, text>)",
    )
    .await;
    run(&session, "CREATE INDEX ON big (v)").await;
    run(&session, "CREATE INDEX ON big (keys(m))").await;
    let large = "x".repeat(65535);
    let insert = format!("INSERT INTO big (k, v) VALUES (1, '{large}')");
    let (code, message) = query_error(&session, &insert).await;
    assert_eq!(
        (code, message.as_str()),
        (
            DbError::Invalid,
            "Cannot index value of size 65535 for index big_v_idx on ks.big(v) (maximum allowed size=65535)"
        )
    );
    let insert = format!("INSERT INTO big (k, m) VALUES (1, {{'{large}': 'a'}})");
    let (code, _) = query_error(&session, &insert).await;
    assert_eq!(code, DbError::Invalid);
    // Just under the limit is fine, and nothing of the refused writes is stored.
    let fits = "x".repeat(65534);
    run(
        &session,
        &format!("INSERT INTO big (k, v) VALUES (2, '{fits}')"),
    )
    .await;
    let keys: Vec<(i32,)> = query_rows(&session, "SELECT k FROM big", &[]).await;
    assert_eq!(keys, [(2,)]);
}

#[tokio::test]
async fn describe_lists_indexes_after_their_table() {
    let server = TestServer::start().await;
    let session = table(&server).await;
    run(&session, "CREATE INDEX ON t (v)").await;
    run(
        &session,
        "CREATE CUSTOM INDEX s_sai ON t (s) USING 'StorageAttachedIndex'",
    )
    .await;
    let index: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE INDEX t_v_idx", &[]).await;
    assert_eq!(
        index,
        [(
            "ks".to_string(),
            "index".to_string(),
            "t_v_idx".to_string(),
            "CREATE INDEX t_v_idx ON ks.t (v);".to_string()
        )]
    );
    let table: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE TABLE t", &[]).await;
    let kinds: Vec<(&str, &str)> = table
        .iter()
        .map(|(_, kind, name, _)| (kind.as_str(), name.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [("table", "t"), ("index", "t_v_idx"), ("index", "s_sai")]
    );
    assert_eq!(
        table[2].3,
        "CREATE CUSTOM INDEX s_sai ON ks.t (s) USING 'StorageAttachedIndex';"
    );
}

#[tokio::test]
async fn a_clustering_index_serves_its_column_out_of_prefix_order() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE cc (p int, c1 int, c2 int, v int, PRIMARY KEY (p, c1, c2))",
    )
    .await;
    for (p, c1, c2) in [(0, 1, 1), (0, 0, 1), (0, 1, 0), (1, 5, 1)] {
        run(
            &session,
            &format!("INSERT INTO cc (p, c1, c2, v) VALUES ({p}, {c1}, {c2}, 0)"),
        )
        .await;
    }
    let (code, message) = query_error(&session, "SELECT p FROM cc WHERE p = 0 AND c2 = 1").await;
    assert_eq!(
        (code, message.as_str()),
        (
            DbError::Invalid,
            "PRIMARY KEY column \"c2\" cannot be restricted as preceding column \"c1\" is not restricted"
        )
    );
    run(&session, "CREATE INDEX ON cc (c2)").await;
    let within: Vec<(i32,)> =
        query_rows(&session, "SELECT c1 FROM cc WHERE p = 0 AND c2 = 1", &[]).await;
    assert_eq!(within, [(0,), (1,)]);
    let mut everywhere: Vec<(i32, i32)> =
        query_rows(&session, "SELECT p, c1 FROM cc WHERE c2 = 1", &[]).await;
    everywhere.sort();
    assert_eq!(everywhere, [(0, 0), (0, 1), (1, 5)]);
    // A second clustering restriction is filtering, with or without the partition key;
    // so is IN, which indexes do not serve.
    for cql in [
        "SELECT p FROM cc WHERE c1 = 1 AND c2 = 1",
        "SELECT p FROM cc WHERE p = 0 AND c1 > 0 AND c2 = 1",
    ] {
        let (code, message) = query_error(&session, cql).await;
        assert_eq!(
            (code, message.as_str()),
            (DbError::Invalid, ALLOW_FILTERING),
            "{cql}"
        );
    }
    let sliced: Vec<(i32,)> = query_rows(
        &session,
        "SELECT c1 FROM cc WHERE p = 0 AND c1 > 0 AND c2 = 1 ALLOW FILTERING",
        &[],
    )
    .await;
    assert_eq!(sliced, [(1,)]);
    run(&session, "CREATE INDEX ON cc (v)").await;
    let (code, message) = query_error(&session, "SELECT p FROM cc WHERE v IN (0, 7)").await;
    assert_eq!(
        (code, message.as_str()),
        (DbError::Invalid, ALLOW_FILTERING)
    );
    let rows: Vec<(i32,)> = query_rows(
        &session,
        "SELECT p FROM cc WHERE v IN (0, 7) ALLOW FILTERING",
        &[],
    )
    .await;
    assert_eq!(rows.len(), 4);
}

/// Without a partition key, a multi-column equality is its columns' equalities: an index on
/// one of them serves it (`(c1) = (1)` needs no ALLOW FILTERING), the other columns filter,
/// and the indexed value is held to the 64 KiB limit. With the partition key it stays a
/// clustering prefix.
#[tokio::test]
async fn an_index_serves_a_multi_column_equality_on_its_column() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE mc (p int, c1 int, c2 int, v int, PRIMARY KEY (p, c1, c2))",
    )
    .await;
    for (p, c1, c2, v) in [(0, 1, 1, 1), (0, 0, 1, 2), (0, 1, 0, 3), (1, 1, 1, 4)] {
        run(
            &session,
            &format!("INSERT INTO mc (p, c1, c2, v) VALUES ({p}, {c1}, {c2}, {v})"),
        )
        .await;
    }
    let (code, message) = query_error(&session, "SELECT v FROM mc WHERE (c1) = (1)").await;
    assert_eq!(
        (code, message.as_str()),
        (DbError::Invalid, ALLOW_FILTERING)
    );
    run(&session, "CREATE INDEX ON mc (c1)").await;
    run(&session, "CREATE INDEX ON mc (v)").await;
    let mut served: Vec<(i32,)> =
        query_rows(&session, "SELECT v FROM mc WHERE (c1) = (1)", &[]).await;
    served.sort();
    assert_eq!(served, [(1,), (3,), (4,)]);
    for needs_filtering in [
        "SELECT v FROM mc WHERE (c1, c2) = (1, 1)",
        "SELECT v FROM mc WHERE (c1, c2) = (1, 1) AND v = 4",
    ] {
        let (code, message) = query_error(&session, needs_filtering).await;
        assert_eq!(
            (code, message.as_str()),
            (DbError::Invalid, ALLOW_FILTERING),
            "{needs_filtering}"
        );
    }
    let mut filtered: Vec<(i32,)> = query_rows(
        &session,
        "SELECT v FROM mc WHERE (c1, c2) = (1, 1) ALLOW FILTERING",
        &[],
    )
    .await;
    filtered.sort();
    assert_eq!(filtered, [(1,), (4,)]);
    let prefix: Vec<(i32,)> = query_rows(
        &session,
        "SELECT v FROM mc WHERE p = 0 AND (c1, c2) = (1, 1) AND v = 1",
        &[],
    )
    .await;
    assert_eq!(prefix, [(1,)]);

    run(
        &session,
        "CREATE TABLE mb (p int, b blob, c int, d int, PRIMARY KEY (p, b, c))",
    )
    .await;
    run(&session, "CREATE INDEX ON mb (b)").await;
    let too_big = vec![7u8; 65 * 1024];
    let err = session
        .query_unpaged(
            "SELECT * FROM mb WHERE (b, c) = (?, ?) AND d = ? ALLOW FILTERING",
            (too_big, 1, 2),
        )
        .await
        .expect_err("a 65 KiB index expression");
    assert_eq!(
        integration_tests::db_error(&err),
        Some((
            DbError::Invalid,
            "Index expression values may not be larger than 64K".to_string()
        ))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn indexes_and_their_entries_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = || server::Config {
        data_dir: Some(dir.path().to_path_buf()),
        ..server::Config::default()
    };
    let server = TestServer::start_with(config()).await;
    {
        let session = table(&server).await;
        run(&session, "CREATE INDEX ON t (v)").await;
        for k in 0..20 {
            run(
                &session,
                &format!("INSERT INTO t (k, c, v) VALUES ({k}, 0, {})", k % 2),
            )
            .await;
        }
        run(&session, "UPDATE t SET v = 1 WHERE k = 0 AND c = 0").await;
    }
    server.stop().await;
    let server = TestServer::start_with(config()).await;
    let session = server.session().await;
    session.use_keyspace("ks", false).await.unwrap();
    let even = keys_where(&session, "v = 0").await;
    assert_eq!(even.len(), 9);
    assert!(!even.contains(&(0, 0)));
    assert_eq!(keys_where(&session, "v = 1").await.len(), 11);
    server.stop().await;
}
