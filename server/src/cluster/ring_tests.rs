use super::*;
use crate::cluster::spec::{ClusterSpec, DatacenterSpec};

fn ring(spec: &str) -> Ring {
    Ring::build(
        &ClusterSpec::parse(spec).expect("spec"),
        Ipv4Addr::new(127, 0, 0, 1),
    )
}

fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn nodes_get_consecutive_addresses_distinct_ids_and_tokens() {
    let ring = ring("dc1:3,dc2:2");
    let addresses: Vec<String> = ring.nodes().iter().map(|n| n.address.to_string()).collect();
    assert_eq!(
        addresses,
        [
            "127.0.0.1",
            "127.0.0.2",
            "127.0.0.3",
            "127.0.0.4",
            "127.0.0.5"
        ]
    );
    let ids: HashSet<Uuid> = ring.nodes().iter().map(|n| n.host_id).collect();
    assert_eq!(ids.len(), 5);
    let tokens: HashSet<i64> = ring.nodes().iter().flat_map(|n| n.tokens.clone()).collect();
    assert_eq!(tokens.len(), 5 * 16);
    assert_eq!(ring.nodes()[3].datacenter, "dc2");
    // The same specification gives the same ring.
    assert_eq!(ring.nodes(), self::ring("dc1:3,dc2:2").nodes());
}

#[test]
fn simple_strategy_takes_the_next_distinct_nodes_from_the_owner() {
    let ring = ring("dc1:5");
    let replication = Replication::of(&options(&[
        ("class", "org.apache.cassandra.locator.SimpleStrategy"),
        ("replication_factor", "3"),
    ]));
    assert_eq!(replication, Replication::Simple(3));
    for node in ring.nodes() {
        for &token in &node.tokens {
            let replicas = ring.replicas(token, &replication);
            assert_eq!(replicas.len(), 3);
            assert_eq!(
                replicas[0], node.index,
                "a token's owner is its first replica"
            );
            let distinct: HashSet<usize> = replicas.iter().copied().collect();
            assert_eq!(distinct.len(), 3);
        }
    }
    // A token past the last wraps to the first token's owner.
    let first = ring.ring[0].1;
    assert_eq!(ring.replicas(i64::MAX, &Replication::Simple(1)), [first]);
    // More replicas than nodes: every node once.
    assert_eq!(ring.replicas(0, &Replication::Simple(9)).len(), 5);
}

#[test]
fn network_topology_places_each_datacenters_count() {
    let ring = ring("dc1:3,dc2:2");
    let replication = Replication::of(&options(&[
        ("class", "NetworkTopologyStrategy"),
        ("dc1", "2"),
        ("dc2", "1"),
    ]));
    for token in [i64::MIN + 1, -5, 0, 77, i64::MAX] {
        let replicas = ring.replicas(token, &replication);
        let in_dc = |dc: &str| {
            replicas
                .iter()
                .filter(|&&i| ring.nodes()[i].datacenter == dc)
                .count()
        };
        assert_eq!((in_dc("dc1"), in_dc("dc2")), (2, 1), "{replicas:?}");
    }
    let unknown = Replication::Network(BTreeMap::from([("dc9".to_string(), 3)]));
    assert!(ring.replicas(0, &unknown).is_empty());
}

#[test]
fn network_topology_prefers_distinct_racks() {
    let spec = ClusterSpec {
        datacenters: vec![DatacenterSpec {
            name: "dc1".into(),
            racks: vec![("r1".into(), 3), ("r2".into(), 3)],
        }],
        num_tokens: 16,
        seed: 7,
    };
    let ring = Ring::build(&spec, Ipv4Addr::new(127, 0, 0, 1));
    let replication = Replication::Network(BTreeMap::from([("dc1".to_string(), 2)]));
    for node in ring.nodes() {
        for &token in &node.tokens {
            let racks: HashSet<&str> = ring
                .replicas(token, &replication)
                .iter()
                .map(|&i| ring.nodes()[i].rack.as_str())
                .collect();
            assert_eq!(racks.len(), 2, "two replicas on two racks");
        }
    }
    // Three replicas over two racks: a rack repeats once.
    let three = Replication::Network(BTreeMap::from([("dc1".to_string(), 3)]));
    assert_eq!(ring.replicas(0, &three).len(), 3);
}

#[test]
fn nodes_join_and_leave_the_ring() {
    let spec = ClusterSpec::parse("dc1:3").expect("spec");
    let first = Ipv4Addr::new(127, 0, 0, 1);
    let ring = Ring::build(&spec, first);
    let grown = ring.with_node(&spec, first, "dc1", "rack1");
    assert_eq!(grown.nodes().len(), 4);
    assert_eq!(grown.nodes()[3].address.to_string(), "127.0.0.4");
    assert_eq!(grown.ring.len(), 4 * 16);
    assert_eq!(grown.nodes()[..3], ring.nodes()[..]);
    let shrunk = grown.without(1);
    assert_eq!(shrunk.ring.len(), 3 * 16);
    for node in shrunk.nodes() {
        for &token in &node.tokens {
            assert!(!shrunk.replicas(token, &Replication::Simple(3)).contains(&1));
        }
    }
}
