//! `simulated_cluster` (ours): the flag's short form as a string (`dc1:3,dc2:2`), or the full
//! form with racks, `num_tokens` and a seed:
//!
//! ```yaml
//! simulated_cluster:
//!   num_tokens: 16
//!   seed: 7
//!   datacenters:
//!     - name: dc1
//!       racks: {rack1: 2, rack2: 1}
//!     - name: dc2
//!       nodes: 2
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::cluster::spec::{ClusterSpec, DatacenterSpec, DEFAULT_NUM_TOKENS};
use crate::config::ConfigError;

/// The setting as written.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum ClusterYaml {
    /// `dc1:3,dc2:2`.
    Short(String),
    /// The full form.
    Full {
        datacenters: Vec<DatacenterYaml>,
        num_tokens: Option<usize>,
        seed: Option<u64>,
    },
}

/// One datacenter of the full form: racks with their node counts, or a node count on one
/// rack `rack1`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DatacenterYaml {
    name: String,
    racks: Option<BTreeMap<String, usize>>,
    nodes: Option<usize>,
}

impl ClusterYaml {
    /// The specification it describes.
    ///
    /// # Errors
    /// A malformed short form; a datacenter with neither or both of `racks` and `nodes`; a
    /// topology past the limits.
    pub(crate) fn spec(self) -> Result<ClusterSpec, ConfigError> {
        let invalid = |why: String| ConfigError::Invalid(format!("simulated_cluster: {why}"));
        match self {
            ClusterYaml::Short(text) => {
                ClusterSpec::parse(&text).map_err(|err| ConfigError::Invalid(err.to_string()))
            }
            ClusterYaml::Full {
                datacenters,
                num_tokens,
                seed,
            } => {
                let datacenters = datacenters
                    .into_iter()
                    .map(|dc| match (dc.racks, dc.nodes) {
                        (Some(racks), None) => Ok(DatacenterSpec {
                            name: dc.name,
                            racks: racks.into_iter().collect(),
                        }),
                        (None, Some(nodes)) => Ok(DatacenterSpec {
                            name: dc.name,
                            racks: vec![("rack1".to_string(), nodes)],
                        }),
                        _ => Err(invalid(format!(
                            "datacenter {} needs either racks or nodes",
                            dc.name
                        ))),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let spec = ClusterSpec {
                    datacenters,
                    num_tokens: num_tokens.unwrap_or(DEFAULT_NUM_TOKENS),
                    seed: seed.unwrap_or(0),
                };
                spec.check().map_err(invalid)?;
                Ok(spec)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Result<ClusterSpec, ConfigError> {
        let yaml: ClusterYaml = serde_norway::from_str(text).expect("yaml");
        yaml.spec()
    }

    #[test]
    fn both_forms_are_read() {
        let short = spec("dc1:3,dc2:2").expect("short");
        assert_eq!(short.node_count(), 5);
        let full = spec(
            "num_tokens: 8\nseed: 7\ndatacenters:\n  - name: dc1\n    racks: {r1: 2, r2: 1}\n  \
             - name: dc2\n    nodes: 2\n",
        )
        .expect("full");
        assert_eq!((full.node_count(), full.num_tokens, full.seed), (5, 8, 7));
        assert_eq!(
            full.datacenters[0].racks,
            [("r1".to_string(), 2), ("r2".to_string(), 1)]
        );
        let both = spec("datacenters:\n  - name: dc1\n    nodes: 1\n    racks: {r1: 1}\n");
        assert!(both.is_err());
        assert!(spec("dc1:0").is_err());
    }
}
