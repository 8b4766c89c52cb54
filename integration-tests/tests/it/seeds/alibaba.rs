//! Alibaba Cloud Table Store (seed 002), "Primary key and attribute": a primary key of one to
//! four columns whose first column is the partition key; key types String, Integer (64-bit) and
//! Binary (`text`, `bigint`, `blob`); attribute columns of any number and of those types plus
//! Double and Boolean; names that are case sensitive.
//
// Not here: needs USING TIMESTAMP and WRITETIME (another issue) — a column's "version" as a
// millisecond timestamp the writer supplies, and reading it back. Max Versions and version ranges
// have no CQL meaning (Cassandra keeps only the newest version of a cell).
// Not here: needs TTL (another issue) — the table TTL of 86400 s expiring data, and the refusal
// to write data that is already expired.
// Without a CQL meaning, so not tested: Table Store's own limits (1 KB per key value, 255-char
// names, 10 GB per partition key value) and its automatic partition splitting.

use integration_tests::{session_in, TestServer};
use scylla::client::session::Session;

use super::{assert_invalid, in_token_order, prepare, rows, run_all, write, ALLOW_FILTERING};

/// The key domains: pk1 text, pk2 bigint (signed), pk3 blob (unsigned bytes), pk4 text.
const PK1: [&str; 2] = ["east", "west"];
const PK2: [i64; 3] = [-5, 1, 2];
const PK3: [&[u8]; 3] = [&[0x00], &[0x01, 0xff], &[0xff]];
const PK4: [&str; 2] = ["x", "y"];

/// A (pk2, pk3, pk4) key, ordered as CQL orders it: Rust's tuple, i64, Vec<u8> and String
/// orders are CQL's bigint, blob and text orders.
type Tail = (i64, Vec<u8>, String);

fn tails() -> Vec<Tail> {
    let mut out = Vec::new();
    for pk2 in PK2 {
        for pk3 in PK3 {
            for pk4 in PK4 {
                out.push((pk2, pk3.to_vec(), pk4.to_string()));
            }
        }
    }
    out
}

/// Creates `t1` .. `t4`, whose primary keys are the first 1 .. 4 of (pk1, pk2, pk3, pk4), and
/// fills each with every key of its columns' domains (written in reverse order).
async fn key_tables(session: &Session) {
    let columns = ["pk1 text", "pk2 bigint", "pk3 blob", "pk4 text"];
    let names = ["pk1", "pk2", "pk3", "pk4"];
    for n in 1..=4 {
        run_all(
            session,
            &[&format!(
                "CREATE TABLE t{n} ({}, attr double, PRIMARY KEY ({}))",
                columns[..n].join(", "),
                names[..n].join(", ")
            )],
        )
        .await;
    }
    let t1 = prepare(session, "INSERT INTO t1 (pk1, attr) VALUES (?, ?)").await;
    let t2 = prepare(session, "INSERT INTO t2 (pk1, pk2, attr) VALUES (?, ?, ?)").await;
    let t3 = prepare(
        session,
        "INSERT INTO t3 (pk1, pk2, pk3, attr) VALUES (?, ?, ?, ?)",
    )
    .await;
    let t4 = prepare(
        session,
        "INSERT INTO t4 (pk1, pk2, pk3, pk4, attr) VALUES (?, ?, ?, ?, ?)",
    )
    .await;
    for pk1 in PK1.iter().rev() {
        write(session, &t1, (pk1, 0.5)).await;
        for pk2 in PK2.iter().rev() {
            write(session, &t2, (pk1, pk2, 0.5)).await;
            for pk3 in PK3.iter().rev() {
                write(session, &t3, (pk1, pk2, pk3, 0.5)).await;
                for pk4 in PK4.iter().rev() {
                    write(session, &t4, (pk1, pk2, pk3, pk4, 0.5)).await;
                }
            }
        }
    }
}

/// Alibaba Table Store, "It consists of one to four columns" and "The first primary key column is
/// also called a partition key": tables keyed by one, two, three and four columns, each read by
/// its full key, by its partition key (rows in key order), and by ranges over the remaining key
/// columns; the later key columns alone do not locate a partition.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alibaba_one_to_four_key_columns_with_range_reads() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    key_tables(&session).await;
    let all = tails();
    let expect = |pred: &dyn Fn(&Tail) -> bool| -> Vec<Tail> {
        all.iter().filter(|t| pred(t)).cloned().collect()
    };

    // One column: the key is the partition key.
    let t1 = prepare(&session, "SELECT pk1, attr FROM t1 WHERE pk1 = ?").await;
    assert_eq!(
        rows::<(String, f64)>(&session, &t1, ("west",)).await,
        vec![("west".to_string(), 0.5)]
    );
    let t1_all = prepare(&session, "SELECT pk1 FROM t1").await;
    assert_eq!(
        rows::<(String,)>(&session, &t1_all, ()).await,
        in_token_order(
            vec![("east".to_string(),), ("west".to_string(),)],
            |r| vec![r.0.as_str()]
        )
    );

    // Two columns: a range over pk2, signed.
    let t2 = prepare(
        &session,
        "SELECT pk2 FROM t2 WHERE pk1 = ? AND pk2 >= ? AND pk2 < ?",
    )
    .await;
    assert_eq!(
        rows::<(i64,)>(&session, &t2, ("east", -10_i64, 2_i64)).await,
        vec![(-5,), (1,)]
    );
    let t2_partition = prepare(&session, "SELECT pk2 FROM t2 WHERE pk1 = ?").await;
    assert_eq!(
        rows::<(i64,)>(&session, &t2_partition, ("west",)).await,
        vec![(-5,), (1,), (2,)]
    );

    // Three columns: pk2 fixed, a range over pk3 in unsigned byte order.
    let t3 = prepare(
        &session,
        "SELECT pk2, pk3 FROM t3 WHERE pk1 = ? AND pk2 = ? AND pk3 > ?",
    )
    .await;
    assert_eq!(
        rows::<(i64, Vec<u8>)>(&session, &t3, ("east", 1_i64, vec![0x01_u8])).await,
        vec![(1, vec![0x01, 0xff]), (1, vec![0xff])]
    );
    let t3_prefix = prepare(
        &session,
        "SELECT pk2, pk3 FROM t3 WHERE pk1 = ? AND pk2 > ?",
    )
    .await;
    assert_eq!(
        rows::<(i64, Vec<u8>)>(&session, &t3_prefix, ("east", 1_i64)).await,
        vec![(2, vec![0x00]), (2, vec![0x01, 0xff]), (2, vec![0xff])]
    );

    // Four columns: every key under pk1, then slices at each depth.
    let t4_columns = "SELECT pk2, pk3, pk4 FROM t4 WHERE pk1 = ?";
    let t4_partition = prepare(&session, t4_columns).await;
    assert_eq!(rows::<Tail>(&session, &t4_partition, ("west",)).await, all);
    let t4_full = prepare(
        &session,
        &format!("{t4_columns} AND pk2 = ? AND pk3 = ? AND pk4 = ?"),
    )
    .await;
    assert_eq!(
        rows::<Tail>(&session, &t4_full, ("west", 2_i64, vec![0xff_u8], "y")).await,
        vec![(2, vec![0xff], "y".to_string())]
    );
    let t4_last = prepare(
        &session,
        &format!("{t4_columns} AND pk2 = ? AND pk3 = ? AND pk4 > ?"),
    )
    .await;
    assert_eq!(
        rows::<Tail>(
            &session,
            &t4_last,
            ("west", 1_i64, vec![0x01_u8, 0xff], "x")
        )
        .await,
        expect(&|t| t.0 == 1 && t.1 == [0x01, 0xff] && t.2.as_str() > "x")
    );
    let t4_middle = prepare(
        &session,
        &format!("{t4_columns} AND pk2 = ? AND pk3 >= ? AND pk3 <= ?"),
    )
    .await;
    assert_eq!(
        rows::<Tail>(
            &session,
            &t4_middle,
            ("west", -5_i64, vec![0x00_u8], vec![0x01_u8, 0xff])
        )
        .await,
        expect(&|t| t.0 == -5 && t.1.as_slice() <= [0x01, 0xff].as_slice())
    );
    // Multi-column bounds across the remaining key columns.
    let t4_tuple = prepare(
        &session,
        &format!("{t4_columns} AND (pk2, pk3, pk4) > (?, ?, ?) AND (pk2, pk3) <= (?, ?)"),
    )
    .await;
    let low: Tail = (-5, vec![0xff], "x".to_string());
    assert_eq!(
        rows::<Tail>(
            &session,
            &t4_tuple,
            ("east", -5_i64, vec![0xff_u8], "x", 1_i64, vec![0x00_u8])
        )
        .await,
        expect(&|t| *t > low && (t.0, t.1.clone()) <= (1, vec![0x00]))
    );
    // Without the partition key, key columns after the first only filter.
    assert_invalid(
        &session,
        "SELECT * FROM t4 WHERE pk2 = 1 AND pk3 = 0x00",
        ALLOW_FILTERING,
    )
    .await;
    assert_invalid(
        &session,
        "SELECT * FROM t4 WHERE pk1 = 'east' AND pk2 = 1 AND pk4 = 'x'",
        "PRIMARY KEY column \"pk4\" cannot be restricted as preceding column \"pk3\" is not restricted",
    )
    .await;
}

/// Alibaba Table Store, attributes: "The number of attribute columns for each row is unlimited",
/// and the value types String, Integer, Double, Boolean and Binary. Rows set different attribute
/// columns; the rest read back as null; columns can be added to a live table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alibaba_attribute_columns_of_every_type() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE items (pk1 text, pk2 bigint, name text, qty bigint, price double, on_sale boolean, image blob, PRIMARY KEY (pk1, pk2))"],
    )
    .await;
    let full = prepare(
        &session,
        "INSERT INTO items (pk1, pk2, name, qty, price, on_sale, image) VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
    .await;
    write(
        &session,
        &full,
        (
            "shop",
            1_i64,
            "pen",
            9_000_000_000_i64,
            1.25,
            true,
            vec![0xca_u8, 0xfe],
        ),
    )
    .await;
    let sparse = prepare(
        &session,
        "INSERT INTO items (pk1, pk2, price) VALUES (?, ?, ?)",
    )
    .await;
    write(&session, &sparse, ("shop", 2_i64, -0.5)).await;
    let bare = prepare(&session, "INSERT INTO items (pk1, pk2) VALUES (?, ?)").await;
    write(&session, &bare, ("shop", 3_i64)).await;
    type Item = (
        i64,
        Option<String>,
        Option<i64>,
        Option<f64>,
        Option<bool>,
        Option<Vec<u8>>,
    );
    let read = prepare(
        &session,
        "SELECT pk2, name, qty, price, on_sale, image FROM items WHERE pk1 = ?",
    )
    .await;
    assert_eq!(
        rows::<Item>(&session, &read, ("shop",)).await,
        vec![
            (
                1,
                Some("pen".into()),
                Some(9_000_000_000),
                Some(1.25),
                Some(true),
                Some(vec![0xca, 0xfe])
            ),
            (2, None, None, Some(-0.5), None, None),
            (3, None, None, None, None, None),
        ]
    );
    run_all(&session, &["ALTER TABLE items ADD color text"]).await;
    let color = prepare(
        &session,
        "UPDATE items SET color = ? WHERE pk1 = ? AND pk2 = ?",
    )
    .await;
    write(&session, &color, ("red", "shop", 2_i64)).await;
    let colors = prepare(
        &session,
        "SELECT pk2, color FROM items WHERE pk1 = ? AND pk2 <= ?",
    )
    .await;
    assert_eq!(
        rows::<(i64, Option<String>)>(&session, &colors, ("shop", 2_i64)).await,
        vec![(1, None), (2, Some("red".into()))]
    );
    // A Double or Boolean column cannot be part of a Table Store key, but CQL allows both; an
    // attribute is not a key, so a read by it alone filters.
    assert_invalid(
        &session,
        "SELECT * FROM items WHERE pk1 = 'shop' AND on_sale = true",
        ALLOW_FILTERING,
    )
    .await;
}

/// Alibaba Table Store, data types: String "UTF-8, can be empty" and Binary "Can be empty", both
/// permitted as primary key. An empty string or blob is a valid clustering value and sorts first;
/// as the whole partition key (the first key column) Cassandra refuses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alibaba_empty_string_and_binary_key_values() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE t (pk1 text, pk2 text, pk3 blob, attr int, PRIMARY KEY (pk1, pk2, pk3))"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO t (pk1, pk2, pk3, attr) VALUES (?, ?, ?, ?)",
    )
    .await;
    for (pk2, pk3, attr) in [
        ("b", vec![0x00_u8], 1),
        ("", vec![0x01], 2),
        ("", vec![], 3),
        ("a", vec![], 4),
    ] {
        write(&session, &insert, ("p", pk2, pk3, attr)).await;
    }
    let read = prepare(&session, "SELECT pk2, pk3, attr FROM t WHERE pk1 = ?").await;
    assert_eq!(
        rows::<(String, Vec<u8>, i32)>(&session, &read, ("p",)).await,
        vec![
            (String::new(), vec![], 3),
            (String::new(), vec![0x01], 2),
            ("a".into(), vec![], 4),
            ("b".into(), vec![0x00], 1),
        ]
    );
    let point = prepare(
        &session,
        "SELECT attr FROM t WHERE pk1 = ? AND pk2 = ? AND pk3 = ?",
    )
    .await;
    assert_eq!(
        rows::<(i32,)>(&session, &point, ("p", "", Vec::<u8>::new())).await,
        vec![(3,)]
    );
    assert_invalid(
        &session,
        "INSERT INTO t (pk1, pk2, pk3, attr) VALUES ('', 'a', 0x00, 5)",
        "Key may not be empty",
    )
    .await;
    assert_invalid(
        &session,
        "SELECT * FROM t WHERE pk1 = ''",
        "Key may not be empty",
    )
    .await;
}

/// Alibaba Table Store, column naming: letters, digits and underscores, a first character that
/// is a letter or underscore, and "All characters are case sensitive". In CQL that takes quoted
/// names: `"Pk"` and `"pk"` are different key columns and `"_attr"` a valid attribute, while an
/// unquoted name folds to lower case.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alibaba_case_sensitive_column_names() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &[
            "CREATE TABLE names (\"Pk\" text, \"pk\" text, \"_attr\" int, \"Attr_2\" int, PRIMARY KEY (\"Pk\", \"pk\"))",
            "INSERT INTO names (\"Pk\", \"pk\", \"_attr\", \"Attr_2\") VALUES ('A', 'a', 1, 2)",
            "INSERT INTO names (\"Pk\", \"pk\", \"_attr\", \"Attr_2\") VALUES ('a', 'A', 3, 4)",
        ],
    )
    .await;
    let read = prepare(
        &session,
        "SELECT \"Pk\", \"pk\", \"_attr\", \"Attr_2\" FROM names WHERE \"Pk\" = ? AND \"pk\" = ?",
    )
    .await;
    assert_eq!(
        rows::<(String, String, i32, i32)>(&session, &read, ("a", "A")).await,
        vec![("a".into(), "A".into(), 3, 4)]
    );
    assert!(
        rows::<(String, String, i32, i32)>(&session, &read, ("a", "a"))
            .await
            .is_empty()
    );
    // Unquoted `PK` is the clustering column "pk", so this names no partition.
    assert_invalid(
        &session,
        "SELECT * FROM names WHERE PK = 'a'",
        ALLOW_FILTERING,
    )
    .await;
    assert_invalid(
        &session,
        "SELECT attr_2 FROM names",
        "Undefined column name attr_2 in table ks.names",
    )
    .await;
}
