//! What the executor's unit tests share: an in-memory node with a session ([`TestNode`]),
//! statements parsed and bound values made, results rendered as text.
//!
//! Used by the write tests (`modify_tests.rs`), the lightweight-transaction tests
//! (`cas/tests.rs`) and the schema tests (`schema/tests.rs`).

use std::sync::Arc;

use bytes::Bytes;
use cql::frame::request::Value;
use cql::frame::response::ResultBody;
use cql::statement::ast::Statement;
use cql::types::codec;
use storage::{Cell, CellValue, ColumnId, Expiry, StoredRow, TableDef};

use crate::config::Config;
use crate::error::CqlResult;
use crate::eval::values::EvalContext;
use crate::executor::write::modify;
use crate::executor::ExecOptions;
use crate::node::Node;
use crate::planner::modify::ModifyPlan;
use crate::planner::plan::{plan_statement, StatementPlan};
use crate::transport::session::Session;

/// A fixed "now" for writes whose TTL or deletion time a test asserts.
pub(crate) const NOW_MICROS: i64 = 1_700_000_000_000_000;
/// [`NOW_MICROS`] in seconds.
pub(crate) const NOW_SECONDS: i64 = 1_700_000_000;

/// Consistency ONE, the protocol's code.
pub(crate) const ONE: u16 = 0x0001;

/// An in-memory node with keyspace `ks` and the tables a test needs, and a session to read
/// through the executor with.
pub(crate) struct TestNode {
    pub(crate) node: Arc<Node>,
    session: Arc<Session>,
}

impl Drop for TestNode {
    fn drop(&mut self) {
        self.node.close();
    }
}

/// A statement parsed, or the test fails.
pub(crate) fn parse(text: &str) -> Statement {
    cql::statement::parse_statement(text).unwrap_or_else(|err| panic!("{text}: {err}"))
}

/// An int bound value.
pub(crate) fn int(value: i32) -> Value {
    Value::Bytes(Bytes::copy_from_slice(&value.to_be_bytes()))
}

/// A bigint bound value.
pub(crate) fn bigint(value: i64) -> Value {
    Value::Bytes(Bytes::copy_from_slice(&value.to_be_bytes()))
}

/// An empty bound value (not null: zero bytes).
pub(crate) fn empty() -> Value {
    Value::Bytes(Bytes::new())
}

/// The serialized int `value`, as a cell or key holds it.
pub(crate) fn int_bytes(value: i32) -> Bytes {
    Bytes::copy_from_slice(&value.to_be_bytes())
}

/// A result as text: `void`, or the column names then one line per row, values as CQL
/// literals separated by ` | `.
pub(crate) fn render(body: &ResultBody) -> Vec<String> {
    let ResultBody::Rows(rows) = body else {
        return vec![format!("{body:?}")];
    };
    let columns = &rows.metadata.columns;
    let header = columns
        .iter()
        .map(|c| c.name.clone())
        .collect::<Vec<_>>()
        .join(" | ");
    let lines = rows.rows.iter().map(|row| {
        row.iter()
            .zip(columns.iter())
            .map(|(value, spec)| match value {
                None => "null".to_string(),
                Some(bytes) => match codec::deserialize_value(&spec.ty, bytes) {
                    Ok(value) => crate::telemetry::trace::literal::literal(&value),
                    Err(err) => format!("undecodable: {err}"),
                },
            })
            .collect::<Vec<_>>()
            .join(" | ")
    });
    std::iter::once(header).chain(lines).collect()
}

impl TestNode {
    /// A node with keyspace `ks` holding `tables` (CREATE TABLE statements).
    pub(crate) async fn with_tables(tables: &[&str]) -> TestNode {
        let node = Arc::new(Node::open(Config::default()).expect("an in-memory node"));
        let addr = "127.0.0.1:9042".parse().expect("an address");
        let session = Arc::new(Session::new(addr, addr));
        let test = TestNode { node, session };
        test.ddl("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
            .await;
        for table in tables {
            test.ddl(table).await;
        }
        test
    }

    /// The session statements run in.
    pub(crate) fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Runs a schema statement in keyspace `ks`.
    pub(crate) async fn ddl(&self, text: &str) {
        crate::executor::schema::execute(&self.node, &parse(text), Some("ks"))
            .await
            .unwrap_or_else(|err| panic!("{text}: {err}"));
    }

    /// The plan of an INSERT, UPDATE or DELETE, or the planner's error.
    pub(crate) fn plan(&self, query: &str) -> CqlResult<Arc<ModifyPlan>> {
        match plan_statement(&self.node.schema(), &parse(query), Some("ks"))? {
            StatementPlan::Modify(plan) => Ok(plan),
            _ => panic!("not a modification: {query}"),
        }
    }

    /// The definition of table `ks.<name>`.
    pub(crate) fn table(&self, name: &str) -> Arc<TableDef> {
        self.node
            .schema()
            .table("ks", name)
            .unwrap_or_else(|| panic!("no table {name}"))
            .def
    }

    /// Plans and runs a modification with `binds`, `options` and the request time `now`.
    pub(crate) async fn run(
        &self,
        query: &str,
        binds: &[Value],
        options: &ExecOptions,
        now_micros: i64,
    ) -> CqlResult<()> {
        let plan = self.plan(query)?;
        let ctx = EvalContext { binds, now_micros };
        modify::execute(&self.node, &plan, options, &ctx).await
    }

    /// Runs a modification now, with no bound values; it must succeed.
    pub(crate) async fn write(&self, query: &str) {
        let now = self.node.clock().now_micros();
        self.run(query, &[], &ExecOptions::default(), now)
            .await
            .unwrap_or_else(|err| panic!("{query}: {err}"));
    }

    /// The message of the error a modification with `binds` fails with.
    pub(crate) async fn error(&self, query: &str, binds: &[Value]) -> String {
        let now = self.node.clock().now_micros();
        match self.run(query, binds, &ExecOptions::default(), now).await {
            Ok(()) => panic!("{query} succeeded"),
            Err(err) => err.to_string(),
        }
    }

    /// A statement's result through the executor (at consistency ONE), rendered.
    pub(crate) async fn query(&self, query: &str) -> Vec<String> {
        let statement = parse(query);
        let options = ExecOptions {
            consistency: ONE,
            ..ExecOptions::default()
        };
        match crate::executor::run::execute_text(
            &self.node,
            &self.session,
            statement,
            Some("ks"),
            options,
        )
        .await
        {
            Ok(body) => render(&body),
            Err(err) => panic!("{query}: {err}"),
        }
    }

    /// The row stored under the int key values `partition` and `clustering` of `table`.
    pub(crate) fn stored(&self, table: &str, partition: &[i32], clustering: &[i32]) -> StoredRow {
        self.try_stored(table, partition, clustering)
            .unwrap_or_else(|| panic!("no row {partition:?} {clustering:?} in {table}"))
    }

    /// The row stored under the int key values, if there is one.
    pub(crate) fn try_stored(
        &self,
        table: &str,
        partition: &[i32],
        clustering: &[i32],
    ) -> Option<StoredRow> {
        let def = self.table(table);
        let pk: Vec<Bytes> = partition.iter().map(|&v| int_bytes(v)).collect();
        let ck: Vec<Bytes> = clustering.iter().map(|&v| int_bytes(v)).collect();
        let key = storage::row_key(&def, &pk, &ck).expect("a row key");
        let snapshot = self.node.store().snapshot().expect("a snapshot");
        snapshot.get(def.id, &key).expect("a read")
    }

    /// The id of column `column` of `table`.
    pub(crate) fn column(&self, table: &str, column: &str) -> ColumnId {
        let def = self.table(table);
        def.columns
            .iter()
            .find(|c| c.name == column)
            .unwrap_or_else(|| panic!("no column {column}"))
            .id
    }
}

/// A live simple cell holding the int `value`.
pub(crate) fn int_cell(value: i32, timestamp: i64, expiry: Option<Expiry>) -> Cell {
    Cell {
        timestamp,
        expiry,
        path: None,
        value: CellValue::Live(int_bytes(value)),
    }
}
