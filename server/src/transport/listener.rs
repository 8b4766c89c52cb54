//! The accept loop: a global connection limit (a connection past it is closed at once, as
//! Cassandra's limit handler does), backoff on accept errors (never a reason to stop), one
//! task per connection, and a graceful shutdown that waits for every connection. With
//! `client_encryption_options` the TLS context is built here, before the first accept; each
//! connection's task does its own TLS detection and handshake, so a slow client never holds up
//! the accept loop. Connections run on the connection threads (`crate::transport::threads`),
//! or on the caller's runtime when `connection_threads` is 0.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc, Semaphore};
use tracing::{error, info, warn, Instrument};

use crate::config::TlsPolicy;
use crate::node::Node;
use crate::transport::connection::Connection;
use crate::transport::shutdown::Shutdown;
use crate::transport::threads::ConnectionThreads;
use crate::transport::tls;
use crate::transport::tls::Tls;
use crate::ServerError;

/// Serves connections until `shutdown` completes, then waits for connections to finish.
///
/// # Errors
/// The TLS context `client_encryption_options` asks for cannot be built (nothing is served).
pub(crate) async fn serve(
    listener: TcpListener,
    node: Arc<Node>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    let tls = tls::load(&node.config().client_encryption)
        .map_err(|err| ServerError::Config(err.to_string()))?;
    match tls.as_ref().map(|tls| tls.policy()) {
        // Cassandra's words (PipelineConfigurator).
        Some(TlsPolicy::Optional) => {
            info!("Enabling optionally encrypted CQL connections between client and server")
        }
        Some(_) => info!("Enabling encrypted CQL connections between client and server"),
        None => {}
    }
    let (notify_shutdown, _) = broadcast::channel(1);
    // Every connection task holds a clone of this sender; when all are dropped the receiver
    // completes, which is how shutdown knows every connection has finished.
    let (shutdown_complete_tx, mut shutdown_complete_rx) = mpsc::channel::<()>(1);
    let limit = Arc::new(Semaphore::new(node.config().max_connections));
    let threads = match node.config().connection_threads {
        0 => None,
        count => Some(ConnectionThreads::start(count)?),
    };
    let context = AcceptContext {
        node: &node,
        tls: &tls,
        limit: &limit,
        notify_shutdown: &notify_shutdown,
        shutdown_complete: &shutdown_complete_tx,
        threads: threads.as_ref(),
    };
    let accept = async {
        match node.cluster() {
            None => accept_loop(&listener, &context, None).await,
            Some(cluster) => super::cluster_listeners::serve(listener, cluster, &context).await,
        }
    };
    let result = tokio::select! {
        res = accept => res,
        _ = shutdown => Ok(()),
    };
    drop(notify_shutdown);
    drop(shutdown_complete_tx);
    let _ = shutdown_complete_rx.recv().await;
    info!("all connections closed");
    result
}

/// What every accept loop shares.
#[derive(Clone, Copy)]
pub(crate) struct AcceptContext<'a> {
    pub(crate) node: &'a Arc<Node>,
    tls: &'a Option<Arc<Tls>>,
    limit: &'a Arc<Semaphore>,
    notify_shutdown: &'a broadcast::Sender<()>,
    shutdown_complete: &'a mpsc::Sender<()>,
    threads: Option<&'a ConnectionThreads>,
}

/// Accepts connections on `listener` until an accept fails beyond retrying (never, in
/// practice) or the future is dropped. On a simulated cluster, `node_state` watches the
/// node `listener` belongs to: its connections end when it stops.
pub(crate) async fn accept_loop(
    listener: &TcpListener,
    context: &AcceptContext<'_>,
    node_state: Option<tokio::sync::watch::Receiver<crate::cluster::state::NodeState>>,
) -> Result<(), ServerError> {
    let AcceptContext {
        node,
        tls,
        limit,
        notify_shutdown,
        shutdown_complete,
        threads,
    } = *context;
    let mut conn_id: u64 = 0;
    let mut refusals = RefusalLog::default();
    loop {
        let (socket, peer) = accept_with_backoff(listener).await;
        let Ok(permit) = limit.clone().try_acquire_owned() else {
            // Closed at once: the client sees the connection end instead of hanging.
            refusals.refused(node.config().max_connections);
            drop(socket);
            continue;
        };
        conn_id += 1;
        let _ = socket.set_nodelay(true);
        let node = node.clone();
        let tls = tls.clone();
        let shutdown = Shutdown::new(notify_shutdown.subscribe()).with_node(node_state.clone());
        let shutdown_complete = shutdown_complete.clone();
        let span = tracing::info_span!("connection", conn_id, %peer);
        let serve = move |socket| {
            async move {
                let open = node.metrics().connection_opened();
                let connection =
                    Connection::new(socket, node.clone(), shutdown, shutdown_complete.clone())
                        .with_tls(tls);
                if let Err(err) = connection.run().await {
                    tracing::debug!(cause = %err, "connection ended with an error");
                }
                drop(open);
                drop(permit);
                // The node goes before the shutdown sender: once the listener sees every
                // sender gone, no connection (on whatever thread) holds the node, so a
                // restart in the same process can open its storage again.
                drop(node);
                drop(shutdown_complete);
            }
            .instrument(span)
        };
        match threads {
            Some(threads) => {
                if let Err(err) = threads.spawn(socket, serve) {
                    warn!(cause = %err, "closing a connection no thread could take");
                }
            }
            None => {
                tokio::spawn(serve(socket));
            }
        }
    }
}

/// Logs refused connections at most once every 10 seconds, with how many were refused.
#[derive(Default)]
struct RefusalLog {
    last: Option<Instant>,
    since_last: u64,
}

impl RefusalLog {
    fn refused(&mut self, limit: usize) {
        self.since_last += 1;
        if self
            .last
            .is_some_and(|at| at.elapsed() < Duration::from_secs(10))
        {
            return;
        }
        warn!(
            refused = self.since_last,
            "Exceeded maximum native connection limit of {limit}; closing new connections"
        );
        self.last = Some(Instant::now());
        self.since_last = 0;
    }
}

/// The next connection. Accept errors (out of file descriptors, say) are logged and retried
/// after a pause that grows to one second; they never stop the server.
async fn accept_with_backoff(
    listener: &TcpListener,
) -> (tokio::net::TcpStream, std::net::SocketAddr) {
    let mut backoff = Duration::from_millis(10);
    loop {
        match listener.accept().await {
            Ok(pair) => return pair,
            Err(err) => {
                error!(cause = %err, backoff_ms = backoff.as_millis() as u64, "failed to accept")
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(1));
    }
}
