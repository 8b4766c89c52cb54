//! The simulated nodes and the token ring: which nodes replicate a token under a keyspace's
//! replication, chosen as Cassandra 5.0's `SimpleStrategy` and `NetworkTopologyStrategy`
//! choose them (the latter rack-aware, as `NetworkTopologyStrategy.DatacenterEndpoints`).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::net::{IpAddr, Ipv4Addr};

use uuid::Uuid;

use super::spec::ClusterSpec;

/// One simulated node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SimNode {
    /// Its position in the cluster (0-based, through the datacenters in order).
    pub(crate) index: usize,
    /// The address it listens on and peers name it by.
    pub(crate) address: IpAddr,
    /// `host_id`.
    pub(crate) host_id: Uuid,
    /// `data_center`.
    pub(crate) datacenter: String,
    /// `rack`.
    pub(crate) rack: String,
    /// The tokens it owns, sorted.
    pub(crate) tokens: Vec<i64>,
}

/// A keyspace's replication, as the ring reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Replication {
    /// `SimpleStrategy`: this many replicas, the next distinct nodes on the ring.
    Simple(usize),
    /// `NetworkTopologyStrategy`: replicas per datacenter.
    Network(BTreeMap<String, usize>),
    /// `LocalStrategy` (the system keyspaces): every node holds its own data.
    Local,
}

impl Replication {
    /// The replication of a keyspace's `replication` map (`class` and its options).
    pub(crate) fn of(options: &BTreeMap<String, String>) -> Replication {
        let class = options.get("class").map_or("", String::as_str);
        let class = class.rsplit('.').next().unwrap_or(class);
        let count = |value: &String| {
            // "3", or a transient form "3/1": the full count.
            value
                .split('/')
                .next()
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0)
        };
        match class {
            "SimpleStrategy" => {
                Replication::Simple(options.get("replication_factor").map_or(1, count))
            }
            "NetworkTopologyStrategy" => Replication::Network(
                options
                    .iter()
                    .filter(|(name, _)| name.as_str() != "class")
                    .map(|(dc, value)| (dc.clone(), count(value)))
                    .collect(),
            ),
            _ => Replication::Local,
        }
    }
}

/// The cluster's nodes and token ring.
#[derive(Debug, Clone)]
pub(crate) struct Ring {
    nodes: Vec<SimNode>,
    /// Every `(token, node index)`, sorted by token.
    ring: Vec<(i64, usize)>,
}

impl Ring {
    /// The nodes of `spec`, their addresses counted up from `first_address`.
    pub(crate) fn build(spec: &ClusterSpec, first_address: Ipv4Addr) -> Ring {
        let mut ring = Ring {
            nodes: Vec::with_capacity(spec.node_count()),
            ring: Vec::new(),
        };
        for dc in &spec.datacenters {
            for (rack, count) in &dc.racks {
                for _ in 0..*count {
                    ring.nodes
                        .push(ring.new_node(spec, first_address, &dc.name, rack));
                }
            }
        }
        ring.index_tokens();
        ring
    }

    /// This ring with one more node, in `datacenter` and `rack`, at the next address; the new
    /// node's index is the old node count.
    pub(crate) fn with_node(
        &self,
        spec: &ClusterSpec,
        first_address: Ipv4Addr,
        datacenter: &str,
        rack: &str,
    ) -> Ring {
        let mut ring = self.clone();
        let node = ring.new_node(spec, first_address, datacenter, rack);
        ring.nodes.push(node);
        ring.index_tokens();
        ring
    }

    /// This ring without node `index`'s tokens (decommissioned: it keeps its index and
    /// address, and owns nothing).
    pub(crate) fn without(&self, index: usize) -> Ring {
        let mut ring = self.clone();
        if let Some(node) = ring.nodes.get_mut(index) {
            node.tokens.clear();
        }
        ring.index_tokens();
        ring
    }

    /// The node that will have index `self.nodes.len()`: its address, and its tokens and
    /// host id drawn from the spec's seed and its index (so the same at every start), none
    /// of its tokens held already.
    fn new_node(
        &self,
        spec: &ClusterSpec,
        first_address: Ipv4Addr,
        datacenter: &str,
        rack: &str,
    ) -> SimNode {
        let index = self.nodes.len();
        let offset = u32::try_from(index).unwrap_or(u32::MAX);
        let address = Ipv4Addr::from(u32::from(first_address).saturating_add(offset));
        let mut random = SplitMix64(spec.seed ^ 0x6a09_e667_f3bc_c908 ^ ((index as u64) << 32));
        let mut taken: HashSet<i64> = self
            .nodes
            .iter()
            .flat_map(|n| n.tokens.iter().copied())
            .collect();
        let mut tokens: Vec<i64> = (0..spec.num_tokens)
            .map(|_| unique_token(&mut random, &mut taken))
            .collect();
        tokens.sort_unstable();
        SimNode {
            index,
            address: IpAddr::V4(address),
            host_id: uuid::Builder::from_random_bytes(random.bytes16()).into_uuid(),
            datacenter: datacenter.to_string(),
            rack: rack.to_string(),
            tokens,
        }
    }

    /// Rebuilds the sorted `(token, node)` index.
    fn index_tokens(&mut self) {
        self.ring = self
            .nodes
            .iter()
            .flat_map(|node| node.tokens.iter().map(move |&t| (t, node.index)))
            .collect();
        self.ring.sort_unstable();
    }

    /// The nodes, by index.
    pub(crate) fn nodes(&self) -> &[SimNode] {
        &self.nodes
    }

    /// The nodes replicating `token` under `replication`, in the order the ring walk meets
    /// them (the first is the token's owner); empty for [`Replication::Local`].
    pub(crate) fn replicas(&self, token: i64, replication: &Replication) -> Vec<usize> {
        match replication {
            Replication::Local => Vec::new(),
            Replication::Simple(factor) => {
                let wanted = (*factor).min(self.nodes.len());
                let mut replicas = Vec::with_capacity(wanted);
                for node in self.walk(token) {
                    if replicas.len() == wanted {
                        break;
                    }
                    if !replicas.contains(&node) {
                        replicas.push(node);
                    }
                }
                replicas
            }
            Replication::Network(factors) => self.network_replicas(token, factors),
        }
    }

    /// `NetworkTopologyStrategy`: per datacenter, distinct racks first, then repeats once
    /// the racks left cannot all be used.
    fn network_replicas(&self, token: i64, factors: &BTreeMap<String, usize>) -> Vec<usize> {
        let mut datacenters: BTreeMap<&str, DatacenterPick> = factors
            .iter()
            .filter(|(_, &factor)| factor > 0)
            .filter_map(|(name, &factor)| {
                let members: Vec<&SimNode> = self
                    .nodes
                    .iter()
                    .filter(|n| &n.datacenter == name)
                    .collect();
                let racks: BTreeSet<&str> = members.iter().map(|n| n.rack.as_str()).collect();
                (!members.is_empty()).then(|| {
                    let pick = DatacenterPick {
                        left: factor.min(members.len()),
                        rack_repeats: factor as i64 - racks.len() as i64,
                        racks: BTreeSet::new(),
                    };
                    (name.as_str(), pick)
                })
            })
            .collect();
        let mut replicas = Vec::new();
        for index in self.walk(token) {
            if datacenters.values().all(|pick| pick.left == 0) {
                break;
            }
            let node = &self.nodes[index];
            if replicas.contains(&index) {
                continue;
            }
            if let Some(pick) = datacenters.get_mut(node.datacenter.as_str()) {
                if pick.take(&node.rack) {
                    replicas.push(index);
                }
            }
        }
        replicas
    }

    /// The node indexes in ring order from the owner of `token` (the first token at or
    /// after it, wrapping), each token once.
    fn walk(&self, token: i64) -> impl Iterator<Item = usize> + '_ {
        let start = self.ring.partition_point(|&(t, _)| t < token);
        let (before, from) = self.ring.split_at(start.min(self.ring.len()));
        from.iter().chain(before).map(|&(_, node)| node)
    }
}

/// One datacenter's choice in progress (Cassandra's `DatacenterEndpoints`).
#[derive(Debug)]
struct DatacenterPick {
    /// Replicas still to choose.
    left: usize,
    /// Replicas that may still share a rack with an earlier one.
    rack_repeats: i64,
    racks: BTreeSet<String>,
}

impl DatacenterPick {
    /// Whether a node of `rack` is chosen.
    fn take(&mut self, rack: &str) -> bool {
        if self.left == 0 {
            return false;
        }
        if self.racks.insert(rack.to_string()) {
            self.left -= 1;
            return true;
        }
        if self.rack_repeats <= 0 {
            return false;
        }
        self.rack_repeats -= 1;
        self.left -= 1;
        true
    }
}

/// A token no node holds yet (never `i64::MIN`, which Murmur3 reserves).
fn unique_token(random: &mut SplitMix64, taken: &mut HashSet<i64>) -> i64 {
    loop {
        let token = random.next() as i64;
        if token != i64::MIN && taken.insert(token) {
            return token;
        }
    }
}

/// A small seeded generator (SplitMix64): the same topology at every start.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn bytes16(&mut self) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&self.next().to_be_bytes());
        out[8..].copy_from_slice(&self.next().to_be_bytes());
        out
    }
}

#[cfg(test)]
#[path = "ring_tests.rs"]
mod tests;
