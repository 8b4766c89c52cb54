//! [`spawn`]: the server on a task of the caller's tokio runtime, for tests that want a
//! throwaway server in-process (any free port, in memory) and the address it listens on.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::config::Config;
use crate::node::Node;
use crate::ServerError;

/// A server started by [`spawn`]. Dropping it stops the server too, without waiting.
pub struct SpawnedServer {
    addr: SocketAddr,
    http_addr: Option<SocketAddr>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), ServerError>>,
}

/// Opens storage (in memory unless `config.data_dir` is set), runs `config.init_cql`, starts
/// the HTTP endpoint if `config.http_address` is set, binds
/// `config.listen_address:config.port` (port 0: any free port) and serves CQL clients until
/// [`SpawnedServer::stop`]: the accept loop on a task of the current tokio runtime, the
/// connections on the server's connection threads (on the current runtime too when
/// `config.connection_threads` is 0).
///
/// # Errors
/// Storage cannot be opened, an init script fails, or an address cannot be bound.
///
/// # Panics
/// Outside a tokio runtime.
pub async fn spawn(config: Config) -> Result<SpawnedServer, ServerError> {
    let node = Arc::new(Node::open(config)?);
    let http_addr = crate::start_http(&node).await?;
    crate::prepare(&node).await?;
    let listener = TcpListener::bind((node.config().listen_address, node.config().port)).await?;
    let addr = listener.local_addr()?;
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(crate::serve_node(listener, node, async {
        let _ = stopped.await;
    }));
    Ok(SpawnedServer {
        addr,
        http_addr,
        stop: Some(stop),
        task,
    })
}

impl SpawnedServer {
    /// The address clients connect to.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Where its HTTP endpoint listens (`/metrics`, `/ready`, the test controls), when
    /// `config.http_address` was set (port 0: the port taken).
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.http_addr
    }

    /// Stops the server: waits for its connections to close and storage to shut down.
    ///
    /// # Errors
    /// The server failed while it ran, or its task panicked.
    pub async fn stop(mut self) -> Result<(), ServerError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        (&mut self.task).await?
    }
}

impl Drop for SpawnedServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
