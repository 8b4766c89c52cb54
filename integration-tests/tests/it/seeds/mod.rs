//! The seed scenarios of the planner issue: every example with a CQL meaning in the documents
//! the project grew from (`shared/seeds/`: Oracle NoSQL, Alibaba Table Store, Huawei GeminiDB,
//! Iguazio), run through the scylla driver. The mapping is the one the seeds' README gives: the
//! shard/partition/sharding key is the CQL partition key, the sorting key is the clustering
//! columns, and a partial key is a left prefix of the primary key.
//!
//! Rows from several partitions read with `IN` are compared after sorting client-side: the order
//! Cassandra gives them is the planner's "IN ordering rules", a separate open item.

mod alibaba;
mod geminidb;
mod iguazio;
mod oracle;

use integration_tests::query_error;
use scylla::client::session::Session;
use scylla::deserialize::row::DeserializeRow;
use scylla::errors::DbError;
use scylla::serialize::row::SerializeRow;
use scylla::statement::prepared::PreparedStatement;

/// The Cassandra message for a query that would need ALLOW FILTERING.
const ALLOW_FILTERING: &str = "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING";

/// Runs each statement in order (DDL and literal writes); panics on the first error.
async fn run_all(session: &Session, statements: &[&str]) {
    for cql in statements {
        session
            .query_unpaged(*cql, &[])
            .await
            .unwrap_or_else(|e| panic!("{cql}: {e}"));
    }
}

/// Prepares `cql`; panics on error.
async fn prepare(session: &Session, cql: &str) -> PreparedStatement {
    session
        .prepare(cql)
        .await
        .unwrap_or_else(|e| panic!("prepare {cql}: {e}"))
}

/// Executes a prepared write (or any statement whose result is not read).
async fn write(session: &Session, prepared: &PreparedStatement, values: impl SerializeRow) {
    session
        .execute_unpaged(prepared, values)
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", prepared.get_statement()));
}

/// Every row of a prepared statement executed unpaged, deserialized as `R`.
async fn rows<R>(
    session: &Session,
    prepared: &PreparedStatement,
    values: impl SerializeRow,
) -> Vec<R>
where
    R: for<'frame> DeserializeRow<'frame, 'frame>,
{
    let result = session
        .execute_unpaged(prepared, values)
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", prepared.get_statement()));
    let result = result.into_rows_result().expect("rows result");
    let typed = result.rows::<R>().expect("row types");
    typed.map(|row| row.expect("row")).collect()
}

/// Asserts that `cql` is rejected as Invalid (0x2200) with exactly `message`.
async fn assert_invalid(session: &Session, cql: &str, message: &str) {
    assert_eq!(
        query_error(session, cql).await,
        (DbError::Invalid, message.to_string()),
        "{cql}"
    );
}

/// A small stable string hash (32-bit FNV-1a) for the client-side prefixes and buckets the
/// documents compute with MD5 or xxHash; the server never sees the function, only its output.
fn hash(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// `rows` (each partition's already in clustering order) in the order a whole-table scan returns
/// them: by the Murmur3 token of the partition key whose components `partition_key` gives.
fn in_token_order<T>(mut rows: Vec<T>, partition_key: impl Fn(&T) -> Vec<&str>) -> Vec<T> {
    // A stable sort keeps each partition's rows in their clustering order.
    rows.sort_by_key(|row| {
        let components: Vec<&[u8]> = partition_key(row).into_iter().map(str::as_bytes).collect();
        storage::token_of(&components)
    });
    rows
}

/// `rows`, sorted: for reads whose order across partitions is not under test.
fn sorted<T: Ord>(mut rows: Vec<T>) -> Vec<T> {
    rows.sort();
    rows
}
