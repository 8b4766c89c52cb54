//! `Shutdown`: a connection's view of the server-wide shutdown signal, and, on a simulated
//! cluster, of its node being stopped.

use tokio::sync::{broadcast, watch};

use crate::cluster::state::NodeState;

/// Listens for the server's shutdown broadcast (and its node's stop). Once the signal is
/// seen it stays seen.
#[derive(Debug)]
pub(crate) struct Shutdown {
    is_shutdown: bool,
    notify: broadcast::Receiver<()>,
    /// The state of the simulated node the connection is on.
    node: Option<watch::Receiver<NodeState>>,
}

impl Shutdown {
    /// Wraps a receiver of the shutdown broadcast.
    pub(crate) fn new(notify: broadcast::Receiver<()>) -> Shutdown {
        Shutdown {
            is_shutdown: false,
            notify,
            node: None,
        }
    }

    /// Also ends when the watched simulated node stops accepting (stopped, decommissioned).
    pub(crate) fn with_node(mut self, node: Option<watch::Receiver<NodeState>>) -> Shutdown {
        self.node = node;
        self
    }

    /// Waits for the shutdown signal (returns at once if already received).
    pub(crate) async fn recv(&mut self) {
        if self.is_shutdown {
            return;
        }
        match &mut self.node {
            // A lagged or closed channel means the sender is gone: that is shutdown too.
            None => {
                let _ = self.notify.recv().await;
            }
            Some(node) => {
                tokio::select! {
                    _ = self.notify.recv() => {}
                    _ = node.wait_for(|state| !state.accepts()) => {}
                }
            }
        }
        self.is_shutdown = true;
    }
}
