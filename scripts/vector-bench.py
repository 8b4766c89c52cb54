#!/usr/bin/env python3
"""Vector-search benchmark: recall@k against exact search, and query latency.

Loads N random vectors (seeded, uniform in [-1, 1)) of D dimensions into a table with an SAI
vector index, then runs Q queries `SELECT k FROM t ORDER BY v ANN OF ? LIMIT k` with random
query vectors and reports:

- recall@k: the share of the exact k nearest (computed here, in Python, by the same
  similarity) that the server returned, averaged over the first --recall-queries queries;
- latency: p50 / p90 / p99 of the query round trips (one query at a time, one connection).

Usage (a release server must be running; the project's venv has the Python driver):

    target/release/cqld --in-memory --port 19150 &
    .venv/bin/python scripts/vector-bench.py --port 19150            # 100k x 128, all of it
    .venv/bin/python scripts/vector-bench.py --port 19150 --no-load  # again, on the loaded table
    .venv/bin/python scripts/vector-bench.py --port 19150 --no-timing --rows 10000

Run the timing part only on an otherwise idle machine: it measures wall-clock latency.
"""

import argparse
import math
import random
import statistics
import sys
import time

from cassandra.cluster import Cluster
from cassandra.concurrent import execute_concurrent_with_args


def score(similarity, a, b):
    """The index's similarity (higher is nearer), as Cassandra 5.0 defines it."""
    if similarity == "euclidean":
        return 1.0 / (1.0 + sum((x - y) * (x - y) for x, y in zip(a, b)))
    dot = sum(x * y for x, y in zip(a, b))
    if similarity == "dot_product":
        return (1.0 + dot) / 2.0
    norms = math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    return (1.0 + dot / norms) / 2.0


def exact_top(similarity, data, query, k):
    scored = sorted(
        ((score(similarity, v, query), key) for key, v in enumerate(data)),
        key=lambda s: -s[0],
    )
    return [key for _, key in scored[:k]]


def percentile(samples, p):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p / 100.0 * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9042)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dims", type=int, default=128)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--recall-queries", type=int, default=20)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument(
        "--similarity", default="euclidean", choices=["cosine", "euclidean", "dot_product"]
    )
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--no-timing", action="store_true", help="only check recall")
    parser.add_argument(
        "--no-load",
        action="store_true",
        help="query the table an earlier run loaded (same --seed, --rows, --dims)",
    )
    args = parser.parse_args()

    rng = random.Random(args.seed)
    data = [[rng.uniform(-1, 1) for _ in range(args.dims)] for _ in range(args.rows)]
    queries = [[rng.uniform(-1, 1) for _ in range(args.dims)] for _ in range(args.queries)]

    cluster = Cluster([args.host], port=args.port)
    session = cluster.connect()
    if not args.no_load:
        load(session, args, data)
    select = session.prepare(f"SELECT k FROM vbench.t ORDER BY v ANN OF ? LIMIT {args.k}")
    status = measure(session, select, args, data, queries)
    cluster.shutdown()
    return status


def load(session, args, data):
    """Creates vbench.t with its vector index and inserts `data`."""
    session.execute(
        "CREATE KEYSPACE IF NOT EXISTS vbench WITH replication = "
        "{'class': 'SimpleStrategy', 'replication_factor': 1}"
    )
    session.execute("DROP TABLE IF EXISTS vbench.t")
    session.execute(f"CREATE TABLE vbench.t (k int PRIMARY KEY, v vector<float, {args.dims}>)")
    session.execute(
        "CREATE INDEX ON vbench.t (v) USING 'sai' "
        f"WITH OPTIONS = {{'similarity_function': '{args.similarity}'}}"
    )
    insert = session.prepare("INSERT INTO vbench.t (k, v) VALUES (?, ?)")
    started = time.monotonic()
    execute_concurrent_with_args(
        session, insert, list(enumerate(data)), concurrency=64, raise_on_first_error=True
    )
    print(f"loaded {args.rows} vectors of {args.dims} dims in {time.monotonic() - started:.1f} s")


def measure(session, select, args, data, queries):
    """Recall over the first queries, then latency over all of them; the exit status."""
    recalls = []
    for query in queries[: args.recall_queries]:
        got = [row.k for row in session.execute(select, [query])]
        want = set(exact_top(args.similarity, data, query, args.k))
        recalls.append(len(want.intersection(got)) / args.k)
    recall = statistics.mean(recalls)
    print(f"recall@{args.k} over {len(recalls)} queries: {recall:.4f}")

    if not args.no_timing:
        for query in queries[:5]:  # warm-up
            session.execute(select, [query])
        latencies = []
        for query in queries:
            t0 = time.perf_counter()
            session.execute(select, [query])
            latencies.append((time.perf_counter() - t0) * 1000.0)
        print(
            f"latency over {len(latencies)} queries: p50 {percentile(latencies, 50):.2f} ms, "
            f"p90 {percentile(latencies, 90):.2f} ms, p99 {percentile(latencies, 99):.2f} ms"
        )
    return 0 if recall >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
