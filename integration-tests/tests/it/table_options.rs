//! Table options validated as Cassandra 5.0 validates them: refused values get its
//! `ConfigurationException` (or `SyntaxException`) and message word for word, on CREATE and
//! ALTER alike, and accepted values show up in `system_schema.tables` and DESCRIBE in
//! Cassandra's spelling. Table and view names take up to 222 characters, keyspaces 48.

use std::collections::HashMap;

use integration_tests::{query_error, query_rows, query_single_row, session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;

async fn refused(session: &Session, cql: &str, code: DbError, message: &str) {
    assert_eq!(
        query_error(session, cql).await,
        (code, message.to_string()),
        "{cql}"
    );
}

async fn configuration_error(session: &Session, cql: &str, message: &str) {
    refused(session, cql, DbError::ConfigError, message).await;
}

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

/// Invalid compaction options are refused on CREATE and ALTER with each strategy's message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compaction_options_are_validated_per_strategy() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TABLE t (k int PRIMARY KEY, v int)").await;
    let cases = [
        ("{'min_threshold': 4}", "Missing sub-option 'class' for the 'compaction' option"),
        ("{'class': 'NoSuchStrategy'}", "Unable to find compaction strategy class 'org.apache.cassandra.db.compaction.NoSuchStrategy'"),
        ("{'class': 'SizeTieredCompactionStrategy', 'abc': -54.54}", "Properties specified [abc] are not understood by SizeTieredCompactionStrategy"),
        ("{'class': 'SizeTieredCompactionStrategy', 'min_threshold': 1}", "Min compaction threshold cannot be less than 2 (got 1)"),
        ("{'class': 'SizeTieredCompactionStrategy', 'tombstone_threshold': -0.4}", "tombstone_threshold must be greater than 0, but was -0.400000"),
        ("{'class': 'SizeTieredCompactionStrategy', 'min_sstable_size': -1}", "min_sstable_size must be non negative: -1"),
        ("{'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': -5}", "sstable_size_in_mb must be larger than 0, but was -5"),
        ("{'class': 'LeveledCompactionStrategy', 'enabled': 'certainly'}", "enabled should either be 'true' or 'false', not certainly"),
        ("{'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'SECONDS'}", "SECONDS is not valid for compaction_window_unit"),
        ("{'class': 'TimeWindowCompactionStrategy', 'compaction_window_size': -8}", "-8 must be greater than 1 for compaction_window_size"),
        ("{'class': 'TimeWindowCompactionStrategy', 'max_threshold': 1}", "Min compaction threshold (got 4) cannot be greater than max compaction threshold (got 1)"),
        ("{'class': 'UnifiedCompactionStrategy', 'min_threshold': 4}", "Properties specified [min_threshold] are not understood by UnifiedCompactionStrategy"),
        ("{'class': 'UnifiedCompactionStrategy', 'scaling_parameters': 'T4, X'}", "Scaling parameter X must match N|L[0-9]+|T[0-9]+|[+-]?[0-9]+"),
        ("{'class': 'UnifiedCompactionStrategy', 'base_shard_count': 0}", "Invalid configuration, base_shard_count should be positive: 0"),
    ];
    for (compaction, message) in cases {
        let alter = format!("ALTER TABLE t WITH compaction = {compaction}");
        configuration_error(&session, &alter, message).await;
        let create = format!("CREATE TABLE t2 (k int PRIMARY KEY) WITH compaction = {compaction}");
        configuration_error(&session, &create, message).await;
    }
}

/// Speculative retry, caching, memtable and the numeric options are refused as Cassandra
/// refuses them; numbers that do not parse are syntax errors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_options_get_cassandras_messages() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(&session, "CREATE TABLE t (k int PRIMARY KEY, v int)").await;
    let config_cases = [
        ("speculative_retry = 'dog'", "Invalid value dog for option 'speculative_retry'"),
        ("speculative_retry = '101p'", "Invalid value 101p for PERCENTILE option 'speculative_retry': must be between (0.0 and 100.0)"),
        ("additional_write_policy = 'MIN(10ms,20ms)'", "Invalid value MIN(10ms,20ms) for option 'speculative_retry': MIN()/MAX() arguments should be of different types, but both are of type FIXED"),
        ("caching = {'keys': 'SOME'}", "Invalid value 'SOME' for caching sub-option 'keys': only 'ALL' and 'NONE' are allowed"),
        ("caching = {'rows_per_partition': 'many'}", "Invalid value 'many' for caching sub-option 'rows_per_partition': only 'ALL', 'NONE', and integer values are allowed"),
        ("caching = {'keys': 'ALL', 'enabled': 'true'}", "Invalid caching sub-options [enabled]: only 'keys' and 'rows_per_partition' are allowed"),
        ("memtable = 'nosuch'", "Memtable configuration \"nosuch\" not found."),
        ("bloom_filter_fp_chance = 0", "bloom_filter_fp_chance must be larger than 6.71E-5 and less than or equal to 1.0 (got 0.0)"),
        ("bloom_filter_fp_chance = 1.1", "bloom_filter_fp_chance must be larger than 6.71E-5 and less than or equal to 1.0 (got 1.1)"),
        ("crc_check_chance = 2", "crc_check_chance must be larger than or equal to 0 and smaller than or equal to 1.0 (got 2.0)"),
        ("gc_grace_seconds = -1", "gc_grace_seconds must be greater than or equal to 0 (got -1)"),
        ("default_time_to_live = -1", "default_time_to_live must be greater than or equal to 0 (got -1)"),
        ("default_time_to_live = 630720001", "default_time_to_live must be less than or equal to 630720000 (got 630720001)"),
        ("min_index_interval = 0", "min_index_interval must be greater than or equal to 1 (got 0)"),
        ("max_index_interval = 64", "max_index_interval must be greater than or equal to min_index_interval (128) (got 64)"),
        ("memtable_flush_period_in_ms = -1", "memtable_flush_period_in_ms must be greater than or equal to 0 (got -1)"),
    ];
    for (option, message) in config_cases {
        configuration_error(&session, &format!("ALTER TABLE t WITH {option}"), message).await;
        let create = format!("CREATE TABLE t2 (k int PRIMARY KEY) WITH {option}");
        configuration_error(&session, &create, message).await;
    }
    configuration_error(
        &session,
        "ALTER TABLE t WITH id = 5a1c395e-b41f-11e5-9f22-ba0be0483c18",
        "Cannot alter table id.",
    )
    .await;
    let syntax_cases = [
        ("gc_grace_seconds = 'soon'", "Invalid integer value soon for 'gc_grace_seconds'"),
        ("default_time_to_live = 99999999999", "Invalid integer value 99999999999 for 'default_time_to_live'"),
        ("crc_check_chance = 'half'", "Invalid double value half for 'crc_check_chance'"),
        ("cdc = 'maybe'", "Invalid boolean value maybe for 'cdc'. Positive values can be '1', 'true' or 'yes'. Negative values can be '0', 'false' or 'no'."),
    ];
    for (option, message) in syntax_cases {
        let alter = format!("ALTER TABLE t WITH {option}");
        refused(&session, &alter, DbError::SyntaxError, message).await;
    }
}

type TableOptions = (
    String,
    HashMap<String, String>,
    HashMap<String, String>,
    String,
    f64,
);

async fn stored_options(session: &Session, table: &str) -> TableOptions {
    query_single_row(
        session,
        "SELECT speculative_retry, caching, compaction, additional_write_policy, \
         bloom_filter_fp_chance FROM system_schema.tables \
         WHERE keyspace_name = 'ks' AND table_name = ?",
        (table,),
    )
    .await
}

fn map(entries: &[(&str, &str)]) -> HashMap<String, String> {
    entries
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Accepted options are stored and described in Cassandra's spelling.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepted_options_are_stored_as_cassandra_stores_them() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        "CREATE TABLE t (k int PRIMARY KEY, v int) WITH speculative_retry = '99.0PERCENTILE' \
         AND caching = {'rows_per_partition': '0100'} \
         AND compaction = {'class': 'LeveledCompactionStrategy', 'sstable_size_in_mb': 160} \
         AND additional_write_policy = 'min(99p, 50ms)' AND memtable = 'trie'",
    )
    .await;
    let lcs = "org.apache.cassandra.db.compaction.LeveledCompactionStrategy";
    let (retry, caching, compaction, write_policy, bloom) = stored_options(&session, "t").await;
    assert_eq!(retry, "99p");
    assert_eq!(
        caching,
        map(&[("keys", "NONE"), ("rows_per_partition", "100")])
    );
    assert_eq!(
        compaction,
        map(&[
            ("class", lcs),
            ("max_threshold", "32"),
            ("min_threshold", "4"),
            ("sstable_size_in_mb", "160")
        ])
    );
    assert_eq!(write_policy, "MIN(99p,50ms)");
    run(
        &session,
        "CREATE TABLE u (k int PRIMARY KEY) \
         WITH compaction = {'class': 'UnifiedCompactionStrategy', 'scaling_parameters': 'T4'}",
    )
    .await;
    let (_, _, ucs_compaction, _, ucs_bloom) = stored_options(&session, "u").await;
    let ucs = "org.apache.cassandra.db.compaction.UnifiedCompactionStrategy";
    assert_eq!(
        ucs_compaction,
        map(&[("class", ucs), ("scaling_parameters", "T4")]),
        "UCS takes no thresholds"
    );
    assert_eq!(ucs_bloom, 0.01);
    assert_eq!(bloom, 0.1, "a leveled table defaults to a 0.1 bloom filter");
    run(
        &session,
        "ALTER TABLE t WITH speculative_retry = 'NONE' AND caching = {'keys': 'all'}",
    )
    .await;
    let (retry, caching, ..) = stored_options(&session, "t").await;
    assert_eq!(retry, "NEVER");
    assert_eq!(
        caching,
        map(&[("keys", "ALL"), ("rows_per_partition", "NONE")])
    );
    let rows: Vec<(String, String, String, String)> =
        query_rows(&session, "DESCRIBE TABLE ks.t", &[]).await;
    let statement = &rows[0].3;
    for expected in [
        "AND speculative_retry = 'NEVER'",
        "AND additional_write_policy = 'MIN(99p,50ms)'",
        "AND caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'}",
        "AND bloom_filter_fp_chance = 0.1",
    ] {
        let expected = expected.trim_start_matches("AND ");
        assert!(statement.contains(expected), "{expected} in {statement}");
    }
}

/// Table and view names take up to 222 characters (CASSANDRA-20425); keyspaces stay at 48.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_and_view_names_take_222_characters() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    let longest = "t".repeat(222);
    run(
        &session,
        &format!("CREATE TABLE {longest} (k int PRIMARY KEY, v int)"),
    )
    .await;
    run(
        &session,
        &format!("INSERT INTO {longest} (k, v) VALUES (1, 2)"),
    )
    .await;
    let (v,): (i32,) = query_single_row(
        &session,
        format!("SELECT v FROM {longest} WHERE k = 1"),
        &[],
    )
    .await;
    assert_eq!(v, 2);
    let too_long = "t".repeat(223);
    refused(
        &session,
        &format!("CREATE TABLE {too_long} (k int PRIMARY KEY)"),
        DbError::Invalid,
        &format!("Table name must not be empty, more than 222 characters long, or contain non-alphanumeric-underscore characters (got '{too_long}')"),
    )
    .await;
    let keyspace = "k".repeat(49);
    refused(
        &session,
        &format!("CREATE KEYSPACE {keyspace} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}"),
        DbError::Invalid,
        &format!("Keyspace name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got '{keyspace}')"),
    )
    .await;
}
