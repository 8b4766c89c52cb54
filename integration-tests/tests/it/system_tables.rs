//! System tables as drivers read them.

use integration_tests::TestServer;
use integration_tests::{query_rows, query_single_row};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schema_tables_cover_system_and_user_keyspaces() {
    let server = TestServer::start().await;
    let session = server.session().await;
    let before: (uuid::Uuid,) = query_single_row(
        &session,
        "SELECT schema_version FROM system.local WHERE key = 'local'",
        &[],
    )
    .await;
    session
        .query_unpaged("CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1} AND durable_writes = false", &[])
        .await
        .unwrap();
    let after: (uuid::Uuid,) = query_single_row(
        &session,
        "SELECT schema_version FROM system.local WHERE key = 'local'",
        &[],
    )
    .await;
    assert_ne!(before, after);
    let keyspaces: Vec<(String, bool, std::collections::HashMap<String, String>)> = query_rows(
        &session,
        "SELECT keyspace_name, durable_writes, replication FROM system_schema.keyspaces",
        &[],
    )
    .await;
    let names: Vec<&str> = keyspaces.iter().map(|k| k.0.as_str()).collect();
    for expected in [
        "system",
        "system_schema",
        "system_auth",
        "system_distributed",
        "system_traces",
        "ks",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    assert!(!names.contains(&"system_virtual_schema"));
    let ks = keyspaces.iter().find(|k| k.0 == "ks").unwrap();
    assert!(!ks.1);
    assert_eq!(
        ks.2["class"],
        "org.apache.cassandra.locator.NetworkTopologyStrategy"
    );
    assert_eq!(ks.2["datacenter1"], "1");
    for table in [
        "tables",
        "columns",
        "types",
        "functions",
        "aggregates",
        "triggers",
        "indexes",
        "views",
        "dropped_columns",
        "column_masks",
    ] {
        session
            .query_unpaged(format!("SELECT * FROM system_schema.{table}"), &[])
            .await
            .unwrap();
    }
    for table in ["keyspaces", "tables", "columns"] {
        session
            .query_unpaged(format!("SELECT * from system_virtual_schema.{table}"), &[])
            .await
            .unwrap();
    }
    let peers = session
        .query_unpaged("SELECT * FROM system.peers_v2", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(peers.rows_num(), 0);
    let local_tables = session
        .query_unpaged(
            "SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'system'",
            &[],
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let names: Vec<String> = local_tables
        .rows::<(String,)>()
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert!(names.contains(&"local".to_string()) && names.contains(&"peers_v2".to_string()));
}

/// A schema read restricted to keyspaces (as a driver's metadata refresh reads) generates only
/// their rows, and must return exactly what the whole table holds for them, prepared or not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyspace_restricted_schema_reads_match_the_whole_table() {
    let server = TestServer::start().await;
    let session = server.session().await;
    for ks in ["ka", "kb"] {
        session
            .query_unpaged(format!("CREATE KEYSPACE {ks} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}"), &[])
            .await
            .unwrap();
        for t in ["t1", "t2"] {
            session
                .query_unpaged(
                    format!("CREATE TABLE {ks}.{t} (k int, c text, v blob, PRIMARY KEY (k, c))"),
                    &[],
                )
                .await
                .unwrap();
        }
    }
    type Column = (String, String, String);
    let columns = "SELECT keyspace_name, table_name, column_name FROM system_schema.columns";
    let all: Vec<Column> = query_rows(&session, columns, &[]).await;
    let of = |keyspaces: &[&str]| -> Vec<Column> {
        let mut rows: Vec<Column> = all
            .iter()
            .filter(|(ks, _, _)| keyspaces.contains(&ks.as_str()))
            .cloned()
            .collect();
        rows.sort();
        rows
    };
    let sorted = |mut rows: Vec<Column>| {
        rows.sort();
        rows
    };
    let one = format!("{columns} WHERE keyspace_name = 'kb'");
    assert_eq!(sorted(query_rows(&session, one, &[]).await), of(&["kb"]));
    assert_eq!(of(&["kb"]).len(), 6);
    let two = format!("{columns} WHERE keyspace_name IN ('ka', 'system_auth', 'nope')");
    assert_eq!(
        sorted(query_rows(&session, two, &[]).await),
        of(&["ka", "system_auth"])
    );
    let table = format!("{columns} WHERE keyspace_name = ? AND table_name = ?");
    let prepared = session.prepare(table).await.unwrap();
    let rows: Vec<Column> = session
        .execute_unpaged(&prepared, ("ka", "t2"))
        .await
        .unwrap()
        .into_rows_result()
        .unwrap()
        .rows::<Column>()
        .unwrap()
        .map(|row| row.unwrap())
        .collect();
    let expected: Vec<Column> = ["c", "k", "v"]
        .iter()
        .map(|c| ("ka".to_string(), "t2".to_string(), c.to_string()))
        .collect();
    assert_eq!(sorted(rows), expected);
}

/// `system.size_estimates` and `system.table_estimates`: per user table, the node's ring
/// unwrapped into two ranges at its token, whose partition counts add up to the table's.
/// They are estimates (runs are shared between the ranges by their token span, see
/// `runs_visibility`), but these rows are all in the memtable, whose partitions are counted
/// from their keys: exact, range by range.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn size_estimates_count_memtable_partitions_by_token_range() {
    let server = TestServer::start().await;
    let session = server.session().await;
    for cql in [
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
        "CREATE TABLE ks.t (k int, c int, v text, PRIMARY KEY (k, c))",
    ] {
        session.query_unpaged(cql, &[]).await.unwrap();
    }
    let insert = session
        .prepare("INSERT INTO ks.t (k, c, v) VALUES (?, ?, 'value')")
        .await
        .unwrap();
    for k in 0..200 {
        for c in 0..2 {
            session.execute_unpaged(&insert, (k, c)).await.unwrap();
        }
    }
    let (tokens,): (Vec<String>,) =
        query_single_row(&session, "SELECT tokens FROM system.local", &[]).await;
    let token = tokens[0].clone();
    let min = i64::MIN.to_string();
    let rows: Vec<(String, String, i64, i64)> = query_rows(
        &session,
        "SELECT range_start, range_end, mean_partition_size, partitions_count \
         FROM system.size_estimates WHERE keyspace_name = 'ks' AND table_name = 't'",
        &[],
    )
    .await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    let ranges: Vec<(&str, &str)> = rows.iter().map(|r| (r.0.as_str(), r.1.as_str())).collect();
    assert!(
        ranges.contains(&(token.as_str(), min.as_str())),
        "{ranges:?}"
    );
    assert!(
        ranges.contains(&(min.as_str(), token.as_str())),
        "{ranges:?}"
    );
    assert_eq!(rows.iter().map(|r| r.3).sum::<i64>(), 200);
    let node_token: i64 = token.parse().unwrap();
    let below = (0..200i32)
        .filter(|k| storage::token_of(&[&k.to_be_bytes()]) <= node_token)
        .count() as i64;
    let (_, _, _, estimated_below) = rows.iter().find(|r| r.0 == min).unwrap();
    assert_eq!(*estimated_below, below, "{rows:?}");
    assert!(rows.iter().all(|r| r.3 == 0 || r.2 > 0), "{rows:?}");
    let typed: Vec<(String, i64)> = query_rows(
        &session,
        "SELECT range_type, partitions_count FROM system.table_estimates \
         WHERE keyspace_name = 'ks' AND table_name = 't'",
        &[],
    )
    .await;
    for range_type in ["primary", "local_primary"] {
        let total: i64 = typed
            .iter()
            .filter(|(t, _)| t == range_type)
            .map(|(_, n)| n)
            .sum();
        assert_eq!(total, 200, "{range_type}");
    }
}

/// Stage, driver name, protocol version, requests, keyspace and TLS of a client.
type ClientRow = (String, Option<String>, i32, i64, Option<String>, bool);

/// `system_views.clients` lists each open connection with its driver, stage, protocol,
/// keyspace and requests; `system_views.settings` the settings by cassandra.yaml name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_and_settings_views() {
    let server = TestServer::start().await;
    let session = server.session().await;
    session
        .query_unpaged(
            "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
            &[],
        )
        .await
        .unwrap();
    session.use_keyspace("ks", false).await.unwrap();
    let rows: Vec<ClientRow> = query_rows(
        &session,
        "SELECT connection_stage, driver_name, protocol_version, request_count, keyspace_name, \
         ssl_enabled FROM system_views.clients",
        &[],
    )
    .await;
    assert!(!rows.is_empty());
    for (stage, driver, protocol, requests, _, ssl) in &rows {
        assert_eq!(stage, "ready");
        assert!(
            driver.as_deref().is_some_and(|d| d.contains("Rust")),
            "{driver:?}"
        );
        assert_eq!(*protocol, 4);
        assert!(*requests >= 1);
        assert!(!ssl);
    }
    assert!(
        rows.iter().any(|r| r.4.as_deref() == Some("ks")),
        "a connection that ran USE ks: {rows:?}"
    );
    let plain: Vec<(Option<String>, Option<String>)> = query_rows(
        &session,
        "SELECT ssl_protocol, ssl_cipher_suite FROM system_views.clients",
        &[],
    )
    .await;
    assert!(plain.iter().all(|r| *r == (None, None)), "{plain:?}");
    // Cassandra 5.0's ProtocolVersion.CURRENT, whatever this v4 client negotiated.
    let (native,): (String,) = query_single_row(
        &session,
        "SELECT native_protocol_version FROM system.local",
        &[],
    )
    .await;
    assert_eq!(native, "5");
    let (value,): (String,) = query_single_row(
        &session,
        "SELECT value FROM system_views.settings WHERE name = 'commitlog_sync'",
        &[],
    )
    .await;
    assert_eq!(value, "periodic");
    let names: Vec<(String,)> =
        query_rows(&session, "SELECT name FROM system_views.settings", &[]).await;
    assert!(names.iter().any(|(n,)| n == "native_transport_port"));
    assert!(names.iter().all(|(n,)| !n.contains("password")));
}

/// `system_views.local_{read,scan,write}_latency`: each user table's timed operations, a
/// read of named partitions counted as a read and any other as a scan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latency_views_count_each_tables_operations() {
    let server = TestServer::start().await;
    let session = server.session().await;
    for cql in [
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
        "CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
        "CREATE TABLE ks.idle (k int PRIMARY KEY)",
    ] {
        session.query_unpaged(cql, &[]).await.unwrap();
    }
    for k in 0..5 {
        session
            .query_unpaged("INSERT INTO ks.t (k, v) VALUES (?, 1)", (k,))
            .await
            .unwrap();
    }
    for k in 0..3 {
        session
            .query_unpaged("SELECT v FROM ks.t WHERE k = ?", (k,))
            .await
            .unwrap();
    }
    session
        .query_unpaged("SELECT v FROM ks.t", &[])
        .await
        .unwrap();
    // A batch counts once per table it writes.
    session
        .query_unpaged(
            "BEGIN BATCH INSERT INTO ks.t (k, v) VALUES (10, 1); \
             INSERT INTO ks.t (k, v) VALUES (11, 1); APPLY BATCH",
            &[],
        )
        .await
        .unwrap();
    for (view, expected) in [
        ("local_write_latency", 6),
        ("local_read_latency", 3),
        ("local_scan_latency", 1),
    ] {
        let cql = format!(
            "SELECT table_name, count, max_ms, p50th_ms, p99th_ms FROM system_views.{view} \
             WHERE keyspace_name = 'ks'"
        );
        let rows: Vec<(String, i64, f64, f64, f64)> = query_rows(&session, cql.as_str(), &[]).await;
        let t = rows.iter().find(|r| r.0 == "t").expect(view);
        assert_eq!(t.1, expected, "{view}");
        assert!(t.2 > 0.0 && t.3 <= t.2 && t.4 <= t.2, "{view}: {t:?}");
        let idle = rows.iter().find(|r| r.0 == "idle").expect(view);
        assert_eq!(idle.1, 0, "{view}");
    }
}
