//! The index change feed: the entry changes of watched indexes, published by the writer after
//! each commit, for in-memory structures the server derives from an index (the vector graph of
//! an SAI vector index) to follow the index without rescanning it.
//!
//! A reader [`IndexFeed::watch`]es an index first, then builds its structure from a snapshot
//! taken after that, then applies what [`IndexFeed::drain`] returns. Every commit after the
//! watch is in the feed, and applying an entry change that the snapshot already holds again is
//! harmless: each change is an insert or a removal of one entry key, so replaying a suffix of
//! the commit order over a state that already holds it leaves each entry as its last change
//! set it. When the feed cannot say what changed (the index table was deleted by TRUNCATE or
//! DROP, the database was reopened and the commit log replayed, or a reader fell too far
//! behind) the drain says `reset`, and the reader rebuilds from a new snapshot.

use std::collections::HashMap;
use std::sync::Mutex;

use uuid::Uuid;

/// Past this many pending changes of one index, they are dropped and the reader rebuilds.
const MAX_PENDING: usize = 1 << 20;

/// The entry changes of one commit (or purge chunk), in the order written.
#[derive(Debug, Default)]
pub(crate) struct IndexChanges {
    /// Index tables deleted (dropped indexes, truncated tables).
    pub(crate) deleted: Vec<Uuid>,
    /// Entry writes: index id, entry key, `true` for an insert.
    pub(crate) writes: Vec<(Uuid, Vec<u8>, bool)>,
}

impl IndexChanges {
    /// Appends the changes of a later request of the same transaction.
    pub(crate) fn extend(&mut self, later: IndexChanges) {
        self.deleted.extend(later.deleted);
        self.writes.extend(later.writes);
    }
}

/// What one watched index saw since the last drain.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FeedDrain {
    /// The changes cannot be followed: rebuild from a snapshot taken after this drain.
    pub reset: bool,
    /// Entry keys (as `index_entries` sees them) inserted (`true`) or removed, in commit order.
    pub changes: Vec<(Vec<u8>, bool)>,
}

/// The feed of every watched index (shared by the writer and the readers).
#[derive(Debug, Default)]
pub struct IndexFeed {
    watched: Mutex<HashMap<Uuid, FeedDrain>>,
}

impl IndexFeed {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, FeedDrain>> {
        // A panic while holding the map leaves it consistent (each step is one push).
        self.watched.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts recording the changes of index `id` (no-op if already watched).
    pub fn watch(&self, id: Uuid) {
        self.lock().entry(id).or_default();
    }

    /// Stops recording index `id` and drops what was pending.
    pub fn unwatch(&self, id: Uuid) {
        self.lock().remove(&id);
    }

    /// The changes of `id` since the last drain; `None` if it is not watched.
    pub fn drain(&self, id: Uuid) -> Option<FeedDrain> {
        self.lock().get_mut(&id).map(std::mem::take)
    }

    /// Records committed changes for the watched indexes.
    pub(crate) fn publish(&self, changes: IndexChanges) {
        if changes.deleted.is_empty() && changes.writes.is_empty() {
            return;
        }
        let mut watched = self.lock();
        if watched.is_empty() {
            return;
        }
        for id in changes.deleted {
            if let Some(drain) = watched.get_mut(&id) {
                *drain = FeedDrain {
                    reset: true,
                    changes: Vec::new(),
                };
            }
        }
        for (id, key, insert) in changes.writes {
            let Some(drain) = watched.get_mut(&id) else {
                continue;
            };
            if drain.reset {
                continue;
            }
            if drain.changes.len() >= MAX_PENDING {
                *drain = FeedDrain {
                    reset: true,
                    changes: Vec::new(),
                };
                continue;
            }
            drain.changes.push((key, insert));
        }
    }

    /// Every watched index must be rebuilt (the database was reopened and replayed).
    pub(crate) fn reset_all(&self) {
        for drain in self.lock().values_mut() {
            *drain = FeedDrain {
                reset: true,
                changes: Vec::new(),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    #[test]
    fn only_watched_indexes_record_and_a_drain_empties() {
        let feed = IndexFeed::default();
        feed.watch(id(1));
        feed.publish(IndexChanges {
            deleted: Vec::new(),
            writes: vec![(id(1), b"a".to_vec(), true), (id(2), b"b".to_vec(), true)],
        });
        let drained = feed.drain(id(1)).unwrap();
        assert_eq!(drained.changes, vec![(b"a".to_vec(), true)]);
        assert!(!drained.reset);
        assert_eq!(feed.drain(id(1)), Some(FeedDrain::default()));
        assert_eq!(feed.drain(id(2)), None);
    }

    #[test]
    fn a_deleted_index_table_resets() {
        let feed = IndexFeed::default();
        feed.watch(id(1));
        feed.publish(IndexChanges {
            deleted: vec![id(1)],
            writes: vec![(id(1), b"a".to_vec(), true)],
        });
        let drained = feed.drain(id(1)).unwrap();
        assert!(drained.reset);
        assert!(drained.changes.is_empty());
        feed.reset_all();
        assert!(feed.drain(id(1)).unwrap().reset);
    }
}
