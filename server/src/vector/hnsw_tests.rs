//! Tests of the HNSW graph against brute force on seeded random data.

use super::*;

/// A seeded generator of uniform floats in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    fn vectors(&mut self, n: usize, dim: usize) -> Vec<Vec<f32>> {
        (0..n)
            .map(|_| (0..dim).map(|_| self.next()).collect())
            .collect()
    }
}

/// The `k` nearest live nodes by brute force (node numbers = positions in `data`).
fn exact(graph: &Hnsw, data: &[Vec<f32>], gone: &[bool], q: &[f32], k: usize) -> Vec<u32> {
    let q = graph.prepare(q).unwrap();
    let mut all: Vec<Near> = data
        .iter()
        .enumerate()
        .filter(|(i, _)| !gone[*i])
        .map(|(i, v)| Near(graph.distance(&q, &graph.prepare(v).unwrap()), i as u32))
        .collect();
    all.sort();
    all.into_iter().take(k).map(|n| n.1).collect()
}

/// Mean recall@k of the graph over `queries` (beam 64, its `rerank` nearest re-ranked).
fn recall_reranked(
    graph: &Hnsw,
    data: &[Vec<f32>],
    gone: &[bool],
    queries: &[Vec<f32>],
    k: usize,
    rerank: usize,
) -> f64 {
    let mut hits = 0usize;
    for q in queries {
        let want = exact(graph, data, gone, q, k);
        let got = graph.search(q, k, 64, rerank);
        hits += got.iter().filter(|n| want.contains(n)).count();
    }
    hits as f64 / (queries.len() * k) as f64
}

/// Mean recall@k of the graph over `queries`, the whole beam re-ranked.
fn recall(graph: &Hnsw, data: &[Vec<f32>], gone: &[bool], queries: &[Vec<f32>], k: usize) -> f64 {
    recall_reranked(graph, data, gone, queries, k, 64)
}

fn build(data: &[Vec<f32>], metric: Metric) -> Hnsw {
    let mut graph = Hnsw::new(data[0].len(), metric, Params::default());
    for (i, v) in data.iter().enumerate() {
        assert_eq!(graph.insert(v), Some(i as u32));
    }
    graph
}

#[test]
fn recall_against_brute_force_for_every_metric() {
    let mut rng = Rng(42);
    let data = rng.vectors(2000, 16);
    let queries = rng.vectors(30, 16);
    let gone = vec![false; data.len()];
    for metric in [Metric::Euclidean, Metric::Cosine, Metric::DotProduct] {
        let graph = build(&data, metric);
        let r = recall(&graph, &data, &gone, &queries, 10);
        assert!(r >= 0.95, "{metric:?}: recall {r}");
    }
}

#[test]
fn deleted_nodes_are_never_returned_and_recall_holds() {
    let mut rng = Rng(7);
    let data = rng.vectors(1500, 12);
    let queries = rng.vectors(30, 12);
    let mut graph = build(&data, Metric::Euclidean);
    let mut gone = vec![false; data.len()];
    for i in (0..data.len()).step_by(3) {
        graph.delete(i as u32);
        gone[i] = true;
    }
    graph.delete(0); // twice: no effect
    assert_eq!(graph.live(), 1000);
    for q in &queries {
        for node in graph.search(q, 50, 64, 64) {
            assert!(!gone[node as usize], "deleted node {node} returned");
        }
    }
    let r = recall(&graph, &data, &gone, &queries, 10);
    assert!(r >= 0.9, "recall after deletes {r}");
}

#[test]
fn incremental_inserts_are_found_at_once() {
    let mut rng = Rng(99);
    let mut data = rng.vectors(1000, 8);
    let mut graph = build(&data, Metric::Euclidean);
    for v in rng.vectors(200, 8) {
        let id = graph.insert(&v).unwrap();
        data.push(v.clone());
        // A vector is its own nearest neighbour.
        assert_eq!(graph.search(&v, 1, 32, 32), vec![id]);
    }
    let gone = vec![false; data.len()];
    let queries = rng.vectors(30, 8);
    let r = recall(&graph, &data, &gone, &queries, 10);
    assert!(r >= 0.95, "recall after incremental inserts {r}");
}

#[test]
fn unplaceable_vectors_are_refused_and_a_small_graph_returns_all() {
    let mut graph = Hnsw::new(2, Metric::Cosine, Params::default());
    assert_eq!(graph.insert(&[0.0, 0.0]), None);
    assert_eq!(graph.insert(&[1.0]), None);
    assert_eq!(graph.insert(&[f32::NAN, 1.0]), None);
    assert!(graph.search(&[1.0, 0.0], 3, 10, 10).is_empty());
    let a = graph.insert(&[1.0, 0.0]).unwrap();
    let b = graph.insert(&[0.0, 1.0]).unwrap();
    let c = graph.insert(&[-1.0, 0.1]).unwrap();
    assert_eq!(graph.search(&[1.0, 0.2], 5, 10, 10), vec![a, b, c]);
    assert!(graph.search(&[0.0, 0.0], 5, 10, 10).is_empty());
}

#[test]
fn reranking_the_head_of_the_beam_keeps_recall_and_exact_order() {
    let mut rng = Rng(11);
    let data = rng.vectors(3000, 32);
    let queries = rng.vectors(40, 32);
    let gone = vec![false; data.len()];
    let graph = build(&data, Metric::Euclidean);
    let whole = recall_reranked(&graph, &data, &gone, &queries, 10, 64);
    let head = recall_reranked(&graph, &data, &gone, &queries, 10, 30);
    assert!(
        head >= 0.95,
        "recall with 30 re-ranked {head} (whole beam {whole})"
    );
    assert!(whole - head <= 0.02, "{head} against {whole}");
    for q in &queries {
        let p = graph.prepare(q).unwrap();
        let found = graph.search(q, 40, 64, 30);
        assert_eq!(found.len(), 40);
        let exact: Vec<f32> = found[..30]
            .iter()
            .map(|&n| graph.distance_to(&p, n))
            .collect();
        assert!(
            exact.windows(2).all(|w| w[0] <= w[1]),
            "head not in exact order"
        );
    }
}
