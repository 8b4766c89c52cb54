//! Schema statements through the driver: keyspaces, tables of every key form, driver metadata,
//! ALTER, DROP, TRUNCATE, and their errors.

use integration_tests::{db_error, query_error, TestServer};
use integration_tests::{query_rows, query_single_row};
use scylla::errors::DbError;

const KS: &str =
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}";

/// Runs `cql`, which must succeed.
async fn run(session: &scylla::client::session::Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_of_every_key_form_show_in_driver_metadata() {
    let server = TestServer::start().await;
    let session = server.session().await;
    session.query_unpaged(KS, &[]).await.unwrap();
    session
        .query_unpaged("CREATE TABLE ks.single (k int PRIMARY KEY, v text)", &[])
        .await
        .unwrap();
    session
        .query_unpaged("CREATE TABLE ks.clustered (k text, c1 int, c2 bigint, v blob, PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)", &[])
        .await
        .unwrap();
    session
        .query_unpaged("CREATE TABLE ks.composite (k1 int, k2 text, c timeuuid, v double, PRIMARY KEY ((k1, k2), c))", &[])
        .await
        .unwrap();
    session.refresh_metadata().await.unwrap();
    let state = session.get_cluster_state();
    let ks = state.get_keyspace("ks").expect("keyspace in metadata");
    let single = &ks.tables["single"];
    assert_eq!(single.partition_key, vec!["k"]);
    assert!(single.clustering_key.is_empty());
    let clustered = &ks.tables["clustered"];
    assert_eq!(clustered.partition_key, vec!["k"]);
    assert_eq!(clustered.clustering_key, vec!["c1", "c2"]);
    let composite = &ks.tables["composite"];
    assert_eq!(composite.partition_key, vec!["k1", "k2"]);
    assert_eq!(composite.clustering_key, vec!["c"]);
    // system_schema shows the clustering order.
    let rows = session
        .query_unpaged(
            "SELECT column_name, clustering_order, kind, position, type FROM system_schema.columns WHERE keyspace_name = 'ks' AND table_name = 'clustered'",
            &[],
        )
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let cols: Vec<(String, String, String, i32, String)> =
        rows.rows().unwrap().map(|r| r.unwrap()).collect();
    assert_eq!(
        cols,
        vec![
            (
                "c1".into(),
                "desc".into(),
                "clustering".into(),
                0,
                "int".into()
            ),
            (
                "c2".into(),
                "asc".into(),
                "clustering".into(),
                1,
                "bigint".into()
            ),
            (
                "k".into(),
                "none".into(),
                "partition_key".into(),
                0,
                "text".into()
            ),
            (
                "v".into(),
                "none".into(),
                "regular".into(),
                -1,
                "blob".into()
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_errors_carry_cassandras_codes() {
    let server = TestServer::start().await;
    let session = server.session().await;
    session.query_unpaged(KS, &[]).await.unwrap();
    let err = session.query_unpaged(KS, &[]).await.unwrap_err();
    let (code, msg) = db_error(&err).unwrap();
    assert_eq!(
        code,
        DbError::AlreadyExists {
            keyspace: "ks".into(),
            table: String::new()
        }
    );
    assert_eq!(msg, "Cannot add existing keyspace \"ks\"");
    session.query_unpaged("CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", &[]).await.unwrap();
    session
        .query_unpaged("CREATE TABLE ks.t (k int PRIMARY KEY)", &[])
        .await
        .unwrap();
    let err = session
        .query_unpaged("CREATE TABLE ks.t (k int PRIMARY KEY)", &[])
        .await
        .unwrap_err();
    let (code, msg) = db_error(&err).unwrap();
    assert_eq!(
        code,
        DbError::AlreadyExists {
            keyspace: "ks".into(),
            table: "t".into()
        }
    );
    assert_eq!(
        msg,
        "Cannot add already existing table \"t\" to keyspace \"ks\""
    );
    session
        .query_unpaged("CREATE TABLE IF NOT EXISTS ks.t (k int PRIMARY KEY)", &[])
        .await
        .unwrap();
    let err = session
        .query_unpaged("CREATE TABLE nope.t (k int PRIMARY KEY)", &[])
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err).unwrap(),
        (DbError::Invalid, "Keyspace 'nope' doesn't exist".into())
    );
    let err = session
        .query_unpaged("CREATE TABLE ks.u (k int, v int)", &[])
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err).unwrap(),
        (
            DbError::Invalid,
            "No PRIMARY KEY specifed for table 'ks.u' (exactly one required)".into()
        )
    );
    let err = session
        .query_unpaged(
            "CREATE TABLE ks.u (k int PRIMARY KEY, c counter, v int)",
            &[],
        )
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err).unwrap(),
        (
            DbError::Invalid,
            "Cannot mix counter and non counter columns in the same table".into()
        )
    );
    let err = session
        .query_unpaged("CREATE TABLE ks.u (k int PRIMARY KEY,", &[])
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err).unwrap(),
        (
            DbError::SyntaxError,
            "line 0:-1 no viable alternative at input '<EOF>'".into()
        )
    );
    let err = session
        .query_unpaged("create keyspace with replication = {}", &[])
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err).unwrap(),
        (DbError::SyntaxError, "line 1:16 no viable alternative at input 'with' (create keyspace [with] replication...)".into())
    );
    let err = session
        .query_unpaged(
            "CREATE KEYSPACE dup WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 2, 'datacenter1': 3}",
            &[],
        )
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err).unwrap(),
        (
            DbError::SyntaxError,
            "Multiple definition for property datacenter1".into()
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cassandra_stress_schema_statements_are_accepted() {
    let server = TestServer::start().await;
    let session = server.session().await;
    session
        .query_unpaged("CREATE KEYSPACE IF NOT EXISTS \"keyspace1\" WITH replication = {'class': 'org.apache.cassandra.locator.SimpleStrategy', 'replication_factor' : '1'} AND durable_writes = true;\n", &[])
        .await
        .unwrap();
    session.use_keyspace("keyspace1", true).await.unwrap();
    session
        .query_unpaged("CREATE TABLE IF NOT EXISTS standard1 (key blob PRIMARY KEY \n, \"C0\" blob\n, \"C1\" blob\n, \"C2\" blob\n, \"C3\" blob\n, \"C4\" blob) WITH compression = {};\n", &[])
        .await
        .unwrap();
    session
        .query_unpaged("CREATE TABLE IF NOT EXISTS counter1 (key blob PRIMARY KEY,\n, \"C0\" counter\n, \"C1\" counter\n, \"C2\" counter\n, \"C3\" counter\n, \"C4\" counter) WITH compression = {};\n", &[])
        .await
        .unwrap();
    let (compression, flags): (std::collections::HashMap<String, String>, Vec<String>) = query_single_row(&session, "SELECT compression, flags FROM system_schema.tables WHERE keyspace_name = 'keyspace1' AND table_name = 'counter1'", &[]).await;
    assert_eq!(
        compression.get("enabled").map(String::as_str),
        Some("false")
    );
    assert_eq!(flags, vec!["compound".to_string(), "counter".to_string()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alter_drop_and_truncate() {
    let server = TestServer::start().await;
    let session = server.session().await;
    session.query_unpaged(KS, &[]).await.unwrap();
    session
        .query_unpaged("CREATE TABLE ks.t (k int PRIMARY KEY, a int)", &[])
        .await
        .unwrap();
    session
        .query_unpaged("INSERT INTO ks.t (k, a) VALUES (1, 10)", &[])
        .await
        .unwrap();
    session
        .query_unpaged("ALTER TABLE ks.t ADD b text", &[])
        .await
        .unwrap();
    session
        .query_unpaged("UPDATE ks.t SET b = 'x' WHERE k = 1", &[])
        .await
        .unwrap();
    let row: (i32, i32, String) =
        query_single_row(&session, "SELECT * FROM ks.t WHERE k = 1", &[]).await;
    assert_eq!(row, (1, 10, "x".to_string()));
    // A dropped then re-added column does not resurrect old values.
    session
        .query_unpaged("ALTER TABLE ks.t DROP a", &[])
        .await
        .unwrap();
    session
        .query_unpaged("ALTER TABLE ks.t ADD a int", &[])
        .await
        .unwrap();
    let (a,): (Option<i32>,) =
        query_single_row(&session, "SELECT a FROM ks.t WHERE k = 1", &[]).await;
    assert_eq!(a, None);
    // Re-added under a type its old cells cannot be read as, or of another kind: refused.
    run(&session, "ALTER TABLE ks.t DROP b").await;
    assert_eq!(
        query_error(&session, "ALTER TABLE ks.t ADD b set<int>").await,
        (
            DbError::Invalid,
            "Cannot re-add previously dropped column 'b' of type set<int>, incompatible with previous type text".into()
        )
    );
    run(&session, "ALTER TABLE ks.t ADD b blob").await;
    // A row whose only cells belong to a dropped column is gone with it.
    run(&session, "UPDATE ks.t SET b = 0x01 WHERE k = 2").await;
    run(&session, "ALTER TABLE ks.t DROP b").await;
    let rows: Vec<(i32,)> = query_rows(&session, "SELECT k FROM ks.t WHERE k = 2", &[]).await;
    assert_eq!(rows, []);
    let err = session
        .query_unpaged("ALTER TABLE ks.t DROP k", &[])
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err).unwrap(),
        (DbError::Invalid, "Cannot drop PRIMARY KEY column k".into())
    );
    session.query_unpaged("TRUNCATE ks.t", &[]).await.unwrap();
    let rows = session
        .query_unpaged("SELECT * FROM ks.t", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    assert_eq!(rows.rows_num(), 0);
    session.query_unpaged("DROP TABLE ks.t", &[]).await.unwrap();
    let err = session
        .query_unpaged("SELECT * FROM ks.t", &[])
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err).unwrap(),
        (DbError::Invalid, "table t does not exist".into())
    );
    let err = session
        .query_unpaged("DROP TABLE ks.t", &[])
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err).unwrap(),
        (DbError::Invalid, "Table 'ks.t' doesn't exist".into())
    );
    session
        .query_unpaged("DROP TABLE IF EXISTS ks.t", &[])
        .await
        .unwrap();
    session
        .query_unpaged("DROP KEYSPACE ks", &[])
        .await
        .unwrap();
    let err = session
        .query_unpaged("DROP KEYSPACE ks", &[])
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err).unwrap(),
        (DbError::Invalid, "Keyspace 'ks' doesn't exist".into())
    );
    let err = session
        .query_unpaged("DROP KEYSPACE system", &[])
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err).unwrap(),
        (
            DbError::Unauthorized,
            "system keyspace is not user-modifiable.".into()
        )
    );
    // The replicated system keyspaces refuse by permission and resource; the virtual ones
    // refuse in the statement.
    for (cql, code, message) in [
        (
            "DROP TABLE system_auth.roles",
            DbError::Unauthorized,
            "Cannot DROP <table system_auth.roles>",
        ),
        (
            "CREATE TABLE system_traces.t (k int PRIMARY KEY)",
            DbError::Unauthorized,
            "Cannot CREATE <keyspace system_traces>",
        ),
        (
            "ALTER TABLE system_schema.tables ADD x int",
            DbError::Unauthorized,
            "system_schema keyspace is not user-modifiable.",
        ),
        (
            "CREATE TABLE system_views.t (k int PRIMARY KEY)",
            DbError::Invalid,
            "Virtual keyspace 'system_views' is not user-modifiable",
        ),
    ] {
        let err = session.query_unpaged(cql, &[]).await.unwrap_err();
        assert_eq!(db_error(&err).unwrap(), (code, message.into()), "{cql}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compression_options_are_validated_and_stored_as_cassandra_does() {
    let server = TestServer::start().await;
    let session = server.session().await;
    session
        .query_unpaged("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", &[])
        .await
        .unwrap();
    session
        .query_unpaged(
            "CREATE TABLE ks.c (k int PRIMARY KEY) WITH compression = {'sstable_compression': 'SnappyCompressor', 'min_compress_ratio': 2}",
            &[],
        )
        .await
        .unwrap();
    let (compression,): (std::collections::HashMap<String, String>,) = query_single_row(
        &session,
        "SELECT compression FROM system_schema.tables WHERE keyspace_name = 'ks' AND table_name = 'c'",
        (),
    )
    .await;
    let expected: std::collections::HashMap<String, String> = [
        ("chunk_length_in_kb", "16"),
        ("class", "org.apache.cassandra.io.compress.SnappyCompressor"),
        ("min_compress_ratio", "2.0"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(compression, expected);
    for (options, message) in [
        (
            "{'class': 'SnappyCompressor', 'chunk_length_in_kb': 31}",
            "chunk_length_in_kb must be a power of 2",
        ),
        (
            "{'enabled': 'false', 'chunk_length_in_kb': 32}",
            "If the 'enabled' option is set to false no other options must be specified",
        ),
        (
            "{'class': 'SnappyCompressor', 'unknownOption': 32}",
            "Unknown compression options unknownOption",
        ),
        (
            "{'class': 'LZ4Compressor', 'min_compress_ratio': 0.5}",
            "min_compress_ratio can either be 0 or greater than or equal to 1",
        ),
    ] {
        let cql = format!("CREATE TABLE ks.bad (k int PRIMARY KEY) WITH compression = {options}");
        let err = session.query_unpaged(cql.as_str(), &[]).await.unwrap_err();
        assert_eq!(
            db_error(&err),
            Some((DbError::ConfigError, message.to_string())),
            "{cql}"
        );
    }
}

#[tokio::test]
async fn missing_replication_factors_default_as_in_cassandra_5() {
    use std::collections::HashMap;
    let server = TestServer::start().await;
    let session = server.session().await;
    let replication = |ks: &'static str| {
        let session = &session;
        async move {
            let (map,): (HashMap<String, String>,) = query_single_row(
                session,
                "SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?",
                (ks,),
            )
            .await;
            map
        }
    };
    for cql in [
        "CREATE KEYSPACE s WITH replication = {'class': 'SimpleStrategy'}",
        "CREATE KEYSPACE n WITH replication = {'class': 'NetworkTopologyStrategy'}",
        "ALTER KEYSPACE s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
    ] {
        session.query_unpaged(cql, &[]).await.expect(cql);
    }
    assert_eq!(replication("s").await["replication_factor"], "3");
    assert_eq!(replication("n").await["datacenter1"], "1");
    session
        .query_unpaged(
            "ALTER KEYSPACE s WITH replication = {'class': 'NetworkTopologyStrategy'}",
            &[],
        )
        .await
        .unwrap();
    let altered = replication("s").await;
    assert_eq!(
        altered["class"],
        "org.apache.cassandra.locator.NetworkTopologyStrategy"
    );
    assert_eq!(altered["datacenter1"], "3");
    let err = session
        .query_unpaged("CREATE KEYSPACE x WITH replication = {}", &[])
        .await
        .unwrap_err();
    assert_eq!(
        db_error(&err),
        Some((
            DbError::ConfigError,
            "Missing replication strategy class".into()
        ))
    );
}

/// `ALTER TABLE DROP ... USING TIMESTAMP`: once the column is added back, its cells written
/// after the drop's timestamp show again and older ones stay hidden, for regular and static
/// columns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_readded_column_shows_only_cells_newer_than_its_drop() {
    let server = TestServer::start().await;
    let session = server.session().await;
    session.query_unpaged(KS, &[]).await.unwrap();
    session
        .query_unpaged(
            "CREATE TABLE ks.d (k int, c int, v int, s int static, PRIMARY KEY (k, c))",
            &[],
        )
        .await
        .unwrap();
    for c in 0..4 {
        session
            .query_unpaged(
                "INSERT INTO ks.d (k, c, v, s) VALUES (1, ?, ?, ?) USING TIMESTAMP ?",
                (c, c, c, 10_000 * i64::from(c)),
            )
            .await
            .unwrap();
    }
    for cql in [
        "ALTER TABLE ks.d DROP (v, s) USING TIMESTAMP 15000",
        "ALTER TABLE ks.d ADD v int",
        "ALTER TABLE ks.d ADD s int static",
    ] {
        session.query_unpaged(cql, &[]).await.unwrap();
    }
    let rows: Vec<(i32, Option<i32>, Option<i32>)> =
        query_rows(&session, "SELECT c, v, s FROM ks.d WHERE k = 1", &[]).await;
    assert_eq!(
        rows,
        [
            (0, None, Some(3)),
            (1, None, Some(3)),
            (2, Some(2), Some(3)),
            (3, Some(3), Some(3))
        ]
    );
    // DESCRIBE WITH INTERNALS replays that history after the table's id.
    let rows: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE TABLE ks.d WITH INTERNALS", &[]).await;
    let statement = &rows[0].3;
    assert!(statement.contains("\n) WITH ID = "), "{statement}");
    assert!(
        statement.ends_with(
            "\nALTER TABLE ks.d DROP s USING TIMESTAMP 15000;\nALTER TABLE ks.d ADD s int static;\
             \nALTER TABLE ks.d DROP v USING TIMESTAMP 15000;\nALTER TABLE ks.d ADD v int;"
        ),
        "{statement}"
    );
    let rows: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE TABLE ks.d", &[]).await;
    assert!(!rows[0].3.contains("ALTER TABLE"), "{}", rows[0].3);
}

/// DESCRIBE rows name keyspaces and elements as CQL writes them (quoted when needed), a
/// listing under `USE` covers the session's keyspace only, and `DESCRIBE name` finds an
/// index too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn describe_quotes_names_and_lists_the_keyspace_in_use() {
    let server = TestServer::start().await;
    let session = server.session().await;
    for cql in [
        "CREATE KEYSPACE \"Quoted_KS\" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
        "CREATE TABLE \"Quoted_KS\".\"Quoted_TABLE\" (k int PRIMARY KEY, v int)",
        "CREATE INDEX v_idx ON \"Quoted_KS\".\"Quoted_TABLE\" (v)",
    ] {
        session.query_unpaged(cql, &[]).await.unwrap();
    }
    let tables: Vec<(String, String, String)> = query_rows(&session, "DESCRIBE TABLES", &[]).await;
    assert!(tables.contains(&(
        "\"Quoted_KS\"".into(),
        "table".into(),
        "\"Quoted_TABLE\"".into()
    )));
    assert!(tables.contains(&("system".into(), "table".into(), "\"IndexInfo\"".into())));
    // Keyspaces and tables list in name order, ignoring case, as Cassandra lists them.
    let keyspaces: Vec<(String, String, String)> =
        query_rows(&session, "DESCRIBE KEYSPACES", &[]).await;
    let names: Vec<&str> = keyspaces.iter().map(|k| k.0.trim_matches('"')).collect();
    let mut sorted = names.clone();
    sorted.sort_by_key(|n| n.to_lowercase());
    assert_eq!(names, sorted);
    assert_eq!(names.first(), Some(&"Quoted_KS"));
    session.use_keyspace("Quoted_KS", true).await.unwrap();
    let in_use: Vec<(String, String, String)> = query_rows(&session, "DESCRIBE TABLES", &[]).await;
    assert_eq!(
        in_use,
        [(
            "\"Quoted_KS\"".into(),
            "table".into(),
            "\"Quoted_TABLE\"".into()
        )]
    );
    let index: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE v_idx", &[]).await;
    assert_eq!(index.len(), 1);
    assert_eq!(
        (index[0].1.as_str(), index[0].2.as_str()),
        ("index", "v_idx")
    );
    // Virtual keyspaces and tables print as Cassandra 5.0's commented structure.
    let views: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE KEYSPACE system_views", &[]).await;
    assert_eq!(
        views[0].3,
        "/*\nWarning: Keyspace system_views is a virtual keyspace and cannot be recreated with \
         CQL.\nStructure, for reference:\nVIRTUAL KEYSPACE system_views;\n*/"
    );
    let settings = views.iter().find(|r| r.2 == "settings").expect("settings");
    assert_eq!(
        settings.3,
        "/*\nWarning: Table system_views.settings is a virtual table and cannot be recreated \
         with CQL.\nStructure, for reference:\nVIRTUAL TABLE system_views.settings (\n    \
         name text PRIMARY KEY,\n    value text\n) WITH comment = 'current settings';\n*/"
    );
}
