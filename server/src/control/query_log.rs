//! The query log: the requests received, newest last, in a bounded ring. (Skeleton: the
//! ring; the entries come next.)

use std::collections::VecDeque;
use std::sync::Mutex;

use serde_json::Value;

/// The node's query log.
#[derive(Debug, Default)]
pub(crate) struct QueryLog {
    #[allow(dead_code)] // read once requests are recorded
    capacity: usize,
    entries: Mutex<VecDeque<Value>>,
}

impl QueryLog {
    /// A log of at most `capacity` entries; 0 keeps none.
    pub(crate) fn new(capacity: usize) -> QueryLog {
        QueryLog {
            capacity,
            entries: Mutex::default(),
        }
    }

    /// Empties the log.
    pub(crate) fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// The newest `limit` entries (all when `None`), oldest first.
    pub(crate) fn to_json(&self, limit: Option<usize>) -> Value {
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let skip = limit.map_or(0, |n| entries.len().saturating_sub(n));
        Value::Array(entries.iter().skip(skip).cloned().collect())
    }
}
