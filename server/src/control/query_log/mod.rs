//! The query log: the requests received on both doors, newest last, in a ring of
//! `query_log_size` entries (10,000 by default; 0, or the controls off, keeps none).
//!
//! A CQL request (QUERY, PREPARE, EXECUTE, BATCH; not STARTUP, OPTIONS, REGISTER or
//! AUTH_RESPONSE) is noted when it is decoded ([`note`]: its statement, values and
//! parameters, copied raw), counts what its reads examine while it runs ([`examined`]), and
//! is recorded when its answer is known ([`record`]: the result, warnings, latency). A
//! request to the HTTP door's controls is noted and recorded the same way ([`note_http`],
//! [`record_http`]). Entries become text only when the log is read ([`render`]), through
//! `GET /queries` or `SELECT ... FROM test_control.queries`.
//!
//! With the log off, a request pays one check of a plain field ([`QueryLog::is_recording`])
//! and nothing is built.

pub(crate) mod entry;
pub(crate) mod examined;
mod outcome;
mod render;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cql::frame::request::Request;
use cql::frame::response::Response;
use serde_json::Value;

use entry::Entry;
pub(crate) use entry::Noted;
use outcome::{Answered, Outcome};

use crate::node::Node;
use crate::schema::Schema;
use crate::system::NamedRow;
use crate::transport::session::Session;

/// The node's query log.
#[derive(Debug, Default)]
pub(crate) struct QueryLog {
    /// The most entries kept; 0 records nothing.
    capacity: usize,
    ring: Mutex<Ring>,
}

/// The entries, oldest first, and the next entry's number.
#[derive(Debug, Default)]
struct Ring {
    entries: VecDeque<Arc<Entry>>,
    last_id: u64,
}

impl QueryLog {
    /// A log of at most `capacity` entries; 0 keeps none.
    pub(crate) fn new(capacity: usize) -> QueryLog {
        QueryLog {
            capacity,
            ring: Mutex::default(),
        }
    }

    /// Whether requests are recorded: the one check a request pays when they are not.
    #[inline]
    pub(crate) fn is_recording(&self) -> bool {
        self.capacity != 0
    }

    /// Empties the log (entry numbers go on from where they were).
    pub(crate) fn clear(&self) {
        let dropped = std::mem::take(&mut self.lock().entries);
        drop(dropped);
    }

    /// The newest `limit` entries (all when `None`), oldest first, as JSON objects.
    pub(crate) fn to_json(&self, limit: Option<usize>, schema: &Schema) -> Value {
        let entries = self.newest(limit.unwrap_or(usize::MAX));
        let mut binder = render::Binder::new(schema);
        Value::Array(
            entries
                .iter()
                .map(|entry| render::to_json(&render::row(entry, &mut binder)))
                .collect(),
        )
    }

    /// Every entry as a row of `test_control.queries`.
    pub(crate) fn rows(&self, schema: &Schema) -> Vec<NamedRow> {
        let entries = self.newest(usize::MAX);
        let mut binder = render::Binder::new(schema);
        entries
            .iter()
            .map(|entry| render::row(entry, &mut binder))
            .collect()
    }

    /// Adds an entry, dropping the oldest when the log is full.
    fn push(&self, noted: Box<Noted>, outcome: Outcome) {
        if !self.is_recording() {
            return;
        }
        let evicted = {
            let mut ring = self.lock();
            ring.last_id += 1;
            let evicted = if ring.entries.len() >= self.capacity {
                ring.entries.pop_front()
            } else {
                None
            };
            let id = ring.last_id;
            ring.entries
                .push_back(Arc::new(Entry { id, noted, outcome }));
            evicted
        };
        // Freed outside the lock.
        drop(evicted);
    }

    /// The newest `limit` entries, oldest first (shared: read without the lock).
    fn newest(&self, limit: usize) -> Vec<Arc<Entry>> {
        let ring = self.lock();
        let skip = ring.entries.len().saturating_sub(limit);
        ring.entries.iter().skip(skip).cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ring> {
        // Plain data: a panic elsewhere leaves it usable.
        self.ring.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Notes a decoded CQL request (`None`: it did not decode) with `opcode` from `session`, when
/// the log records and the opcode is one it records.
#[inline]
pub(crate) fn note(
    node: &Node,
    session: &Session,
    opcode: u8,
    request: Option<&Request>,
) -> Option<Box<Noted>> {
    if !node.controls().queries().is_recording() {
        return None;
    }
    Noted::of_request(node, session, opcode, request)
}

/// Records the request `noted` (if it was), begun at `began`, now that it got `response`
/// with `warnings`.
#[inline]
pub(crate) fn record(
    node: &Node,
    noted: Option<Box<Noted>>,
    response: &Response,
    warnings: &[String],
    began: Instant,
) {
    if let Some(noted) = noted {
        let outcome = Outcome::of_response(response, warnings, began.elapsed());
        node.controls().queries().push(noted, outcome);
    }
}

/// Notes a request to the HTTP door from `client`, reached at `local`: `METHOD /path?query`
/// and its body.
pub(crate) fn note_http(
    node: &Node,
    client: SocketAddr,
    local: SocketAddr,
    line: impl FnOnce() -> String,
    body: &[u8],
) -> Option<Box<Noted>> {
    if !node.controls().queries().is_recording() {
        return None;
    }
    Some(Noted::of_http(node, client, local, line(), body))
}

/// Records the HTTP request `noted` (if it was), answered `status` (with `error` when it
/// failed) `latency` after it began.
pub(crate) fn record_http(
    node: &Node,
    noted: Option<Box<Noted>>,
    status: u16,
    error: Option<String>,
    latency: Duration,
) {
    if let Some(noted) = noted {
        let outcome = Outcome {
            result: Answered::Http { status, error },
            warnings: Vec::new(),
            latency,
        };
        node.controls().queries().push(noted, outcome);
    }
}

#[cfg(test)]
mod tests;
