//! The prepared-statement cache, shared by all connections. Ids are Cassandra's: the MD5 of
//! the session keyspace followed by the query text, so every connection (and every driver
//! connection preparing the same text) gets the same id.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use cql::frame::response::{ColumnSpec, ResultMetadata};
use cql::statement::ast::Statement;
use md5::{Digest, Md5};

/// A prepared statement.
#[derive(Debug)]
pub struct PreparedStatement {
    /// The statement id (16 bytes).
    pub id: Bytes,
    /// The query text as prepared.
    pub query: String,
    /// The session keyspace at prepare time (for unqualified names).
    pub keyspace: Option<String>,
    /// The parsed statement.
    pub statement: Arc<Statement>,
    /// Bind marker receivers, by index.
    pub bind_specs: Vec<ColumnSpec>,
    /// v4 partition-key bind indexes.
    pub pk_indexes: Vec<u16>,
    /// Result metadata of a SELECT (empty otherwise).
    pub result_metadata: ResultMetadata,
    /// `:name` of each marker, for EXECUTE with named values.
    pub bind_names: Vec<Option<String>>,
}

/// Cassandra's prepared id: MD5 of `keyspace + query`.
pub fn statement_id(keyspace: Option<&str>, query: &str) -> Bytes {
    let mut hasher = Md5::new();
    if let Some(ks) = keyspace {
        hasher.update(ks.as_bytes());
    }
    hasher.update(query.as_bytes());
    Bytes::copy_from_slice(&hasher.finalize())
}

/// A bounded map from id to statement; the oldest entries are evicted first.
#[derive(Debug)]
pub struct PreparedCache {
    capacity: usize,
    inner: Mutex<CacheInner>,
}

#[derive(Debug, Default)]
struct CacheInner {
    map: HashMap<Bytes, Arc<PreparedStatement>>,
    order: VecDeque<Bytes>,
}

impl PreparedCache {
    /// An empty cache holding up to `capacity` statements.
    pub fn new(capacity: usize) -> PreparedCache {
        PreparedCache {
            capacity: capacity.max(1),
            inner: Mutex::new(CacheInner::default()),
        }
    }

    /// Looks a statement up by id.
    pub fn get(&self, id: &[u8]) -> Option<Arc<PreparedStatement>> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.map.get(id).cloned()
    }

    /// Stores a statement (replacing one with the same id).
    pub fn insert(&self, statement: Arc<PreparedStatement>) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let id = statement.id.clone();
        if inner.map.insert(id.clone(), statement).is_none() {
            inner.order.push_back(id);
        }
        while inner.map.len() > self.capacity {
            match inner.order.pop_front() {
                Some(old) => {
                    inner.map.remove(&old);
                }
                None => break,
            }
        }
    }

    /// Drops every statement (after schema changes that invalidate metadata).
    pub fn clear(&self) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.map.clear();
        inner.order.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_md5_of_keyspace_and_query() {
        let id = statement_id(None, "SELECT * FROM t");
        assert_eq!(id.len(), 16);
        assert_eq!(id, statement_id(None, "SELECT * FROM t"));
        assert_ne!(id, statement_id(Some("ks"), "SELECT * FROM t"));
    }
}
