//! The graph of one SAI vector index: an [`Hnsw`] over the index's entries, with the base row
//! key of each node, kept in step with the index through the storage change feed
//! (`storage::index::IndexFeed`).
//!
//! An entry `(vector, row key)` is a node; inserting the entry of a row that already has a node
//! with another vector tombstones the old node first, and removing an entry tombstones its node
//! only if the node still holds that vector (within one commit the removal of the old entry
//! and the insertion of the new one come in entry-key order, either way round). The graph only
//! proposes candidates: the executor reads and scores every candidate row again, so a node
//! the graph has not yet caught up with can never put a stale or deleted row in a result.

use std::collections::HashMap;

use storage::StorageError;

use crate::eval::functions::vector_fcts::{floats, Similarity};
use crate::vector::hnsw::{Hnsw, Metric, Params};

/// The graph of one vector index.
pub(crate) struct IndexGraph {
    hnsw: Hnsw,
    /// The base row key of each node, by node number.
    keys: Vec<Vec<u8>>,
    /// The node of each row that has a live one.
    by_key: HashMap<Vec<u8>, u32>,
}

/// The graph's comparison for an index similarity function.
pub(crate) fn metric(similarity: Similarity) -> Metric {
    match similarity {
        Similarity::Euclidean => Metric::Euclidean,
        Similarity::DotProduct => Metric::DotProduct,
        Similarity::Cosine => Metric::Cosine,
    }
}

impl IndexGraph {
    /// An empty graph for `dim`-dimensional vectors compared by `similarity`.
    pub(crate) fn new(dim: usize, similarity: Similarity) -> Self {
        IndexGraph {
            hnsw: Hnsw::new(dim, metric(similarity), Params::default()),
            keys: Vec::new(),
            by_key: HashMap::new(),
        }
    }

    /// A graph of every entry in `entries` (index entry keys).
    ///
    /// # Errors
    /// An entry key that does not decode.
    pub(crate) fn build(
        dim: usize,
        similarity: Similarity,
        entries: &[Vec<u8>],
    ) -> Result<Self, StorageError> {
        let mut graph = IndexGraph::new(dim, similarity);
        for entry in entries {
            graph.apply(entry, true)?;
        }
        graph.hnsw.shrink();
        Ok(graph)
    }

    /// Applies one entry change from the feed (`insert`, or a removal).
    ///
    /// # Errors
    /// An entry key that does not decode.
    pub(crate) fn apply(&mut self, entry: &[u8], insert: bool) -> Result<(), StorageError> {
        let (value, key) = storage::index::split_entry(entry)?;
        let Some(vector) = floats(&value) else {
            return Ok(());
        };
        let current = self.by_key.get(key).copied();
        let same = current.is_some_and(|n| self.hnsw.holds(n, &vector));
        match (insert, current) {
            (true, _) if same => {}
            (true, old) => {
                if let Some(old) = old {
                    self.forget(key, old);
                }
                if let Some(node) = self.hnsw.insert(&vector) {
                    self.keys.push(key.to_vec());
                    self.by_key.insert(key.to_vec(), node);
                }
            }
            (false, Some(node)) if same => self.forget(key, node),
            (false, _) => {}
        }
        Ok(())
    }

    fn forget(&mut self, key: &[u8], node: u32) {
        self.hnsw.delete(node);
        self.by_key.remove(key);
    }

    /// Rows with a live node.
    pub(crate) fn live(&self) -> usize {
        self.hnsw.live()
    }

    /// Tombstoned nodes.
    pub(crate) fn tombstones(&self) -> usize {
        self.hnsw.len() - self.hnsw.live()
    }

    /// Approximate heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        let keys: usize = self.keys.iter().map(|k| k.capacity() + 24).sum();
        self.hnsw.memory_bytes() + keys * 2
    }

    /// The row keys of up to `k` live nodes nearest `query`, nearest first, from a beam of
    /// width `ef` of which the `rerank` nearest are ordered by the exact distance (see
    /// [`Hnsw::search`]).
    pub(crate) fn search(&self, query: &[f32], k: usize, ef: usize, rerank: usize) -> Vec<&[u8]> {
        self.hnsw
            .search(query, k, ef, rerank)
            .into_iter()
            .filter_map(|n| self.keys.get(n as usize).map(Vec::as_slice))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(v: &[f32], key: &[u8]) -> Vec<u8> {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_be_bytes()).collect();
        let mut e = storage::index::lookup_prefix(&[&bytes]).unwrap();
        e.extend_from_slice(key);
        e
    }

    #[test]
    fn overwrites_and_removals_follow_the_entries_in_either_order() {
        let mut g = IndexGraph::new(2, Similarity::Euclidean);
        g.apply(&entry(&[0.0, 0.0], b"a"), true).unwrap();
        g.apply(&entry(&[5.0, 5.0], b"b"), true).unwrap();
        // Row a moves: the insertion of the new entry comes before the removal of the old.
        g.apply(&entry(&[9.0, 9.0], b"a"), true).unwrap();
        g.apply(&entry(&[0.0, 0.0], b"a"), false).unwrap();
        assert_eq!(g.live(), 2);
        assert_eq!(g.search(&[0.0, 0.0], 2, 10, 10), vec![&b"b"[..], &b"a"[..]]);
        // Re-inserting what is there changes nothing; removing a stale entry neither.
        g.apply(&entry(&[9.0, 9.0], b"a"), true).unwrap();
        g.apply(&entry(&[1.0, 1.0], b"b"), false).unwrap();
        assert_eq!((g.live(), g.tombstones()), (2, 1));
        g.apply(&entry(&[5.0, 5.0], b"b"), false).unwrap();
        assert_eq!(g.search(&[0.0, 0.0], 5, 10, 10), vec![&b"a"[..]]);
    }
}
