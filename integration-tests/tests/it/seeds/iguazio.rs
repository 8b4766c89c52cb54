//! Iguazio data platform (seed 004), "Best Practices for Defining Primary Keys and Distributing
//! Data Workloads": a compound `<sharding key>.<sorting key>` primary key is `PRIMARY KEY
//! (sharding, sorting)`, range scans run over a string sorting key, and a sharding key recalculated
//! as `<key>_<hash(sorting key) % N>` is read back by asking every bucket with `IN`.
//!
//! Without a CQL meaning, so not tested: the Spark DataFrame and Presto connectors recomputing
//! buckets implicitly, table partitioning into directories, and the advice to order ingestion by
//! sorting key (it changes load, not results).

use integration_tests::{session_in, TestServer};

use super::{assert_invalid, hash, prepare, rows, run_all, sorted, write, ALLOW_FILTERING};

/// Iguazio, the connected-cars example: car_id as the sharding key and trip_id as the sorting key
/// (`<car_id>.<trip_id>`), serving `car_id = <value>`, `car_id = <value> AND trip_id = <value>` and
/// `car_id = <value> AND trip_id > <value> AND trip_id <= <value>`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iguazio_car_trips_by_sharding_and_sorting_key() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE trips (car_id int, trip_id text, km double, PRIMARY KEY (car_id, trip_id))"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO trips (car_id, trip_id, km) VALUES (?, ?, ?)",
    )
    .await;
    for (car, trip, km) in [
        (7, "t03", 30.5),
        (7, "t01", 10.0),
        (8, "t02", 99.0),
        (7, "t05", 50.0),
        (7, "t02", 20.25),
        (7, "t04", 40.0),
    ] {
        write(&session, &insert, (car, trip, km)).await;
    }
    type Trip = (String, f64);
    let trip = |id: &str, km: f64| -> Trip { (id.into(), km) };
    let car = prepare(&session, "SELECT trip_id, km FROM trips WHERE car_id = ?").await;
    assert_eq!(
        rows::<Trip>(&session, &car, (7,)).await,
        vec![
            trip("t01", 10.0),
            trip("t02", 20.25),
            trip("t03", 30.5),
            trip("t04", 40.0),
            trip("t05", 50.0),
        ]
    );
    let item = prepare(
        &session,
        "SELECT trip_id, km FROM trips WHERE car_id = ? AND trip_id = ?",
    )
    .await;
    assert_eq!(
        rows::<Trip>(&session, &item, (8, "t02")).await,
        vec![trip("t02", 99.0)]
    );
    assert!(rows::<Trip>(&session, &item, (8, "t03")).await.is_empty());
    let range = prepare(
        &session,
        "SELECT trip_id, km FROM trips WHERE car_id = ? AND trip_id > ? AND trip_id <= ?",
    )
    .await;
    // Exclusive start, inclusive end.
    assert_eq!(
        rows::<Trip>(&session, &range, (7, "t02", "t04")).await,
        vec![trip("t03", 30.5), trip("t04", 40.0)]
    );
    assert!(rows::<Trip>(&session, &range, (7, "t04", "t02"))
        .await
        .is_empty());
    // Filtering on the sorting key alone is a full-table query, which CQL makes explicit.
    assert_invalid(
        &session,
        "SELECT * FROM trips WHERE trip_id > 't02'",
        ALLOW_FILTERING,
    )
    .await;
}

/// Iguazio, "Using a String Sorting Key for Faster Range-Scan Queries": a text sorting key is
/// stored and scanned in lexicographic (UTF-8 byte) order, so `trip-10` sorts before `trip-2`,
/// upper case before lower case and `é` after `z`, and a range is a contiguous slice of that
/// order in either direction.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iguazio_string_sorting_key_range_scans() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE trips (car_id text, trip_id text, PRIMARY KEY (car_id, trip_id))"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO trips (car_id, trip_id) VALUES (?, ?)",
    )
    .await;
    for trip in [
        "trip-9", "trip-é", "trip-10", "Trip-5", "trip-1", "trip-z", "trip-2",
    ] {
        write(&session, &insert, ("car-a", trip)).await;
    }
    let ids = |v: &[&str]| -> Vec<(String,)> { v.iter().map(|s| (s.to_string(),)).collect() };
    let all = prepare(&session, "SELECT trip_id FROM trips WHERE car_id = ?").await;
    assert_eq!(
        rows::<(String,)>(&session, &all, ("car-a",)).await,
        ids(&["Trip-5", "trip-1", "trip-10", "trip-2", "trip-9", "trip-z", "trip-é"])
    );
    let range = prepare(
        &session,
        "SELECT trip_id FROM trips WHERE car_id = ? AND trip_id > ? AND trip_id <= ?",
    )
    .await;
    assert_eq!(
        rows::<(String,)>(&session, &range, ("car-a", "trip-1", "trip-9")).await,
        ids(&["trip-10", "trip-2", "trip-9"])
    );
    // Every id starting with `trip-1`: [trip-1, trip-2).
    let prefix = prepare(
        &session,
        "SELECT trip_id FROM trips WHERE car_id = ? AND trip_id >= ? AND trip_id < ?",
    )
    .await;
    assert_eq!(
        rows::<(String,)>(&session, &prefix, ("car-a", "trip-1", "trip-2")).await,
        ids(&["trip-1", "trip-10"])
    );
    let tail = prepare(
        &session,
        "SELECT trip_id FROM trips WHERE car_id = ? AND trip_id > ? ORDER BY trip_id DESC",
    )
    .await;
    assert_eq!(
        rows::<(String,)>(&session, &tail, ("car-a", "trip-9")).await,
        ids(&["trip-é", "trip-z"])
    );
}

/// Iguazio, "a date sharding key and a device-ID sorting key (with values such as
/// `20180523.1273`)": a day's readings on one partition, sorted by device ID.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iguazio_date_sharding_key_device_sorting_key() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE readings (day int, device_id int, reading double, PRIMARY KEY (day, device_id))"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO readings (day, device_id, reading) VALUES (?, ?, ?)",
    )
    .await;
    for (day, device, reading) in [
        (20180523, 1273, 1.5),
        (20180523, 95, 2.5),
        (20180524, 1273, 3.5),
        (20180523, 20001, 4.5),
        (20180523, 300, 5.5),
    ] {
        write(&session, &insert, (day, device, reading)).await;
    }
    let day = prepare(
        &session,
        "SELECT device_id, reading FROM readings WHERE day = ?",
    )
    .await;
    assert_eq!(
        rows::<(i32, f64)>(&session, &day, (20180523,)).await,
        vec![(95, 2.5), (300, 5.5), (1273, 1.5), (20001, 4.5)]
    );
    let item = prepare(
        &session,
        "SELECT device_id, reading FROM readings WHERE day = ? AND device_id = ?",
    )
    .await;
    assert_eq!(
        rows::<(i32, f64)>(&session, &item, (20180523, 1273)).await,
        vec![(1273, 1.5)]
    );
    let devices = prepare(
        &session,
        "SELECT device_id, reading FROM readings WHERE day = ? AND device_id >= ? AND device_id < ?",
    )
    .await;
    assert_eq!(
        rows::<(i32, f64)>(&session, &devices, (20180523, 300, 20001)).await,
        vec![(300, 5.5), (1273, 1.5)]
    );
}

const BUCKETS: u32 = 4;

/// `<key>_<hash(sorting key) % N>`, the platform's even-distribution sharding-key value.
fn recalculated(key: &str, sorting_key: &str) -> String {
    format!("{key}_{}", hash(sorting_key) % BUCKETS)
}

/// Every recalculated sharding-key value of `key`.
fn all_buckets(key: &str) -> Vec<String> {
    (0..BUCKETS).map(|b| format!("{key}_{b}")).collect()
}

/// Iguazio, "Recalculating Sharding-Key Values for Even Workload Distribution": items of user
/// `johnd` are stored under `johnd_<xxHash(sorting key) % N>.<sorting key>` (any stable hash
/// here), with the original sharding- and sorting-key values kept as attributes. GetItem
/// recomputes the full key; GetItems over one bucket is a range scan; retrieving everything for
/// `johnd` repeats the request for `johnd_0` .. `johnd_<N-1>`, which CQL does in one `IN` query.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iguazio_recalculated_sharding_key_read_from_all_buckets() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE items (shard text, sort_key text, username text, amount int, PRIMARY KEY (shard, sort_key))"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO items (shard, sort_key, username, amount) VALUES (?, ?, ?, ?)",
    )
    .await;
    let johnd = [
        "20181015", "20180602", "20181231", "20181002", "20180115", "20180720", "20180603",
    ];
    for (i, date) in johnd.iter().enumerate() {
        write(
            &session,
            &insert,
            (recalculated("johnd", date), date, "johnd", i as i32),
        )
        .await;
    }
    write(
        &session,
        &insert,
        (recalculated("janed", "20180602"), "20180602", "janed", 99),
    )
    .await;
    // The writes really did spread over more than one bucket.
    let used: std::collections::BTreeSet<String> =
        johnd.iter().map(|d| recalculated("johnd", d)).collect();
    assert!(used.len() > 1, "{used:?}");
    let amount_of = |date: &str| johnd.iter().position(|d| *d == date).unwrap() as i32;

    // GetItem: the full recalculated key.
    let get_item = prepare(
        &session,
        "SELECT sort_key, username, amount FROM items WHERE shard = ? AND sort_key = ?",
    )
    .await;
    assert_eq!(
        rows::<(String, String, i32)>(
            &session,
            &get_item,
            (recalculated("johnd", "20180602"), "20180602")
        )
        .await,
        vec![("20180602".into(), "johnd".into(), amount_of("20180602"))]
    );
    // GetItems over one bucket: its items in sorting-key order.
    let get_items = prepare(&session, "SELECT sort_key FROM items WHERE shard = ?").await;
    for bucket in all_buckets("johnd") {
        let mut expected: Vec<(String,)> = johnd
            .iter()
            .filter(|d| recalculated("johnd", d) == bucket)
            .map(|d| (d.to_string(),))
            .collect();
        expected.sort();
        assert_eq!(
            rows::<(String,)>(&session, &get_items, (&bucket,)).await,
            expected,
            "{bucket}"
        );
    }
    // Everything for johnd: all buckets at once.
    let all = prepare(
        &session,
        "SELECT sort_key, username, amount FROM items WHERE shard IN ?",
    )
    .await;
    let expected: Vec<(String, String, i32)> = sorted(
        johnd
            .iter()
            .map(|d| (d.to_string(), "johnd".to_string(), amount_of(d)))
            .collect(),
    );
    assert_eq!(
        sorted(rows::<(String, String, i32)>(&session, &all, (all_buckets("johnd"),)).await),
        expected
    );
    // A sorting-key range over all buckets.
    let range = prepare(
        &session,
        "SELECT sort_key FROM items WHERE shard IN ? AND sort_key >= ? AND sort_key < ?",
    )
    .await;
    assert_eq!(
        sorted(
            rows::<(String,)>(
                &session,
                &range,
                (all_buckets("johnd"), "20180601", "20181016")
            )
            .await
        ),
        vec![
            ("20180602".to_string(),),
            ("20180603".to_string(),),
            ("20180720".to_string(),),
            ("20181002".to_string(),),
            ("20181015".to_string(),),
        ]
    );
    // One original key without recomputing its bucket: ask every bucket for it.
    let by_original = prepare(
        &session,
        "SELECT shard, username, amount FROM items WHERE shard IN ? AND sort_key = ?",
    )
    .await;
    assert_eq!(
        rows::<(String, String, i32)>(&session, &by_original, (all_buckets("johnd"), "20181231"))
            .await,
        vec![(
            recalculated("johnd", "20181231"),
            "johnd".into(),
            amount_of("20181231")
        )]
    );
    // The same literal query, the document's `johnd_1 .. johnd_<n>` spelled out.
    let literal = format!(
        "SELECT sort_key FROM items WHERE shard IN ('{}') AND sort_key = '20180602'",
        all_buckets("janed").join("', '")
    );
    assert_eq!(
        integration_tests::query_rows::<(String,)>(&session, literal, &[]).await,
        vec![("20180602".to_string(),)]
    );
}

/// Iguazio's even distribution with the bucket as its own partition-key column instead of a
/// string suffix: `PRIMARY KEY ((username, bucket), date)`, bucket = hash(date) % N. Reading a user
/// back names every bucket with `IN`; the user alone is only part of the partition key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iguazio_bucket_column_in_partition_key_read_with_in() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE user_items (username text, bucket int, date text, amount int, PRIMARY KEY ((username, bucket), date))"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO user_items (username, bucket, date, amount) VALUES (?, ?, ?, ?)",
    )
    .await;
    let bucket_of = |date: &str| (hash(date) % BUCKETS) as i32;
    let items = [
        ("johnd", "20180602", 1),
        ("johnd", "20181015", 2),
        ("johnd", "20181002", 3),
        ("johnd", "20180115", 4),
        ("johnd", "20181231", 5),
        ("janed", "20180602", 6),
        ("janed", "20180911", 7),
    ];
    for (user, date, amount) in items {
        write(&session, &insert, (user, bucket_of(date), date, amount)).await;
    }
    let buckets: Vec<i32> = (0..BUCKETS as i32).collect();
    type Item = (String, String, i32);
    let expect = |pred: &dyn Fn(&str, &str) -> bool| -> Vec<Item> {
        sorted(
            items
                .iter()
                .filter(|(u, d, _)| pred(u, d))
                .map(|(u, d, a)| (u.to_string(), d.to_string(), *a))
                .collect(),
        )
    };
    let user = prepare(
        &session,
        "SELECT username, date, amount FROM user_items WHERE username = ? AND bucket IN ?",
    )
    .await;
    assert_eq!(
        sorted(rows::<Item>(&session, &user, ("johnd", &buckets)).await),
        expect(&|u, _| u == "johnd")
    );
    let user_range = prepare(
        &session,
        "SELECT username, date, amount FROM user_items WHERE username = ? AND bucket IN ? AND date >= ? AND date <= ?",
    )
    .await;
    assert_eq!(
        sorted(
            rows::<Item>(
                &session,
                &user_range,
                ("johnd", &buckets, "20180601", "20181002")
            )
            .await
        ),
        expect(&|u, d| u == "johnd" && ("20180601"..="20181002").contains(&d))
    );
    // Several users, every bucket: the cartesian product of the two IN lists.
    let users = prepare(
        &session,
        "SELECT username, date, amount FROM user_items WHERE username IN ? AND bucket IN ?",
    )
    .await;
    assert_eq!(
        sorted(rows::<Item>(&session, &users, (vec!["johnd", "janed"], &buckets)).await),
        expect(&|_, _| true)
    );
    // A point read recomputes the bucket.
    let point = prepare(
        &session,
        "SELECT username, date, amount FROM user_items WHERE username = ? AND bucket = ? AND date = ?",
    )
    .await;
    assert_eq!(
        rows::<Item>(
            &session,
            &point,
            ("janed", bucket_of("20180911"), "20180911")
        )
        .await,
        vec![("janed".into(), "20180911".into(), 7)]
    );
    assert_invalid(
        &session,
        "SELECT * FROM user_items WHERE username = 'johnd'",
        ALLOW_FILTERING,
    )
    .await;
}
