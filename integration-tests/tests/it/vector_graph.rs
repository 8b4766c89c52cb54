//! Approximate vector search through the driver: with `vector_search_exact_rows` lowered, a
//! few thousand rows make `ORDER BY v ANN OF [...] LIMIT n` take the HNSW graph. Its results
//! must reach a recall against brute force, read far fewer rows than the table holds, and
//! never contain a deleted, overwritten-away, expired or truncated row, across a restart.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use integration_tests::{session_in, TestServer};
use scylla::client::session::Session;
use scylla::statement::prepared::PreparedStatement;
use server::config::Config;

const DIM: usize = 8;
const ROWS: i32 = 3000;

/// A seeded generator of uniform floats in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    fn vector(&mut self) -> Vec<f32> {
        (0..DIM).map(|_| self.next()).collect()
    }
}

async fn start(dir: &Path) -> TestServer {
    TestServer::start_with(Config {
        data_dir: Some(dir.to_path_buf()),
        vector_search_exact_rows: 100,
        ..Config::default()
    })
    .await
}

async fn run(session: &Session, cql: &str) {
    session.query_unpaged(cql, &[]).await.expect(cql);
}

/// The keys the server returns for `query`, nearest first.
async fn ann(session: &Session, select: &PreparedStatement, query: &[f32]) -> Vec<i32> {
    session
        .execute_unpaged(select, (query.to_vec(),))
        .await
        .expect("ann query")
        .into_rows_result()
        .expect("rows")
        .rows::<(i32,)>()
        .expect("typed")
        .map(|r| r.expect("row").0)
        .collect()
}

/// The exact 10 nearest keys of `query` among `rows` (euclidean).
fn exact(rows: &HashMap<i32, (i32, Vec<f32>)>, query: &[f32], group: Option<i32>) -> Vec<i32> {
    let mut scored: Vec<(f32, i32)> = rows
        .iter()
        .filter(|(_, (g, _))| group.is_none_or(|want| *g == want))
        .map(|(k, (_, v))| {
            let d: f32 = v.iter().zip(query).map(|(a, b)| (a - b) * (a - b)).sum();
            (d, *k)
        })
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(10).map(|(_, k)| k).collect()
}

/// Checks 20 queries: every returned key is live (and in `group`), recall@10 is at least 0.9,
/// and each query reads far fewer rows than the table holds (the graph path).
async fn check(
    server: &TestServer,
    session: &Session,
    rows: &HashMap<i32, (i32, Vec<f32>)>,
    group: Option<i32>,
    rng: &mut Rng,
) {
    let filter = group.map_or(String::new(), |g| format!("WHERE g = {g} "));
    let select = session
        .prepare(format!(
            "SELECT k FROM t {filter}ORDER BY v ANN OF ? LIMIT 10"
        ))
        .await
        .expect("prepare");
    let mut hits = 0;
    for _ in 0..20 {
        let query = rng.vector();
        let before = server.rows_read();
        let got = ann(session, &select, &query).await;
        let read = server.rows_read() - before;
        assert!(read < 500, "the graph path reads few rows, read {read}");
        assert_eq!(got.len(), 10);
        for k in &got {
            let (g, _) = rows.get(k).unwrap_or_else(|| panic!("row {k} is not live"));
            assert!(
                group.is_none_or(|want| *g == want),
                "row {k} is in group {g}"
            );
        }
        let want = exact(rows, &query, group);
        hits += got.iter().filter(|k| want.contains(k)).count();
    }
    let recall = hits as f64 / 200.0;
    assert!(recall >= 0.9, "recall@10 {recall}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_graph_path_follows_writes_deletes_ttl_truncate_and_a_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(dir.path()).await;
    let session = session_in(&server, "ks").await;
    run(
        &session,
        &format!("CREATE TABLE t (k int PRIMARY KEY, g int, v vector<float, {DIM}>)"),
    )
    .await;
    run(
        &session,
        "CREATE INDEX ON t (v) USING 'sai' WITH OPTIONS = {'similarity_function': 'euclidean'}",
    )
    .await;
    run(&session, "CREATE INDEX ON t (g) USING 'sai'").await;
    let insert = session
        .prepare("INSERT INTO t (k, g, v) VALUES (?, ?, ?)")
        .await
        .expect("prepare");
    let mut rng = Rng(0x5eed);
    let mut rows = HashMap::new();
    for k in 0..ROWS {
        let v = rng.vector();
        session
            .execute_unpaged(&insert, (k, k % 2, v.clone()))
            .await
            .expect("insert");
        rows.insert(k, (k % 2, v));
    }
    check(&server, &session, &rows, None, &mut rng).await;
    check(&server, &session, &rows, Some(1), &mut rng).await;

    // Deletes and overwrites after the graph is built.
    for k in (0..ROWS).step_by(3) {
        run(&session, &format!("DELETE FROM t WHERE k = {k}")).await;
        rows.remove(&k);
    }
    let moved = rng.vector();
    for k in [1, 2] {
        let v = rng.vector();
        session
            .execute_unpaged(&insert, (k, k % 2, v.clone()))
            .await
            .expect("overwrite");
        rows.insert(k, (k % 2, v));
    }
    session
        .execute_unpaged(&insert, (4, 0, moved.clone()))
        .await
        .expect("overwrite");
    rows.insert(4, (0, moved.clone()));
    check(&server, &session, &rows, None, &mut rng).await;
    let select = session
        .prepare("SELECT k FROM t ORDER BY v ANN OF ? LIMIT 10")
        .await
        .expect("prepare");
    assert_eq!(ann(&session, &select, &moved).await.first(), Some(&4));

    // An expiring row is found, then gone once it expires.
    let near = rng.vector();
    run(
        &session,
        &format!("INSERT INTO t (k, g, v) VALUES (-1, 0, {near:?}) USING TTL 60"),
    )
    .await;
    assert_eq!(ann(&session, &select, &near).await.first(), Some(&-1));
    server.advance_clock(Duration::from_secs(120));
    let got = ann(&session, &select, &near).await;
    assert_eq!(got.len(), 10);
    assert!(!got.contains(&-1), "expired row returned: {got:?}");

    // A restart rebuilds the graph from the stored index.
    server.stop().await;
    let server = start(dir.path()).await;
    let session = server.session().await;
    session.use_keyspace("ks", false).await.expect("use ks");
    check(&server, &session, &rows, None, &mut rng).await;

    // TRUNCATE empties the graph; new rows are found again.
    run(&session, "TRUNCATE t").await;
    let select = session
        .prepare("SELECT k FROM t ORDER BY v ANN OF ? LIMIT 10")
        .await
        .expect("prepare");
    assert!(ann(&session, &select, &near).await.is_empty());
    rows.clear();
    let insert = insert_again(&session).await;
    for k in 0..300 {
        let v = rng.vector();
        session
            .execute_unpaged(&insert, (k, k % 2, v.clone()))
            .await
            .expect("insert");
        rows.insert(k, (k % 2, v));
    }
    check(&server, &session, &rows, None, &mut rng).await;
}

async fn insert_again(session: &Session) -> PreparedStatement {
    session
        .prepare("INSERT INTO t (k, g, v) VALUES (?, ?, ?)")
        .await
        .expect("prepare")
}
