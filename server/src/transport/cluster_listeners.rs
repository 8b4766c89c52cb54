//! A simulated cluster's listeners: every node on its own address and the same port, each
//! accepting while its node is up or paused. Stopping a node drops its listener (new
//! connections are refused) and ends its connections; starting it binds again.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tracing::{info, warn};

use crate::cluster::state::SimulatedCluster;
use crate::transport::listener::{accept_loop, AcceptContext};
use crate::ServerError;

/// Serves every node of `cluster`; `first` is the first node's listener, already bound (its
/// port is every node's).
///
/// # Errors
/// Another node's address cannot be bound at start.
pub(crate) async fn serve(
    first: TcpListener,
    cluster: &Arc<SimulatedCluster>,
    context: &AcceptContext<'_>,
) -> Result<(), ServerError> {
    let port = first.local_addr()?.port();
    cluster.bind_others(port).await?;
    let mut listeners = vec![Some(first)];
    listeners.extend(cluster.take_bound().into_iter().map(Some));
    info!(nodes = listeners.len(), port, "simulated cluster listening");
    let mut started = listeners.len();
    let mut loops: futures::stream::FuturesUnordered<_> = listeners
        .into_iter()
        .enumerate()
        .map(|(index, listener)| node_loop(index, listener, cluster, context))
        .collect();
    let mut count = cluster.watch_node_count();
    loop {
        tokio::select! {
            Some(result) = futures::StreamExt::next(&mut loops) => result?,
            changed = count.changed() => {
                if changed.is_err() {
                    continue;
                }
                // Nodes added through the test controls: bound and served from now on.
                let now = *count.borrow_and_update();
                for index in started..now {
                    loops.push(node_loop(index, None, cluster, context));
                }
                started = started.max(now);
            }
        }
    }
}

/// Accepts for node `index` while it accepts; drops its listener while it does not.
async fn node_loop(
    index: usize,
    mut listener: Option<TcpListener>,
    cluster: &Arc<SimulatedCluster>,
    context: &AcceptContext<'_>,
) -> Result<(), ServerError> {
    let mut state = cluster.watch_state(index);
    loop {
        if state.wait_for(|s| s.accepts()).await.is_err() {
            return Ok(());
        }
        let listener = match listener.take() {
            Some(listener) => listener,
            None => bind(cluster, index).await,
        };
        tokio::select! {
            result = accept_loop(&listener, context, Some(cluster.watch_state(index))) => {
                return result;
            }
            _ = state.wait_for(|s| !s.accepts()) => {}
        }
    }
}

/// Binds node `index` again, retrying until its address is free.
async fn bind(cluster: &SimulatedCluster, index: usize) -> TcpListener {
    let mut backoff = Duration::from_millis(5);
    loop {
        let address = cluster
            .ring()
            .nodes()
            .get(index)
            .map(|node| SocketAddr::new(node.address, cluster.port()));
        if let Some(address) = address {
            match TcpListener::bind(address).await {
                Ok(listener) => return listener,
                Err(err) => warn!(%address, cause = %err, "cannot bind a simulated node yet"),
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_millis(500));
    }
}
