//! Huawei GeminiDB Cassandra API (seed 003), "Designing Primary Keys for a Wide Table". The
//! document writes keys as `[a][b][c]`: the first column is the partition key and the rest are
//! clustering columns, used left to right.
//
// Not here: "Use secondary indexes" and "the index column" are in `indexes.rs`
// (`geminidb_secondary_index_on_orders`). Its other advice, "Create an index table", is the
// seller/buyer/order tables below.

use futures::TryStreamExt;
use integration_tests::{query_error, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::statement::batch::{Batch, BatchType};
use scylla::value::CqlTimestamp;

use super::{
    assert_invalid, hash, in_token_order, prepare, rows, run_all, sorted, write, ALLOW_FILTERING,
};

/// The `[userid][orderid]` table named `table` (in the clustering order `order`), with six orders
/// of user `abc` and two of `xyz`: (orderid, amount, status).
async fn orders(session: &Session, table: &str, order: &str) {
    run_all(
        session,
        &[&format!("CREATE TABLE {table} (userid text, orderid int, amount int, status text, PRIMARY KEY (userid, orderid)) WITH CLUSTERING ORDER BY (orderid {order})")],
    )
    .await;
    let insert = prepare(
        session,
        &format!("INSERT INTO {table} (userid, orderid, amount, status) VALUES (?, ?, ?, ?)"),
    )
    .await;
    for values in [
        ("abc", 300, 40, "paid"),
        ("abc", 100, 10, "paid"),
        ("xyz", 150, 70, "paid"),
        ("abc", 456, 50, "open"),
        ("abc", 123, 20, "paid"),
        ("abc", 500, 60, "paid"),
        ("xyz", 300, 80, "open"),
        ("abc", 200, 30, "open"),
    ] {
        write(session, &insert, values).await;
    }
}

/// (orderid, amount, status).
type Order = (i32, i32, String);

fn order(id: i32, amount: i32, status: &str) -> Order {
    (id, amount, status.into())
}

/// GeminiDB, "[userid]: Only one column is specified as the primary key. Only one record is
/// generated for each user", and "Different versions of a row use the same primary key value. By
/// default, the latest version is returned".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geminidb_single_column_key_keeps_one_record_per_user() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE users (userid text PRIMARY KEY, name text, city text)"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO users (userid, name, city) VALUES (?, ?, ?)",
    )
    .await;
    write(&session, &insert, ("abc", "Ann", "Oslo")).await;
    write(&session, &insert, ("xyz", "Xu", "Lima")).await;
    write(&session, &insert, ("abc", "Ann B", "Rome")).await;
    let rename = prepare(&session, "UPDATE users SET name = ? WHERE userid = ?").await;
    write(&session, &rename, ("Ann C", "abc")).await;
    let by_user = prepare(
        &session,
        "SELECT userid, name, city FROM users WHERE userid = ?",
    )
    .await;
    assert_eq!(
        rows::<(String, String, String)>(&session, &by_user, ("abc",)).await,
        vec![("abc".into(), "Ann C".into(), "Rome".into())]
    );
    let count = prepare(&session, "SELECT count(*) FROM users").await;
    assert_eq!(rows::<(i64,)>(&session, &count, ()).await, vec![(2,)]);
}

/// GeminiDB, `[userid][orderid]`: the full-key query `SELECT * FROM table WHERE userid='abc' AND
/// orderid=123`, the range query `userid='abc' AND 123<orderid<456` (in CQL, two bounds),
/// `ORDER BY orderid DESC`, extra conditions on non-key columns filtering the range, and the
/// failures when the first key column is left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geminidb_orders_point_range_and_order_by_desc() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    orders(&session, "orders", "ASC").await;
    let columns = "SELECT orderid, amount, status FROM orders";
    let point = prepare(
        &session,
        &format!("{columns} WHERE userid = ? AND orderid = ?"),
    )
    .await;
    assert_eq!(
        rows::<Order>(&session, &point, ("abc", 123)).await,
        vec![order(123, 20, "paid")]
    );
    assert!(rows::<Order>(&session, &point, ("xyz", 123))
        .await
        .is_empty());
    let range = prepare(
        &session,
        &format!("{columns} WHERE userid = ? AND orderid > ? AND orderid < ?"),
    )
    .await;
    assert_eq!(
        rows::<Order>(&session, &range, ("abc", 123, 456)).await,
        vec![order(200, 30, "open"), order(300, 40, "paid")]
    );
    assert_eq!(
        rows::<Order>(&session, &range, ("xyz", 123, 456)).await,
        vec![order(150, 70, "paid"), order(300, 80, "open")]
    );
    let newest_first = prepare(
        &session,
        &format!(
            "{columns} WHERE userid = ? AND orderid > ? AND orderid < ? ORDER BY orderid DESC"
        ),
    )
    .await;
    assert_eq!(
        rows::<Order>(&session, &newest_first, ("abc", 123, 456)).await,
        vec![order(300, 40, "paid"), order(200, 30, "open")]
    );
    let whole_desc = prepare(
        &session,
        &format!("{columns} WHERE userid = ? ORDER BY orderid DESC LIMIT 3"),
    )
    .await;
    assert_eq!(
        rows::<Order>(&session, &whole_desc, ("abc",)).await,
        vec![
            order(500, 60, "paid"),
            order(456, 50, "open"),
            order(300, 40, "paid"),
        ]
    );
    // "Specify columns that you want to scan other than the primary key columns in the query
    // conditions. Irrelevant data is automatically filtered out."
    let paid = prepare(
        &session,
        &format!("{columns} WHERE userid = ? AND orderid > ? AND orderid < ? AND status = ? ALLOW FILTERING"),
    )
    .await;
    assert_eq!(
        rows::<Order>(&session, &paid, ("abc", 100, 500, "paid")).await,
        vec![order(123, 20, "paid"), order(300, 40, "paid")]
    );
    assert_invalid(
        &session,
        "SELECT * FROM orders WHERE userid = 'abc' AND orderid > 100 AND status = 'paid'",
        ALLOW_FILTERING,
    )
    .await;
    // "you need to specify the range that you want to scan in the first primary key column".
    assert_invalid(
        &session,
        "SELECT * FROM orders WHERE orderid > 123 AND orderid < 456",
        ALLOW_FILTERING,
    )
    .await;
    // The document's shorthand `123<orderid<456` is not CQL: Cassandra's parser rejects it.
    let (code, _) = query_error(
        &session,
        "SELECT * FROM orders WHERE userid='abc' AND 123<orderid<456",
    )
    .await;
    assert_eq!(code, DbError::SyntaxError);
}

/// GeminiDB, "When most queries are submitted to retrieve the up-to-date data, you can design the
/// primary key as [userid][orderid DESC]": `WITH CLUSTERING ORDER BY (orderid DESC)` returns the
/// newest orders first with no ORDER BY, in ranges, under LIMIT and across pages; ORDER BY
/// orderid ASC turns it around.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geminidb_orders_desc_clustering_returns_newest_first() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    orders(&session, "orders", "DESC").await;
    let columns = "SELECT orderid, amount, status FROM orders";
    let all = prepare(&session, &format!("{columns} WHERE userid = ?")).await;
    let newest_first = vec![
        order(500, 60, "paid"),
        order(456, 50, "open"),
        order(300, 40, "paid"),
        order(200, 30, "open"),
        order(123, 20, "paid"),
        order(100, 10, "paid"),
    ];
    assert_eq!(rows::<Order>(&session, &all, ("abc",)).await, newest_first);
    let range = prepare(
        &session,
        &format!("{columns} WHERE userid = ? AND orderid > ? AND orderid < ?"),
    )
    .await;
    assert_eq!(
        rows::<Order>(&session, &range, ("abc", 123, 456)).await,
        vec![order(300, 40, "paid"), order(200, 30, "open")]
    );
    let latest = prepare(&session, &format!("{columns} WHERE userid = ? LIMIT ?")).await;
    assert_eq!(
        rows::<Order>(&session, &latest, ("abc", 2)).await,
        newest_first[..2].to_vec()
    );
    let oldest_first = prepare(
        &session,
        &format!("{columns} WHERE userid = ? AND orderid > ? AND orderid < ? ORDER BY orderid ASC"),
    )
    .await;
    assert_eq!(
        rows::<Order>(&session, &oldest_first, ("abc", 123, 456)).await,
        vec![order(200, 30, "open"), order(300, 40, "paid")]
    );
    let explicit_desc = prepare(
        &session,
        &format!(
            "{columns} WHERE userid = ? AND orderid > ? AND orderid < ? ORDER BY orderid DESC"
        ),
    )
    .await;
    assert_eq!(
        rows::<Order>(&session, &explicit_desc, ("abc", 123, 456)).await,
        vec![order(300, 40, "paid"), order(200, 30, "open")]
    );
    // An application reading the whole history page by page sees the same order.
    let mut paged = prepare(&session, &format!("{columns} WHERE userid = ?")).await;
    paged.set_page_size(4);
    let pages: Vec<Order> = session
        .execute_iter(paged, ("abc",))
        .await
        .unwrap()
        .rows_stream::<Order>()
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(pages, newest_first);
}

/// GeminiDB, hot spots: "pk1 = hash(pk).substring(0,4)+pk" for an auto-incremental key, and
/// "[md5(userid).subStr(0,4)][userId][orderid]". The hash runs in the client (any stable hash
/// will do; see `super::hash`): a reader recomputes the prefix to find a row, and a reader
/// without it is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geminidb_hashed_prefix_first_key_column() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &[
            "CREATE TABLE orders_by_pk1 (pk1 text PRIMARY KEY, pk text, amount int)",
            "CREATE TABLE orders_by_prefix (prefix text, userid text, orderid bigint, amount int, PRIMARY KEY (prefix, userid, orderid))",
        ],
    )
    .await;
    let pk1 = |pk: &str| format!("{}{pk}", &format!("{:08x}", hash(pk))[..4]);
    let insert = prepare(
        &session,
        "INSERT INTO orders_by_pk1 (pk1, pk, amount) VALUES (?, ?, ?)",
    )
    .await;
    let pks: Vec<String> = (1..=12).map(|i| format!("ORD2015122400{i:02}")).collect();
    for (i, pk) in pks.iter().enumerate() {
        write(&session, &insert, (pk1(pk), pk, i as i32)).await;
    }
    let point = prepare(
        &session,
        "SELECT pk, amount FROM orders_by_pk1 WHERE pk1 = ?",
    )
    .await;
    assert_eq!(
        rows::<(String, i32)>(&session, &point, (pk1(&pks[6]),)).await,
        vec![(pks[6].clone(), 6)]
    );
    // The bare key finds nothing: every row is stored under its prefixed key.
    assert!(rows::<(String, i32)>(&session, &point, (pks[6].clone(),))
        .await
        .is_empty());
    // A full scan comes back in token order of the prefixed keys, not in pk order.
    let scan = prepare(&session, "SELECT pk1, pk FROM orders_by_pk1").await;
    let expected = in_token_order(
        pks.iter().map(|pk| (pk1(pk), pk.clone())).collect(),
        |row: &(String, String)| vec![row.0.as_str()],
    );
    let scanned_pks: Vec<&String> = expected.iter().map(|(_, pk)| pk).collect();
    assert_ne!(
        scanned_pks,
        pks.iter().collect::<Vec<_>>(),
        "the prefix spreads the keys"
    );
    assert_eq!(
        rows::<(String, String)>(&session, &scan, ()).await,
        expected
    );

    let insert = prepare(
        &session,
        "INSERT INTO orders_by_prefix (prefix, userid, orderid, amount) VALUES (?, ?, ?, ?)",
    )
    .await;
    let prefix = |userid: &str| format!("{:08x}", hash(userid))[..4].to_string();
    for u in 1..=5 {
        let userid = format!("user{u:04}");
        for orderid in [30_i64, 10, 20] {
            write(
                &session,
                &insert,
                (prefix(&userid), &userid, orderid, u * 100 + orderid as i32),
            )
            .await;
        }
    }
    let by_user = prepare(
        &session,
        "SELECT userid, orderid, amount FROM orders_by_prefix WHERE prefix = ? AND userid = ? AND orderid >= ?",
    )
    .await;
    assert_eq!(
        rows::<(String, i64, i32)>(&session, &by_user, (prefix("user0003"), "user0003", 20_i64))
            .await,
        vec![("user0003".into(), 20, 320), ("user0003".into(), 30, 330),]
    );
    assert_invalid(
        &session,
        "SELECT * FROM orders_by_prefix WHERE userid = 'user0003'",
        ALLOW_FILTERING,
    )
    .await;
}

/// GeminiDB, hot spots: "Design a reverse index. The primary key is [reverse(userid)][orderid]"
/// (user ids sharing a prefix spread once reversed), and "Add random numbers. The primary key is
/// [userId][orderid][random(100)]" (several records per order, read back by the key prefix).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geminidb_reversed_and_salted_keys() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &[
            "CREATE TABLE orders_by_reversed (ruserid text, orderid bigint, amount int, PRIMARY KEY (ruserid, orderid))",
            "CREATE TABLE orders_salted (userid text, orderid bigint, salt int, amount int, PRIMARY KEY (userid, orderid, salt))",
        ],
    )
    .await;
    let reverse = |s: &str| s.chars().rev().collect::<String>();
    let insert = prepare(
        &session,
        "INSERT INTO orders_by_reversed (ruserid, orderid, amount) VALUES (?, ?, ?)",
    )
    .await;
    for (userid, orderid, amount) in [
        ("user1001", 2_i64, 12),
        ("user1002", 1, 21),
        ("user1001", 1, 11),
        ("user1003", 1, 31),
    ] {
        write(&session, &insert, (reverse(userid), orderid, amount)).await;
    }
    let by_user = prepare(
        &session,
        "SELECT ruserid, orderid, amount FROM orders_by_reversed WHERE ruserid = ?",
    )
    .await;
    assert_eq!(
        rows::<(String, i64, i32)>(&session, &by_user, (reverse("user1001"),)).await,
        vec![("1001resu".into(), 1, 11), ("1001resu".into(), 2, 12),]
    );

    let insert = prepare(
        &session,
        "INSERT INTO orders_salted (userid, orderid, salt, amount) VALUES (?, ?, ?, ?)",
    )
    .await;
    for (orderid, salt, amount) in [(1_i64, 42, 1), (2, 99, 2), (1, 7, 3), (1, 63, 4)] {
        write(&session, &insert, ("u1", orderid, salt, amount)).await;
    }
    write(&session, &insert, ("u2", 1_i64, 5, 9)).await;
    let by_order = prepare(
        &session,
        "SELECT orderid, salt, amount FROM orders_salted WHERE userid = ? AND orderid = ?",
    )
    .await;
    assert_eq!(
        rows::<(i64, i32, i32)>(&session, &by_order, ("u1", 1_i64)).await,
        vec![(1, 7, 3), (1, 42, 1), (1, 63, 4)]
    );
    let by_user = prepare(
        &session,
        "SELECT orderid, salt, amount FROM orders_salted WHERE userid = ?",
    )
    .await;
    assert_eq!(
        rows::<(i64, i32, i32)>(&session, &by_user, ("u1",)).await,
        vec![(1, 7, 3), (1, 42, 1), (1, 63, 4), (2, 99, 2)]
    );
}

/// GeminiDB, "Can a Primary Key Be Simplified?": '2015122410' => Long(2015122410) and
/// 'mobile phone' => 'sj'. A bigint hour key then ranges numerically within a category code.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geminidb_simplified_long_and_code_keys() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE sales (category text, hour bigint, amount int, PRIMARY KEY (category, hour))"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO sales (category, hour, amount) VALUES (?, ?, ?)",
    )
    .await;
    for (category, hour, amount) in [
        ("sj", 2015122500_i64, 4),
        ("sj", 2015122410, 2),
        ("pc", 2015122410, 9),
        ("sj", 2015122409, 1),
        ("sj", 2015122411, 3),
    ] {
        write(&session, &insert, (category, hour, amount)).await;
    }
    let day = prepare(
        &session,
        "SELECT hour, amount FROM sales WHERE category = ? AND hour >= ? AND hour < ?",
    )
    .await;
    assert_eq!(
        rows::<(i64, i32)>(&session, &day, ("sj", 2015122400_i64, 2015122500_i64)).await,
        vec![(2015122409, 1), (2015122410, 2), (2015122411, 3)]
    );
}

const BASE_MS: i64 = 1_700_000_000_000;

fn ts(ms: i64) -> CqlTimestamp {
    CqlTimestamp(ms)
}

/// The `[hostname][log-event][timestamp]` table `metrics` and its `[timestamp DESC]` twin
/// `recent_metrics`, each with host1's cpu metric every minute 0..=5, host1's disk metric and
/// host2's cpu metric every other minute.
async fn metric_tables(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    run_all(
        &session,
        &[
            "CREATE TABLE metrics (hostname text, log_event text, ts timestamp, value double, PRIMARY KEY (hostname, log_event, ts))",
            "CREATE TABLE recent_metrics (hostname text, log_event text, ts timestamp, value double, PRIMARY KEY (hostname, log_event, ts)) WITH CLUSTERING ORDER BY (log_event ASC, ts DESC)",
        ],
    )
    .await;
    for table in ["metrics", "recent_metrics"] {
        let insert = prepare(
            &session,
            &format!("INSERT INTO {table} (hostname, log_event, ts, value) VALUES (?, ?, ?, ?)"),
        )
        .await;
        for minute in [3_i64, 0, 5, 1, 4, 2] {
            let at = ts(BASE_MS + minute * 60_000);
            write(&session, &insert, ("host1", "cpu", at, minute as f64)).await;
        }
        for minute in [0_i64, 2, 4] {
            let at = ts(BASE_MS + minute * 60_000);
            write(
                &session,
                &insert,
                ("host1", "disk", at, 10.0 + minute as f64),
            )
            .await;
            write(
                &session,
                &insert,
                ("host2", "cpu", at, 20.0 + minute as f64),
            )
            .await;
        }
    }
    session
}

/// (ts, value) of a metric taken `m` minutes after `BASE_MS`.
fn at_minute(m: i64, value: f64) -> (CqlTimestamp, f64) {
    (ts(BASE_MS + m * 60_000), value)
}

/// GeminiDB, log data: "[hostname][log-event][timestamp]" to query a metric over a period, and
/// "[hostname][log-event][timestamp DESC]" to query its most recent records.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geminidb_log_metric_by_host_and_event() {
    let server = TestServer::start().await;
    let session = metric_tables(&server).await;
    // A metric over a period.
    let period = prepare(
        &session,
        "SELECT ts, value FROM metrics WHERE hostname = ? AND log_event = ? AND ts >= ? AND ts < ?",
    )
    .await;
    let from = ts(BASE_MS + 60_000);
    let to = ts(BASE_MS + 4 * 60_000);
    assert_eq!(
        rows::<(CqlTimestamp, f64)>(&session, &period, ("host1", "cpu", from, to)).await,
        vec![at_minute(1, 1.0), at_minute(2, 2.0), at_minute(3, 3.0)]
    );
    assert_eq!(
        rows::<(CqlTimestamp, f64)>(&session, &period, ("host2", "cpu", from, to)).await,
        vec![at_minute(2, 22.0)]
    );
    // The most recent records, from the [timestamp DESC] design: no ORDER BY needed.
    let recent = prepare(
        &session,
        "SELECT ts, value FROM recent_metrics WHERE hostname = ? AND log_event = ? LIMIT 3",
    )
    .await;
    assert_eq!(
        rows::<(CqlTimestamp, f64)>(&session, &recent, ("host1", "cpu")).await,
        vec![at_minute(5, 5.0), at_minute(4, 4.0), at_minute(3, 3.0)]
    );
    let recent_period = prepare(
        &session,
        "SELECT ts, value FROM recent_metrics WHERE hostname = ? AND log_event = ? AND ts < ?",
    )
    .await;
    assert_eq!(
        rows::<(CqlTimestamp, f64)>(&session, &recent_period, ("host1", "cpu", to)).await,
        vec![
            at_minute(3, 3.0),
            at_minute(2, 2.0),
            at_minute(1, 1.0),
            at_minute(0, 0.0)
        ]
    );
    // A whole host: events in ascending name order, each newest first.
    let host = prepare(
        &session,
        "SELECT log_event, ts FROM recent_metrics WHERE hostname = ? AND log_event >= ?",
    )
    .await;
    let got: Vec<(String, CqlTimestamp)> = rows(&session, &host, ("host1", "cpu")).await;
    let expected: Vec<(String, CqlTimestamp)> = [5, 4, 3, 2, 1, 0]
        .into_iter()
        .map(|m| ("cpu".to_string(), ts(BASE_MS + m * 60_000)))
        .chain(
            [4, 2, 0]
                .into_iter()
                .map(|m| ("disk".to_string(), ts(BASE_MS + m * 60_000))),
        )
        .collect();
    assert_eq!(got, expected);
    // Skipping the event is refused.
    assert_invalid(
        &session,
        "SELECT * FROM metrics WHERE hostname = 'host1' AND ts > 1700000000000",
        "PRIMARY KEY column \"ts\" cannot be restricted as preceding column \"log_event\" is not restricted",
    )
    .await;
}

/// GeminiDB, "[hostname][log-event][timestamp]": the same period newest first, from the
/// ascending table, with `ORDER BY ts DESC`. Cassandra accepts ORDER BY on a clustering column
/// when every clustering column before it is restricted by `=` (here log_event), as
/// `SelectStatement.isReversed` checks with `isColumnRestrictedByEq`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geminidb_log_metric_order_by_timestamp_with_event_fixed() {
    let server = TestServer::start().await;
    let session = metric_tables(&server).await;
    let period_desc = prepare(
        &session,
        "SELECT ts, value FROM metrics WHERE hostname = ? AND log_event = ? AND ts >= ? AND ts < ? ORDER BY ts DESC",
    )
    .await;
    let from = ts(BASE_MS + 60_000);
    let to = ts(BASE_MS + 4 * 60_000);
    assert_eq!(
        rows::<(CqlTimestamp, f64)>(&session, &period_desc, ("host1", "cpu", from, to)).await,
        vec![at_minute(3, 3.0), at_minute(2, 2.0), at_minute(1, 1.0)]
    );
    // And ascending on the [timestamp DESC] table.
    let oldest_first = prepare(
        &session,
        "SELECT ts, value FROM recent_metrics WHERE hostname = ? AND log_event = ? ORDER BY ts ASC LIMIT 2",
    )
    .await;
    assert_eq!(
        rows::<(CqlTimestamp, f64)>(&session, &oldest_first, ("host2", "cpu")).await,
        vec![at_minute(0, 20.0), at_minute(2, 22.0)]
    );
}

/// GeminiDB, "long bucket = timestamp % numBuckets; [bucket][timestamp][hostname][log-event]",
/// for data queried by time only: each bucket holds a slice of time in order, and a time range is
/// read back from all buckets at once with `bucket IN (...)`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geminidb_log_bucketed_by_timestamp_modulo() {
    const NUM_BUCKETS: i64 = 4;
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE logs (bucket bigint, ts timestamp, hostname text, log_event text, message text, PRIMARY KEY (bucket, ts, hostname, log_event))"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO logs (bucket, ts, hostname, log_event, message) VALUES (?, ?, ?, ?, ?)",
    )
    .await;
    // Twelve instants 1001 ms apart, so consecutive ones land in consecutive buckets; two hosts
    // log at each, written in reverse host order.
    let at = |i: i64| BASE_MS + i * 1001;
    for i in 0..12 {
        let event = if i % 2 == 0 { "login" } else { "error" };
        for host in ["web2", "web1"] {
            let message = format!("{host} {event} {i}");
            write(
                &session,
                &insert,
                (at(i) % NUM_BUCKETS, ts(at(i)), host, event, message),
            )
            .await;
        }
    }
    type Log = (i64, CqlTimestamp, String, String);
    let log = |i: i64, host: &str| -> Log {
        let event = if i % 2 == 0 { "login" } else { "error" };
        (at(i) % NUM_BUCKETS, ts(at(i)), host.into(), event.into())
    };
    let one_bucket = prepare(
        &session,
        "SELECT bucket, ts, hostname, log_event FROM logs WHERE bucket = ? AND ts >= ? AND ts < ?",
    )
    .await;
    let bucket = at(1) % NUM_BUCKETS;
    assert_eq!(
        rows::<Log>(&session, &one_bucket, (bucket, ts(at(0)), ts(at(8)))).await,
        vec![
            log(1, "web1"),
            log(1, "web2"),
            log(5, "web1"),
            log(5, "web2")
        ]
    );
    let all_buckets = prepare(
        &session,
        "SELECT bucket, ts, hostname, log_event FROM logs WHERE bucket IN ? AND ts >= ? AND ts < ?",
    )
    .await;
    let buckets: Vec<i64> = (0..NUM_BUCKETS).collect();
    let expected: Vec<Log> = (2..6)
        .flat_map(|i| [log(i, "web1"), log(i, "web2")])
        .collect();
    let got: Vec<Log> = rows(&session, &all_buckets, (&buckets, ts(at(2)), ts(at(6)))).await;
    // Each bucket's rows in clustering order; the buckets' order is not under test here.
    for b in 0..NUM_BUCKETS {
        let of_bucket =
            |rows: &[Log]| -> Vec<Log> { rows.iter().filter(|r| r.0 == b).cloned().collect() };
        assert_eq!(of_bucket(&got), of_bucket(&expected), "bucket {b}");
    }
    let mut by_time = got.clone();
    by_time.sort_by(|x, y| (x.1 .0, &x.2).cmp(&(y.1 .0, &y.2)));
    assert_eq!(by_time, expected);
    // The literal spelling of the same query, and its count.
    let literal: Vec<Log> = integration_tests::query_rows(
        &session,
        format!(
            "SELECT bucket, ts, hostname, log_event FROM logs WHERE bucket IN (0, 1, 2, 3) AND ts >= {} AND ts < {}",
            at(2),
            at(6)
        ),
        &[],
    )
    .await;
    assert_eq!(sorted_logs(literal), sorted_logs(expected.clone()));
    let count = prepare(
        &session,
        "SELECT count(*) FROM logs WHERE bucket IN ? AND ts >= ? AND ts < ?",
    )
    .await;
    assert_eq!(
        rows::<(i64,)>(&session, &count, (&buckets, ts(at(2)), ts(at(6)))).await,
        vec![(8,)]
    );
    // Without the bucket, a time range is a filtering scan.
    assert_invalid(
        &session,
        &format!(
            "SELECT * FROM logs WHERE ts >= {} AND ts < {}",
            at(2),
            at(6)
        ),
        ALLOW_FILTERING,
    )
    .await;
}

fn sorted_logs(rows: Vec<(i64, CqlTimestamp, String, String)>) -> Vec<(i64, i64, String, String)> {
    sorted(
        rows.into_iter()
            .map(|(b, t, h, e)| (b, t.0, h, e))
            .collect(),
    )
}

/// GeminiDB, transaction data: "[seller_id][timestamp][order_number]" and
/// "[buyer_id][timestamp][order_number]" for each side's records over a period, "[order_number]"
/// for lookups, and the three tables joined (in the client) for one query.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn geminidb_seller_buyer_and_order_tables() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &[
            "CREATE TABLE seller_orders (seller_id text, ts timestamp, order_number text, buyer_id text, amount int, PRIMARY KEY (seller_id, ts, order_number))",
            "CREATE TABLE buyer_orders (buyer_id text, ts timestamp, order_number text, seller_id text, amount int, PRIMARY KEY (buyer_id, ts, order_number))",
            "CREATE TABLE orders (order_number text PRIMARY KEY, seller_id text, buyer_id text, ts timestamp, amount int)",
        ],
    )
    .await;
    let by_seller = prepare(&session, "INSERT INTO seller_orders (seller_id, ts, order_number, buyer_id, amount) VALUES (?, ?, ?, ?, ?)").await;
    let by_buyer = prepare(&session, "INSERT INTO buyer_orders (buyer_id, ts, order_number, seller_id, amount) VALUES (?, ?, ?, ?, ?)").await;
    let by_number = prepare(
        &session,
        "INSERT INTO orders (order_number, seller_id, buyer_id, ts, amount) VALUES (?, ?, ?, ?, ?)",
    )
    .await;
    let mut batch = Batch::new(BatchType::Logged);
    batch.append_statement(by_seller);
    batch.append_statement(by_buyer);
    batch.append_statement(by_number);
    let day = 86_400_000;
    // (order_number, seller, buyer, day, amount); two orders of s1 on the same instant.
    let transactions = [
        ("n5", "s1", "b2", 3, 50),
        ("n1", "s1", "b1", 0, 10),
        ("n3", "s1", "b1", 2, 30),
        ("n2", "s2", "b1", 1, 20),
        ("n4", "s1", "b3", 2, 40),
        ("n6", "s2", "b2", 4, 60),
    ];
    for (number, seller, buyer, d, amount) in transactions {
        let at = ts(BASE_MS + d * day);
        session
            .batch(
                &batch,
                (
                    (seller, at, number, buyer, amount),
                    (buyer, at, number, seller, amount),
                    (number, seller, buyer, at, amount),
                ),
            )
            .await
            .unwrap();
    }
    let from = ts(BASE_MS + day);
    let to = ts(BASE_MS + 4 * day);
    let seller_period = prepare(
        &session,
        "SELECT order_number, buyer_id, amount FROM seller_orders WHERE seller_id = ? AND ts >= ? AND ts < ?",
    )
    .await;
    let seller_rows: Vec<(String, String, i32)> =
        rows(&session, &seller_period, ("s1", from, to)).await;
    assert_eq!(
        seller_rows,
        vec![
            ("n3".into(), "b1".into(), 30),
            ("n4".into(), "b3".into(), 40),
            ("n5".into(), "b2".into(), 50),
        ]
    );
    let buyer_period = prepare(
        &session,
        "SELECT order_number, seller_id, amount FROM buyer_orders WHERE buyer_id = ? AND ts >= ? AND ts < ?",
    )
    .await;
    assert_eq!(
        rows::<(String, String, i32)>(&session, &buyer_period, ("b1", from, to)).await,
        vec![
            ("n2".into(), "s2".into(), 20),
            ("n3".into(), "s1".into(), 30)
        ]
    );
    // The join: the seller's orders in the period, looked up by order number, then the buyers'
    // histories of the same orders.
    let lookup = prepare(
        &session,
        "SELECT order_number, seller_id, buyer_id, ts, amount FROM orders WHERE order_number = ?",
    )
    .await;
    let buyer_order = prepare(
        &session,
        "SELECT order_number FROM buyer_orders WHERE buyer_id = ? AND ts = ? AND order_number = ?",
    )
    .await;
    for (number, buyer, amount) in &seller_rows {
        let found: Vec<(String, String, String, CqlTimestamp, i32)> =
            rows(&session, &lookup, (number,)).await;
        assert_eq!(found.len(), 1, "{number}");
        let (_, seller, order_buyer, at, order_amount) = &found[0];
        assert_eq!(
            (seller.as_str(), order_buyer, order_amount),
            ("s1", buyer, amount)
        );
        assert_eq!(
            rows::<(String,)>(&session, &buyer_order, (buyer, *at, number)).await,
            vec![(number.clone(),)]
        );
    }
}
