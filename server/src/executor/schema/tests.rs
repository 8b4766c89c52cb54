//! Unit tests of applying schema changes, below the handler: statements run by
//! [`schema::execute`] (TRUNCATE by [`schema::truncate`]) on an in-memory node. What a change did is
//! read back from the installed schema and its version, the events a registered connection
//! receives, the warnings the request sends, and rows written and read through the executor.
//! Planning itself is tested by printed plans in `planner/ddl/tests.rs`.

use std::sync::Arc;

use cql::frame::response::{Event, ResultBody, SchemaChange, SchemaChangeTarget, SchemaChangeType};
use cql::statement::ast::Statement;
use tokio::sync::broadcast;
use uuid::Uuid;

use crate::config::Config;
use crate::error::CqlResult;
use crate::executor::write::test_node::{parse, render, ONE};
use crate::executor::{schema, ExecOptions};
use crate::node::Node;
use crate::transport::session::Session;

const KEYSPACE: &str =
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}";
const TABLE: &str = "CREATE TABLE t (k int, c int, v text, PRIMARY KEY (k, c))";
const VIEW: &str = "CREATE MATERIALIZED VIEW mv AS SELECT * FROM t WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, k, c)";
/// Cassandra's `View.USAGE_WARNING`.
const VIEW_WARNING: &str =
    "Materialized views are experimental and are not recommended for production use.";

/// An in-memory node with keyspace `ks`, a session to run statements with, and a listener
/// subscribed to the node's events as a REGISTERed connection is (it starts after `ks`).
struct DdlNode {
    node: Arc<Node>,
    session: Arc<Session>,
    events: broadcast::Receiver<Event>,
}

impl Drop for DdlNode {
    fn drop(&mut self) {
        self.node.close();
    }
}

impl DdlNode {
    /// A node with the default configuration (materialized views disabled).
    async fn new() -> DdlNode {
        DdlNode::open(Config::default()).await
    }

    /// A node with `materialized_views_enabled`.
    async fn with_views() -> DdlNode {
        DdlNode::open(Config {
            materialized_views_enabled: true,
            ..Config::default()
        })
        .await
    }

    async fn open(config: Config) -> DdlNode {
        let node = Arc::new(Node::open(config).expect("an in-memory node"));
        let addr = "127.0.0.1:9042".parse().expect("an address");
        let session = Arc::new(Session::new(addr, addr));
        schema::execute(&node, &parse(KEYSPACE), None)
            .await
            .expect("keyspace ks");
        let events = node.events().subscribe();
        DdlNode {
            node,
            session,
            events,
        }
    }

    /// Runs a schema statement in keyspace `ks`.
    async fn apply(&self, text: &str) -> CqlResult<ResultBody> {
        schema::execute(&self.node, &parse(text), Some("ks")).await
    }

    /// Runs a schema statement in keyspace `ks` inside a request's warning scope: its result
    /// and the warnings the request would send.
    async fn apply_warned(&self, text: &str) -> (CqlResult<ResultBody>, Vec<String>) {
        let statement = parse(text);
        crate::telemetry::warnings::collect(schema::execute(&self.node, &statement, Some("ks")))
            .await
    }

    /// Runs a schema statement that must succeed.
    async fn ddl(&self, text: &str) -> ResultBody {
        self.apply(text)
            .await
            .unwrap_or_else(|err| panic!("{text}: {err}"))
    }

    /// The message of the error a schema statement fails with.
    async fn error(&self, text: &str) -> String {
        match self.apply(text).await {
            Ok(body) => panic!("{text} succeeded: {body:?}"),
            Err(err) => err.to_string(),
        }
    }

    /// Runs `TRUNCATE ...` in keyspace `ks`.
    async fn truncate(&self, text: &str) -> CqlResult<ResultBody> {
        let Statement::Truncate(name) = parse(text) else {
            panic!("not a TRUNCATE: {text}");
        };
        schema::truncate(&self.node, &name, Some("ks")).await
    }

    /// A statement run through the executor at consistency ONE, its result rendered.
    async fn try_cql(&self, text: &str) -> CqlResult<Vec<String>> {
        let statement = parse(text);
        let options = ExecOptions {
            consistency: ONE,
            ..ExecOptions::default()
        };
        let body = crate::executor::run::execute_text(
            &self.node,
            &self.session,
            statement,
            Some("ks"),
            options,
        )
        .await?;
        Ok(render(&body))
    }

    /// A statement run through the executor that must succeed, its result rendered.
    async fn cql(&self, text: &str) -> Vec<String> {
        self.try_cql(text)
            .await
            .unwrap_or_else(|err| panic!("{text}: {err}"))
    }

    /// The current schema version.
    fn version(&self) -> Uuid {
        self.node.schema().version
    }

    /// The events the listener received since last asked.
    fn events(&mut self) -> Vec<Event> {
        std::iter::from_fn(|| self.events.try_recv().ok()).collect()
    }

    /// Whether `ks.<table>` is in the installed schema.
    fn has_table(&self, table: &str) -> bool {
        self.node.schema().table("ks", table).is_some()
    }
}

/// A SCHEMA_CHANGE of `change` on `target`.
fn change(change: SchemaChangeType, target: SchemaChangeTarget) -> SchemaChange {
    SchemaChange { change, target }
}

/// The target `TABLE ks <table>`.
fn table(table: &str) -> SchemaChangeTarget {
    SchemaChangeTarget::Table {
        keyspace: "ks".into(),
        table: table.into(),
    }
}

/// The SCHEMA_CHANGE result of `change` on `target`.
fn changed(kind: SchemaChangeType, target: SchemaChangeTarget) -> ResultBody {
    ResultBody::SchemaChange(change(kind, target))
}

use SchemaChangeType::{Created, Dropped, Updated};

#[tokio::test]
async fn create_keyspace_and_table_install_the_schema_and_storage_takes_rows() {
    let mut test = DdlNode::new().await;
    let keyspace = "CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}";
    assert_eq!(
        test.ddl(keyspace).await,
        changed(
            Created,
            SchemaChangeTarget::Keyspace {
                keyspace: "ks2".into()
            }
        )
    );
    assert!(test.node.schema().keyspace("ks2").is_some());
    let created = test
        .ddl("CREATE TABLE ks2.t (k int PRIMARY KEY, v text)")
        .await;
    let target = SchemaChangeTarget::Table {
        keyspace: "ks2".into(),
        table: "t".into(),
    };
    assert_eq!(created, changed(Created, target.clone()));
    let def = test
        .node
        .schema()
        .table("ks2", "t")
        .expect("table ks2.t")
        .def;
    let columns: Vec<&str> = def.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(columns, ["k", "v"]);
    assert_eq!(
        test.cql("INSERT INTO ks2.t (k, v) VALUES (1, 'one')").await,
        ["Void"]
    );
    assert_eq!(
        test.cql("SELECT k, v FROM ks2.t").await,
        ["k | v", "1 | 'one'"]
    );
    assert_eq!(
        test.events(),
        [
            Event::SchemaChange(change(
                Created,
                SchemaChangeTarget::Keyspace {
                    keyspace: "ks2".into()
                }
            )),
            Event::SchemaChange(change(Created, target)),
        ]
    );
}

#[tokio::test]
async fn if_not_exists_on_an_existing_table_is_void_and_changes_nothing() {
    let mut test = DdlNode::new().await;
    test.ddl(TABLE).await;
    test.events();
    let version = test.version();
    let before = test.node.schema().table("ks", "t").expect("table t").def;
    assert_eq!(
        test.ddl("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY, other int)")
            .await,
        ResultBody::Void
    );
    assert_eq!(test.version(), version);
    assert_eq!(test.events(), []);
    let after = test.node.schema().table("ks", "t").expect("table t").def;
    assert_eq!(after, before);
    assert_eq!(
        test.ddl("DROP TABLE IF EXISTS nope").await,
        ResultBody::Void
    );
    assert_eq!(
        test.ddl("DROP INDEX IF EXISTS nope").await,
        ResultBody::Void
    );
    assert_eq!(test.version(), version);
    assert_eq!(test.events(), []);
}

#[tokio::test]
async fn every_effective_change_is_answered_and_broadcast_once() {
    let mut test = DdlNode::new().await;
    let statements = [
        (TABLE, change(Created, table("t"))),
        ("ALTER TABLE t ADD w int", change(Updated, table("t"))),
        ("CREATE INDEX t_v ON t (v)", change(Updated, table("t"))),
        ("DROP INDEX t_v", change(Updated, table("t"))),
        ("DROP TABLE t", change(Dropped, table("t"))),
    ];
    for (statement, expected) in statements {
        assert_eq!(
            test.ddl(statement).await,
            ResultBody::SchemaChange(expected.clone()),
            "{statement}"
        );
        assert_eq!(
            test.events(),
            [Event::SchemaChange(expected)],
            "{statement}"
        );
    }
}

#[tokio::test]
async fn table_changes_change_the_schema_version() {
    let test = DdlNode::new().await;
    let empty = test.version();
    test.ddl(TABLE).await;
    let created = test.version();
    test.ddl("ALTER TABLE t ADD w int").await;
    let altered = test.version();
    assert_ne!(created, empty);
    assert_ne!(altered, created);
    assert_ne!(altered, empty);
    // A no-op keeps it.
    test.ddl("ALTER TABLE t ADD IF NOT EXISTS w int").await;
    assert_eq!(test.version(), altered);
    // The version is a digest of the schema: dropping what was created brings it back.
    test.ddl("DROP TABLE t").await;
    assert_eq!(test.version(), empty);
    // `schema::digest` covers keyspaces, tables and columns only: index and user-type
    // changes leave the version as it was. Not asserted, as Cassandra's version changes.
}

#[tokio::test]
async fn failed_changes_keep_cassandras_messages_and_change_nothing() {
    let mut test = DdlNode::new().await;
    test.ddl(TABLE).await;
    test.events();
    let version = test.version();
    assert_eq!(
        test.error("CREATE TABLE nope.t (k int PRIMARY KEY)").await,
        "Keyspace 'nope' doesn't exist"
    );
    assert_eq!(
        test.error("CREATE TABLE t (k int PRIMARY KEY)").await,
        "Cannot add already existing table \"t\" to keyspace \"ks\""
    );
    assert_eq!(
        test.error("ALTER TABLE t DROP k").await,
        "Cannot drop PRIMARY KEY column k"
    );
    assert_eq!(
        test.error("DROP KEYSPACE system").await,
        "system keyspace is not user-modifiable."
    );
    assert_eq!(test.version(), version);
    assert_eq!(test.events(), []);
    assert!(test.node.schema().keyspace("nope").is_none());
}

#[tokio::test]
async fn alter_table_add_takes_writes_to_the_new_column() {
    let test = DdlNode::new().await;
    test.ddl(TABLE).await;
    test.cql("INSERT INTO t (k, c, v) VALUES (1, 1, 'a')").await;
    assert_eq!(
        test.ddl("ALTER TABLE t ADD w int").await,
        changed(Updated, table("t"))
    );
    test.cql("INSERT INTO t (k, c, w) VALUES (1, 2, 20)").await;
    assert_eq!(
        test.cql("SELECT * FROM t").await,
        ["k | c | v | w", "1 | 1 | 'a' | null", "1 | 2 | null | 20"]
    );
}

#[tokio::test]
async fn drop_table_removes_its_data() {
    let test = DdlNode::new().await;
    test.ddl(TABLE).await;
    test.cql("INSERT INTO t (k, c, v) VALUES (1, 1, 'a')").await;
    assert_eq!(
        test.cql("SELECT k, c, v FROM t").await,
        ["k | c | v", "1 | 1 | 'a'"]
    );
    assert_eq!(test.ddl("DROP TABLE t").await, changed(Dropped, table("t")));
    assert!(!test.has_table("t"));
    let error = test.try_cql("SELECT * FROM t").await.expect_err("no table");
    assert_eq!(error.to_string(), "table t does not exist");
    test.ddl(TABLE).await;
    assert_eq!(test.cql("SELECT k, c, v FROM t").await, ["k | c | v"]);
}

#[tokio::test]
async fn drop_keyspace_removes_its_tables_and_their_data() {
    let mut test = DdlNode::new().await;
    test.ddl(TABLE).await;
    test.cql("INSERT INTO t (k, c, v) VALUES (1, 1, 'a')").await;
    test.events();
    assert_eq!(
        test.ddl("DROP KEYSPACE ks").await,
        changed(
            Dropped,
            SchemaChangeTarget::Keyspace {
                keyspace: "ks".into()
            }
        )
    );
    assert_eq!(
        test.events(),
        [Event::SchemaChange(change(
            Dropped,
            SchemaChangeTarget::Keyspace {
                keyspace: "ks".into()
            }
        ))]
    );
    assert!(test.node.schema().keyspace("ks").is_none());
    assert!(!test.has_table("t"));
    assert_eq!(
        test.error("DROP KEYSPACE ks").await,
        "Keyspace 'ks' doesn't exist"
    );
    test.ddl(KEYSPACE).await;
    test.ddl(TABLE).await;
    assert_eq!(test.cql("SELECT k, c, v FROM t").await, ["k | c | v"]);
}

#[tokio::test]
async fn create_index_indexes_the_rows_already_written() {
    let test = DdlNode::new().await;
    test.ddl(TABLE).await;
    test.cql("INSERT INTO t (k, c, v) VALUES (1, 1, 'a')").await;
    test.cql("INSERT INTO t (k, c, v) VALUES (2, 1, 'b')").await;
    assert_eq!(
        test.ddl("CREATE INDEX t_v ON t (v)").await,
        changed(Updated, table("t"))
    );
    let def = test.node.schema().table("ks", "t").expect("table t").def;
    let indexes: Vec<&str> = def.indexes.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(indexes, ["t_v"]);
    assert_eq!(
        test.cql("SELECT k, c, v FROM t WHERE v = 'b'").await,
        ["k | c | v", "2 | 1 | 'b'"]
    );
    // Rows written after the index are found too.
    test.cql("INSERT INTO t (k, c, v) VALUES (3, 1, 'b')").await;
    assert_eq!(
        test.cql("SELECT k FROM t WHERE v = 'b'").await,
        ["k", "2", "3"]
    );
}

#[tokio::test]
async fn user_types_are_created_used_and_dropped() {
    let mut test = DdlNode::new().await;
    let point = SchemaChangeTarget::Type {
        keyspace: "ks".into(),
        name: "point".into(),
    };
    assert_eq!(
        test.ddl("CREATE TYPE point (x int, y int)").await,
        changed(Created, point.clone())
    );
    let schema = test.node.schema();
    let def = schema.keyspace("ks").and_then(|ks| ks.types.get("point"));
    let fields: Vec<&str> = def
        .expect("type point")
        .fields
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(fields, ["x", "y"]);
    test.ddl("CREATE TABLE places (k int PRIMARY KEY, p frozen<point>)")
        .await;
    test.cql("INSERT INTO places (k, p) VALUES (1, {x: 1, y: 2})")
        .await;
    assert_eq!(
        test.cql("SELECT k, p FROM places").await,
        ["k | p", "1 | {x: 1, y: 2}"]
    );
    assert_eq!(
        test.error("DROP TYPE point").await,
        "Cannot drop user type 'ks.point' as it is still used by tables places"
    );
    test.ddl("DROP TABLE places").await;
    test.events();
    assert_eq!(
        test.ddl("DROP TYPE point").await,
        changed(Dropped, point.clone())
    );
    assert_eq!(test.events(), [Event::SchemaChange(change(Dropped, point))]);
    let schema = test.node.schema();
    assert!(schema
        .keyspace("ks")
        .is_some_and(|ks| !ks.types.contains_key("point")));
}

#[tokio::test]
async fn materialized_views_are_built_over_existing_rows_and_warn() {
    let test = DdlNode::with_views().await;
    test.ddl(TABLE).await;
    test.cql("INSERT INTO t (k, c, v) VALUES (1, 1, 'b')").await;
    test.cql("INSERT INTO t (k, c, v) VALUES (2, 1, 'a')").await;
    let (result, warnings) = test.apply_warned(VIEW).await;
    assert_eq!(
        result.expect("the view is created"),
        changed(Created, table("mv"))
    );
    assert_eq!(warnings, [VIEW_WARNING]);
    assert!(test.has_table("mv"));
    assert_eq!(
        test.cql("SELECT v, k, c FROM mv").await,
        ["v | k | c", "'a' | 2 | 1", "'b' | 1 | 1"]
    );
    // Writes to the base after the view is built reach it too.
    test.cql("INSERT INTO t (k, c, v) VALUES (3, 1, 'a')").await;
    assert_eq!(
        test.cql("SELECT k FROM mv WHERE v = 'a'").await,
        ["k", "2", "3"]
    );
    // A no-op sends no warning; a plain table none either.
    let if_not_exists = VIEW.replace("VIEW mv", "VIEW IF NOT EXISTS mv");
    let (result, warnings) = test.apply_warned(&if_not_exists).await;
    assert_eq!(result.expect("a no-op"), ResultBody::Void);
    assert_eq!(warnings, Vec::<String>::new());
    let (_, warnings) = test
        .apply_warned("CREATE TABLE u (k int PRIMARY KEY)")
        .await;
    assert_eq!(warnings, Vec::<String>::new());
}

#[tokio::test]
async fn materialized_views_are_refused_when_disabled() {
    let mut test = DdlNode::new().await;
    test.ddl(TABLE).await;
    test.events();
    let version = test.version();
    let (result, warnings) = test.apply_warned(VIEW).await;
    let error = result.expect_err("views are disabled");
    assert_eq!(
        error.to_string(),
        "Materialized views are disabled. Enable in cassandra.yaml to use."
    );
    assert_eq!(warnings, Vec::<String>::new());
    assert!(!test.has_table("mv"));
    assert_eq!(test.version(), version);
    assert_eq!(test.events(), []);
}

#[tokio::test]
async fn truncate_empties_a_table_and_its_views() {
    let mut test = DdlNode::with_views().await;
    test.ddl(TABLE).await;
    test.ddl(VIEW).await;
    test.cql("INSERT INTO t (k, c, v) VALUES (1, 1, 'a')").await;
    test.cql("INSERT INTO t (k, c, v) VALUES (2, 1, 'b')").await;
    test.events();
    let version = test.version();
    assert_eq!(
        test.truncate("TRUNCATE t").await.expect("truncated"),
        ResultBody::Void
    );
    assert_eq!(test.cql("SELECT k FROM t").await, ["k"]);
    assert_eq!(test.cql("SELECT k FROM mv").await, ["k"]);
    // The schema is unchanged and nothing is announced.
    assert_eq!(test.version(), version);
    assert_eq!(test.events(), []);
    assert!(test.has_table("t"));
    test.cql("INSERT INTO t (k, c, v) VALUES (3, 1, 'c')").await;
    assert_eq!(test.cql("SELECT k, v FROM mv").await, ["k | v", "3 | 'c'"]);
}

#[tokio::test]
async fn truncate_refuses_views_and_system_tables() {
    let test = DdlNode::with_views().await;
    test.ddl(TABLE).await;
    test.ddl(VIEW).await;
    test.cql("INSERT INTO t (k, c, v) VALUES (1, 1, 'a')").await;
    let refused = |result: CqlResult<ResultBody>| match result {
        Ok(body) => panic!("truncated: {body:?}"),
        Err(err) => err.to_string(),
    };
    assert_eq!(
        refused(test.truncate("TRUNCATE mv").await),
        "Cannot TRUNCATE materialized view directly; must truncate base table instead"
    );
    assert_eq!(
        refused(test.truncate("TRUNCATE system.local").await),
        "System keyspace 'system' is not user-modifiable"
    );
    assert_eq!(
        refused(test.truncate("TRUNCATE nope").await),
        "table nope does not exist"
    );
    // Nothing was removed.
    assert_eq!(test.cql("SELECT k FROM mv").await, ["k", "1"]);
}

#[tokio::test]
async fn concurrent_creates_of_one_table_are_serialized() {
    let mut test = DdlNode::new().await;
    let create = "CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY, v int)";
    let (first, second) = tokio::join!(test.apply(create), test.apply(create));
    let mut results = [first.expect("first create"), second.expect("second create")];
    results.sort_by_key(|body| matches!(body, ResultBody::Void));
    assert_eq!(results, [changed(Created, table("t")), ResultBody::Void]);
    assert_eq!(
        test.events(),
        [Event::SchemaChange(change(Created, table("t")))]
    );
    // Without IF NOT EXISTS the second sees the first's table and fails.
    let create = "CREATE TABLE u (k int PRIMARY KEY)";
    let (first, second) = tokio::join!(test.apply(create), test.apply(create));
    let mut outcomes = [first, second].map(|result| match result {
        Ok(body) => format!("{body:?}"),
        Err(err) => err.to_string(),
    });
    outcomes.sort();
    assert_eq!(
        outcomes,
        [
            "Cannot add already existing table \"u\" to keyspace \"ks\"".to_string(),
            format!("{:?}", changed(Created, table("u"))),
        ]
    );
}
