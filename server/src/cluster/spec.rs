//! The simulated cluster's shape as configured: datacenters, their racks and node counts,
//! and the tokens each node owns.

/// Cassandra 5.0's default `num_tokens`.
pub(crate) const DEFAULT_NUM_TOKENS: usize = 16;

/// The most nodes a simulated cluster may have (addresses 127.0.0.1 to 127.0.3.232).
pub(crate) const MAX_NODES: usize = 1000;

/// One datacenter: its name and its racks, each with its node count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatacenterSpec {
    /// The datacenter's name (`system.local.data_center`).
    pub name: String,
    /// `(rack, nodes)` in order.
    pub racks: Vec<(String, usize)>,
}

/// A simulated cluster's topology (`--simulated-cluster`, `simulated_cluster`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterSpec {
    /// The datacenters, in order: nodes are numbered through them in this order.
    pub datacenters: Vec<DatacenterSpec>,
    /// Tokens per node.
    pub num_tokens: usize,
    /// Seeds the token allocation and host ids, so a topology is the same at every start.
    pub seed: u64,
}

/// A malformed cluster specification.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid simulated cluster {spec:?}: {why}")]
pub struct SpecError {
    spec: String,
    why: String,
}

impl ClusterSpec {
    /// Parses the flag's form: `dc1:3,dc2:2` (datacenter name and node count, one rack
    /// `rack1` each).
    ///
    /// # Errors
    /// An empty list, a missing or zero count, a repeated datacenter, more than
    /// [`MAX_NODES`] nodes.
    pub fn parse(text: &str) -> Result<ClusterSpec, SpecError> {
        let error = |why: &str| SpecError {
            spec: text.to_string(),
            why: why.to_string(),
        };
        let mut datacenters: Vec<DatacenterSpec> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, count) = part
                .split_once(':')
                .ok_or_else(|| error("expected DC:NODES, e.g. dc1:3,dc2:2"))?;
            let count: usize = count
                .trim()
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| error("a datacenter's node count is a positive integer"))?;
            let name = name.trim();
            if name.is_empty() || datacenters.iter().any(|dc| dc.name == name) {
                return Err(error("datacenter names are non-empty and distinct"));
            }
            datacenters.push(DatacenterSpec {
                name: name.to_string(),
                racks: vec![("rack1".to_string(), count)],
            });
        }
        let spec = ClusterSpec {
            datacenters,
            num_tokens: DEFAULT_NUM_TOKENS,
            seed: 0,
        };
        spec.check().map_err(|why| error(&why))?;
        Ok(spec)
    }

    /// Checks the limits every specification must meet.
    pub fn check(&self) -> Result<(), String> {
        let nodes = self.node_count();
        if nodes == 0 {
            return Err("no node".into());
        }
        if nodes > MAX_NODES {
            return Err(format!("{nodes} nodes; at most {MAX_NODES}"));
        }
        if self.num_tokens == 0 || self.num_tokens > 256 {
            return Err(format!("num_tokens {} is not in 1..=256", self.num_tokens));
        }
        Ok(())
    }

    /// How many nodes the cluster has.
    pub fn node_count(&self) -> usize {
        self.datacenters
            .iter()
            .flat_map(|dc| dc.racks.iter().map(|(_, n)| n))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_form_names_datacenters_and_counts() {
        let spec = ClusterSpec::parse("dc1:3, dc2:2").expect("spec");
        assert_eq!(spec.node_count(), 5);
        assert_eq!(spec.datacenters[1].name, "dc2");
        assert_eq!(spec.datacenters[1].racks, [("rack1".to_string(), 2)]);
        assert_eq!(spec.num_tokens, DEFAULT_NUM_TOKENS);
    }

    #[test]
    fn malformed_forms_are_refused() {
        for text in ["", "dc1", "dc1:0", "dc1:x", "dc1:1,dc1:2", ":3", "dc1:1001"] {
            assert!(ClusterSpec::parse(text).is_err(), "{text}");
        }
    }
}
