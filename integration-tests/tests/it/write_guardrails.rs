//! Cassandra 5.0's guardrails on written values (`column_value_size`, `collection_size`,
//! `items_per_collection`): a client warning past the warn threshold, Invalid past the fail
//! threshold (and nothing written), with Cassandra's messages.

use integration_tests::{query_error, session_in, TestServer};
use scylla::client::session::Session;
use server::config::Threshold;
use server::Config;

const OFF: Threshold = Threshold::DISABLED;

async fn server_with(config: Config) -> (TestServer, Session) {
    let server = TestServer::start_with(config).await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE ks.t (k int PRIMARY KEY, v text, s set<text>, m map<text, text>, \
             l list<int>, f frozen<list<int>>)",
            &[],
        )
        .await
        .unwrap();
    (server, session)
}

async fn warnings(session: &Session, cql: &str) -> Vec<String> {
    let result = session.query_unpaged(cql, &[]).await.unwrap();
    result.warnings().map(str::to_string).collect()
}

async fn count(session: &Session) -> i64 {
    let rows = session
        .query_unpaged("SELECT count(*) FROM ks.t", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    rows.single_row::<(i64,)>().unwrap().0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn column_value_size_warns_then_refuses() {
    let config = Config {
        column_value_size: Threshold { warn: 10, fail: 20 },
        ..Config::default()
    };
    let (server, session) = server_with(config).await;
    assert!(
        warnings(&session, "INSERT INTO ks.t (k, v) VALUES (1, 'short')")
            .await
            .is_empty()
    );
    assert_eq!(
        warnings(&session, "INSERT INTO ks.t (k, v) VALUES (2, 'fifteen bytes..')").await,
        ["Guardrail column_value_size violated: Value of column v has size 15, this exceeds the warning threshold of 10."]
    );
    let (_, message) = query_error(
        &session,
        "INSERT INTO ks.t (k, v) VALUES (3, 'twenty-five bytes of text')",
    )
    .await;
    assert_eq!(
        message,
        "Guardrail column_value_size violated: Value of column v has size 25, this exceeds the failure threshold of 20."
    );
    assert_eq!(count(&session).await, 2, "the refused row was not written");
    // Set elements and map keys are guarded too.
    let (_, message) = query_error(
        &session,
        "UPDATE ks.t SET s = s + {'twenty-five bytes of text'} WHERE k = 1",
    )
    .await;
    assert!(
        message.contains("Value of column s has size 25"),
        "{message}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn collection_guardrails_count_the_written_elements() {
    let config = Config {
        items_per_collection: Threshold { warn: 2, fail: 4 },
        column_value_size: OFF,
        collection_size: Threshold { warn: 40, fail: -1 },
        ..Config::default()
    };
    let (server, session) = server_with(config).await;
    // Three set elements of one byte: 3 items, 3 × (16 + 1) = 51 bytes.
    assert_eq!(
        warnings(&session, "INSERT INTO ks.t (k, s) VALUES (1, {'a', 'b', 'c'})").await,
        [
            "Guardrail items_per_collection violated: Detected collection s with 3 items, this exceeds the warning threshold of 2.",
            "Guardrail collection_size violated: Detected collection s of size 51, this exceeds the warning threshold of 40.",
        ]
    );
    // Only the added elements count, not the ones already there.
    assert!(
        warnings(&session, "UPDATE ks.t SET s = s + {'d'} WHERE k = 1")
            .await
            .is_empty()
    );
    // A frozen list: its serialized value (4 + 3 × 8 = 28 bytes) plus 16.
    assert_eq!(
        warnings(&session, "INSERT INTO ks.t (k, f) VALUES (2, [1, 2, 3])").await,
        [
            "Guardrail items_per_collection violated: Detected collection f with 3 items, this exceeds the warning threshold of 2.",
            "Guardrail collection_size violated: Detected collection f of size 44, this exceeds the warning threshold of 40.",
        ]
    );
    let (_, message) = query_error(
        &session,
        "UPDATE ks.t SET m = m + {'a': '1', 'b': '2', 'c': '3', 'd': '4', 'e': '5'} WHERE k = 3",
    )
    .await;
    assert_eq!(
        message,
        "Guardrail items_per_collection violated: Detected collection m with 5 items, this exceeds the failure threshold of 4."
    );
    assert_eq!(count(&session).await, 2);
    server.stop().await;
}

/// `partition_size`, which Cassandra checks when it writes SSTables (flush, compaction) and
/// logs: here the purge pass checks it and counts the partitions over it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_purge_pass_finds_partitions_over_partition_size() {
    let config = Config {
        partition_size: Threshold {
            warn: 1000,
            fail: -1,
        },
        ..Config::default()
    };
    let server = TestServer::start_with(config).await;
    let session = session_in(&server, "ks").await;
    session
        .query_unpaged(
            "CREATE TABLE ks.w (k int, c int, v text, PRIMARY KEY (k, c))",
            &[],
        )
        .await
        .unwrap();
    for c in 0..20 {
        session
            .query_unpaged(
                format!(
                    "INSERT INTO ks.w (k, c, v) VALUES (1, {c}, '{}')",
                    "x".repeat(100)
                ),
                &[],
            )
            .await
            .unwrap();
    }
    session
        .query_unpaged("INSERT INTO ks.w (k, c, v) VALUES (2, 0, 'small')", &[])
        .await
        .unwrap();
    let report = server.purge().await;
    assert_eq!(report.oversized_partitions, 1, "{report:?}");
    server.stop().await;
}
