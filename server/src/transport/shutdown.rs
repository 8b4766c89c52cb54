//! `Shutdown`: a connection's view of the server-wide shutdown signal.

use tokio::sync::broadcast;

/// Listens for the server's shutdown broadcast. Once the signal is seen it stays seen.
#[derive(Debug)]
pub(crate) struct Shutdown {
    is_shutdown: bool,
    notify: broadcast::Receiver<()>,
}

impl Shutdown {
    /// Wraps a receiver of the shutdown broadcast.
    pub(crate) fn new(notify: broadcast::Receiver<()>) -> Shutdown {
        Shutdown {
            is_shutdown: false,
            notify,
        }
    }

    /// Waits for the shutdown signal (returns at once if already received).
    pub(crate) async fn recv(&mut self) {
        if self.is_shutdown {
            return;
        }
        // A lagged or closed channel means the sender is gone: that is shutdown too.
        let _ = self.notify.recv().await;
        self.is_shutdown = true;
    }
}
