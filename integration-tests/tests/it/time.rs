//! Time through the driver: cell timestamps and last-write-wins, row liveness, `writetime()`
//! and `ttl()`, TTL expiry and the purge that reclaims space — with the server's clock moved
//! forward instead of sleeping. Includes Alibaba Table Store's version scenarios: an
//! explicitly older version does not overwrite a newer one, data expires after its TTL, and
//! `writetime` returns the version written.

use std::time::Duration;

use integration_tests::{
    query_all_pages, query_error, query_rows, query_single_row, session_in, TestServer,
};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::statement::unprepared::Statement;

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

async fn value_and_writetime(session: &Session, k: i32) -> Vec<(Option<String>, Option<i64>)> {
    query_rows(session, "SELECT v, writetime(v) FROM t WHERE k = ?", &(k,)).await
}

#[tokio::test]
async fn explicit_versions_reconcile_as_cassandra_does() {
    let server = TestServer::start().await;
    let session = session_in(&server, "versions").await;
    run(&session, "CREATE TABLE t (k int PRIMARY KEY, v text)").await;

    // Table Store: an explicitly older version does not overwrite a newer one, and writetime
    // returns the version written.
    run(
        &session,
        "INSERT INTO t (k, v) VALUES (1, 'new') USING TIMESTAMP 2000",
    )
    .await;
    run(
        &session,
        "INSERT INTO t (k, v) VALUES (1, 'old') USING TIMESTAMP 1000",
    )
    .await;
    assert_eq!(
        value_and_writetime(&session, 1).await,
        [(Some("new".into()), Some(2000))]
    );
    // Equal timestamps: the greater value wins, whatever the arrival order.
    run(
        &session,
        "INSERT INTO t (k, v) VALUES (1, 'zzz') USING TIMESTAMP 2000",
    )
    .await;
    run(
        &session,
        "INSERT INTO t (k, v) VALUES (1, 'aaa') USING TIMESTAMP 2000",
    )
    .await;
    assert_eq!(
        value_and_writetime(&session, 1).await,
        [(Some("zzz".into()), Some(2000))]
    );
    // An older delete changes nothing; a delete at the same timestamp wins the tie.
    run(&session, "DELETE FROM t USING TIMESTAMP 1999 WHERE k = 1").await;
    assert_eq!(value_and_writetime(&session, 1).await.len(), 1);
    run(&session, "DELETE FROM t USING TIMESTAMP 2000 WHERE k = 1").await;
    assert!(value_and_writetime(&session, 1).await.is_empty());
    // Writes older than the delete stay shadowed; a newer one comes back.
    run(
        &session,
        "INSERT INTO t (k, v) VALUES (1, 'late') USING TIMESTAMP 1500",
    )
    .await;
    assert!(value_and_writetime(&session, 1).await.is_empty());
    run(
        &session,
        "UPDATE t USING TIMESTAMP 2001 SET v = 'again' WHERE k = 1",
    )
    .await;
    assert_eq!(
        value_and_writetime(&session, 1).await,
        [(Some("again".into()), Some(2001))]
    );

    // The protocol's default timestamp is used when the statement has none.
    let mut insert = Statement::new("INSERT INTO t (k, v) VALUES (2, 'proto')");
    insert.set_timestamp(Some(4242));
    session.query_unpaged(insert, &[]).await.unwrap();
    assert_eq!(
        value_and_writetime(&session, 2).await,
        [(Some("proto".into()), Some(4242))]
    );
    // Server-side timestamps are microseconds of the node's clock and keep increasing.
    run(&session, "INSERT INTO t (k, v) VALUES (3, 'a')").await;
    let first = value_and_writetime(&session, 3).await[0].1.unwrap();
    run(&session, "INSERT INTO t (k, v) VALUES (3, 'b')").await;
    let second = value_and_writetime(&session, 3).await[0].1.unwrap();
    assert!(
        second > first && first > 1_600_000_000_000_000,
        "{first} {second}"
    );

    let (error, message) = query_error(
        &session,
        "INSERT INTO t (k, v) VALUES (4, 'x') USING TIMESTAMP -9223372036854775808",
    )
    .await;
    assert_eq!(error, DbError::Invalid);
    assert_eq!(
        message,
        "Out of bound timestamp, must be in [-9223372036854775807, 9223372036854775807]"
    );
}

#[tokio::test]
async fn insert_writes_a_row_marker_and_update_does_not() {
    let server = TestServer::start().await;
    let session = session_in(&server, "liveness").await;
    run(&session, "CREATE TABLE t (k int PRIMARY KEY, v text)").await;
    // An INSERTed row with only its key stays, with null columns.
    run(&session, "INSERT INTO t (k) VALUES (1)").await;
    run(&session, "INSERT INTO t (k, v) VALUES (2, 'x')").await;
    run(&session, "DELETE v FROM t WHERE k = 2").await;
    // A row created by UPDATE lives only through its cells.
    run(&session, "UPDATE t SET v = 'y' WHERE k = 3").await;
    run(&session, "UPDATE t SET v = 'z' WHERE k = 4").await;
    run(&session, "DELETE v FROM t WHERE k = 4").await;
    let mut rows: Vec<(i32, Option<String>)> =
        query_rows(&session, "SELECT k, v FROM t", &()).await;
    rows.sort();
    assert_eq!(rows, [(1, None), (2, None), (3, Some("y".to_string()))]);
}

#[tokio::test]
async fn ttls_expire_on_the_servers_clock() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ttls").await;
    run(
        &session,
        "CREATE TABLE t (k int PRIMARY KEY, v text, w text)",
    )
    .await;
    run(
        &session,
        "INSERT INTO t (k, v, w) VALUES (1, 'a', 'b') USING TTL 100",
    )
    .await;
    run(&session, "INSERT INTO t (k, v) VALUES (2, 'c')").await;
    run(&session, "UPDATE t USING TTL 50 SET w = 'd' WHERE k = 2").await;
    let ttls: Vec<(Option<i32>, Option<i32>)> =
        query_rows(&session, "SELECT ttl(v), ttl(w) FROM t WHERE k = 1", &()).await;
    let (Some(v_ttl), Some(w_ttl)) = ttls[0] else {
        panic!("{ttls:?}")
    };
    assert!((99..=100).contains(&v_ttl) && v_ttl == w_ttl, "{ttls:?}");

    server.advance_clock(Duration::from_secs(60));
    // k = 2 keeps its row (INSERT without TTL) but w has expired.
    let rows: Vec<(Option<String>, Option<String>, Option<i32>)> =
        query_rows(&session, "SELECT v, w, ttl(v) FROM t WHERE k = 2", &()).await;
    assert_eq!(rows, [(Some("c".into()), None, None)]);
    let ttls: Vec<(Option<i32>,)> =
        query_rows(&session, "SELECT ttl(v) FROM t WHERE k = 1", &()).await;
    let left = ttls[0].0.unwrap();
    assert!((39..=40).contains(&left), "{left}");

    server.advance_clock(Duration::from_secs(41));
    let rows: Vec<(i32,)> = query_rows(&session, "SELECT k FROM t", &()).await;
    assert_eq!(rows, [(2,)]);

    // The table default applies unless the statement says otherwise; TTL 0 means none.
    run(
        &session,
        "CREATE TABLE d (k int PRIMARY KEY, v int) WITH default_time_to_live = 30",
    )
    .await;
    run(&session, "INSERT INTO d (k, v) VALUES (1, 1)").await;
    run(&session, "INSERT INTO d (k, v) VALUES (2, 2) USING TTL 0").await;
    run(&session, "INSERT INTO d (k, v) VALUES (3, 3) USING TTL 500").await;
    let mut ttls: Vec<(i32, Option<i32>)> =
        query_rows(&session, "SELECT k, ttl(v) FROM d", &()).await;
    ttls.sort();
    // A second boundary may pass between the write and the read (`ttl` counts whole seconds
    // left), as the checks above allow.
    let [(1, Some(one)), (2, None), (3, Some(three))] = ttls[..] else {
        panic!("{ttls:?}")
    };
    assert!(
        (29..=30).contains(&one) && (499..=500).contains(&three),
        "{ttls:?}"
    );
    server.advance_clock(Duration::from_secs(31));
    let mut left: Vec<(i32,)> = query_rows(&session, "SELECT k FROM d", &()).await;
    left.sort();
    assert_eq!(left, [(2,), (3,)]);

    for (cql, expected) in [
        (
            "INSERT INTO t (k, v) VALUES (9, 'x') USING TTL 630720001",
            "ttl is too large. requested (630720001) maximum (630720000)",
        ),
        (
            "INSERT INTO t (k, v) VALUES (9, 'x') USING TTL -1",
            "A TTL must be greater or equal to 0, but was -1",
        ),
        (
            "SELECT writetime(k) FROM t",
            "Cannot use selection function writetime on PRIMARY KEY part k",
        ),
    ] {
        let (error, message) = query_error(&session, cql).await;
        assert_eq!(
            (error, message.as_str()),
            (DbError::Invalid, expected),
            "{cql}"
        );
    }
    let (_, message) = query_error(&session, "SELECT maxwritetime(k) FROM t").await;
    assert_eq!(
        message,
        "Cannot use selection function maxwritetime on PRIMARY KEY part k"
    );
}

/// Cassandra 5.0's write times and TTLs of non-frozen collections and UDTs: one list entry
/// per live element or field (a null TTL for an element written without one), and
/// `maxwritetime` the latest of them.
#[tokio::test]
async fn write_times_and_ttls_of_collections_and_udts() {
    let server = TestServer::start().await;
    let session = session_in(&server, "times").await;
    run(&session, "CREATE TYPE pt (x int, y int)").await;
    run(
        &session,
        "CREATE TABLE l (k int PRIMARY KEY, v int, l list<int>, m map<int, int>, p pt)",
    )
    .await;
    run(
        &session,
        "INSERT INTO l (k, v, l, m, p) VALUES (1, 1, [1, 2], {1: 1}, {x: 1, y: 2}) \
         USING TIMESTAMP 1000 AND TTL 5000",
    )
    .await;
    run(
        &session,
        "UPDATE l USING TIMESTAMP 3000 SET m[2] = 2 WHERE k = 1",
    )
    .await;
    let (l, m, p, max_m, max_v): (Vec<i64>, Vec<i64>, Vec<i64>, i64, i64) = query_single_row(
        &session,
        "SELECT writetime(l), writetime(m), writetime(p), maxwritetime(m), maxwritetime(v) \
         FROM l WHERE k = 1",
        &[],
    )
    .await;
    assert_eq!(
        (l, m, p, max_m, max_v),
        (
            vec![1000, 1000],
            vec![1000, 3000],
            vec![1000, 1000],
            3000,
            1000
        )
    );
    let (ttls,): (Vec<Option<i32>>,) =
        query_single_row(&session, "SELECT ttl(m) FROM l WHERE k = 1", &[]).await;
    assert_eq!(ttls.len(), 2);
    assert!(ttls[0].is_some_and(|t| t > 4900 && t <= 5000), "{ttls:?}");
    assert_eq!(ttls[1], None);
    run(&session, "INSERT INTO l (k, v) VALUES (2, 2)").await;
    let (empty,): (Option<Vec<i64>>,) =
        query_single_row(&session, "SELECT writetime(l) FROM l WHERE k = 2", &[]).await;
    assert_eq!(empty, None);
}

#[tokio::test]
async fn purge_reclaims_expired_and_deleted_data() {
    let server = TestServer::start().await;
    let session = session_in(&server, "purge").await;
    run(
        &session,
        "CREATE TABLE t (k int, c int, v blob, PRIMARY KEY (k, c)) WITH gc_grace_seconds = 5",
    )
    .await;
    let insert = session
        .prepare("INSERT INTO t (k, c, v) VALUES (?, ?, ?) USING TTL ?")
        .await
        .unwrap();
    let blob = vec![7u8; 1024];
    for c in 0..200 {
        // Partition 1: 190 rows that expire and 10 that do not.
        let ttl: i32 = if c < 190 { 10 } else { 0 };
        session
            .execute_unpaged(&insert, (1, c, &blob, ttl))
            .await
            .unwrap();
        // Partition 2 is deleted as a whole below.
        session
            .execute_unpaged(&insert, (2, c, &blob, 0))
            .await
            .unwrap();
    }
    run(&session, "DELETE FROM t WHERE k = 2").await;
    let before = server.table_stats("purge", "t");
    assert_eq!((before.rows, before.tombstoned_partitions), (400, 1));

    // Nothing has expired yet, but the deleted partition's rows are shadowed data: they go,
    // while its tombstone stays until gc_grace_seconds has passed. (With a grace of 0 it went
    // whenever the wall clock's second changed between the DELETE and this purge, as it did
    // once on a loaded machine.)
    let report = server.purge().await;
    assert_eq!((report.rows_removed, report.rows_rewritten), (200, 0));
    assert_eq!(report.range_tombstones_removed, 0);
    assert_eq!(server.table_stats("purge", "t").tombstoned_partitions, 1);

    server.advance_clock(Duration::from_secs(11));
    let report = server.purge().await;
    assert_eq!(report.rows_removed, 190);
    assert_eq!(report.range_tombstones_removed, 1);
    let after = server.table_stats("purge", "t");
    assert_eq!((after.rows, after.tombstoned_partitions), (10, 0));
    assert!(
        after.stored_bytes * 10 < before.stored_bytes,
        "{before:?} -> {after:?}"
    );
    // Reads agree before and after: the 10 rows without TTL, in order.
    let rows: Vec<(i32, i32)> = query_all_pages(&session, "SELECT k, c FROM t", 3).await;
    let expected: Vec<(i32, i32)> = (190..200).map(|c| (1, c)).collect();
    assert_eq!(rows, expected);
}

#[tokio::test]
async fn expired_cells_wait_for_gc_grace_as_tombstones() {
    let server = TestServer::start().await;
    let session = session_in(&server, "grace").await;
    // The default gc_grace_seconds: 10 days.
    run(&session, "CREATE TABLE t (k int PRIMARY KEY, v blob)").await;
    let insert = session
        .prepare("INSERT INTO t (k, v) VALUES (?, ?) USING TTL 5")
        .await
        .unwrap();
    for k in 0..50 {
        session
            .execute_unpaged(&insert, (k, vec![1u8; 2048]))
            .await
            .unwrap();
    }
    let before = server.table_stats("grace", "t");
    server.advance_clock(Duration::from_secs(6));
    let report = server.purge().await;
    // The values are gone at once; the rows stay as tombstones until gc_grace has passed.
    assert_eq!((report.rows_rewritten, report.rows_removed), (50, 0));
    let tombstones = server.table_stats("grace", "t");
    assert_eq!(tombstones.rows, 50);
    assert!(tombstones.stored_bytes * 10 < before.stored_bytes);
    // An older write is still shadowed by the tombstone an expired cell became.
    assert!(query_rows::<(i32,)>(&session, "SELECT k FROM t", &())
        .await
        .is_empty());

    server.advance_clock(Duration::from_secs(10 * 24 * 3600));
    let report = server.purge().await;
    assert_eq!(report.rows_removed, 50);
    assert_eq!(server.table_stats("grace", "t").rows, 0);
}

#[tokio::test]
async fn tombstones_hold_across_pages_and_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_in(dir.path()).await;
    let session = session_in(&server, "tomb").await;
    run(
        &session,
        "CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))",
    )
    .await;
    for c in 0..30 {
        run(
            &session,
            &format!("INSERT INTO t (k, c, v) VALUES (1, {c}, {c}) USING TIMESTAMP 100"),
        )
        .await;
    }
    // Row deletes of every third row, a slice, and a cell delete — all timestamped.
    for c in (0..30).step_by(3) {
        run(
            &session,
            &format!("DELETE FROM t USING TIMESTAMP 200 WHERE k = 1 AND c = {c}"),
        )
        .await;
    }
    run(
        &session,
        "DELETE FROM t USING TIMESTAMP 200 WHERE k = 1 AND c >= 20 AND c < 26",
    )
    .await;
    run(
        &session,
        "DELETE v FROM t USING TIMESTAMP 200 WHERE k = 1 AND c = 1",
    )
    .await;
    // An older write under the slice stays deleted.
    run(
        &session,
        "INSERT INTO t (k, c, v) VALUES (1, 21, 0) USING TIMESTAMP 150",
    )
    .await;
    let expected: Vec<(i32, Option<i32>)> = (0..30)
        .filter(|c| c % 3 != 0 && !(20..26).contains(c))
        .map(|c| (c, (c != 1).then_some(c)))
        .collect();
    let paged: Vec<(i32, Option<i32>)> =
        query_all_pages(&session, "SELECT c, v FROM t WHERE k = 1", 4).await;
    assert_eq!(paged, expected);
    drop(session);
    server.stop().await;

    let server = TestServer::start_in(dir.path()).await;
    let session = server.session().await;
    let paged: Vec<(i32, Option<i32>)> =
        query_all_pages(&session, "SELECT c, v FROM tomb.t WHERE k = 1", 5).await;
    assert_eq!(paged, expected);
}

#[tokio::test]
async fn expired_values_leave_their_index_at_the_purge() {
    let server = TestServer::start().await;
    let session = session_in(&server, "indexed").await;
    run(
        &session,
        "CREATE TABLE t (k int PRIMARY KEY, v text) WITH gc_grace_seconds = 0",
    )
    .await;
    run(&session, "CREATE INDEX ON t (v)").await;
    for k in 0..20 {
        run(
            &session,
            &format!("INSERT INTO t (k, v) VALUES ({k}, 'x') USING TTL 10"),
        )
        .await;
    }
    run(&session, "INSERT INTO t (k, v) VALUES (100, 'x')").await;
    let lookup = "SELECT k FROM t WHERE v = 'x'";
    assert_eq!(query_rows::<(i32,)>(&session, lookup, &()).await.len(), 21);

    server.advance_clock(Duration::from_secs(11));
    // Expired values are never returned: each entry is checked against its row.
    let before = server.rows_read();
    assert_eq!(query_rows::<(i32,)>(&session, lookup, &()).await, [(100,)]);
    assert_eq!(
        server.rows_read() - before,
        21,
        "stale entries still point at rows"
    );

    // The purge removes the rows and their index entries together.
    assert_eq!(server.purge().await.rows_removed, 20);
    let before = server.rows_read();
    assert_eq!(query_rows::<(i32,)>(&session, lookup, &()).await, [(100,)]);
    assert_eq!(server.rows_read() - before, 1);
}

/// Durations have no order: slices on them are refused with Cassandra 5.0's messages, by the
/// column's type; equality still filters.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slices_on_durations_are_refused_as_cassandra() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE ks.d (k int PRIMARY KEY, d duration, l list<duration>, \
         t tuple<int, duration>)",
    )
    .await;
    run(&session, "INSERT INTO ks.d (k, d) VALUES (0, 1s)").await;
    for (query, message) in [
        (
            "SELECT * FROM ks.d WHERE d > 1s ALLOW FILTERING",
            "Slice restrictions are not supported on duration columns",
        ),
        (
            "SELECT * FROM ks.d WHERE d <= 1s ALLOW FILTERING",
            "Slice restrictions are not supported on duration columns",
        ),
        (
            "SELECT * FROM ks.d WHERE l >= [1s] ALLOW FILTERING",
            "Slice restrictions are not supported on collections containing durations",
        ),
        (
            "SELECT * FROM ks.d WHERE t < (1, 1s) ALLOW FILTERING",
            "Slice restrictions are not supported on tuples containing durations",
        ),
    ] {
        let (code, got) = query_error(&session, query).await;
        assert_eq!(code, DbError::Invalid, "{query}");
        assert_eq!(got, message, "{query}");
    }
    let rows: Vec<(i32,)> = query_rows(
        &session,
        "SELECT k FROM ks.d WHERE d = 1s ALLOW FILTERING",
        (),
    )
    .await;
    assert_eq!(rows, [(0,)]);
    server.stop().await;
}
