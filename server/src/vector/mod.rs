//! Approximate vector search: an in-memory HNSW graph per SAI vector index ([`hnsw`],
//! [`graph`]), kept in step with the index's entries through the storage change feed, and the
//! registry that owns the graphs ([`VectorIndexes`]).
//!
//! The registry follows the catalog: every SAI index on a float vector column gets a slot
//! when the server starts and when the index is created, and loses it when the index or its
//! table is dropped. A slot is first `Pending`, then built from a snapshot of the index's
//! entries, then `Ready`. One maintainer thread per slot builds it and then applies the feed
//! in the background, so a graph follows a bulk load without stalling queries; a query
//! applies what is left (at most [`QUERY_CATCH_UP`] changes, else it searches exactly) and so
//! sees every write acknowledged before it. Small indexes (up to [`INLINE_BUILD_MAX`] entries)
//! are built by the query that finds them pending, so small tables behave the same every run.
//!
//! The graphs are derived state only: nothing of them is written to disk. After a restart
//! (kill -9 included) the store has replayed its commit log before the registry reads the
//! entries, so the graph is the graph of the committed rows. The executor decides when to
//! use a graph (`executor::ann_graph`) and re-checks every row it proposes.

pub(crate) mod graph;
pub(crate) mod hnsw;
mod links;
mod quantized;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use cql::types::ColumnType;
use storage::{Catalog, Store};
use tracing::{debug, info, warn};
use uuid::Uuid;

use crate::error::CqlResult;
use crate::eval::functions::vector_fcts::Similarity;
use crate::planner::ddl::sai_options;
use graph::IndexGraph;

/// Indexes with at most this many entries are built by the query that needs them.
const INLINE_BUILD_MAX: usize = 20_000;

/// A query applies at most this many pending changes itself (any number while the graph
/// stays within [`INLINE_BUILD_MAX`]); past it, it searches exactly while the maintainer
/// catches up.
const QUERY_CATCH_UP: usize = 1_000;

/// Changes the maintainer applies per hold of a slot's lock, so queries interleave.
const MAINTAIN_BATCH: usize = 256;

/// How long an idle maintainer sleeps between looks at the feed.
const MAINTAIN_IDLE: Duration = Duration::from_millis(20);

/// How long the maintainer lets waiting queries go first, at most, before its next batch.
const QUERY_WAIT_MAX: Duration = Duration::from_millis(50);

/// Which index a graph is for, and how its vectors compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// To be built from a new snapshot (new, or the feed was reset).
    Pending,
    /// Being built by the maintainer.
    Building,
    /// Built; `backlog` holds drained feed changes not yet applied, in order.
    Ready {
        graph: Box<IndexGraph>,
        backlog: Vec<(Vec<u8>, bool)>,
    },
}

/// A slot and the store its index lives in. The maintainer holds it only while it works (a
/// `Weak` otherwise), so the store closes when the registry is dropped.
struct SlotCell {
    store: Store,
    state: Mutex<Slot>,
    /// Queries waiting for `state`. The maintainer, which takes the lock again as soon as it
    /// lets it go while a backlog lasts, waits for them first: a mutex is not fair, and a
    /// query right after a large load otherwise waited for the whole backlog (21 s, past the
    /// drivers' timeout).
    queries_waiting: AtomicUsize,
}

type SharedSlot = Arc<SlotCell>;

/// The graphs of the vector indexes of the catalog.
#[derive(Default)]
pub(crate) struct VectorIndexes {
    slots: Mutex<HashMap<Uuid, (IndexSpec, SharedSlot)>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update of a slot is a whole assignment, so a poisoned lock holds a usable value.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The SAI indexes on float vector columns in `catalog`.
fn vector_indexes(catalog: &Catalog) -> Vec<IndexSpec> {
    let tables = catalog.keyspaces.values().flat_map(|k| k.tables.values());
    let mut out = Vec::new();
    for table in tables {
        for index in &table.indexes {
            let sai = index
                .custom_class
                .as_deref()
                .is_some_and(sai_options::is_sai_class);
            let column = table.column_by_id(index.column);
            let dim = match column.map(|c| &c.ty) {
                Some(ColumnType::Vector { element, dimension })
                    if **element == ColumnType::Float =>
                {
                    *dimension as usize
                }
                _ => continue,
            };
            if sai {
                out.push(IndexSpec {
                    id: index.id,
                    similarity: sai_options::similarity_of(&index.options),
                    dim,
                });
            }
        }
    }
    out
}

impl VectorIndexes {
    /// Gives every vector index of `catalog` a slot (watched from now, built in the
    /// background) and drops the slots of indexes no longer there.
    pub(crate) fn follow_catalog(&self, store: &Store, catalog: &Catalog) {
        let wanted = vector_indexes(catalog);
        let mut slots = lock(&self.slots);
        slots.retain(|id, (spec, _)| {
            let keep = wanted.contains(spec);
            if !keep {
                store.index_feed().unwatch(*id);
            }
            keep
        });
        for spec in wanted {
            if slots.contains_key(&spec.id) {
                continue;
            }
            // Watch before any snapshot is read (see `storage::index::IndexFeed`).
            store.index_feed().watch(spec.id);
            let slot = Arc::new(SlotCell {
                store: store.clone(),
                state: Mutex::new(Slot::Pending),
                queries_waiting: AtomicUsize::new(0),
            });
            let weak = Arc::downgrade(&slot);
            let spawned = std::thread::Builder::new()
                .name("vector-graph".into())
                .spawn(move || maintain(&weak, spec));
            if let Err(e) = spawned {
                warn!(cause = %e, "cannot start a vector graph maintainer; searching exactly");
                continue;
            }
            slots.insert(spec.id, (spec, slot));
        }
    }

    /// Runs `f` on the graph of `spec` brought up to date with every commit acknowledged
    /// before the call; `None` when the query is to search exactly (no graph yet, or too
    /// many changes to apply here).
    ///
    /// # Errors
    /// Storage errors while reading the index.
    pub(crate) fn with_graph<R>(
        &self,
        store: &Store,
        spec: IndexSpec,
        f: impl FnOnce(&IndexGraph) -> R,
    ) -> CqlResult<Option<R>> {
        let slot = match lock(&self.slots).get(&spec.id) {
            Some((known, slot)) if *known == spec => slot.clone(),
            _ => return Ok(None),
        };
        slot.queries_waiting.fetch_add(1, Ordering::AcqRel);
        let mut state = lock(&slot.state);
        slot.queries_waiting.fetch_sub(1, Ordering::AcqRel);
        if !catch_up(store, spec.id, &mut state, usize::MAX)? {
            return Ok(None);
        }
        if matches!(*state, Slot::Pending) {
            let entries = store.snapshot()?.index_all_entries(spec.id)?;
            if entries.len() > INLINE_BUILD_MAX {
                return Ok(None);
            }
            *state = Slot::Ready {
                graph: Box::new(IndexGraph::build(spec.dim, spec.similarity, &entries)?),
                backlog: Vec::new(),
            };
        }
        match &mut *state {
            // A small graph is always caught up here, so small tables behave the same however
            // far the maintainer lags.
            Slot::Ready { graph, backlog }
                if backlog.len() <= QUERY_CATCH_UP
                    || graph.live() + backlog.len() <= INLINE_BUILD_MAX =>
            {
                for (entry, insert) in backlog.drain(..) {
                    graph.apply(&entry, insert)?;
                }
                Ok(Some(f(graph)))
            }
            _ => Ok(None),
        }
    }
}

/// Drains the feed into a ready slot's backlog and applies up to `budget` of it; marks the
/// slot `Pending` when the feed was reset or tombstones outnumber live nodes. `false` when
/// the index is no longer watched.
fn catch_up(store: &Store, id: Uuid, state: &mut Slot, budget: usize) -> CqlResult<bool> {
    let Slot::Ready { graph, backlog } = state else {
        return Ok(true);
    };
    let Some(drain) = store.index_feed().drain(id) else {
        return Ok(false);
    };
    if drain.reset {
        *state = Slot::Pending;
        return Ok(true);
    }
    backlog.extend(drain.changes);
    if budget < usize::MAX {
        let n = backlog.len().min(budget);
        for (entry, insert) in backlog.drain(..n) {
            graph.apply(&entry, insert)?;
        }
    }
    if graph.tombstones() > graph.live().max(1000) {
        *state = Slot::Pending;
    }
    Ok(true)
}

/// The maintainer of one slot: builds it when pending, then applies the feed in batches,
/// until the slot is dropped (its index left the catalog, or the server stopped).
fn maintain(weak: &Weak<SlotCell>, spec: IndexSpec) {
    while let Some(slot) = weak.upgrade() {
        let busy = match maintain_once(&slot.store, spec, &slot) {
            Ok(busy) => busy,
            Err(e) => {
                warn!(index = %spec.id, cause = %e, "vector graph upkeep failed; retrying");
                *lock(&slot.state) = Slot::Pending;
                false
            }
        };
        drop(slot);
        if !busy {
            std::thread::sleep(MAINTAIN_IDLE);
        }
    }
    debug!(index = %spec.id, "vector graph dropped");
}

/// Waits, at most [`QUERY_WAIT_MAX`], until no query waits for `slot`'s lock.
fn let_queries_go_first(slot: &SlotCell) {
    let deadline = Instant::now() + QUERY_WAIT_MAX;
    while slot.queries_waiting.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// One step of [`maintain`]; whether there was work.
fn maintain_once(store: &Store, spec: IndexSpec, slot: &SharedSlot) -> CqlResult<bool> {
    let entries = {
        let_queries_go_first(slot);
        let mut state = lock(&slot.state);
        match &*state {
            Slot::Building => return Ok(false),
            Slot::Ready { .. } => {
                if !catch_up(store, spec.id, &mut state, MAINTAIN_BATCH)? {
                    return Ok(false);
                }
                return Ok(match &*state {
                    Slot::Ready { backlog, .. } => !backlog.is_empty(),
                    Slot::Pending | Slot::Building => true,
                });
            }
            Slot::Pending => {}
        }
        let entries = store.snapshot()?.index_all_entries(spec.id)?;
        if entries.len() <= INLINE_BUILD_MAX {
            // Small: built under the lock, so a query never finds it building.
            *state = Slot::Ready {
                graph: Box::new(IndexGraph::build(spec.dim, spec.similarity, &entries)?),
                backlog: Vec::new(),
            };
            return Ok(true);
        }
        *state = Slot::Building;
        entries
    };
    let started = Instant::now();
    let graph = match IndexGraph::build(spec.dim, spec.similarity, &entries) {
        Ok(graph) => graph,
        Err(e) => {
            *lock(&slot.state) = Slot::Pending;
            return Err(e.into());
        }
    };
    drop(entries);
    info!(
        index = %spec.id,
        vectors = graph.live(),
        seconds = started.elapsed().as_secs_f64(),
        megabytes = graph.memory_bytes() >> 20,
        "vector graph built"
    );
    let mut state = lock(&slot.state);
    if matches!(*state, Slot::Building) {
        *state = Slot::Ready {
            graph: Box::new(graph),
            backlog: Vec::new(),
        };
    }
    Ok(true)
}
