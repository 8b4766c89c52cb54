//! One node doing the consistency arithmetic of a single Cassandra node
//! (`strict_consistency: true`): a ring of one node, in datacenter `datacenter1`, always up.
//! Whatever a keyspace's replication factor, that node is the partition's only replica (or
//! none, when the keyspace places no replica in its datacenter), so a level that waits for
//! more replicas than that is `Unavailable`, with the counts [`availability::check`] gives a
//! simulated cluster.

use super::availability::{self, ReplicaState, Shortfall};
use super::ring::Replication;
use crate::schema::table_def::options::DATACENTER;

/// The replicas a one-node ring in `DATACENTER` gives a partition under `replication`: the
/// node, if the keyspace places at least one replica in its datacenter.
fn replicas(replication: &Replication) -> &'static [ReplicaState<'static>] {
    const NODE: [ReplicaState<'static>; 1] = [ReplicaState {
        datacenter: DATACENTER,
        up: true,
    }];
    let holds = match replication {
        Replication::Simple(factor) => *factor > 0,
        Replication::Network(per_dc) => per_dc.get(DATACENTER).is_some_and(|&f| f > 0),
        Replication::Local => true,
    };
    if holds {
        &NODE
    } else {
        &[]
    }
}

/// Checks `consistency` on the one node for a keyspace replicated as `replication`.
///
/// # Errors
/// The [`Shortfall`] a single Cassandra node's `Unavailable` reports.
pub(crate) fn check(consistency: u16, replication: &Replication) -> Result<(), Shortfall> {
    availability::check(consistency, replication, replicas(replication), DATACENTER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::availability::level;

    fn nts(pairs: &[(&str, usize)]) -> Replication {
        Replication::Network(pairs.iter().map(|(d, f)| (d.to_string(), *f)).collect())
    }

    fn counts(consistency: u16, replication: &Replication) -> Option<(u16, usize, usize)> {
        check(consistency, replication)
            .err()
            .map(|s| (s.consistency, s.required, s.alive))
    }

    #[test]
    fn rf3_allows_one_and_refuses_quorum_and_all() {
        for replication in [Replication::Simple(3), nts(&[(DATACENTER, 3)])] {
            for ok in [level::ANY, level::ONE, level::LOCAL_ONE] {
                assert_eq!(counts(ok, &replication), None, "{ok} {replication:?}");
            }
            // A Paxos round has the ring's one replica as its only participant.
            assert_eq!(counts(level::SERIAL, &replication), None);
            assert_eq!(counts(level::LOCAL_SERIAL, &replication), None);
            assert_eq!(
                counts(level::QUORUM, &replication),
                Some((level::QUORUM, 2, 1))
            );
            assert_eq!(counts(level::ALL, &replication), Some((level::ALL, 3, 1)));
            assert_eq!(counts(level::TWO, &replication), Some((level::TWO, 2, 1)));
            assert_eq!(
                counts(level::THREE, &replication),
                Some((level::THREE, 3, 1))
            );
            assert_eq!(
                counts(level::LOCAL_QUORUM, &replication),
                Some((level::LOCAL_QUORUM, 2, 1))
            );
        }
    }

    #[test]
    fn rf1_meets_every_level_that_needs_one_replica() {
        for replication in [Replication::Simple(1), nts(&[(DATACENTER, 1)])] {
            for ok in [
                level::ONE,
                level::QUORUM,
                level::ALL,
                level::LOCAL_QUORUM,
                level::EACH_QUORUM,
                level::LOCAL_ONE,
                level::SERIAL,
            ] {
                assert_eq!(counts(ok, &replication), None, "{ok}");
            }
            assert_eq!(counts(level::TWO, &replication), Some((level::TWO, 2, 1)));
        }
    }

    #[test]
    fn each_quorum_counts_every_datacenter_and_names_the_short_one() {
        let replication = nts(&[(DATACENTER, 1), ("dc2", 3)]);
        let short = check(level::EACH_QUORUM, &replication).expect_err("dc2 has no node");
        assert_eq!(
            (short.required, short.alive, short.datacenter.as_deref()),
            (2, 0, Some("dc2"))
        );
        assert_eq!(counts(level::LOCAL_QUORUM, &replication), None);
        // QUORUM of the sum of the factors (4): 3 of them, 1 alive.
        assert_eq!(
            counts(level::QUORUM, &replication),
            Some((level::QUORUM, 3, 1))
        );
    }

    #[test]
    fn a_keyspace_without_a_replica_here_meets_nothing_but_any() {
        let elsewhere = nts(&[("dc2", 3)]);
        assert_eq!(counts(level::ONE, &elsewhere), Some((level::ONE, 1, 0)));
        assert_eq!(
            counts(level::LOCAL_ONE, &elsewhere),
            Some((level::LOCAL_ONE, 1, 0))
        );
        assert_eq!(counts(level::ANY, &elsewhere), None);
        assert_eq!(
            counts(level::ONE, &Replication::Simple(0)),
            Some((level::ONE, 1, 0))
        );
        assert_eq!(counts(level::ALL, &Replication::Local), None);
    }
}
