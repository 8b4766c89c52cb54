//! The consistency arithmetic: with RF 3, which levels a cluster with nodes down or paused
//! meets, and the errors (with Cassandra's counts) it answers otherwise.

use integration_tests::db_error;
use scylla::errors::{DbError, WriteType};
use scylla::statement::unprepared::Statement;
use scylla::statement::Consistency;

use super::{cluster, cql, node_action, session_on_first};

/// The outcome of an insert at `consistency`: `ok` or the database error.
async fn insert_at(
    session: &scylla::client::session::Session,
    consistency: Consistency,
) -> Result<(), DbError> {
    let mut statement = Statement::new("INSERT INTO app.t (k, v) VALUES (1, 1)");
    statement.set_consistency(consistency);
    match session.query_unpaged(statement, ()).await {
        Ok(_) => Ok(()),
        Err(err) => Err(db_error(&err).unwrap_or_else(|| panic!("{err:?}")).0),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rf3_with_nodes_down_fails_with_unavailable_counts() {
    let server = cluster("dc1:3").await;
    let session = session_on_first(&server).await;
    cql(
        &session,
        "CREATE KEYSPACE app WITH replication = \
         {'class': 'NetworkTopologyStrategy', 'dc1': 3}",
    )
    .await;
    cql(&session, "CREATE TABLE app.t (k int PRIMARY KEY, v int)").await;
    assert_eq!(insert_at(&session, Consistency::All).await, Ok(()));

    node_action(&server, "127.0.0.3", "stop").await;
    assert_eq!(insert_at(&session, Consistency::LocalQuorum).await, Ok(()));
    assert_eq!(insert_at(&session, Consistency::Quorum).await, Ok(()));
    assert_eq!(
        insert_at(&session, Consistency::All).await,
        Err(DbError::Unavailable {
            consistency: Consistency::All,
            required: 3,
            alive: 2
        })
    );

    node_action(&server, "127.0.0.2", "stop").await;
    assert_eq!(insert_at(&session, Consistency::One).await, Ok(()));
    assert_eq!(
        insert_at(&session, Consistency::Quorum).await,
        Err(DbError::Unavailable {
            consistency: Consistency::Quorum,
            required: 2,
            alive: 1
        })
    );

    // Every request allowed saw every acknowledged write: the data is one copy.
    node_action(&server, "127.0.0.2", "start").await;
    node_action(&server, "127.0.0.3", "start").await;
    assert_eq!(insert_at(&session, Consistency::All).await, Ok(()));

    // A paused replica looks alive but never answers: ALL times out, QUORUM does not.
    node_action(&server, "127.0.0.2", "pause").await;
    assert_eq!(insert_at(&session, Consistency::Quorum).await, Ok(()));
    assert_eq!(
        insert_at(&session, Consistency::All).await,
        Err(DbError::WriteTimeout {
            consistency: Consistency::All,
            received: 2,
            required: 3,
            write_type: WriteType::Simple
        })
    );
}
