//! A compact HNSW graph (Malkov and Yashunin, "Efficient and robust approximate nearest
//! neighbor search using Hierarchical Navigable Small World graphs", 2016): layered proximity
//! graphs, greedy descent through the upper layers, a beam search of width `ef` on layer 0,
//! and the paper's neighbour-selection heuristic (algorithm 4) when linking.
//!
//! Nodes are numbered in insertion order and never move. Deleting a node tombstones it: it
//! still routes searches (so the graph stays connected) but is never returned. The owner
//! rebuilds the graph when tombstones outnumber live nodes. Distances are "smaller is nearer"
//! and order nodes exactly as the similarity they stand for (see [`Metric`]).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::links::Links;
use super::quantized;
use super::quantized::Codes;

/// How two vectors are compared inside the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Metric {
    /// Squared euclidean distance (orders as `similarity_euclidean`, reversed).
    Euclidean,
    /// Negated dot product (orders as `similarity_dot_product`, reversed).
    DotProduct,
    /// Negated dot product of vectors normalised on insert and query (orders as
    /// `similarity_cosine`, reversed).
    Cosine,
}

/// Build and search parameters.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params {
    /// Links per node on the upper layers (twice that on layer 0).
    pub(crate) m: usize,
    /// Beam width while linking a new node.
    pub(crate) ef_construction: usize,
    /// Seed of the level draws, so a build is reproducible.
    pub(crate) seed: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            m: 32,
            ef_construction: 100,
            seed: 0x5eed,
        }
    }
}

/// A candidate: distance to the query, then node.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Near(f32, u32);

impl Eq for Near {}

impl Ord for Near {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

impl PartialOrd for Near {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The graph.
pub(crate) struct Hnsw {
    dim: usize,
    metric: Metric,
    params: Params,
    /// Node `i`'s vector is `vectors[i * dim..(i + 1) * dim]`.
    vectors: Vec<f32>,
    /// 8-bit copies of `vectors`, which queries walk the graph with.
    codes: Codes,
    /// Every node's neighbours on each layer it lives on.
    links: Links,
    /// Tombstones: deleted nodes route searches but are never returned.
    deleted: Vec<bool>,
    /// Nodes not deleted.
    live: usize,
    /// The node every search starts from (one on the top layer).
    entry: Option<u32>,
    /// State of the level draws (xorshift64*).
    rng: u64,
}

/// A reusable "visited" bit set.
struct Visited(Vec<u64>);

impl Visited {
    fn new(nodes: usize) -> Self {
        Visited(vec![0; nodes.div_ceil(64)])
    }

    /// Marks `node`; whether it was unmarked.
    fn insert(&mut self, node: u32) -> bool {
        let (word, bit) = (node as usize / 64, 1u64 << (node % 64));
        match self.0.get_mut(word) {
            Some(w) if *w & bit == 0 => {
                *w |= bit;
                true
            }
            _ => false,
        }
    }
}

impl Hnsw {
    /// An empty graph of `dim`-dimensional vectors.
    pub(crate) fn new(dim: usize, metric: Metric, params: Params) -> Self {
        Hnsw {
            dim,
            metric,
            params,
            vectors: Vec::new(),
            codes: Codes::new(dim),
            // A layer-0 list holds up to half again its size before it is pruned.
            links: Links::new(params.m * 3 + 1),
            deleted: Vec::new(),
            live: 0,
            entry: None,
            rng: params.seed | 1,
        }
    }

    /// Nodes ever inserted (live and deleted).
    pub(crate) fn len(&self) -> usize {
        self.deleted.len()
    }

    /// Nodes not deleted.
    pub(crate) fn live(&self) -> usize {
        self.live
    }

    /// Approximate heap bytes held (vectors and links).
    pub(crate) fn memory_bytes(&self) -> usize {
        self.vectors.capacity() * 4
            + self.codes.memory_bytes()
            + self.links.memory_bytes()
            + self.deleted.capacity()
    }

    /// The vector as the graph stores it (normalised under cosine), or `None` if it cannot be
    /// placed: a wrong dimension, a non-finite element, or a zero vector under cosine.
    fn prepare(&self, vector: &[f32]) -> Option<Vec<f32>> {
        if vector.len() != self.dim || vector.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut v = vector.to_vec();
        if self.metric == Metric::Cosine {
            let norm = dot(&v, &v).sqrt();
            if norm == 0.0 || !norm.is_finite() {
                return None;
            }
            v.iter_mut().for_each(|x| *x /= norm);
        }
        Some(v)
    }

    fn vector(&self, node: u32) -> &[f32] {
        let start = node as usize * self.dim;
        self.vectors.get(start..start + self.dim).unwrap_or(&[])
    }

    fn distance(&self, a: &[f32], b: &[f32]) -> f32 {
        match self.metric {
            Metric::Euclidean => squared_l2(a, b),
            Metric::DotProduct | Metric::Cosine => -dot(a, b),
        }
    }

    /// Reads one element of every cache line of the vectors of `nodes` (see
    /// [`Codes::touch`]), so the exact re-rank that follows finds them in cache.
    fn touch_vectors(&self, nodes: impl Iterator<Item = u32>) {
        let mut seen = 0f32;
        for n in nodes {
            let vector = self.vector(n);
            for offset in (0..vector.len()).step_by(16) {
                seen += vector[offset];
            }
        }
        std::hint::black_box(seen);
    }

    fn distance_to(&self, q: &[f32], node: u32) -> f32 {
        self.distance(q, self.vector(node))
    }

    /// A level drawn from the geometric distribution of the paper (`mL = 1 / ln M`).
    fn random_level(&mut self) -> usize {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        let bits = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        let uniform = (bits as f64 + 1.0) / (1u64 << 53) as f64;
        let ml = 1.0 / (self.params.m.max(2) as f64).ln();
        ((-uniform.ln() * ml) as usize).min(16)
    }

    fn max_links(&self, layer: usize) -> usize {
        if layer == 0 {
            self.params.m * 2
        } else {
            self.params.m
        }
    }

    /// Adds `vector` as a new node; its number, or `None` if it cannot be placed (see
    /// [`Hnsw::prepare`]).
    pub(crate) fn insert(&mut self, vector: &[f32]) -> Option<u32> {
        let v = self.prepare(vector)?;
        let id = u32::try_from(self.len()).ok()?;
        let level = self.random_level();
        self.vectors.extend_from_slice(&v);
        self.codes.push(&v);
        self.links.add_node(level);
        self.deleted.push(false);
        self.live += 1;
        let Some(entry) = self.entry else {
            self.entry = Some(id);
            return Some(id);
        };
        let top = self.level_of(entry);
        let mut cur = Near(self.distance_to(&v, entry), entry);
        for layer in (level + 1..=top).rev() {
            cur = self.greedy(&v, cur, layer);
        }
        for layer in (0..=level.min(top)).rev() {
            let found = self.search_layer(&v, &[cur], self.params.ef_construction, layer, false);
            let chosen = self.select(&found, self.params.m);
            for &Near(_, n) in &chosen {
                self.link(n, id, layer);
            }
            let chosen: Vec<u32> = chosen.iter().map(|c| c.1).collect();
            self.links.set(id, layer, &chosen);
            cur = found.first().copied().unwrap_or(cur);
        }
        if level > top {
            self.entry = Some(id);
        }
        Some(id)
    }

    fn level_of(&self, node: u32) -> usize {
        self.links.level(node)
    }

    /// Adds the link `from -> to` on `layer`. A list may grow by half past its size before
    /// the heuristic prunes it back: pruning on every overflow (as the paper does) costs a
    /// quadratic selection per link and dominated the build; [`Hnsw::shrink`] trims the
    /// slack after a bulk build.
    fn link(&mut self, from: u32, to: u32, layer: usize) {
        let max = self.max_links(layer);
        if self.links.push(from, layer, to) > max + max / 2 {
            self.prune(from, layer, max);
        }
    }

    /// Prunes `node`'s list on `layer` to `max` links with the heuristic.
    fn prune(&mut self, node: u32, layer: usize, max: usize) {
        let base = self.vector(node).to_vec();
        let mut near: Vec<Near> = self
            .neighbours(node, layer)
            .iter()
            .map(|&n| Near(self.distance_to(&base, n), n))
            .collect();
        near.sort();
        let kept: Vec<u32> = self.select(&near, max).iter().map(|c| c.1).collect();
        self.links.set(node, layer, &kept);
    }

    /// Prunes every list longer than its size (the slack [`Hnsw::link`] leaves).
    pub(crate) fn shrink(&mut self) {
        for node in 0..self.links.len() {
            // `node` < `links.len()`, which `insert` keeps within `u32`.
            let id = node as u32;
            for layer in 0..=self.links.level(id) {
                let max = self.max_links(layer);
                if self.neighbours(id, layer).len() > max {
                    self.prune(id, layer, max);
                }
            }
        }
    }

    /// The paper's heuristic: from `candidates` (nearest first), keep one only if it is
    /// nearer to the base than to every one kept, up to `m`; then fill with the nearest left.
    fn select(&self, candidates: &[Near], m: usize) -> Vec<Near> {
        let mut kept: Vec<Near> = Vec::with_capacity(m);
        let mut skipped = Vec::new();
        for &c in candidates {
            if kept.len() >= m {
                break;
            }
            let diverse = kept
                .iter()
                .all(|k| self.distance(self.vector(c.1), self.vector(k.1)) > c.0);
            if diverse {
                kept.push(c);
            } else {
                skipped.push(c);
            }
        }
        let room = m.saturating_sub(kept.len());
        kept.extend(skipped.into_iter().take(room));
        kept
    }

    /// One greedy walk on `layer` towards `q`.
    fn greedy(&self, q: &[f32], cur: Near, layer: usize) -> Near {
        self.greedy_by(&|n| self.distance_to(q, n), cur, layer)
    }

    /// One greedy walk on `layer`, by the distances `distance` gives each node.
    fn greedy_by(&self, distance: &dyn Fn(u32) -> f32, mut cur: Near, layer: usize) -> Near {
        loop {
            let mut moved = false;
            for &n in self.neighbours(cur.1, layer) {
                let d = distance(n);
                if d < cur.0 {
                    cur = Near(d, n);
                    moved = true;
                }
            }
            if !moved {
                return cur;
            }
        }
    }

    fn neighbours(&self, node: u32, layer: usize) -> &[u32] {
        self.links.get(node, layer)
    }

    /// The beam search of width `ef` on `layer` from `entries`; nearest first. With
    /// `live_only`, deleted nodes are walked through but not returned.
    fn search_layer(
        &self,
        q: &[f32],
        entries: &[Near],
        ef: usize,
        layer: usize,
        live_only: bool,
    ) -> Vec<Near> {
        let touch = |nodes: &[u32]| self.touch_vectors(nodes.iter().copied());
        let distance = |n| self.distance_to(q, n);
        self.search_layer_by(&distance, &touch, entries, ef, layer, live_only)
    }

    /// [`Hnsw::search_layer`] by the distances `distance` gives each node. Before the
    /// distances to a candidate's neighbours not yet visited are computed, `touch` loads
    /// what those distances will read, all at once (see [`Codes::touch`]); neighbours
    /// already visited are neither loaded nor scored, and with a wide beam they are most.
    fn search_layer_by(
        &self,
        distance: &dyn Fn(u32) -> f32,
        touch: &dyn Fn(&[u32]),
        entries: &[Near],
        ef: usize,
        layer: usize,
        live_only: bool,
    ) -> Vec<Near> {
        let mut visited = Visited::new(self.len());
        let mut candidates: BinaryHeap<std::cmp::Reverse<Near>> = BinaryHeap::new();
        let mut results: BinaryHeap<Near> = BinaryHeap::new();
        // Without tombstones (the usual case) no node needs its flag read: a random read that
        // waited on memory for a large share of the search.
        let tombstoned = self.live < self.len();
        let is_live =
            |n: u32| !tombstoned || !self.deleted.get(n as usize).copied().unwrap_or(true);
        let mut fresh: Vec<u32> = Vec::with_capacity(self.max_links(layer) * 2);
        for &e in entries {
            visited.insert(e.1);
            candidates.push(std::cmp::Reverse(e));
            if !live_only || is_live(e.1) {
                results.push(e);
            }
        }
        while let Some(std::cmp::Reverse(c)) = candidates.pop() {
            if results.len() >= ef && results.peek().is_some_and(|f| c.0 > f.0) {
                break;
            }
            // The candidate expanded next, most likely: its links load while this one's
            // neighbours are scored.
            if let (0, Some(std::cmp::Reverse(next))) = (layer, candidates.peek()) {
                self.links.touch(next.1);
            }
            fresh.clear();
            let unvisited = self.neighbours(c.1, layer).iter().copied();
            fresh.extend(unvisited.filter(|&n| visited.insert(n)));
            touch(&fresh);
            for &n in &fresh {
                let d = distance(n);
                let full = results.len() >= ef;
                if full && results.peek().is_some_and(|f| d >= f.0) {
                    continue;
                }
                candidates.push(std::cmp::Reverse(Near(d, n)));
                if !live_only || is_live(n) {
                    results.push(Near(d, n));
                    if results.len() > ef {
                        results.pop();
                    }
                }
            }
        }
        results.into_sorted_vec()
    }

    /// Up to `k` live nodes nearest `query`, nearest first, searching with width
    /// `max(ef, k)`. Fewer than `k` only when fewer live nodes are reachable. The beam is
    /// walked and ordered by the 8-bit codes; its `rerank` nearest are then ordered by the
    /// exact distance (the rest keep the codes' order), so asking for `k <= rerank` nodes
    /// gives them in exact order.
    pub(crate) fn search(&self, query: &[f32], k: usize, ef: usize, rerank: usize) -> Vec<u32> {
        let (Some(q), Some(entry)) = (self.prepare(query), self.entry) else {
            return Vec::new();
        };
        // The walk goes by the 8-bit codes (a quarter of the memory traffic), then the head
        // of the beam is re-ranked by the exact distance.
        let coded = quantized::encode(&q);
        let approximate = |n: u32| {
            let (dot, norm) = self.codes.dot(&coded, n);
            match self.metric {
                Metric::Euclidean => coded.norm() + norm - 2.0 * dot,
                Metric::DotProduct | Metric::Cosine => -dot,
            }
        };
        let mut cur = Near(approximate(entry), entry);
        for layer in (1..=self.level_of(entry)).rev() {
            cur = self.greedy_by(&approximate, cur, layer);
        }
        let touch = |nodes: &[u32]| self.codes.touch(nodes);
        let mut beam = self.search_layer_by(&approximate, &touch, &[cur], ef.max(k), 0, true);
        let exact = rerank.min(beam.len());
        let head = &mut beam[..exact];
        self.touch_vectors(head.iter().map(|n| n.1));
        for n in head.iter_mut() {
            n.0 = self.distance_to(&q, n.1);
        }
        head.sort();
        beam.into_iter().take(k).map(|n| n.1).collect()
    }

    /// Whether live `node` holds `vector` (as [`Hnsw::insert`] would store it).
    pub(crate) fn holds(&self, node: u32, vector: &[f32]) -> bool {
        let live = !self.deleted.get(node as usize).copied().unwrap_or(true);
        live && self.prepare(vector).is_some_and(|v| {
            let stored = self.vector(node);
            v.len() == stored.len()
                && v.iter()
                    .zip(stored)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
        })
    }

    /// Tombstones `node`: it is never returned again.
    pub(crate) fn delete(&mut self, node: u32) {
        if let Some(d) = self.deleted.get_mut(node as usize) {
            if !*d {
                *d = true;
                self.live -= 1;
            }
        }
    }
}

/// `a . b`, in chunks of 8 so the compiler vectorises it.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for ((s, a), b) in acc.iter_mut().zip(x).zip(y) {
            *s += a * b;
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `|a - b|^2`, in chunks of 8 so the compiler vectorises it.
fn squared_l2(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| (x - y) * (x - y))
        .sum();
    for (x, y) in ca.zip(cb) {
        for ((s, a), b) in acc.iter_mut().zip(x).zip(y) {
            let d = a - b;
            *s += d * d;
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
#[path = "hnsw_tests.rs"]
mod tests;
