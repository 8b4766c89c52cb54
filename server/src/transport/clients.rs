//! The connected clients, for `system_views.clients`: a weak reference to every open
//! connection's session, pruned as connections come and go (a closed connection's session
//! is gone once its tasks end).

use std::sync::{Arc, Mutex, Weak};

use crate::transport::session::Session;

/// The sessions of the open connections.
#[derive(Debug, Default)]
pub(crate) struct Clients {
    registry: Mutex<Registry>,
}

#[derive(Debug, Default)]
struct Registry {
    sessions: Vec<Weak<Session>>,
    /// Live sessions at the last pruning: the list is pruned when it doubles past this.
    live_at_prune: usize,
}

impl Clients {
    /// Adds a new connection's session.
    pub(crate) fn register(&self, session: &Arc<Session>) {
        let mut registry = self.lock();
        if registry.sessions.len() >= 2 * registry.live_at_prune.max(16) {
            registry.sessions.retain(|s| s.strong_count() > 0);
            registry.live_at_prune = registry.sessions.len();
        }
        registry.sessions.push(Arc::downgrade(session));
    }

    /// The sessions of the connections open now, oldest first.
    pub(crate) fn open(&self) -> Vec<Arc<Session>> {
        self.lock()
            .sessions
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        // Plain data: a panic elsewhere leaves it usable.
        self.registry.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_sessions_leave_the_registry() {
        let clients = Clients::default();
        let addr = "127.0.0.1:9042".parse().unwrap();
        let kept = Arc::new(Session::new(addr, addr));
        clients.register(&kept);
        for _ in 0..100 {
            clients.register(&Arc::new(Session::new(addr, addr)));
        }
        assert_eq!(clients.open().len(), 1);
        assert!(clients.lock().sessions.len() < 60);
    }
}
