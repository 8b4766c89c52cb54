//! Connection threads: single-threaded tokio runtimes (one per core by default), each serving
//! the connections the listener hands it for their whole life (ScyllaDB's thread per core,
//! with the data shared rather than sharded).
//!
//! A connection's requests are driven on its own task (`crate::transport::connection`), so a work-stealing
//! runtime gained nothing from its second worker but its costs: each read from the socket woke
//! an idle worker to look for work, which spun and parked again (futex wake-ups and scheduler
//! switches on every pass), on cores the clients share. Against the protocol floor under the
//! same cassandra-stress load (one busy connection, 2 cores), the request code on a
//! two-worker runtime did 0.53-0.57 of the floor's writes and 0.54-0.61 of its reads, on
//! these threads 0.70-0.77 and 0.63-0.70 (`docs/benchmarks.md`). They still
//! use every core once there are as many busy connections as cores: a new connection goes to
//! the thread serving the fewest.
//!
//! The price: without work stealing, a request's inline work (a point read, a write group
//! applied in the connection's pass, encoding a page) delays the other connections of its
//! thread, never those of another; work that can be long (scans, index and virtual-table
//! reads, requests of 64 KiB or more) runs on the blocking pool.

use std::future::Future;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tracing::debug;

/// The connection threads; dropping them stops the threads (with any connection still on
/// them, as a runtime's shutdown does).
pub(crate) struct ConnectionThreads {
    threads: Vec<ConnectionThread>,
}

/// One thread and its runtime.
struct ConnectionThread {
    handle: tokio::runtime::Handle,
    /// Connections this thread serves now.
    open: Arc<AtomicUsize>,
    /// Dropped to stop the thread.
    _stop: oneshot::Sender<()>,
}

impl ConnectionThreads {
    /// Starts `count` threads (at least one).
    ///
    /// # Errors
    /// A runtime or a thread cannot be created.
    pub(crate) fn start(count: usize) -> io::Result<ConnectionThreads> {
        let threads = (0..count.max(1))
            .map(ConnectionThread::start)
            .collect::<io::Result<_>>()?;
        Ok(ConnectionThreads { threads })
    }

    /// Serves `socket` with `serve` on the thread with the fewest connections, for the
    /// connection's whole life. The socket moves to that thread's I/O driver.
    ///
    /// # Errors
    /// The socket cannot leave the caller's runtime (it is then closed).
    pub(crate) fn spawn<S, F>(&self, socket: TcpStream, serve: S) -> io::Result<()>
    where
        S: FnOnce(TcpStream) -> F + Send + 'static,
        F: Future<Output = ()> + Send + 'static,
    {
        let thread = self
            .threads
            .iter()
            .min_by_key(|thread| thread.open.load(Ordering::Relaxed))
            .ok_or_else(|| io::Error::other("no connection thread"))?;
        let socket = socket.into_std()?;
        let open = Open::count(&thread.open);
        thread.handle.spawn(async move {
            let _open = open;
            match TcpStream::from_std(socket) {
                Ok(socket) => serve(socket).await,
                Err(err) => debug!(cause = %err, "closing a connection its thread cannot poll"),
            }
        });
        Ok(())
    }
}

impl ConnectionThread {
    /// Starts the thread, which builds its runtime itself: a runtime must never be dropped
    /// on the listener's thread, inside its runtime (as a failed start would).
    fn start(index: usize) -> io::Result<ConnectionThread> {
        let (built, handle) = std::sync::mpsc::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name(format!("cql-connections-{index}"))
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                let runtime = match runtime {
                    Ok(runtime) => runtime,
                    Err(err) => {
                        let _ = built.send(Err(err));
                        return;
                    }
                };
                let _ = built.send(Ok(runtime.handle().clone()));
                runtime.block_on(async {
                    let _ = stopped.await;
                });
                // Blocking work still running (a long scan) is not waited for.
                runtime.shutdown_background();
            })?;
        let handle = handle
            .recv()
            .map_err(|_| io::Error::other("a connection thread ended at its start"))??;
        Ok(ConnectionThread {
            handle,
            open: Arc::new(AtomicUsize::new(0)),
            _stop: stop,
        })
    }
}

/// One open connection on a thread's count, taken off when the connection's task ends.
struct Open(Arc<AtomicUsize>);

impl Open {
    fn count(open: &Arc<AtomicUsize>) -> Open {
        open.fetch_add(1, Ordering::Relaxed);
        Open(open.clone())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Connections run on the threads, the least busy first, and each echoes on its thread.
    #[tokio::test]
    async fn connections_spread_over_the_threads() {
        let threads = ConnectionThreads::start(2).expect("threads");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let mut clients = Vec::new();
        let (names_tx, mut names_rx) = tokio::sync::mpsc::unbounded_channel();
        for _ in 0..2 {
            clients.push(TcpStream::connect(addr).await.expect("connect"));
            let (socket, _) = listener.accept().await.expect("accept");
            let names = names_tx.clone();
            threads
                .spawn(socket, move |mut socket| async move {
                    let name = std::thread::current().name().map(str::to_string);
                    let _ = names.send(name);
                    let mut byte = [0u8; 1];
                    while socket.read_exact(&mut byte).await.is_ok() {
                        let _ = socket.write_all(&byte).await;
                    }
                })
                .expect("spawn");
        }
        let mut names = vec![
            names_rx.recv().await.flatten().expect("a thread name"),
            names_rx.recv().await.flatten().expect("a thread name"),
        ];
        names.sort();
        assert_eq!(names, ["cql-connections-0", "cql-connections-1"]);
        for (i, client) in clients.iter_mut().enumerate() {
            client.write_all(&[i as u8 + 7]).await.expect("write");
            let mut back = [0u8; 1];
            client.read_exact(&mut back).await.expect("read");
            assert_eq!(back[0], i as u8 + 7);
        }
        let counts: Vec<usize> = threads
            .threads
            .iter()
            .map(|t| t.open.load(Ordering::Relaxed))
            .collect();
        assert_eq!(counts, [1, 1]);
    }
}
