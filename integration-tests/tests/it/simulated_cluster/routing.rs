//! Token-aware routing: the driver sends each prepared single-partition request to a node
//! that owns the partition, as the tokens in `system.local` and `system.peers` say.

use std::collections::BTreeMap;
use std::net::IpAddr;

use super::{cluster, cql, requests_per_node, session};

/// The owner of `token` on a ring of `(token, node)`: the first token at or after it,
/// wrapping.
fn owner(ring: &[(i64, IpAddr)], token: i64) -> IpAddr {
    let at = ring.partition_point(|&(t, _)| t < token);
    ring[at % ring.len()].1
}

/// Every node's tokens, read from `system.local` and `system.peers` of one node as a
/// driver's control connection reads them.
async fn ring(session: &scylla::client::session::Session) -> Vec<(i64, IpAddr)> {
    let mut ring = Vec::new();
    for query in [
        "SELECT rpc_address, tokens FROM system.local",
        "SELECT rpc_address, tokens FROM system.peers",
    ] {
        let rows = session
            .query_unpaged(query, ())
            .await
            .expect(query)
            .into_rows_result()
            .expect("rows");
        for row in rows.rows::<(IpAddr, Vec<String>)>().expect("typed") {
            let (address, tokens) = row.expect("row");
            for token in tokens {
                ring.push((token.parse::<i64>().expect("a token"), address));
            }
        }
    }
    ring.sort();
    ring
}

/// With one replica per partition, 1,000 prepared inserts land on each partition's owner:
/// each node's count of coordinated requests equals its share of the keys.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepared_requests_land_on_the_partitions_owner() {
    let server = cluster("dc1:5").await;
    let session = session(&server).await;
    cql(
        &session,
        "CREATE KEYSPACE app WITH replication = \
         {'class': 'SimpleStrategy', 'replication_factor': 1}",
    )
    .await;
    cql(&session, "CREATE TABLE app.t (k int PRIMARY KEY, v int)").await;
    session.refresh_metadata().await.expect("metadata");
    let insert = session
        .prepare("INSERT INTO app.t (k, v) VALUES (?, ?)")
        .await
        .expect("prepare");
    let ring = ring(&super::session_on_first(&server).await).await;
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for k in 0..1000i32 {
        let token = storage::token_of(&[&k.to_be_bytes()]);
        *expected.entry(owner(&ring, token).to_string()).or_default() += 1;
    }
    let before: BTreeMap<String, u64> = requests_per_node(&server).await.into_iter().collect();
    for k in 0..1000i32 {
        session
            .execute_unpaged(&insert, (k, k))
            .await
            .expect("insert");
    }
    let after = requests_per_node(&server).await;
    let mut on_owner = 0;
    for (address, count) in after {
        let delta = count - before.get(&address).copied().unwrap_or(0);
        on_owner += delta.min(expected.get(&address).copied().unwrap_or(0));
    }
    println!("scylla driver: {on_owner} of 1000 prepared inserts on their partition's owner");
    assert!(
        on_owner >= 990,
        "{on_owner} of 1000 requests on their partition's owner; expected {expected:?}"
    );
}
