//! The accept loop: a global connection limit acquired before `accept`, backoff on accept
//! errors, one task per connection, and a graceful shutdown that waits for every connection.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc, Semaphore};
use tracing::{error, info, Instrument};

use crate::connection::Connection;
use crate::node::Node;
use crate::shutdown::Shutdown;
use crate::ServerError;

/// Serves connections until `shutdown` completes, then waits for connections to finish.
pub(crate) async fn serve(
    listener: TcpListener,
    node: Arc<Node>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    let (notify_shutdown, _) = broadcast::channel(1);
    // Every connection task holds a clone of this sender; when all are dropped the receiver
    // completes, which is how shutdown knows every connection has finished.
    let (shutdown_complete_tx, mut shutdown_complete_rx) = mpsc::channel::<()>(1);
    let limit = Arc::new(Semaphore::new(node.config.max_connections));
    let accept = accept_loop(
        &listener,
        &node,
        &limit,
        &notify_shutdown,
        &shutdown_complete_tx,
    );
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

async fn accept_loop(
    listener: &TcpListener,
    node: &Arc<Node>,
    limit: &Arc<Semaphore>,
    notify_shutdown: &broadcast::Sender<()>,
    shutdown_complete: &mpsc::Sender<()>,
) -> Result<(), ServerError> {
    let mut conn_id: u64 = 0;
    loop {
        // The semaphore is never closed, so acquire_owned only fails if it were; stop then.
        let Ok(permit) = limit.clone().acquire_owned().await else {
            return Ok(());
        };
        let (socket, peer) = accept_with_backoff(listener).await?;
        conn_id += 1;
        let _ = socket.set_nodelay(true);
        let connection = Connection::new(
            socket,
            node.clone(),
            Shutdown::new(notify_shutdown.subscribe()),
            shutdown_complete.clone(),
        );
        let span = tracing::info_span!("connection", conn_id, %peer);
        tokio::spawn(
            async move {
                if let Err(err) = connection.run().await {
                    tracing::debug!(cause = %err, "connection ended with an error");
                }
                drop(permit);
            }
            .instrument(span),
        );
    }
}

async fn accept_with_backoff(
    listener: &TcpListener,
) -> Result<(tokio::net::TcpStream, std::net::SocketAddr), ServerError> {
    let mut backoff = 1;
    loop {
        match listener.accept().await {
            Ok(pair) => return Ok(pair),
            Err(err) => {
                if backoff > 64 {
                    error!(cause = %err, "accept keeps failing; giving up");
                    return Err(err.into());
                }
                error!(cause = %err, backoff_secs = backoff, "failed to accept");
            }
        }
        tokio::time::sleep(Duration::from_secs(backoff)).await;
        backoff *= 2;
    }
}
