//! A simulated cluster (ours): many nodes presented by one process over one store, so that
//! drivers' token-aware routing, failover and consistency levels can be tested. Every node
//! answers from the same data; the topology, token ownership and node states are what the
//! drivers see.
//!
//! - [`spec`]: the topology as configured (`dc1:3,dc2:2`, or YAML with racks);
//! - [`ring`]: the nodes (address, host id, tokens) and which replicate a token under a
//!   keyspace's replication, as Cassandra's strategies choose them;
//! - [`control`]: stopping, starting, pausing, decommissioning and adding nodes, with
//!   their events;
//! - [`arrival`]: a request counted for the node it came to; none answered while paused;
//! - [`availability`]: whether a consistency level can be met by the nodes that are up, and
//!   Cassandra's `Unavailable` counts when it cannot;
//! - [`single`]: the same arithmetic on one node, as a single Cassandra node does it
//!   (`strict_consistency`), without a simulated cluster.

pub(crate) mod arrival;
pub(crate) mod availability;
pub(crate) mod control;
pub(crate) mod ring;
pub(crate) mod route;
pub(crate) mod single;
pub(crate) mod spec;
pub(crate) mod state;
