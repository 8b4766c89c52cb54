//! `TraceLog`: the finished trace sessions of the node, in memory, bounded.
//!
//! Cassandra writes `system_traces` rows with a one-day TTL into ordinary tables; we keep the
//! last [`MAX_SESSIONS`] sessions (oldest dropped first), each with at most [`MAX_EVENTS`]
//! events and texts cut at [`MAX_TEXT`] characters, and nothing on disk: a restart forgets
//! them, as the TTL eventually would. The `system_traces` virtual tables are read from here
//! (`crate::system::traces`).

use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::Mutex;

use uuid::Uuid;

use super::Event;

/// Sessions kept, oldest dropped first.
pub(crate) const MAX_SESSIONS: usize = 10_000;
/// Events kept per session (ours record about ten per request).
pub(crate) const MAX_EVENTS: usize = 100;
/// Characters kept of a query text or activity (Cassandra cuts bound values at 1,000 too).
pub(crate) const MAX_TEXT: usize = 1_000;

/// `text` cut to [`MAX_TEXT`] characters, marked with `...` when cut.
pub(crate) fn truncate(mut text: String) -> String {
    if crate::telemetry::redact::may_carry_password(&text) {
        return crate::telemetry::redact::HIDDEN_STATEMENT.to_string();
    }
    if let Some((at, _)) = text.char_indices().nth(MAX_TEXT) {
        text.truncate(at);
        text.push_str("...");
    }
    text
}

/// A `system_traces.sessions` row.
#[derive(Debug, Clone)]
pub(crate) struct SessionRow {
    /// `client`.
    pub client: IpAddr,
    /// `coordinator`.
    pub coordinator: IpAddr,
    /// `command`: Cassandra's trace type, `QUERY` for every traced request.
    pub command: &'static str,
    /// `request`.
    pub request: &'static str,
    /// `parameters`.
    pub parameters: Vec<(String, String)>,
    /// `started_at`, milliseconds since the epoch.
    pub started_at_millis: i64,
    /// `duration`, microseconds.
    pub duration_micros: i32,
}

/// One traced request: its session row (gone after `TRUNCATE system_traces.sessions`) and
/// its events (gone after `TRUNCATE system_traces.events`).
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    /// `session_id`.
    pub id: Uuid,
    /// The sessions row.
    pub session: Option<SessionRow>,
    /// The events rows.
    pub events: Vec<Event>,
}

/// The node's trace sessions, newest last.
#[derive(Debug, Default)]
pub(crate) struct TraceLog {
    sessions: Mutex<VecDeque<Recorded>>,
}

impl TraceLog {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Recorded>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps a finished session, dropping the oldest past [`MAX_SESSIONS`].
    pub(crate) fn record(&self, recorded: Recorded) {
        let mut sessions = self.lock();
        while sessions.len() >= MAX_SESSIONS {
            sessions.pop_front();
        }
        sessions.push_back(recorded);
    }

    /// A session by id.
    #[cfg(test)]
    pub(crate) fn get(&self, id: Uuid) -> Option<Recorded> {
        self.lock().iter().find(|r| r.id == id).cloned()
    }

    /// How many sessions are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no session is kept.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// `TRUNCATE system_traces.<table>`: forgets the sessions rows or the events rows.
    pub(crate) fn truncate(&self, table: &str) {
        let mut sessions = self.lock();
        for recorded in sessions.iter_mut() {
            match table {
                "sessions" => recorded.session = None,
                _ => recorded.events.clear(),
            }
        }
        sessions.retain(|r| r.session.is_some() || !r.events.is_empty());
    }

    /// Calls `read` with the kept sessions, oldest first (for the `system_traces` tables).
    pub(crate) fn read<R>(&self, read: impl FnOnce(&VecDeque<Recorded>) -> R) -> R {
        read(&self.lock())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(n: u128) -> Recorded {
        Recorded {
            id: Uuid::from_u128(n),
            session: Some(SessionRow {
                client: "127.0.0.1".parse().expect("ip"),
                coordinator: "127.0.0.1".parse().expect("ip"),
                command: "QUERY",
                request: "Execute CQL3 query",
                parameters: vec![("query".into(), "SELECT 1".into())],
                started_at_millis: 0,
                duration_micros: 10,
            }),
            events: vec![Event {
                id: Uuid::from_u128(n),
                activity: "Parsing SELECT 1".into(),
                elapsed_micros: 5,
                thread: super::super::REQUEST_THREAD,
            }],
        }
    }

    #[test]
    fn the_ring_keeps_the_newest_sessions() {
        let log = TraceLog::default();
        for n in 0..(MAX_SESSIONS as u128 + 5) {
            log.record(recorded(n));
        }
        assert_eq!(log.len(), MAX_SESSIONS);
        assert!(log.get(Uuid::from_u128(4)).is_none());
        assert!(log.get(Uuid::from_u128(5)).is_some());
    }

    #[test]
    fn truncating_one_table_keeps_the_other() {
        let log = TraceLog::default();
        log.record(recorded(1));
        let ip: IpAddr = "127.0.0.1".parse().expect("ip");
        log.truncate("sessions");
        assert!(crate::system::traces::rows(&log, "sessions", ip).is_empty());
        assert_eq!(crate::system::traces::rows(&log, "events", ip).len(), 1);
        log.truncate("events");
        assert!(log.is_empty());
    }

    #[test]
    fn long_texts_are_cut() {
        assert_eq!(truncate("abc".into()), "abc");
        let cut = truncate("x".repeat(MAX_TEXT + 10));
        assert_eq!(cut.len(), MAX_TEXT + 3);
        assert!(cut.ends_with("..."));
    }
}
