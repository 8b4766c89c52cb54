//! Model-based test: random writes, row/prefix/range/partition deletes and key-restricted
//! SELECTs through the driver, each read compared with a naive in-memory model of the table.
//! The table mixes clustering directions (`c1 DESC, c2 ASC`) so slices, tuple relations and
//! reversed reads are all exercised.

use std::collections::BTreeMap;

use futures::TryStreamExt;
use integration_tests::{session_in, TestServer};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use scylla::client::session::Session;
use scylla::statement::prepared::PreparedStatement;

/// A row key: partition `k`, clustering `(c1, c2)`.
type Key = (i32, i32, String);

#[derive(Debug, Clone)]
enum Step {
    Insert(Key, i32),
    Update(Key, i32),
    DeleteRow(Key),
    DeletePrefix(i32, i32),
    /// `DELETE ... WHERE k = ? AND c1 > ? AND c1 <= ?`
    DeleteRange(i32, i32, i32),
    DeletePartition(i32),
    Read(Query),
}

#[derive(Debug, Clone)]
enum Query {
    Partition(i32),
    /// `k = ? AND c1 = ? AND c2 >= ?`
    PrefixSlice(i32, i32, String),
    /// `k IN (?, ?) AND c1 > ? AND c1 < ?`
    InSlice(i32, i32, i32, i32),
    /// `k = ? AND (c1, c2) > (?, ?)`
    Tuple(i32, i32, String),
    /// `k = ? ORDER BY c1 ASC, c2 DESC`
    Reversed(i32),
    /// `k = ?` read in pages of the given size.
    Paged(i32, i32),
    /// Whole table with `PER PARTITION LIMIT n`, paged by 3.
    PerPartition(i32),
}

fn key() -> impl Strategy<Value = Key> {
    (0..4, 0..5, prop::sample::select(vec!["a", "aa", "b", "c"]))
        .prop_map(|(k, c1, c2)| (k, c1, c2.to_string()))
}

fn c2() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["", "a", "ab", "b", "d"]).prop_map(str::to_string)
}

fn step() -> impl Strategy<Value = Step> {
    let query = prop_oneof![
        (0..4).prop_map(Query::Partition),
        (0..4, 0..5, c2()).prop_map(|(k, c1, c2)| Query::PrefixSlice(k, c1, c2)),
        (0..4, 0..4, -1..5, 0..6).prop_map(|(a, b, lo, hi)| Query::InSlice(a, b, lo, hi)),
        (0..4, 0..5, c2()).prop_map(|(k, c1, c2)| Query::Tuple(k, c1, c2)),
        (0..4).prop_map(Query::Reversed),
        (0..4, 1..5).prop_map(|(k, n)| Query::Paged(k, n)),
        (1..4).prop_map(Query::PerPartition),
    ];
    prop_oneof![
        4 => (key(), any::<i32>()).prop_map(|(k, v)| Step::Insert(k, v)),
        2 => (key(), any::<i32>()).prop_map(|(k, v)| Step::Update(k, v)),
        1 => key().prop_map(Step::DeleteRow),
        1 => (0..4, 0..5).prop_map(|(k, c1)| Step::DeletePrefix(k, c1)),
        1 => (0..4, -1..5, 0..6).prop_map(|(k, lo, hi)| Step::DeleteRange(k, lo, hi)),
        1 => (0..4).prop_map(Step::DeletePartition),
        4 => query.prop_map(Step::Read),
    ]
}

/// The in-memory model: rows by key.
#[derive(Default)]
struct Model {
    rows: BTreeMap<Key, i32>,
}

type Row = (i32, i32, String, i32);

impl Model {
    fn apply(&mut self, step: &Step) {
        match step {
            Step::Insert(key, v) | Step::Update(key, v) => {
                self.rows.insert(key.clone(), *v);
            }
            Step::DeleteRow(key) => {
                self.rows.remove(key);
            }
            Step::DeletePrefix(k, c1) => {
                self.rows.retain(|(rk, rc1, _), _| !(rk == k && rc1 == c1))
            }
            Step::DeleteRange(k, lo, hi) => self
                .rows
                .retain(|(rk, rc1, _), _| !(rk == k && rc1 > lo && rc1 <= hi)),
            Step::DeletePartition(k) => self.rows.retain(|(rk, _, _), _| rk != k),
            Step::Read(_) => {}
        }
    }

    /// Partition `k` in clustering order: `c1` descending, then `c2` ascending.
    fn partition(&self, k: i32) -> Vec<Row> {
        let mut rows: Vec<Row> = self
            .rows
            .iter()
            .filter(|((rk, _, _), _)| *rk == k)
            .map(|((rk, c1, c2), v)| (*rk, *c1, c2.clone(), *v))
            .collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.2.cmp(&b.2)));
        rows
    }

    fn expected(&self, query: &Query) -> Vec<Row> {
        match query {
            Query::Partition(k) | Query::Paged(k, _) => self.partition(*k),
            Query::PrefixSlice(k, c1, c2) => self
                .partition(*k)
                .into_iter()
                .filter(|r| r.1 == *c1 && r.2 >= *c2)
                .collect(),
            Query::InSlice(a, b, lo, hi) => {
                let mut keys = vec![*a, *b];
                keys.sort();
                keys.dedup();
                keys.iter()
                    .flat_map(|&k| self.partition(k))
                    .filter(|r| r.1 > *lo && r.1 < *hi)
                    .collect()
            }
            Query::Tuple(k, c1, c2) => self
                .partition(*k)
                .into_iter()
                .filter(|r| r.1 > *c1 || (r.1 == *c1 && r.2 > *c2))
                .collect(),
            Query::Reversed(k) => {
                let mut rows = self.partition(*k);
                rows.reverse();
                rows
            }
            Query::PerPartition(_) => Vec::new(),
        }
    }
}

struct Statements {
    insert: PreparedStatement,
    update: PreparedStatement,
    delete_row: PreparedStatement,
    delete_prefix: PreparedStatement,
    delete_range: PreparedStatement,
    delete_partition: PreparedStatement,
    partition: PreparedStatement,
    prefix_slice: PreparedStatement,
    in_slice: PreparedStatement,
    tuple: PreparedStatement,
    reversed: PreparedStatement,
    per_partition: PreparedStatement,
}

impl Statements {
    async fn prepare(session: &Session) -> Statements {
        let p = |cql: &'static str| async move { session.prepare(cql).await.expect(cql) };
        let select = "SELECT k, c1, c2, v FROM m WHERE";
        Statements {
            insert: p("INSERT INTO m (k, c1, c2, v) VALUES (?, ?, ?, ?)").await,
            update: p("UPDATE m SET v = ? WHERE k = ? AND c1 = ? AND c2 = ?").await,
            delete_row: p("DELETE FROM m WHERE k = ? AND c1 = ? AND c2 = ?").await,
            delete_prefix: p("DELETE FROM m WHERE k = ? AND c1 = ?").await,
            delete_range: p("DELETE FROM m WHERE k = ? AND c1 > ? AND c1 <= ?").await,
            delete_partition: p("DELETE FROM m WHERE k = ?").await,
            partition: session.prepare(format!("{select} k = ?")).await.unwrap(),
            prefix_slice: session
                .prepare(format!("{select} k = ? AND c1 = ? AND c2 >= ?"))
                .await
                .unwrap(),
            in_slice: session
                .prepare(format!("{select} k IN (?, ?) AND c1 > ? AND c1 < ?"))
                .await
                .unwrap(),
            tuple: session
                .prepare(format!("{select} k = ? AND (c1, c2) > (?, ?)"))
                .await
                .unwrap(),
            reversed: session
                .prepare(format!("{select} k = ? ORDER BY c1 ASC, c2 DESC"))
                .await
                .unwrap(),
            per_partition: p("SELECT k, c1, c2, v FROM m PER PARTITION LIMIT ?").await,
        }
    }
}

async fn all_pages(
    session: &Session,
    statement: &PreparedStatement,
    values: impl scylla::serialize::row::SerializeRow,
    page_size: i32,
) -> Vec<Row> {
    let mut statement = statement.clone();
    statement.set_page_size(page_size);
    session
        .execute_iter(statement, values)
        .await
        .expect("paged query")
        .rows_stream::<Row>()
        .expect("row types")
        .try_collect()
        .await
        .expect("pages")
}

async fn unpaged(
    session: &Session,
    statement: &PreparedStatement,
    values: impl scylla::serialize::row::SerializeRow,
) -> Vec<Row> {
    session
        .execute_unpaged(statement, values)
        .await
        .expect("query")
        .into_rows_result()
        .expect("rows")
        .rows::<Row>()
        .expect("row types")
        .map(|r| r.expect("row"))
        .collect()
}

async fn run_step(session: &Session, st: &Statements, step: &Step) -> Option<Vec<Row>> {
    match step {
        Step::Insert((k, c1, c2), v) => {
            session
                .execute_unpaged(&st.insert, (k, c1, c2, v))
                .await
                .expect("insert");
        }
        Step::Update((k, c1, c2), v) => {
            session
                .execute_unpaged(&st.update, (v, k, c1, c2))
                .await
                .expect("update");
        }
        Step::DeleteRow((k, c1, c2)) => {
            session
                .execute_unpaged(&st.delete_row, (k, c1, c2))
                .await
                .expect("delete row");
        }
        Step::DeletePrefix(k, c1) => {
            session
                .execute_unpaged(&st.delete_prefix, (k, c1))
                .await
                .expect("delete prefix");
        }
        Step::DeleteRange(k, lo, hi) => {
            session
                .execute_unpaged(&st.delete_range, (k, lo, hi))
                .await
                .expect("delete range");
        }
        Step::DeletePartition(k) => {
            session
                .execute_unpaged(&st.delete_partition, (k,))
                .await
                .expect("delete partition");
        }
        Step::Read(query) => {
            return Some(match query {
                Query::Partition(k) => unpaged(session, &st.partition, (k,)).await,
                Query::PrefixSlice(k, c1, c2) => {
                    unpaged(session, &st.prefix_slice, (k, c1, c2)).await
                }
                Query::InSlice(a, b, lo, hi) => {
                    unpaged(session, &st.in_slice, (a, b, lo, hi)).await
                }
                Query::Tuple(k, c1, c2) => unpaged(session, &st.tuple, (k, c1, c2)).await,
                Query::Reversed(k) => unpaged(session, &st.reversed, (k,)).await,
                Query::Paged(k, n) => all_pages(session, &st.partition, (k,), *n).await,
                Query::PerPartition(n) => all_pages(session, &st.per_partition, (n,), 3).await,
            })
        }
    }
    None
}

/// Checks a whole-table `PER PARTITION LIMIT n` read: partitions contiguous, each the model's
/// first `n` rows.
fn check_per_partition(model: &Model, n: i32, got: &[Row]) -> Result<(), TestCaseError> {
    let mut by_partition: Vec<(i32, Vec<Row>)> = Vec::new();
    for row in got {
        match by_partition.last_mut() {
            Some((k, rows)) if *k == row.0 => rows.push(row.clone()),
            _ => by_partition.push((row.0, vec![row.clone()])),
        }
    }
    let mut seen: Vec<i32> = by_partition.iter().map(|(k, _)| *k).collect();
    seen.sort();
    let before = seen.len();
    seen.dedup();
    prop_assert_eq!(before, seen.len(), "partitions are contiguous");
    let limit = usize::try_from(n).unwrap_or(0);
    for k in 0..4 {
        let expected: Vec<Row> = model.partition(k).into_iter().take(limit).collect();
        let actual = by_partition
            .iter()
            .find(|(pk, _)| *pk == k)
            .map(|(_, rows)| rows.clone())
            .unwrap_or_default();
        prop_assert_eq!(actual, expected, "partition {}", k);
    }
    Ok(())
}

#[test]
fn random_operations_read_back_as_the_model_says() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (server, session, statements) = runtime.block_on(async {
        let server = TestServer::start().await;
        let session = session_in(&server, "ks").await;
        session
            .query_unpaged(
                "CREATE TABLE m (k int, c1 int, c2 text, v int, PRIMARY KEY (k, c1, c2)) \
                 WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)",
                &[],
            )
            .await
            .expect("create table");
        let statements = Statements::prepare(&session).await;
        (server, session, statements)
    });
    let mut runner = TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = prop::collection::vec(step(), 1..60);
    let result = runner.run(&strategy, |steps| {
        runtime.block_on(async {
            // Start every case from an empty table.
            for k in 0..4 {
                run_step(&session, &statements, &Step::DeletePartition(k)).await;
            }
            let mut model = Model::default();
            for step in &steps {
                model.apply(step);
                let Some(got) = run_step(&session, &statements, step).await else {
                    continue;
                };
                match step {
                    Step::Read(Query::PerPartition(n)) => check_per_partition(&model, *n, &got)?,
                    Step::Read(query) => {
                        prop_assert_eq!(got, model.expected(query), "{:?}", query)
                    }
                    _ => {}
                }
            }
            Ok(())
        })
    });
    runtime.block_on(server.stop());
    if let Err(err) = result {
        panic!("{err}");
    }
}
