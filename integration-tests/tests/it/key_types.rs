//! Every type a primary key may have, through the driver: clustering columns come back in
//! Cassandra's order (ASC and DESC) whatever the insertion order, partition keys find their
//! rows, values Cassandra's comparator calls equal are one clustering but two partitions, and
//! duration/timestamp literals round-trip. Types whose keys cannot exist are refused with
//! Cassandra's messages.

use integration_tests::{query_error, query_rows, query_single_row, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::value::{CqlDuration, CqlTimestamp};

/// A key type and CQL literals of it in ascending Cassandra order.
struct Case {
    ty: &'static str,
    ascending: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        ty: "int",
        ascending: &["-2147483648", "-1", "0", "1", "2147483647"],
    },
    Case {
        ty: "bigint",
        ascending: &["-9223372036854775808", "-1", "0", "42"],
    },
    Case {
        ty: "smallint",
        ascending: &["-32768", "-1", "0", "32767"],
    },
    Case {
        ty: "tinyint",
        ascending: &["-128", "-1", "0", "127"],
    },
    Case {
        ty: "varint",
        ascending: &[
            "-100000000000000000000",
            "-129",
            "-1",
            "0",
            "1",
            "255",
            "100000000000000000000",
        ],
    },
    Case {
        ty: "decimal",
        ascending: &[
            "-19866597869857659876855e1000000000",
            "-1e10",
            "-1.5",
            "-0.001",
            "0",
            "0.001",
            "1",
            "1.25",
            "1e10",
            "19866597869857659876855e1000000000",
        ],
    },
    Case {
        ty: "float",
        ascending: &["-Infinity", "-1.5", "-0.0", "0.0", "1.5", "Infinity", "NaN"],
    },
    Case {
        ty: "double",
        ascending: &[
            "-Infinity",
            "-1e300",
            "-0.0",
            "0.0",
            "1e-300",
            "Infinity",
            "NaN",
        ],
    },
    Case {
        ty: "boolean",
        ascending: &["false", "true"],
    },
    Case {
        ty: "text",
        ascending: &["''", "'A'", "'a'", "'ab'", "'b'", "'é'"],
    },
    Case {
        ty: "ascii",
        ascending: &["''", "'A'", "'B'", "'a'"],
    },
    Case {
        ty: "blob",
        ascending: &["0x", "0x00", "0x0000", "0x01", "0xff"],
    },
    Case {
        ty: "inet",
        ascending: &["'::1'", "'10.0.0.1'", "'192.168.0.1'", "'fe80::1'"],
    },
    Case {
        ty: "date",
        ascending: &[
            "'-5877641-06-23'",
            "'1969-12-31'",
            "'1970-01-01'",
            "'2024-02-29'",
        ],
    },
    Case {
        ty: "time",
        ascending: &[
            "'00:00:00'",
            "'00:00:00.000000001'",
            "'12:00:00'",
            "'23:59:59.999999999'",
        ],
    },
    Case {
        ty: "timestamp",
        ascending: &[
            "-1",
            "'1970-01-01+0000'",
            "'2011-02-03 04:05+0000'",
            "'2038-01-19T03:14:08Z'",
        ],
    },
    Case {
        ty: "uuid",
        // Version first, then time for version 1, then the bytes (UUIDType).
        ascending: &[
            "00000000-0000-1000-8000-000000000000",
            "ffffffff-0000-1000-8000-000000000000",
            "00000000-0001-1000-8000-000000000000",
            "00000000-0000-4000-8000-000000000000",
            "00000000-0000-4000-8000-000000000001",
            "ffffffff-ffff-4fff-bfff-ffffffffffff",
        ],
    },
    Case {
        ty: "timeuuid",
        // Time first, then the clock and node as signed bytes (TimeUUIDType).
        ascending: &[
            "00000000-0000-1000-8000-000000000000",
            "00000000-0000-1000-bf00-000000000000",
            "00000000-0000-1000-c000-000000000000",
            "ffffffff-0000-1000-8000-000000000000",
            "00000000-0001-1000-8000-000000000000",
        ],
    },
    Case {
        ty: "frozen<list<int>>",
        ascending: &["[]", "[-1]", "[-1, 0]", "[0]", "[1]"],
    },
    Case {
        ty: "frozen<set<text>>",
        ascending: &["{}", "{'a'}", "{'a', 'b'}", "{'b'}"],
    },
    Case {
        ty: "frozen<map<int, text>>",
        ascending: &["{}", "{1: 'a'}", "{1: 'b'}", "{1: 'b', 2: 'a'}", "{2: ''}"],
    },
    Case {
        ty: "frozen<list<frozen<set<int>>>>",
        ascending: &["[]", "[{}]", "[{1}]", "[{1, 2}]", "[{2}]", "[{2}, {}]"],
    },
    Case {
        ty: "tuple<int, text>",
        ascending: &[
            "(-1, null)",
            "(-1, '')",
            "(-1, 'a')",
            "(0, 'a')",
            "(1, null)",
        ],
    },
    Case {
        ty: "frozen<tuple<decimal, frozen<map<text, boolean>>>>",
        ascending: &[
            "(-1.5, {})",
            "(1, {'a': false})",
            "(1, {'a': true})",
            "(2, null)",
        ],
    },
];

/// Insertion order: a fixed permutation that is neither sorted nor reversed.
fn scrambled(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in 0..n {
        order.swap(i, (i * 7 + 3) % n);
    }
    order
}

async fn ranks_in_clustering_order(session: &Session, table: &str) -> Vec<i32> {
    query_rows::<(i32,)>(session, format!("SELECT rank FROM {table} WHERE p = 0"), ())
        .await
        .into_iter()
        .map(|(rank,)| rank)
        .collect()
}

#[tokio::test]
async fn clustering_columns_sort_as_cassandra_in_both_directions() {
    let server = TestServer::start().await;
    let session = session_in(&server, "kt_order").await;
    for (n, case) in CASES.iter().enumerate() {
        for desc in [false, true] {
            let table = format!("t{n}_{}", if desc { "desc" } else { "asc" });
            let order = if desc {
                " WITH CLUSTERING ORDER BY (c DESC)"
            } else {
                ""
            };
            session
                .query_unpaged(
                    format!(
                        "CREATE TABLE {table} (p int, c {}, rank int, PRIMARY KEY (p, c)){order}",
                        case.ty
                    ),
                    (),
                )
                .await
                .unwrap_or_else(|e| panic!("create {}: {e}", case.ty));
            for i in scrambled(case.ascending.len()) {
                let literal = case.ascending[i];
                session
                    .query_unpaged(
                        format!("INSERT INTO {table} (p, c, rank) VALUES (0, {literal}, {i})"),
                        (),
                    )
                    .await
                    .unwrap_or_else(|e| panic!("insert {literal} as {}: {e}", case.ty));
            }
            let mut expected: Vec<i32> = (0..case.ascending.len() as i32).collect();
            if desc {
                expected.reverse();
            }
            assert_eq!(
                ranks_in_clustering_order(&session, &table).await,
                expected,
                "{} {}",
                case.ty,
                if desc { "DESC" } else { "ASC" }
            );
            // A slice is a byte range of the same encoding.
            let middle = case.ascending[case.ascending.len() / 2];
            let above: Vec<(i32,)> = query_rows(
                &session,
                format!("SELECT rank FROM {table} WHERE p = 0 AND c > {middle}"),
                (),
            )
            .await;
            assert_eq!(
                above.len(),
                case.ascending.len() - case.ascending.len() / 2 - 1,
                "{} > {middle}",
                case.ty
            );
        }
    }
}

#[tokio::test]
async fn partition_keys_of_every_type_find_their_rows() {
    let server = TestServer::start().await;
    let session = session_in(&server, "kt_partition").await;
    for (n, case) in CASES.iter().enumerate() {
        let table = format!("p{n}");
        session
            .query_unpaged(
                format!(
                    "CREATE TABLE {table} (p {}, rank int, PRIMARY KEY (p))",
                    case.ty
                ),
                (),
            )
            .await
            .unwrap_or_else(|e| panic!("create {}: {e}", case.ty));
        // Cassandra refuses empty partition keys, so the empty literals stay out.
        let keys: Vec<(usize, &str)> = case
            .ascending
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, l)| !matches!(*l, "''" | "0x"))
            .collect();
        for (i, literal) in &keys {
            session
                .query_unpaged(
                    format!("INSERT INTO {table} (p, rank) VALUES ({literal}, {i})"),
                    (),
                )
                .await
                .unwrap_or_else(|e| panic!("insert {literal} as {}: {e}", case.ty));
        }
        for (i, literal) in &keys {
            let (rank,): (i32,) = query_single_row(
                &session,
                format!("SELECT rank FROM {table} WHERE p = {literal}"),
                (),
            )
            .await;
            assert_eq!(rank, *i as i32, "{} {literal}", case.ty);
        }
        let tokens: Vec<(i64,)> =
            query_rows(&session, format!("SELECT token(p) FROM {table}"), ()).await;
        assert_eq!(tokens.len(), keys.len(), "{}", case.ty);
        assert!(
            tokens.windows(2).all(|w| w[0] <= w[1]),
            "{} in token order",
            case.ty
        );
    }
}

#[tokio::test]
async fn equal_decimals_are_one_clustering_but_two_partitions() {
    let server = TestServer::start().await;
    let session = session_in(&server, "kt_decimal").await;
    session
        .query_unpaged(
            "CREATE TABLE t (p decimal, c decimal, v text, PRIMARY KEY (p, c))",
            (),
        )
        .await
        .unwrap();
    for (p, c, v) in [
        ("1.0", "1.0", "a"),
        ("1.0", "1.00", "b"),
        ("1.0", "2", "c"),
        ("1.00", "1", "d"),
    ] {
        session
            .query_unpaged(
                format!("INSERT INTO t (p, c, v) VALUES ({p}, {c}, '{v}')"),
                (),
            )
            .await
            .unwrap();
    }
    let rows: Vec<(String,)> = query_rows(&session, "SELECT v FROM t WHERE p = 1.0", ()).await;
    assert_eq!(rows, vec![("b".to_string(),), ("c".to_string(),)]);
    let rows: Vec<(String,)> =
        query_rows(&session, "SELECT v FROM t WHERE p = 1.00 AND c = 1.000", ()).await;
    assert_eq!(rows, vec![("d".to_string(),)]);
    let rows: Vec<(String,)> = query_rows(&session, "SELECT v FROM t WHERE p = 1", ()).await;
    assert!(rows.is_empty(), "1 is a third partition");
}

#[tokio::test]
async fn duration_and_timestamp_literals_round_trip() {
    let server = TestServer::start().await;
    let session = session_in(&server, "kt_literals").await;
    session
        .query_unpaged(
            "CREATE TABLE t (p int PRIMARY KEY, d duration, ts timestamp)",
            (),
        )
        .await
        .unwrap();
    const H: i64 = 3_600_000_000_000;
    const M: i64 = 60_000_000_000;
    let durations: &[(&str, (i32, i32, i64))] = &[
        ("1h30m", (0, 0, H + 30 * M)),
        (
            "1y2mo3w4d5h6m7s8ms9us10ns",
            (14, 25, 5 * H + 6 * M + 7_008_009_010),
        ),
        ("3µs", (0, 0, 3_000)),
        ("-1h", (0, 0, -H)),
        ("P1Y2M3DT4H5M6S", (14, 3, 4 * H + 5 * M + 6_000_000_000)),
        ("P2W", (0, 14, 0)),
        (
            "P0001-02-03T04:05:06",
            (14, 3, 4 * H + 5 * M + 6_000_000_000),
        ),
        ("-P1D", (0, -1, 0)),
    ];
    for (literal, (months, days, nanoseconds)) in durations {
        session
            .query_unpaged(format!("INSERT INTO t (p, d) VALUES (1, {literal})"), ())
            .await
            .unwrap_or_else(|e| panic!("{literal}: {e}"));
        let (d,): (CqlDuration,) =
            query_single_row(&session, "SELECT d FROM t WHERE p = 1", ()).await;
        assert_eq!(
            (d.months, d.days, d.nanoseconds),
            (*months, *days, *nanoseconds),
            "{literal}"
        );
    }
    let timestamps: &[(&str, i64)] = &[
        ("'2011-02-03 04:05+0000'", 1_296_705_900_000),
        ("'2011-02-03 04:05:12.345+0000'", 1_296_705_912_345),
        ("'2011-02-03T04:05:12.345+00:00'", 1_296_705_912_345),
        ("'2011-02-03T04:05:12Z'", 1_296_705_912_000),
        ("'2011-02-03 04:05:12'", 1_296_705_912_000),
        ("'2011-02-03'", 1_296_691_200_000),
        ("'2011-02-03 GMT'", 1_296_691_200_000),
        ("'2011-02-03 05:05+0100'", 1_296_705_900_000),
        ("1296705900000", 1_296_705_900_000),
    ];
    for (literal, millis) in timestamps {
        session
            .query_unpaged(format!("INSERT INTO t (p, ts) VALUES (2, {literal})"), ())
            .await
            .unwrap_or_else(|e| panic!("{literal}: {e}"));
        let (ts,): (CqlTimestamp,) =
            query_single_row(&session, "SELECT ts FROM t WHERE p = 2", ()).await;
        assert_eq!(ts.0, *millis, "{literal}");
    }
    let refused: &[(&str, &str)] = &[
        (
            "2m3m",
            "Invalid duration. The minutes are specified multiple times",
        ),
        (
            "12s3m",
            "Invalid duration. The seconds should be after minutes",
        ),
        (
            "'1h'",
            "Invalid STRING constant (1h) for \"d\" of type duration",
        ),
        ("5", "Unable to convert '5' to a duration"),
    ];
    for (literal, message) in refused {
        let (code, text) = query_error(
            &session,
            &format!("INSERT INTO t (p, d) VALUES (3, {literal})"),
        )
        .await;
        assert_eq!(
            (code, text.as_str()),
            (DbError::Invalid, *message),
            "{literal}"
        );
    }
    let (code, text) = query_error(
        &session,
        "INSERT INTO t (p, ts) VALUES (3, 'an invalid timestamp')",
    )
    .await;
    assert_eq!(code, DbError::Invalid);
    assert_eq!(
        text,
        "Unable to parse a date/time from 'an invalid timestamp'"
    );
}

#[tokio::test]
async fn durations_cannot_be_keys_even_nested() {
    let server = TestServer::start().await;
    let session = session_in(&server, "kt_duration").await;
    let refused: &[(&str, &str)] = &[
        (
            "CREATE TABLE t (a duration PRIMARY KEY, b int)",
            "duration type is not supported for PRIMARY KEY column 'a'",
        ),
        (
            "CREATE TABLE t (a text, b duration, PRIMARY KEY (a, b)) WITH CLUSTERING ORDER BY (b DESC)",
            "duration type is not supported for PRIMARY KEY column 'b'",
        ),
        (
            "CREATE TABLE t (m frozen<map<text, duration>> PRIMARY KEY, v int)",
            "duration type is not supported for PRIMARY KEY column 'm'",
        ),
        (
            "CREATE TABLE t (pk int, l frozen<list<duration>>, PRIMARY KEY (pk, l))",
            "duration type is not supported for PRIMARY KEY column 'l'",
        ),
        (
            "CREATE TABLE t (pk int, t tuple<int, duration>, PRIMARY KEY (pk, t))",
            "duration type is not supported for PRIMARY KEY column 't'",
        ),
        (
            "CREATE TABLE t (s frozen<set<duration>> PRIMARY KEY, v int)",
            "Durations are not allowed inside sets: frozen<set<duration>>",
        ),
        (
            "CREATE TABLE t (pk int PRIMARY KEY, m map<duration, int>)",
            "Durations are not allowed as map keys: map<duration, int>",
        ),
    ];
    for (cql, message) in refused {
        let (code, text) = query_error(&session, cql).await;
        assert_eq!((code, text.as_str()), (DbError::Invalid, *message), "{cql}");
    }
    session
        .query_unpaged(
            "CREATE TABLE ok (pk int PRIMARY KEY, l list<duration>, m map<int, duration>)",
            (),
        )
        .await
        .expect("durations as list elements and map values are fine");
}

#[tokio::test]
async fn frozen_udts_sort_field_by_field_with_null_first() {
    let server = TestServer::start().await;
    let session = session_in(&server, "kt_udt").await;
    session
        .query_unpaged("CREATE TYPE pair (a int, b text)", ())
        .await
        .unwrap();
    let ascending = [
        "{a: null, b: 'z'}",
        "{a: -1}",
        "{a: -1, b: ''}",
        "{a: -1, b: 'a'}",
        "{a: 0, b: 'a'}",
        "{a: 1}",
    ];
    for desc in [false, true] {
        let table = if desc { "t_desc" } else { "t_asc" };
        let order = if desc {
            " WITH CLUSTERING ORDER BY (c DESC)"
        } else {
            ""
        };
        session
            .query_unpaged(
                format!(
                    "CREATE TABLE {table} (p int, c frozen<pair>, rank int, PRIMARY KEY (p, c)){order}"
                ),
                (),
            )
            .await
            .unwrap();
        for i in scrambled(ascending.len()) {
            let literal = ascending[i];
            session
                .query_unpaged(
                    format!("INSERT INTO {table} (p, c, rank) VALUES (0, {literal}, {i})"),
                    (),
                )
                .await
                .unwrap_or_else(|e| panic!("insert {literal}: {e}"));
        }
        let mut expected: Vec<i32> = (0..ascending.len() as i32).collect();
        if desc {
            expected.reverse();
        }
        assert_eq!(ranks_in_clustering_order(&session, table).await, expected);
    }
    // A missing trailing field and an explicit null are the same clustering.
    session
        .query_unpaged(
            "INSERT INTO t_asc (p, c, rank) VALUES (0, {a: 1, b: null}, 9)",
            (),
        )
        .await
        .unwrap();
    let (rank,): (i32,) = query_single_row(
        &session,
        "SELECT rank FROM t_asc WHERE p = 0 AND c = {a: 1}",
        (),
    )
    .await;
    assert_eq!(rank, 9);
    session
        .query_unpaged(
            "CREATE TABLE by_pair (p frozen<pair> PRIMARY KEY, rank int)",
            (),
        )
        .await
        .unwrap();
    for (i, literal) in ascending.iter().enumerate() {
        session
            .query_unpaged(
                format!("INSERT INTO by_pair (p, rank) VALUES ({literal}, {i})"),
                (),
            )
            .await
            .unwrap();
    }
    for (i, literal) in ascending.iter().enumerate() {
        let (rank,): (i32,) = query_single_row(
            &session,
            format!("SELECT rank FROM by_pair WHERE p = {literal}"),
            (),
        )
        .await;
        assert_eq!(rank, i as i32, "{literal}");
    }
}
