//! `strict_consistency: true`: one node refuses, as a single Cassandra 5.0 node does, the
//! consistency levels its keyspaces' replication factors cannot meet (`Unavailable` with
//! the level, the replicas required and the one alive); off (the default), every level is
//! met. The Python driver's retry policies against it
//! (`integration-tests/python_strict/test_strict_consistency.py`).

use integration_tests::{db_error, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::statement::batch::{Batch, BatchType};
use scylla::statement::unprepared::Statement;
use scylla::statement::Consistency;
use server::config::Config;

/// A one-node server with `strict_consistency` as given.
async fn server(strict: bool) -> TestServer {
    TestServer::start_with(Config {
        strict_consistency: strict,
        ..Config::default()
    })
    .await
}

/// Keyspaces `rf3` (SimpleStrategy, RF 3), `nts3` (`datacenter1`: 3) and `rf1` (RF 1),
/// each with `t (k int PRIMARY KEY, v int)` holding `(1, 1)` and a counter table `c`.
async fn schema(server: &TestServer) -> Session {
    let session = server.session().await;
    for (keyspace, replication) in [
        ("rf3", "'class': 'SimpleStrategy', 'replication_factor': 3"),
        (
            "nts3",
            "'class': 'NetworkTopologyStrategy', 'datacenter1': 3",
        ),
        ("rf1", "'class': 'SimpleStrategy', 'replication_factor': 1"),
    ] {
        for cql in [
            format!("CREATE KEYSPACE {keyspace} WITH replication = {{{replication}}}"),
            format!("CREATE TABLE {keyspace}.t (k int PRIMARY KEY, v int)"),
            format!("CREATE TABLE {keyspace}.c (k int PRIMARY KEY, n counter)"),
            format!("INSERT INTO {keyspace}.t (k, v) VALUES (1, 1)"),
        ] {
            // The scylla driver's default, LOCAL_QUORUM, needs 2 replicas of RF 3.
            let mut statement = Statement::new(cql.as_str());
            statement.set_consistency(Consistency::One);
            session
                .query_unpaged(statement, ())
                .await
                .unwrap_or_else(|err| panic!("{cql}: {err}"));
        }
    }
    session
}

/// Runs `cql` at `consistency` (and `serial` for its Paxos round, if given): `Ok` or the
/// database error with its message.
async fn at(
    session: &Session,
    cql: &str,
    consistency: Consistency,
    serial: Option<scylla::statement::SerialConsistency>,
) -> Result<(), (DbError, String)> {
    let mut statement = Statement::new(cql);
    statement.set_consistency(consistency);
    statement.set_serial_consistency(serial);
    match session.query_unpaged(statement, ()).await {
        Ok(_) => Ok(()),
        Err(err) => Err(db_error(&err).unwrap_or_else(|| panic!("{cql}: {err:?}"))),
    }
}

/// The `Unavailable` a single Cassandra node answers, with its message.
fn unavailable(consistency: Consistency, required: i32, message: &str) -> (DbError, String) {
    (
        DbError::Unavailable {
            consistency,
            required,
            alive: 1,
        },
        message.to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quorum_and_all_on_rf3_are_unavailable_and_one_is_not() {
    let server = server(true).await;
    let session = schema(&server).await;
    for keyspace in ["rf3", "nts3"] {
        let insert = format!("INSERT INTO {keyspace}.t (k, v) VALUES (2, 2)");
        let read = format!("SELECT v FROM {keyspace}.t WHERE k = 1");
        let scan = format!("SELECT * FROM {keyspace}.t");
        for cql in [&insert, &read, &scan] {
            assert_eq!(at(&session, cql, Consistency::One, None).await, Ok(()));
            assert_eq!(at(&session, cql, Consistency::LocalOne, None).await, Ok(()));
            assert_eq!(
                at(&session, cql, Consistency::Quorum, None).await,
                Err(unavailable(
                    Consistency::Quorum,
                    2,
                    "Cannot achieve consistency level QUORUM"
                )),
                "{cql}"
            );
            assert_eq!(
                at(&session, cql, Consistency::All, None).await,
                Err(unavailable(
                    Consistency::All,
                    3,
                    "Cannot achieve consistency level ALL"
                )),
                "{cql}"
            );
            assert_eq!(
                at(&session, cql, Consistency::LocalQuorum, None).await,
                Err(unavailable(
                    Consistency::LocalQuorum,
                    2,
                    "Cannot achieve consistency level LOCAL_QUORUM"
                )),
                "{cql}"
            );
            assert_eq!(
                at(&session, cql, Consistency::Two, None).await,
                Err(unavailable(
                    Consistency::Two,
                    2,
                    "Cannot achieve consistency level TWO"
                )),
                "{cql}"
            );
        }
        // A write at ANY would be hinted: always accepted.
        assert_eq!(at(&session, &insert, Consistency::Any, None).await, Ok(()));
    }
    // EACH_QUORUM counts each datacenter and names the one short.
    assert_eq!(
        at(
            &session,
            "INSERT INTO nts3.t (k, v) VALUES (3, 3)",
            Consistency::EachQuorum,
            None
        )
        .await,
        Err(unavailable(
            Consistency::EachQuorum,
            2,
            "Cannot achieve consistency level EACH_QUORUM in DC datacenter1"
        ))
    );
    // Refused writes wrote nothing; the writes at ONE and ANY are there.
    let mut all = Statement::new("SELECT k FROM rf3.t");
    all.set_consistency(Consistency::One);
    let rows = session
        .query_unpaged(all, ())
        .await
        .expect("read at ONE")
        .into_rows_result()
        .expect("rows")
        .rows::<(i32,)>()
        .expect("typed")
        .map(|row| row.expect("row").0)
        .collect::<std::collections::BTreeSet<_>>();
    assert_eq!(rows, [1, 2].into());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rf1_meets_quorum_and_all_and_prepared_statements_are_checked_alike() {
    let server = server(true).await;
    let session = schema(&server).await;
    for consistency in [
        Consistency::One,
        Consistency::Quorum,
        Consistency::All,
        Consistency::LocalQuorum,
        Consistency::EachQuorum,
    ] {
        for cql in [
            "INSERT INTO rf1.t (k, v) VALUES (2, 2)",
            "SELECT v FROM rf1.t WHERE k = 1",
            "UPDATE rf1.c SET n = n + 1 WHERE k = 1",
        ] {
            assert_eq!(at(&session, cql, consistency, None).await, Ok(()), "{cql}");
        }
    }
    let mut prepared = session
        .prepare("UPDATE rf3.c SET n = n + 1 WHERE k = ?")
        .await
        .expect("prepare");
    prepared.set_consistency(Consistency::Quorum);
    let err = session
        .execute_unpaged(&prepared, (1,))
        .await
        .expect_err("QUORUM on RF 3");
    assert_eq!(
        db_error(&err),
        Some(unavailable(
            Consistency::Quorum,
            2,
            "Cannot achieve consistency level QUORUM"
        ))
    );
    prepared.set_consistency(Consistency::One);
    session
        .execute_unpaged(&prepared, (1,))
        .await
        .expect("ONE on RF 3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lightweight_transactions_and_serial_reads_read_at_quorum_after_paxos() {
    use scylla::statement::SerialConsistency;
    let server = server(true).await;
    let session = schema(&server).await;
    // The Paxos round has one participant (the ring's one replica) and passes; its read of
    // the partition at QUORUM (LOCAL_QUORUM for LOCAL_SERIAL) cannot: Cassandra 5.0's
    // default Paxos (v1) answers that read's Unavailable.
    let lwt = "INSERT INTO rf3.t (k, v) VALUES (5, 5) IF NOT EXISTS";
    let quorum = unavailable(
        Consistency::Quorum,
        2,
        "Cannot achieve consistency level QUORUM",
    );
    let local_quorum = unavailable(
        Consistency::LocalQuorum,
        2,
        "Cannot achieve consistency level LOCAL_QUORUM",
    );
    assert_eq!(
        at(
            &session,
            lwt,
            Consistency::One,
            Some(SerialConsistency::Serial)
        )
        .await,
        Err(quorum.clone())
    );
    assert_eq!(
        at(
            &session,
            lwt,
            Consistency::One,
            Some(SerialConsistency::LocalSerial)
        )
        .await,
        Err(local_quorum.clone())
    );
    let read = "SELECT v FROM nts3.t WHERE k = 1";
    assert_eq!(
        at(&session, read, Consistency::Serial, None).await,
        Err(quorum)
    );
    assert_eq!(
        at(&session, read, Consistency::LocalSerial, None).await,
        Err(local_quorum)
    );
    // Cassandra refuses a serial level for a plain write before it counts replicas.
    let (error, message) = at(
        &session,
        "INSERT INTO rf3.t (k, v) VALUES (6, 6)",
        Consistency::Serial,
        None,
    )
    .await
    .expect_err("SERIAL write");
    assert!(matches!(error, DbError::Invalid), "{error:?}");
    assert_eq!(
        message,
        "You must use conditional updates for serializable writes"
    );
    // On RF 1 every stage has its replica.
    let mut lwt = Statement::new("INSERT INTO rf1.t (k, v) VALUES (5, 5) IF NOT EXISTS");
    lwt.set_consistency(Consistency::One);
    let applied = session
        .query_unpaged(lwt, ())
        .await
        .expect("LWT on RF 1")
        .into_rows_result()
        .expect("rows")
        .first_row::<(bool,)>()
        .expect("[applied]")
        .0;
    assert!(applied);
    assert_eq!(
        at(
            &session,
            "SELECT v FROM rf1.t WHERE k = 5",
            Consistency::Serial,
            None
        )
        .await,
        Ok(())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_are_checked_as_one_write() {
    let server = server(true).await;
    let session = schema(&server).await;
    let quorum = unavailable(
        Consistency::Quorum,
        2,
        "Cannot achieve consistency level QUORUM",
    );
    // A BATCH message, logged and unlogged.
    for kind in [BatchType::Logged, BatchType::Unlogged] {
        let mut batch = Batch::new(kind);
        batch.append_statement("INSERT INTO rf1.t (k, v) VALUES (7, 7)");
        batch.append_statement("INSERT INTO rf3.t (k, v) VALUES (7, 7)");
        batch.set_consistency(Consistency::Quorum);
        let err = session.batch(&batch, ((), ())).await.expect_err("QUORUM");
        assert_eq!(db_error(&err), Some(quorum.clone()), "{kind:?}");
        batch.set_consistency(Consistency::One);
        session.batch(&batch, ((), ())).await.expect("ONE");
    }
    // A BATCH statement in a QUERY.
    let text = "BEGIN BATCH INSERT INTO rf1.t (k, v) VALUES (8, 8); \
                INSERT INTO rf3.t (k, v) VALUES (8, 8); APPLY BATCH";
    assert_eq!(
        at(&session, text, Consistency::Quorum, None).await,
        Err(quorum.clone())
    );
    assert_eq!(at(&session, text, Consistency::One, None).await, Ok(()));
    // A counter batch, and one on RF 1 only.
    let counters = "BEGIN COUNTER BATCH UPDATE rf3.c SET n = n + 1 WHERE k = 2; APPLY BATCH";
    assert_eq!(
        at(&session, counters, Consistency::Quorum, None).await,
        Err(quorum)
    );
    let rf1 = "BEGIN BATCH INSERT INTO rf1.t (k, v) VALUES (9, 9); APPLY BATCH";
    assert_eq!(at(&session, rf1, Consistency::All, None).await, Ok(()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_by_default_every_level_is_met_on_one_node() {
    assert!(!Config::default().strict_consistency);
    let server = server(false).await;
    let session = schema(&server).await;
    for consistency in [
        Consistency::Quorum,
        Consistency::All,
        Consistency::Three,
        Consistency::LocalQuorum,
        Consistency::EachQuorum,
    ] {
        for cql in [
            "INSERT INTO nts3.t (k, v) VALUES (2, 2)",
            "SELECT v FROM rf3.t WHERE k = 1",
            "SELECT * FROM rf3.t",
            "BEGIN BATCH INSERT INTO rf3.t (k, v) VALUES (3, 3); APPLY BATCH",
        ] {
            assert_eq!(at(&session, cql, consistency, None).await, Ok(()), "{cql}");
        }
    }
    assert_eq!(
        at(
            &session,
            "INSERT INTO rf3.t (k, v) VALUES (4, 4) IF NOT EXISTS",
            Consistency::Quorum,
            None
        )
        .await,
        Ok(())
    );
    assert_eq!(
        at(
            &session,
            "SELECT v FROM rf3.t WHERE k = 4",
            Consistency::Serial,
            None
        )
        .await,
        Ok(())
    );
}

/// The Python driver: its retry policies meeting `Unavailable` on one node.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_driver_retry_policies_meet_unavailable() {
    let server = server(true).await;
    let envs = vec![
        ("CQL_HOST", "127.0.0.1".to_string()),
        ("CQL_PORT", server.addr.port().to_string()),
    ];
    let log = integration_tests::run_pytest("integration-tests/python_strict", envs).await;
    assert!(log.contains("5 passed"), "{log}");
}
