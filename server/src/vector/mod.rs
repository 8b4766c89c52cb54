//! Approximate vector search: an in-memory HNSW graph per SAI vector index ([`hnsw`],
//! [`graph`]), built from the index's entries on first use and kept in step with them through
//! the storage change feed, and the registry that owns the graphs ([`VectorIndexes`]).
//!
//! The graphs are derived state only: nothing of them is written to disk. After a restart
//! (kill -9 included) the store has replayed its commit log before the first query, so a graph
//! built from the index entries then is the graph of the committed rows. The executor decides
//! when to use a graph (`executor::ann_graph`) and re-checks every row it proposes.

pub(crate) mod graph;
pub(crate) mod hnsw;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use storage::Store;
use tracing::{info, warn};
use uuid::Uuid;

use crate::error::CqlResult;
use crate::functions::vector_fcts::Similarity;
use graph::IndexGraph;

/// Indexes with at most this many entries are (re)built on the querying thread; larger ones
/// on a thread of their own while queries take the exact path.
const INLINE_BUILD_MAX: usize = 20_000;

/// Which index a graph is for, and how its vectors compare.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IndexSpec {
    /// The index id (its entries' table).
    pub(crate) id: Uuid,
    /// The index's similarity function.
    pub(crate) similarity: Similarity,
    /// The vector dimension.
    pub(crate) dim: usize,
}

/// The state of one index's graph.
enum Slot {
    /// Being built on another thread.
    Building,
    /// Built; follows the feed.
    Ready(IndexGraph),
}

type SharedSlot = Arc<Mutex<Slot>>;

/// The graphs of the vector indexes queried so far.
#[derive(Default)]
pub struct VectorIndexes {
    slots: Mutex<HashMap<Uuid, SharedSlot>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update of a slot is a whole assignment, so a poisoned lock holds a usable value.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl VectorIndexes {
    /// Runs `f` on the graph of `spec` brought up to date with every commit acknowledged
    /// before the call; `None` while the graph is being built (the caller searches exactly).
    ///
    /// # Errors
    /// Storage errors while reading the index.
    pub(crate) fn with_graph<R>(
        &self,
        store: &Store,
        spec: IndexSpec,
        f: impl FnOnce(&IndexGraph) -> R,
    ) -> CqlResult<Option<R>> {
        let (slot, created) = {
            let mut slots = lock(&self.slots);
            match slots.get(&spec.id) {
                Some(slot) => (slot.clone(), false),
                None => {
                    let slot = Arc::new(Mutex::new(Slot::Building));
                    slots.insert(spec.id, slot.clone());
                    (slot, true)
                }
            }
        };
        let mut state = lock(&slot);
        if created {
            // Watch first: every commit after this is in the feed, every one before in the
            // snapshot the build reads (see `storage::index::IndexFeed`).
            store.index_feed().watch(spec.id);
            if !self.build(store, spec, &slot, &mut state)? {
                return Ok(None);
            }
        }
        let Slot::Ready(graph) = &mut *state else {
            return Ok(None);
        };
        if !catch_up(store, spec.id, graph)? {
            *state = Slot::Building;
            if !self.build(store, spec, &slot, &mut state)? {
                return Ok(None);
            }
        }
        match &*state {
            Slot::Ready(graph) => Ok(Some(f(graph))),
            Slot::Building => Ok(None),
        }
    }

    /// Builds the graph of `spec` from a new snapshot: here when the index is small (then
    /// `true`), else on a new thread that installs it when done.
    fn build(
        &self,
        store: &Store,
        spec: IndexSpec,
        slot: &SharedSlot,
        state: &mut Slot,
    ) -> CqlResult<bool> {
        let entries = store.snapshot()?.index_all_entries(spec.id)?;
        if entries.len() <= INLINE_BUILD_MAX {
            *state = Slot::Ready(IndexGraph::build(spec.dim, spec.similarity, &entries)?);
            return Ok(true);
        }
        *state = Slot::Building;
        let slot = slot.clone();
        let spawned = std::thread::Builder::new()
            .name("vector-graph".into())
            .spawn(move || build_in_background(spec, &entries, &slot));
        if let Err(e) = spawned {
            warn!(cause = %e, "cannot start a vector graph build; searching exactly");
            lock(&self.slots).remove(&spec.id);
            store.index_feed().unwatch(spec.id);
        }
        Ok(false)
    }
}

/// Builds a large graph off the query path and installs it.
fn build_in_background(spec: IndexSpec, entries: &[Vec<u8>], slot: &SharedSlot) {
    let started = Instant::now();
    match IndexGraph::build(spec.dim, spec.similarity, entries) {
        Ok(graph) => {
            info!(
                index = %spec.id,
                vectors = graph.live(),
                seconds = started.elapsed().as_secs_f64(),
                megabytes = graph.memory_bytes() >> 20,
                "vector graph built"
            );
            *lock(slot) = Slot::Ready(graph);
        }
        // The slot stays `Building`: queries keep the exact path, which reports the damage.
        Err(e) => warn!(index = %spec.id, cause = %e, "vector graph build failed"),
    }
}

/// Applies the feed's pending changes to `graph`; `false` when it must be rebuilt instead
/// (the feed was reset, too many changes wait, or tombstones outnumber live nodes).
fn catch_up(store: &Store, id: Uuid, graph: &mut IndexGraph) -> CqlResult<bool> {
    let Some(drain) = store.index_feed().drain(id) else {
        store.index_feed().watch(id);
        return Ok(false);
    };
    if drain.reset || drain.changes.len() > graph.live().max(INLINE_BUILD_MAX) {
        return Ok(false);
    }
    for (entry, insert) in &drain.changes {
        graph.apply(entry, *insert)?;
    }
    Ok(graph.tombstones() <= graph.live().max(1000))
}
