//! What a request on a simulated cluster meets: the replicas of the partitions it touches
//! (or of every token range, for a scan), which of them are up, and so whether its
//! consistency level is met (proceed), cannot be (`Unavailable`), or waits on a paused
//! replica (a timeout).

use super::availability::{self, ReplicaState, Shortfall};
use super::ring::{Replication, Ring};
use super::state::{NodeState, SimulatedCluster};

/// Which tokens a request touches.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Tokens<'a> {
    /// The partitions with these tokens.
    Partitions(&'a [i64]),
    /// Every token range (a scan).
    Everywhere,
}

/// What a request at a consistency level meets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Enough replicas answer.
    Proceed,
    /// Too few replicas are up: Cassandra's `Unavailable`.
    Unavailable(Shortfall),
    /// Enough replicas look up, but some needed are paused: the request times out with
    /// `received` answers of `block_for`.
    Timeout { received: usize, block_for: usize },
}

/// The verdict for a request coordinated in datacenter `local_dc` at `consistency` over
/// `tokens` of a keyspace replicated as `replication`.
pub(crate) fn verdict(
    cluster: &SimulatedCluster,
    replication: &Replication,
    tokens: Tokens<'_>,
    consistency: u16,
    local_dc: &str,
) -> Verdict {
    if matches!(replication, Replication::Local) {
        return Verdict::Proceed;
    }
    let ring = cluster.ring();
    let ranges: Vec<i64> = match tokens {
        Tokens::Partitions(tokens) => tokens.to_vec(),
        Tokens::Everywhere => ring_tokens(&ring),
    };
    let mut worst = Verdict::Proceed;
    for token in ranges {
        match token_verdict(cluster, &ring, replication, token, consistency, local_dc) {
            Verdict::Proceed => {}
            unavailable @ Verdict::Unavailable(_) => return unavailable,
            timeout => worst = timeout,
        }
    }
    worst
}

/// The verdict for one token.
fn token_verdict(
    cluster: &SimulatedCluster,
    ring: &Ring,
    replication: &Replication,
    token: i64,
    consistency: u16,
    local_dc: &str,
) -> Verdict {
    let replicas = ring.replicas(token, replication);
    let states: Vec<(ReplicaState<'_>, bool)> = replicas
        .iter()
        .map(|&index| {
            let node = &ring.nodes()[index];
            let state = cluster.state(index);
            // A paused node still looks alive (nothing has marked it down): it counts for
            // availability, but never answers.
            let alive = matches!(state, NodeState::Up | NodeState::Paused);
            let replica = ReplicaState {
                datacenter: node.datacenter.as_str(),
                up: alive,
            };
            (replica, state == NodeState::Up)
        })
        .collect();
    let alive: Vec<ReplicaState<'_>> = states.iter().map(|(r, _)| *r).collect();
    if let Err(shortfall) = availability::check(consistency, replication, &alive, local_dc) {
        return Verdict::Unavailable(shortfall);
    }
    let answering: Vec<ReplicaState<'_>> = states
        .iter()
        .map(|(r, answers)| ReplicaState { up: *answers, ..*r })
        .collect();
    match availability::check(consistency, replication, &answering, local_dc) {
        Ok(()) => Verdict::Proceed,
        Err(short) => Verdict::Timeout {
            received: short.alive,
            block_for: short.required,
        },
    }
}

/// One token in each range of the ring (its end token).
fn ring_tokens(ring: &Ring) -> Vec<i64> {
    let mut tokens: Vec<i64> = ring
        .nodes()
        .iter()
        .flat_map(|node| node.tokens.iter().copied())
        .collect();
    tokens.sort_unstable();
    tokens
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::net::Ipv4Addr;

    use super::*;
    use crate::cluster::availability::level;
    use crate::cluster::spec::ClusterSpec;

    fn cluster(spec: &str) -> SimulatedCluster {
        let spec = ClusterSpec::parse(spec).expect("spec");
        SimulatedCluster::new(spec, Ipv4Addr::new(127, 0, 0, 1), 9042)
    }

    fn rf(dc: &str, factor: usize) -> Replication {
        Replication::Network(BTreeMap::from([(dc.to_string(), factor)]))
    }

    #[test]
    fn one_node_down_of_three_fails_all_not_local_quorum() {
        let cluster = cluster("dc1:3");
        let replication = rf("dc1", 3);
        let tokens = [42];
        let at = |consistency| {
            verdict(
                &cluster,
                &replication,
                Tokens::Partitions(&tokens),
                consistency,
                "dc1",
            )
        };
        assert_eq!(at(level::ALL), Verdict::Proceed);
        cluster.set_state(1, NodeState::Stopped);
        assert_eq!(at(level::LOCAL_QUORUM), Verdict::Proceed);
        assert_eq!(
            at(level::ALL),
            Verdict::Unavailable(Shortfall {
                consistency: level::ALL,
                required: 3,
                alive: 2,
                datacenter: None,
            })
        );
        cluster.set_state(2, NodeState::Stopped);
        assert!(matches!(at(level::QUORUM), Verdict::Unavailable(_)));
        assert_eq!(at(level::ONE), Verdict::Proceed);
    }

    #[test]
    fn a_paused_replica_times_out_what_needs_it() {
        let cluster = cluster("dc1:3");
        let replication = rf("dc1", 3);
        cluster.set_state(0, NodeState::Paused);
        let at = |consistency| {
            verdict(
                &cluster,
                &replication,
                Tokens::Partitions(&[7]),
                consistency,
                "dc1",
            )
        };
        assert_eq!(at(level::QUORUM), Verdict::Proceed);
        assert_eq!(
            at(level::ALL),
            Verdict::Timeout {
                received: 2,
                block_for: 3
            }
        );
    }

    #[test]
    fn scans_need_every_range() {
        let cluster = cluster("dc1:4");
        let replication = Replication::Simple(1);
        let scan = |consistency| {
            verdict(
                &cluster,
                &replication,
                Tokens::Everywhere,
                consistency,
                "dc1",
            )
        };
        assert_eq!(scan(level::ONE), Verdict::Proceed);
        cluster.set_state(3, NodeState::Stopped);
        assert!(matches!(scan(level::ONE), Verdict::Unavailable(_)));
        assert_eq!(
            verdict(
                &cluster,
                &Replication::Local,
                Tokens::Everywhere,
                level::ALL,
                "dc1"
            ),
            Verdict::Proceed
        );
    }
}
