//! The simulated cluster at run time: its ring (which changes when nodes are added or
//! decommissioned) and each node's state, which the test controls change.

use std::net::IpAddr;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use super::ring::{Ring, SimNode};
use super::spec::ClusterSpec;

/// A simulated node's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeState {
    /// Serving.
    Up,
    /// Stopped: its connections closed, new ones refused; peers see it DOWN.
    Stopped,
    /// Paused: accepts, never answers; requests that need it time out.
    Paused,
    /// Decommissioned: gone from the ring and from `system.peers`.
    Removed,
}

impl NodeState {
    /// Whether the node accepts connections in this state.
    pub(crate) fn accepts(self) -> bool {
        matches!(self, NodeState::Up | NodeState::Paused)
    }

    /// As the test controls name it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            NodeState::Up => "up",
            NodeState::Stopped => "stopped",
            NodeState::Paused => "paused",
            NodeState::Removed => "decommissioned",
        }
    }
}

/// One node's run-time state and counters.
#[derive(Debug)]
struct NodeRuntime {
    /// Its state; the listener and the node's connections watch it.
    state: tokio::sync::watch::Sender<NodeState>,
    /// Requests (QUERY, EXECUTE, BATCH) this node coordinated.
    requests: AtomicU64,
}

impl NodeRuntime {
    fn up() -> Arc<NodeRuntime> {
        Arc::new(NodeRuntime {
            state: tokio::sync::watch::Sender::new(NodeState::Up),
            requests: AtomicU64::new(0),
        })
    }
}

/// The simulated cluster.
#[derive(Debug)]
pub(crate) struct SimulatedCluster {
    spec: ClusterSpec,
    ring: RwLock<Arc<Ring>>,
    runtime: RwLock<Vec<Arc<NodeRuntime>>>,
    /// The CQL port every node listens on (set once bound: `--port 0` takes a free one).
    port: AtomicU16,
    /// The first node's address; the others count up from it.
    first_address: std::net::Ipv4Addr,
    /// How many nodes were ever in the ring (added ones included): the listeners watch it.
    node_count: tokio::sync::watch::Sender<usize>,
    /// The other nodes' listeners, bound before the first node announces it listens and
    /// taken by the accept loops (see `transport::cluster_listeners`).
    bound: std::sync::Mutex<Option<Vec<tokio::net::TcpListener>>>,
}

impl SimulatedCluster {
    /// The cluster of `spec`, its first node on `first_address` and every node on `port`.
    pub(crate) fn new(spec: ClusterSpec, first_address: std::net::Ipv4Addr, port: u16) -> Self {
        let ring = Ring::build(&spec, first_address);
        let count = ring.nodes().len();
        let runtime = (0..count).map(|_| NodeRuntime::up()).collect();
        SimulatedCluster {
            spec,
            ring: RwLock::new(Arc::new(ring)),
            runtime: RwLock::new(runtime),
            port: AtomicU16::new(port),
            first_address,
            node_count: tokio::sync::watch::Sender::new(count),
            bound: std::sync::Mutex::new(None),
        }
    }

    /// The ring as it stands.
    pub(crate) fn ring(&self) -> Arc<Ring> {
        self.ring.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The specification the cluster started from.
    pub(crate) fn spec(&self) -> &ClusterSpec {
        &self.spec
    }

    /// The CQL port of every node.
    pub(crate) fn port(&self) -> u16 {
        self.port.load(Ordering::Acquire)
    }

    /// Records the CQL port the nodes were bound to.
    pub(crate) fn set_port(&self, port: u16) {
        self.port.store(port, Ordering::Release);
    }

    /// The node listening on `address`.
    pub(crate) fn node_at(&self, address: IpAddr) -> Option<SimNode> {
        self.ring()
            .nodes()
            .iter()
            .find(|node| node.address == address)
            .cloned()
    }

    /// The index of the node listening on `address`.
    pub(crate) fn index_at(&self, address: IpAddr) -> Option<usize> {
        let ring = self.ring.read().unwrap_or_else(|p| p.into_inner());
        ring.nodes().iter().position(|node| node.address == address)
    }

    /// The datacenter of the node listening on `address`.
    pub(crate) fn datacenter_at(&self, address: IpAddr) -> Option<String> {
        let ring = self.ring.read().unwrap_or_else(|p| p.into_inner());
        ring.nodes()
            .iter()
            .find(|node| node.address == address)
            .map(|node| node.datacenter.clone())
    }

    fn runtime(&self, index: usize) -> Option<Arc<NodeRuntime>> {
        self.runtime
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(index)
            .cloned()
    }

    /// The state of node `index`.
    pub(crate) fn state(&self, index: usize) -> NodeState {
        self.runtime(index)
            .map_or(NodeState::Removed, |r| *r.state.borrow())
    }

    /// A watch on the state of node `index`.
    pub(crate) fn watch_state(&self, index: usize) -> tokio::sync::watch::Receiver<NodeState> {
        match self.runtime(index) {
            Some(runtime) => runtime.state.subscribe(),
            None => tokio::sync::watch::Sender::new(NodeState::Removed).subscribe(),
        }
    }

    /// Sets the state of node `index`; the state it had.
    pub(crate) fn set_state(&self, index: usize, state: NodeState) -> NodeState {
        self.runtime(index)
            .map_or(NodeState::Removed, |r| r.state.send_replace(state))
    }

    /// Binds every node but the first on `port` (the first node's), once; the listeners wait
    /// for [`SimulatedCluster::take_bound`].
    ///
    /// # Errors
    /// An address cannot be bound.
    pub(crate) async fn bind_others(&self, port: u16) -> std::io::Result<()> {
        if self
            .bound
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
        {
            return Ok(());
        }
        self.set_port(port);
        let ring = self.ring();
        let mut listeners = Vec::with_capacity(ring.nodes().len());
        for node in ring.nodes().iter().skip(1) {
            let address = std::net::SocketAddr::new(node.address, port);
            let listener = tokio::net::TcpListener::bind(address)
                .await
                .map_err(|err| {
                    std::io::Error::new(err.kind(), format!("simulated node {address}: {err}"))
                })?;
            listeners.push(listener);
        }
        *self.bound.lock().unwrap_or_else(|p| p.into_inner()) = Some(listeners);
        Ok(())
    }

    /// The listeners [`SimulatedCluster::bind_others`] bound (once).
    pub(crate) fn take_bound(&self) -> Vec<tokio::net::TcpListener> {
        self.bound
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Adds a node to `datacenter` and `rack` at the next address, up; the new node.
    pub(crate) fn add_node(&self, datacenter: &str, rack: &str) -> SimNode {
        let mut ring = self.ring.write().unwrap_or_else(|p| p.into_inner());
        let grown = ring.with_node(&self.spec, self.first_address, datacenter, rack);
        let node = grown.nodes()[grown.nodes().len() - 1].clone();
        self.runtime
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .push(NodeRuntime::up());
        *ring = Arc::new(grown);
        self.node_count.send_replace(node.index + 1);
        node
    }

    /// Takes node `index` out of the ring (decommissioned); its previous state.
    pub(crate) fn decommission(&self, index: usize) -> NodeState {
        let mut ring = self.ring.write().unwrap_or_else(|p| p.into_inner());
        *ring = Arc::new(ring.without(index));
        drop(ring);
        self.set_state(index, NodeState::Removed)
    }

    /// A watch on how many nodes were ever in the ring.
    pub(crate) fn watch_node_count(&self) -> tokio::sync::watch::Receiver<usize> {
        self.node_count.subscribe()
    }

    /// Counts a request coordinated by node `index`.
    pub(crate) fn count_request(&self, index: usize) {
        if let Some(runtime) = self.runtime(index) {
            runtime.requests.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Requests node `index` coordinated.
    pub(crate) fn requests(&self, index: usize) -> u64 {
        self.runtime(index)
            .map_or(0, |r| r.requests.load(Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_found_by_address_and_change_state() {
        let spec = ClusterSpec::parse("dc1:2,dc2:1").expect("spec");
        let cluster = SimulatedCluster::new(spec, std::net::Ipv4Addr::new(127, 0, 0, 1), 9042);
        let node = cluster
            .node_at(IpAddr::from([127, 0, 0, 3]))
            .expect("third node");
        assert_eq!((node.index, node.datacenter.as_str()), (2, "dc2"));
        assert!(cluster.node_at(IpAddr::from([127, 0, 0, 4])).is_none());
        assert_eq!(cluster.state(2), NodeState::Up);
        assert_eq!(cluster.set_state(2, NodeState::Paused), NodeState::Up);
        assert_eq!(cluster.state(2), NodeState::Paused);
        cluster.count_request(1);
        assert_eq!((cluster.requests(0), cluster.requests(1)), (0, 1));
    }
}
