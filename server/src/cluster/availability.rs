//! Whether a consistency level can be met by the replicas that are up, as Cassandra 5.0's
//! `ConsistencyLevel.blockFor` and `ReplicaPlans.assureSufficientLiveReplicas` decide (and,
//! for a Paxos round at `SERIAL` or `LOCAL_SERIAL`, `ReplicaPlans.forPaxos`); when it
//! cannot, the counts its `UnavailableException` carries.

use std::collections::BTreeMap;

use super::ring::Replication;

/// The protocol's consistency codes.
pub(crate) mod level {
    pub(crate) const ANY: u16 = 0x0000;
    pub(crate) const ONE: u16 = 0x0001;
    pub(crate) const TWO: u16 = 0x0002;
    pub(crate) const THREE: u16 = 0x0003;
    pub(crate) const QUORUM: u16 = 0x0004;
    pub(crate) const ALL: u16 = 0x0005;
    pub(crate) const LOCAL_QUORUM: u16 = 0x0006;
    pub(crate) const EACH_QUORUM: u16 = 0x0007;
    pub(crate) const SERIAL: u16 = 0x0008;
    pub(crate) const LOCAL_SERIAL: u16 = 0x0009;
    pub(crate) const LOCAL_ONE: u16 = 0x000A;
}

/// What `Unavailable` carries: the level, the replicas it needs and those alive (in `dc`
/// for a per-datacenter shortfall).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shortfall {
    pub(crate) consistency: u16,
    pub(crate) required: usize,
    pub(crate) alive: usize,
    pub(crate) datacenter: Option<String>,
}

/// One replica of the partition: its datacenter and whether it is up.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReplicaState<'a> {
    pub(crate) datacenter: &'a str,
    pub(crate) up: bool,
}

/// The replication factor of `replication`, in all and per datacenter.
fn factors(
    replication: &Replication,
    replicas: &[ReplicaState<'_>],
) -> (usize, BTreeMap<String, usize>) {
    match replication {
        Replication::Network(per_dc) => (per_dc.values().sum(), per_dc.clone()),
        Replication::Simple(factor) => {
            let mut per_dc = BTreeMap::new();
            for replica in replicas {
                *per_dc.entry(replica.datacenter.to_string()).or_insert(0) += 1;
            }
            (*factor, per_dc)
        }
        Replication::Local => (1, BTreeMap::new()),
    }
}

/// Replicas `consistency` waits for (`blockFor`), with `local_dc` the coordinator's.
pub(crate) fn block_for(consistency: u16, replication: &Replication, local_dc: &str) -> usize {
    let all = |r: &Replication| match r {
        Replication::Simple(f) => *f,
        Replication::Network(per_dc) => per_dc.values().sum(),
        Replication::Local => 1,
    };
    let quorum = |n: usize| n / 2 + 1;
    let local = |r: &Replication| match r {
        Replication::Network(per_dc) => quorum(per_dc.get(local_dc).copied().unwrap_or(0)),
        other => quorum(all(other)),
    };
    match consistency {
        level::ANY | level::ONE | level::LOCAL_ONE => 1,
        level::TWO => 2,
        level::THREE => 3,
        level::QUORUM | level::SERIAL => quorum(all(replication)),
        level::ALL => all(replication),
        level::LOCAL_QUORUM | level::LOCAL_SERIAL => local(replication),
        level::EACH_QUORUM => match replication {
            Replication::Network(per_dc) => per_dc.values().map(|&f| quorum(f)).sum(),
            other => quorum(all(other)),
        },
        _ => 1,
    }
}

/// The replicas of a Paxos round: every replica of the partition, up or down (in `dc`
/// only, for `LOCAL_SERIAL`). Cassandra's `forPaxos` counts the replicas the ring has, not
/// the replication factor: a ring of fewer nodes than the factor has fewer participants.
fn paxos_participants(replicas: &[ReplicaState<'_>], dc: Option<&str>) -> usize {
    replicas
        .iter()
        .filter(|r| dc.is_none_or(|dc| r.datacenter == dc))
        .count()
}

/// Checks that enough of `replicas` (the partition's replicas on the ring, up or down) are
/// up for `consistency`; a write at `ANY` always may (it would be hinted). At `SERIAL` and
/// `LOCAL_SERIAL` it checks the Paxos round's participants (a majority of `replicas`).
///
/// # Errors
/// The [`Shortfall`] Cassandra's `Unavailable` reports.
pub(crate) fn check(
    consistency: u16,
    replication: &Replication,
    replicas: &[ReplicaState<'_>],
    local_dc: &str,
) -> Result<(), Shortfall> {
    if matches!(replication, Replication::Local) || consistency == level::ANY {
        return Ok(());
    }
    let alive_in = |dc: Option<&str>| {
        replicas
            .iter()
            .filter(|r| r.up && dc.is_none_or(|dc| r.datacenter == dc))
            .count()
    };
    let shortfall = |required, alive, datacenter: Option<&str>| Shortfall {
        consistency,
        required,
        alive,
        datacenter: datacenter.map(str::to_string),
    };
    if consistency == level::EACH_QUORUM {
        if let Replication::Network(_) = replication {
            let (_, per_dc) = factors(replication, replicas);
            for (dc, factor) in &per_dc {
                let (required, alive) = (factor / 2 + 1, alive_in(Some(dc)));
                if alive < required {
                    return Err(shortfall(required, alive, Some(dc)));
                }
            }
            return Ok(());
        }
    }
    let local = matches!(
        consistency,
        level::LOCAL_ONE | level::LOCAL_QUORUM | level::LOCAL_SERIAL
    );
    let local_dc_only = local.then_some(local_dc);
    let required = if matches!(consistency, level::SERIAL | level::LOCAL_SERIAL) {
        paxos_participants(replicas, local_dc_only) / 2 + 1
    } else {
        block_for(consistency, replication, local_dc)
    };
    let alive = alive_in(local_dc_only);
    if alive < required {
        return Err(shortfall(required, alive, None));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states<'a>(spec: &[(&'a str, bool)]) -> Vec<ReplicaState<'a>> {
        spec.iter()
            .map(|&(datacenter, up)| ReplicaState { datacenter, up })
            .collect()
    }

    fn nts(pairs: &[(&str, usize)]) -> Replication {
        Replication::Network(pairs.iter().map(|(d, f)| (d.to_string(), *f)).collect())
    }

    #[test]
    fn rf3_with_one_down_meets_quorum_but_not_all() {
        let replication = nts(&[("dc1", 3)]);
        let replicas = states(&[("dc1", true), ("dc1", true), ("dc1", false)]);
        for ok in [
            level::ONE,
            level::TWO,
            level::QUORUM,
            level::LOCAL_QUORUM,
            level::SERIAL,
        ] {
            assert_eq!(check(ok, &replication, &replicas, "dc1"), Ok(()), "{ok}");
        }
        assert_eq!(
            check(level::ALL, &replication, &replicas, "dc1"),
            Err(Shortfall {
                consistency: level::ALL,
                required: 3,
                alive: 2,
                datacenter: None
            })
        );
        let two_down = states(&[("dc1", true), ("dc1", false), ("dc1", false)]);
        let err = check(level::QUORUM, &replication, &two_down, "dc1").expect_err("quorum");
        assert_eq!((err.required, err.alive), (2, 1));
        assert_eq!(
            check(level::ANY, &replication, &states(&[("dc1", false)]), "dc1"),
            Ok(())
        );
    }

    #[test]
    fn local_levels_count_the_coordinators_datacenter() {
        let replication = nts(&[("dc1", 3), ("dc2", 2)]);
        let replicas = states(&[
            ("dc1", true),
            ("dc1", true),
            ("dc1", true),
            ("dc2", false),
            ("dc2", false),
        ]);
        assert_eq!(
            check(level::LOCAL_QUORUM, &replication, &replicas, "dc1"),
            Ok(())
        );
        assert_eq!(check(level::QUORUM, &replication, &replicas, "dc1"), Ok(()));
        let err = check(level::LOCAL_ONE, &replication, &replicas, "dc2").expect_err("dc2");
        assert_eq!((err.required, err.alive), (1, 0));
        let err = check(level::EACH_QUORUM, &replication, &replicas, "dc1").expect_err("each");
        assert_eq!(
            (err.required, err.alive, err.datacenter.as_deref()),
            (2, 0, Some("dc2"))
        );
        assert_eq!(block_for(level::EACH_QUORUM, &replication, "dc1"), 4);
        assert_eq!(block_for(level::LOCAL_SERIAL, &replication, "dc2"), 2);
    }

    #[test]
    fn paxos_needs_a_majority_of_the_replicas_the_ring_has() {
        let replication = nts(&[("dc1", 3), ("dc2", 3)]);
        // One node in dc1 for a factor of 3: one participant, a majority of one.
        let one = states(&[("dc1", true)]);
        assert_eq!(check(level::SERIAL, &replication, &one, "dc1"), Ok(()));
        assert_eq!(
            check(level::LOCAL_SERIAL, &replication, &one, "dc1"),
            Ok(())
        );
        let err = check(level::QUORUM, &replication, &one, "dc1").expect_err("quorum");
        assert_eq!((err.required, err.alive), (4, 1));
        let replicas = states(&[
            ("dc1", true),
            ("dc1", false),
            ("dc1", false),
            ("dc2", true),
            ("dc2", true),
            ("dc2", true),
        ]);
        assert_eq!(check(level::SERIAL, &replication, &replicas, "dc1"), Ok(()));
        let err = check(level::LOCAL_SERIAL, &replication, &replicas, "dc1").expect_err("dc1");
        assert_eq!(
            (err.consistency, err.required, err.alive),
            (level::LOCAL_SERIAL, 2, 1)
        );
    }

    #[test]
    fn simple_strategy_and_local_keyspaces() {
        let replicas = states(&[("dc1", true), ("dc2", false)]);
        let simple = Replication::Simple(2);
        assert_eq!(check(level::ONE, &simple, &replicas, "dc1"), Ok(()));
        assert!(check(level::ALL, &simple, &replicas, "dc1").is_err());
        assert_eq!(block_for(level::LOCAL_QUORUM, &simple, "dc1"), 2);
        assert_eq!(check(level::ALL, &Replication::Local, &[], "dc1"), Ok(()));
    }
}
