//! Reset and snapshots on an in-memory node, through the commands both doors run: data and
//! schema come back, the events the equivalent DDL would send go out, the caches follow.

use std::sync::Arc;

use cql::frame::response::{Event, SchemaChange, SchemaChangeTarget, SchemaChangeType};
use tokio::sync::broadcast;

use crate::config::Config;
use crate::control::command::{run, Command};
use crate::control::ControlError;
use crate::executor::write::test_node::{parse, render, ONE};
use crate::executor::ExecOptions;
use crate::node::prepared::{PlanCache, PreparedStatement};
use crate::node::Node;
use crate::planner::plan::StatementPlan;
use crate::transport::session::Session;

/// An in-memory node with the test controls and materialized views on, a session, and a
/// listener of its events.
struct ControlNode {
    node: Arc<Node>,
    session: Arc<Session>,
    events: broadcast::Receiver<Event>,
}

impl Drop for ControlNode {
    fn drop(&mut self) {
        self.node.close();
    }
}

impl ControlNode {
    fn new(config: Config) -> ControlNode {
        let config = Config {
            materialized_views_enabled: true,
            test_controls: Some(true),
            ..config
        };
        let node = Arc::new(Node::open(config).expect("an in-memory node"));
        let addr = "127.0.0.1:9042".parse().expect("an address");
        let events = node.events().subscribe();
        ControlNode {
            node,
            session: Arc::new(Session::new(addr, addr)),
            events,
        }
    }

    /// Runs a statement through the executor, its result rendered.
    async fn cql(&self, text: &str) -> Vec<String> {
        let options = ExecOptions {
            consistency: ONE,
            ..ExecOptions::default()
        };
        let result = crate::executor::run::execute_text(
            &self.node,
            &self.session,
            parse(text),
            None,
            options,
        )
        .await;
        render(&result.unwrap_or_else(|e| panic!("{text}: {e}")))
    }

    async fn command(&self, command: Command) -> Result<serde_json::Value, ControlError> {
        run(&self.node, command).await
    }

    /// The schema changes announced since last asked.
    fn changes(&mut self) -> Vec<SchemaChange> {
        let mut out = Vec::new();
        while let Ok(event) = self.events.try_recv() {
            if let Event::SchemaChange(change) = event {
                out.push(change);
            }
        }
        out
    }
}

fn table(change: SchemaChangeType, keyspace: &str, table: &str) -> SchemaChange {
    SchemaChange {
        change,
        target: SchemaChangeTarget::Table {
            keyspace: keyspace.into(),
            table: table.into(),
        },
    }
}

fn keyspace(change: SchemaChangeType, keyspace: &str) -> SchemaChange {
    SchemaChange {
        change,
        target: SchemaChangeTarget::Keyspace {
            keyspace: keyspace.into(),
        },
    }
}

const SCHEMA: &[&str] = &[
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    "CREATE TYPE ks.pair (a int, b text)",
    "CREATE TABLE ks.t (k int, c int, v text, p frozen<pair>, PRIMARY KEY (k, c))",
    "CREATE INDEX t_v ON ks.t (v)",
    "CREATE MATERIALIZED VIEW ks.mv AS SELECT * FROM ks.t WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, k, c)",
    "CREATE TABLE ks.counts (k int PRIMARY KEY, n counter)",
    "CREATE TABLE ks.gone (k int PRIMARY KEY)",
];

/// Every read a test compares before and after.
const READS: &[&str] = &[
    "SELECT k, c, v, p FROM ks.t",
    "SELECT k, c FROM ks.t WHERE v = 'b'",
    "SELECT v, k, c FROM ks.mv",
    "SELECT k, n FROM ks.counts",
    "SELECT k FROM ks.gone",
];

async fn reads(node: &ControlNode) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for text in READS {
        out.push(node.cql(text).await);
    }
    out
}

fn prepared(node: &Node) -> bytes::Bytes {
    let text = "SELECT * FROM ks.t";
    let id = crate::node::prepared::statement_id(None, text);
    node.prepared().insert(Arc::new(PreparedStatement {
        id: id.clone(),
        query: text.into(),
        keyspace: None,
        statement: Arc::new(parse(text)),
        bind: Default::default(),
        bind_names: Vec::new(),
        plan: PlanCache::new(node.schema(), StatementPlan::Unplanned),
        may_carry_password: false,
    }));
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restore_brings_data_and_schema_back_and_announces_the_ddl() {
    let mut n = ControlNode::new(Config::default());
    for text in SCHEMA {
        n.cql(text).await;
    }
    n.cql("INSERT INTO ks.t (k, c, v, p) VALUES (1, 1, 'a', {a: 1, b: 'x'})")
        .await;
    n.cql("INSERT INTO ks.t (k, c, v) VALUES (1, 2, 'b') USING TTL 1000")
        .await;
    n.cql("INSERT INTO ks.t (k, c, v) VALUES (2, 1, 'b')").await;
    n.cql("DELETE FROM ks.t WHERE k = 2 AND c > 5").await;
    n.cql("UPDATE ks.counts SET n = n + 3 WHERE k = 1").await;
    n.cql("INSERT INTO ks.gone (k) VALUES (9)").await;
    let before = reads(&n).await;
    assert_eq!(before[1].len(), 3, "the index finds both rows: {before:?}");
    let taken = n.command(Command::TakeSnapshot("s1".into())).await.unwrap();
    assert_eq!(taken["name"], "s1");
    assert_eq!(taken["keyspaces"], serde_json::json!(["ks"]));
    assert_eq!(taken["tables"], 4);
    n.changes();

    // Everything changes: rows, a table dropped, one altered, a keyspace added.
    n.cql("INSERT INTO ks.t (k, c, v) VALUES (3, 3, 'b')").await;
    n.cql("DELETE FROM ks.t WHERE k = 1").await;
    n.cql("UPDATE ks.counts SET n = n + 4 WHERE k = 1").await;
    n.cql("DROP TABLE ks.gone").await;
    n.cql("ALTER TABLE ks.counts WITH comment = 'changed'")
        .await;
    n.cql(
        "CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    )
    .await;
    n.cql("CREATE TABLE ks2.x (k int PRIMARY KEY)").await;
    let id = prepared(&n.node);
    n.changes();

    let restored = n
        .command(Command::RestoreSnapshot("s1".into()))
        .await
        .unwrap();
    assert_eq!(restored["name"], "s1");
    assert_eq!(reads(&n).await, before);
    use SchemaChangeType::{Created, Dropped, Updated};
    assert_eq!(
        n.changes(),
        [
            keyspace(Dropped, "ks2"),
            table(Updated, "ks", "counts"),
            table(Created, "ks", "gone"),
        ]
    );
    assert!(
        n.node.prepared().get(&id).is_none(),
        "prepared statements go"
    );

    // Restorable again, after more writes, any number of times.
    n.cql("INSERT INTO ks.gone (k) VALUES (10)").await;
    n.command(Command::RestoreSnapshot("s1".into()))
        .await
        .unwrap();
    assert_eq!(reads(&n).await, before);
    assert!(
        n.changes().is_empty(),
        "the same schema: nothing to announce"
    );
    let listed = n.command(Command::ListSnapshots).await.unwrap();
    assert_eq!(listed[0]["name"], "s1");
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_drops_keyspaces_and_roles_but_the_default_superuser() {
    let mut n = ControlNode::new(Config {
        authenticator: crate::config::Authenticator::Password,
        authorizer: crate::config::Authorizer::Cassandra,
        ..Config::default()
    });
    crate::executor::access::roles::ensure_default_role(&n.node)
        .await
        .unwrap();
    n.session
        .log_in(crate::auth::authenticator::DEFAULT_ROLE.into());
    for text in SCHEMA {
        n.cql(text).await;
    }
    n.cql("CREATE ROLE alice WITH PASSWORD = 'p' AND LOGIN = true")
        .await;
    n.cql("GRANT SELECT ON KEYSPACE ks TO alice").await;
    n.cql("INSERT INTO ks.t (k, c, v) VALUES (1, 1, 'a')").await;
    n.command(Command::TakeSnapshot("full".into()))
        .await
        .unwrap();
    let id = prepared(&n.node);
    n.changes();

    n.command(Command::Reset).await.unwrap();
    let schema = n.node.schema();
    assert!(schema.catalog.keyspaces.is_empty());
    assert_eq!(
        schema.catalog.roles.keys().collect::<Vec<_>>(),
        ["cassandra"]
    );
    let creator = &schema.catalog.roles["cassandra"].permissions;
    assert!(
        creator
            .keys()
            .all(|r| !r.starts_with("data/") && r != "roles/alice"),
        "the creator's permissions on what was dropped go: {creator:?}"
    );
    assert!(n.node.prepared().get(&id).is_none());
    assert_eq!(n.changes(), [keyspace(SchemaChangeType::Dropped, "ks")]);
    assert_eq!(
        n.cql("SELECT role FROM system_auth.roles").await,
        ["role", "'cassandra'"]
    );

    // Snapshots outlive a reset.
    n.command(Command::RestoreSnapshot("full".into()))
        .await
        .unwrap();
    assert_eq!(
        n.cql("SELECT k, c, v FROM ks.t").await,
        ["k | c | v", "1 | 1 | 'a'"]
    );
    let roles = n.node.schema().catalog.roles.clone();
    assert!(roles["alice"].permissions.contains_key("data/ks"));
    assert!(roles["cassandra"].permissions.contains_key("data/ks"));
    let created = n.changes();
    assert_eq!(created[0], keyspace(SchemaChangeType::Created, "ks"));
    assert!(created.contains(&table(SchemaChangeType::Created, "ks", "mv")));
    assert_eq!(
        created.len(),
        1 + 1 + 4,
        "the keyspace, its type, its tables"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_snapshots_are_not_found_and_bad_names_refused() {
    let n = ControlNode::new(Config::default());
    let missing = n.command(Command::RestoreSnapshot("nope".into())).await;
    assert!(
        matches!(&missing, Err(ControlError::NotFound(m)) if m == "no snapshot named nope"),
        "{missing:?}"
    );
    let missing = n.command(Command::DeleteSnapshot("nope".into())).await;
    assert!(matches!(missing, Err(ControlError::NotFound(_))));
    for bad in ["", "a\nb", &"x".repeat(201)] {
        let refused = n.command(Command::TakeSnapshot(bad.to_string())).await;
        assert!(
            matches!(refused, Err(ControlError::BadRequest(_))),
            "{bad:?}"
        );
    }
    n.command(Command::TakeSnapshot("empty".into()))
        .await
        .unwrap();
    n.command(Command::DeleteSnapshot("empty".into()))
        .await
        .unwrap();
    assert_eq!(
        n.command(Command::ListSnapshots).await.unwrap(),
        serde_json::json!([])
    );
}

/// ANN queries through a vector index's graph (exact ranking off) answer from the restored
/// rows: neither a vector written before the restore nor one deleted after it misleads them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vector_graph_follows_a_restore() {
    let n = ControlNode::new(Config {
        vector_search_exact_rows: 0,
        ..Config::default()
    });
    for text in [
        SCHEMA[0],
        "CREATE TABLE ks.v (k int PRIMARY KEY, e vector<float, 2>)",
        "CREATE INDEX v_e ON ks.v (e) USING 'sai'",
    ] {
        n.cql(text).await;
    }
    for k in 0..20 {
        n.cql(&format!(
            "INSERT INTO ks.v (k, e) VALUES ({k}, [{k}.0, 1.0])"
        ))
        .await;
    }
    let nearest = "SELECT k FROM ks.v ORDER BY e ANN OF [100.0, 1.0] LIMIT 1";
    assert_eq!(n.cql(nearest).await, ["k", "19"]);
    n.command(Command::TakeSnapshot("s".into())).await.unwrap();
    n.cql("INSERT INTO ks.v (k, e) VALUES (50, [99.0, 1.0])")
        .await;
    assert_eq!(n.cql(nearest).await, ["k", "50"]);
    n.command(Command::RestoreSnapshot("s".into()))
        .await
        .unwrap();
    assert_eq!(n.cql(nearest).await, ["k", "19"]);
    n.cql("DELETE FROM ks.v WHERE k = 19").await;
    assert_eq!(n.cql(nearest).await, ["k", "18"]);
    n.command(Command::RestoreSnapshot("s".into()))
        .await
        .unwrap();
    assert_eq!(n.cql(nearest).await, ["k", "19"]);
}
