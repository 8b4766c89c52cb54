//! CassandraAuthorizer's corners through the scylla driver, each as Apache Cassandra 5.0 answers
//! it: views read and altered through their base table (`SelectStatement.authorize`,
//! `DropViewStatement.authorize`), permissions revoked with what is dropped
//! (`AuthSchemaChangeListener`, `DropRoleStatement`), `GRANT ALL` expanded per resource
//! (`applicablePermissions`) and listed in `PermissionDetails` order, `ALTER ROLE` by
//! superusers and others (`AlterRoleStatement.authorize`), and the system keyspaces
//! (`ClientState.preventSystemKSSchemaModification`, `READABLE_SYSTEM_RESOURCES`).

use integration_tests::{query_error, TestServer};
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::errors::DbError;
use server::config::{Authenticator, Authorizer, Config};

fn authorizing_config() -> Config {
    Config {
        authenticator: Authenticator::Password,
        authorizer: Authorizer::Cassandra,
        materialized_views_enabled: true,
        ..Config::default()
    }
}

async fn login(server: &TestServer, user: &str, password: &str) -> Session {
    SessionBuilder::new()
        .known_node_addr(server.addr)
        .user(user, password)
        .build()
        .await
        .unwrap_or_else(|err| panic!("{user} logs in: {err}"))
}

async fn run(session: &Session, cql: &str) {
    session
        .query_unpaged(cql, &[])
        .await
        .unwrap_or_else(|err| panic!("{cql}: {err}"));
}

/// A role that can log in, with its name as password.
async fn user(admin: &Session, name: &str) {
    run(
        admin,
        &format!("CREATE ROLE {name} WITH PASSWORD = '{name}' AND LOGIN = true"),
    )
    .await;
}

/// `(resource, permission)` of each row `LIST ALL PERMISSIONS OF role NORECURSIVE` answers,
/// in the answer's order; none for a VOID answer (as Cassandra answers an empty listing).
async fn permissions_of(admin: &Session, role: &str) -> Vec<(String, String)> {
    let cql = format!("LIST ALL PERMISSIONS OF {role} NORECURSIVE");
    let result = admin.query_unpaged(cql.as_str(), &[]).await.expect(&cql);
    let Ok(rows) = result.into_rows_result() else {
        return Vec::new();
    };
    rows.rows::<(String, String, String, String)>()
        .expect("role, username, resource, permission")
        .map(|row| {
            let (_, _, resource, permission) = row.expect("a row");
            (resource, permission)
        })
        .collect()
}

/// The users logged in on the connections `system_views.clients` lists, each once, sorted.
async fn client_users(session: &Session) -> Vec<String> {
    let cql = "SELECT username FROM system_views.clients";
    let result = session.query_unpaged(cql, &[]).await.expect(cql);
    let mut names: Vec<String> = result
        .into_rows_result()
        .expect("rows")
        .rows::<(Option<String>,)>()
        .expect("username")
        .filter_map(|row| row.expect("a row").0)
        .collect();
    names.sort();
    names.dedup();
    names
}

fn denied(user: &str, permission: &str, resource: &str) -> String {
    format!("User {user} has no {permission} permission on {resource} or any of its parents")
}

const KEYSPACE: &str =
    "CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}";
const VIEW: &str = "CREATE MATERIALIZED VIEW app.by_v AS SELECT * FROM app.t \
                    WHERE v IS NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_view_is_authorized_through_its_base_table() {
    let server = TestServer::start_with(authorizing_config()).await;
    let admin = login(&server, "cassandra", "cassandra").await;
    for name in ["alice", "bob", "carol"] {
        user(&admin, name).await;
    }
    run(&admin, "GRANT CREATE ON ALL KEYSPACES TO alice").await;
    let alice = login(&server, "alice", "alice").await;
    run(&alice, KEYSPACE).await;
    run(&alice, "CREATE TABLE app.t (k int PRIMARY KEY, v int)").await;
    // Creating a view needs ALTER on its base; Cassandra grants nothing on the view itself.
    run(&alice, VIEW).await;
    assert!(
        permissions_of(&admin, "alice")
            .await
            .iter()
            .all(|(resource, _)| resource != "<table app.by_v>"),
        "no grant on the view"
    );
    run(&alice, "INSERT INTO app.t (k, v) VALUES (1, 10)").await;
    run(&alice, "SELECT * FROM app.by_v").await;

    // Reading a view takes SELECT on its base table, whatever is granted on the view.
    let bob = login(&server, "bob", "bob").await;
    run(&admin, "GRANT SELECT ON app.by_v TO bob").await;
    let (code, message) = query_error(&bob, "SELECT * FROM app.by_v").await;
    assert_eq!(code, DbError::Unauthorized);
    assert_eq!(message, denied("bob", "SELECT", "<table app.t>"));
    run(&admin, "GRANT SELECT ON app.t TO bob").await;
    run(&bob, "SELECT * FROM app.by_v").await;
    // Dropping or altering a view takes ALTER on its base table.
    let (_, message) = query_error(&bob, "DROP MATERIALIZED VIEW app.by_v").await;
    assert_eq!(message, denied("bob", "ALTER", "<table app.t>"));
    let (_, message) =
        query_error(&bob, "ALTER MATERIALIZED VIEW app.by_v WITH comment = 'x'").await;
    assert_eq!(message, denied("bob", "ALTER", "<table app.t>"));

    // Writing to a base table with views takes SELECT on it and MODIFY on each view.
    let carol = login(&server, "carol", "carol").await;
    run(&admin, "GRANT MODIFY ON app.t TO carol").await;
    let insert = "INSERT INTO app.t (k, v) VALUES (2, 20)";
    let (_, message) = query_error(&carol, insert).await;
    assert_eq!(message, denied("carol", "SELECT", "<table app.t>"));
    run(&admin, "GRANT SELECT ON app.t TO carol").await;
    let (_, message) = query_error(&carol, insert).await;
    assert_eq!(message, denied("carol", "MODIFY", "<table app.by_v>"));
    run(&admin, "GRANT MODIFY ON app.by_v TO carol").await;
    run(&carol, insert).await;

    // What was granted on the view goes with it; a view re-created under its name has none.
    run(&alice, "DROP MATERIALIZED VIEW app.by_v").await;
    run(&alice, VIEW).await;
    for role in ["bob", "carol"] {
        assert!(
            permissions_of(&admin, role)
                .await
                .iter()
                .all(|(resource, _)| resource != "<table app.by_v>"),
            "{role} lost the view's grants"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permissions_on_a_dropped_resource_are_revoked() {
    let server = TestServer::start_with(authorizing_config()).await;
    let admin = login(&server, "cassandra", "cassandra").await;
    user(&admin, "bob").await;
    let bob = login(&server, "bob", "bob").await;
    run(&admin, KEYSPACE).await;
    run(&admin, "CREATE TABLE app.t (k int PRIMARY KEY, v int)").await;
    run(&admin, "CREATE INDEX ON app.t (v)").await;
    run(&admin, "CREATE TABLE app.other (k int PRIMARY KEY)").await;
    run(&admin, "CREATE ROLE staff").await;
    run(&admin, "GRANT SELECT ON app.t TO bob").await;
    run(&admin, "GRANT MODIFY ON app.other TO bob").await;
    run(&admin, "GRANT ALTER ON ROLE staff TO bob").await;
    run(&bob, "SELECT * FROM app.t WHERE v = 1").await;
    // Dropping an index takes ALTER on its table.
    let (_, message) = query_error(&bob, "DROP INDEX app.t_v_idx").await;
    assert_eq!(message, denied("bob", "ALTER", "<table app.t>"));

    // A table (here one with an index) re-created under its name starts with no grants.
    run(&admin, "DROP TABLE app.t").await;
    run(&admin, "CREATE TABLE app.t (k int PRIMARY KEY, v int)").await;
    let (code, message) = query_error(&bob, "SELECT * FROM app.t").await;
    assert_eq!(code, DbError::Unauthorized);
    assert_eq!(message, denied("bob", "SELECT", "<table app.t>"));
    // A role too.
    run(&admin, "DROP ROLE staff").await;
    run(&admin, "CREATE ROLE staff").await;
    assert_eq!(
        permissions_of(&admin, "bob").await,
        [("<table app.other>".to_string(), "MODIFY".to_string())]
    );
    // A keyspace takes the grants on it and on its tables with it.
    run(&admin, "GRANT SELECT ON KEYSPACE app TO bob").await;
    run(&admin, "DROP KEYSPACE app").await;
    run(&admin, KEYSPACE).await;
    run(&admin, "CREATE TABLE app.other (k int PRIMARY KEY)").await;
    assert_eq!(permissions_of(&admin, "bob").await, []);
    let (_, message) = query_error(&bob, "INSERT INTO app.other (k) VALUES (1)").await;
    assert_eq!(message, denied("bob", "MODIFY", "<table app.other>"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grant_all_expands_per_resource_and_lists_in_cassandra_order() {
    let server = TestServer::start_with(authorizing_config()).await;
    let admin = login(&server, "cassandra", "cassandra").await;
    run(&admin, KEYSPACE).await;
    run(&admin, "CREATE TABLE app.t (k int PRIMARY KEY)").await;
    run(&admin, "CREATE ROLE staff").await;
    run(&admin, "CREATE ROLE r").await;
    for resource in [
        "ALL KEYSPACES",
        "KEYSPACE app",
        "TABLE app.t",
        "ALL ROLES",
        "ROLE staff",
    ] {
        run(&admin, &format!("GRANT ALL ON {resource} TO r")).await;
    }
    let data = [
        "CREATE",
        "ALTER",
        "DROP",
        "SELECT",
        "MODIFY",
        "AUTHORIZE",
        "UNMASK",
        "SELECT_MASKED",
    ];
    let table = &data[1..];
    let all_roles = ["CREATE", "ALTER", "DROP", "AUTHORIZE", "DESCRIBE"];
    let role = ["ALTER", "DROP", "AUTHORIZE"];
    // By resource name (`data`, `data/app`, `data/app/t`, `roles`, `roles/staff`), then by
    // permission in the order Cassandra's `Permission` enum declares them.
    let mut want = Vec::new();
    for (resource, permissions) in [
        ("<all keyspaces>", &data[..]),
        ("<keyspace app>", &data[..]),
        ("<table app.t>", table),
        ("<all roles>", &all_roles[..]),
        ("<role staff>", &role[..]),
    ] {
        for permission in permissions {
            want.push((resource.to_string(), permission.to_string()));
        }
    }
    assert_eq!(permissions_of(&admin, "r").await, want);
    // The listing's columns are named after Cassandra's `system_auth.permissions`.
    let result = admin
        .query_unpaged("LIST ALL PERMISSIONS OF r", &[])
        .await
        .unwrap();
    let rows = result.into_rows_result().expect("rows");
    let specs = rows.column_specs();
    let names: Vec<(&str, &str)> = specs
        .iter()
        .map(|spec| (spec.table_spec().table_name(), spec.name()))
        .collect();
    assert_eq!(
        names,
        [
            ("permissions", "role"),
            ("permissions", "username"),
            ("permissions", "resource"),
            ("permissions", "permission")
        ]
    );
    let (_, message) = query_error(&admin, "LIST ALL PERMISSIONS OF ghost").await;
    assert_eq!(message, "<role ghost> doesn't exist");
    let (_, message) = query_error(&admin, "LIST ALL PERMISSIONS ON app.ghost").await;
    assert_eq!(message, "<table app.ghost> doesn't exist");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alter_role_by_superusers_and_others() {
    let server = TestServer::start_with(authorizing_config()).await;
    let admin = login(&server, "cassandra", "cassandra").await;
    run(
        &admin,
        "CREATE ROLE boss WITH PASSWORD = 'boss' AND LOGIN = true AND SUPERUSER = true",
    )
    .await;
    user(&admin, "alice").await;
    user(&admin, "bob").await;
    // A superuser changes its own password, and another superuser's.
    run(&admin, "ALTER ROLE cassandra WITH PASSWORD = 'first'").await;
    let boss = login(&server, "boss", "boss").await;
    run(&boss, "ALTER ROLE cassandra WITH PASSWORD = 'second'").await;
    let admin = login(&server, "cassandra", "second").await;
    let (code, message) = query_error(&admin, "ALTER ROLE cassandra WITH SUPERUSER = false").await;
    assert_eq!(code, DbError::Unauthorized);
    assert_eq!(
        message,
        "You aren't allowed to alter your own superuser status or that of a role granted to you"
    );
    let (code, message) = query_error(&admin, "ALTER ROLE ghost WITH PASSWORD = 'x'").await;
    assert_eq!(
        (code, message.as_str()),
        (DbError::Invalid, "Role ghost doesn't exist")
    );
    run(&admin, "ALTER ROLE IF EXISTS ghost WITH PASSWORD = 'x'").await;

    // A role may change its own password, and nothing else of its own.
    let alice = login(&server, "alice", "alice").await;
    run(&alice, "ALTER ROLE alice WITH PASSWORD = 'wonder'").await;
    login(&server, "alice", "wonder").await;
    let (code, message) = query_error(&alice, "ALTER ROLE alice WITH LOGIN = false").await;
    assert_eq!(
        (code, message.as_str()),
        (DbError::Unauthorized, "You aren't allowed to alter LOGIN")
    );
    let (_, message) = query_error(&alice, "ALTER ROLE alice WITH SUPERUSER = true").await;
    assert_eq!(
        message,
        "You aren't allowed to alter your own superuser status or that of a role granted to you"
    );
    let (_, message) = query_error(&alice, "ALTER ROLE bob WITH SUPERUSER = true").await;
    assert_eq!(
        message,
        "Only superusers are allowed to alter superuser status"
    );
    // Another role's password takes ALTER on it; role statements word the refusal so.
    let insufficient =
        "User alice does not have sufficient privileges to perform the requested operation";
    for cql in [
        "ALTER ROLE bob WITH PASSWORD = 'x'",
        "ALTER ROLE cassandra WITH PASSWORD = 'x'",
        "CREATE ROLE eve",
        "DROP ROLE bob",
        "GRANT bob TO alice",
    ] {
        let (code, message) = query_error(&alice, cql).await;
        assert_eq!(
            (code, message.as_str()),
            (DbError::Unauthorized, insufficient),
            "{cql}"
        );
    }
    run(&admin, "GRANT ALTER ON ROLE bob TO alice").await;
    run(
        &alice,
        "ALTER ROLE bob WITH PASSWORD = 'builder' AND LOGIN = false",
    )
    .await;
    run(&admin, "ALTER ROLE bob WITH LOGIN = true").await;
    login(&server, "bob", "builder").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_keyspaces_stay_unmodifiable_whatever_is_granted() {
    let server = TestServer::start_with(authorizing_config()).await;
    let admin = login(&server, "cassandra", "cassandra").await;
    user(&admin, "dave").await;
    let dave = login(&server, "dave", "dave").await;
    // Without MODIFY the permission is what is missing.
    let (code, message) = query_error(&dave, "DELETE FROM system.local WHERE key = 'local'").await;
    assert_eq!(code, DbError::Unauthorized);
    assert_eq!(message, denied("dave", "MODIFY", "<table system.local>"));
    run(&admin, "GRANT MODIFY ON ALL KEYSPACES TO dave").await;
    for (keyspace, write) in [
        ("system", "DELETE FROM system.local WHERE key = 'local'"),
        (
            "system_schema",
            "DELETE FROM system_schema.keyspaces WHERE keyspace_name = 'x'",
        ),
        (
            "system_auth",
            "INSERT INTO system_auth.roles (role, is_superuser) VALUES ('dave', true)",
        ),
        (
            "system_traces",
            "DELETE FROM system_traces.sessions WHERE session_id = 8d0b1e4a-36b4-11ee-be56-0242ac120002",
        ),
        (
            "system_distributed",
            "DELETE FROM system_distributed.view_build_status WHERE keyspace_name = 'x' AND view_name = 'y'",
        ),
        (
            "system_views",
            "DELETE FROM system_views.settings WHERE name = 'x'",
        ),
        (
            "system_virtual_schema",
            "DELETE FROM system_virtual_schema.keyspaces WHERE keyspace_name = 'x'",
        ),
    ] {
        let (code, message) = query_error(&dave, write).await;
        assert_eq!(
            (code, message),
            (
                DbError::Invalid,
                format!("System keyspace '{keyspace}' is not user-modifiable")
            ),
            "{write}"
        );
    }
    // Schema changes are refused before any permission is looked at, as
    // `ClientState.preventSystemKSSchemaModification` refuses them.
    for (ddl, want) in [
        (
            "CREATE TABLE system.mine (k int PRIMARY KEY)",
            "system keyspace is not user-modifiable.",
        ),
        (
            "DROP TABLE system_schema.tables",
            "system_schema keyspace is not user-modifiable.",
        ),
        (
            "DROP TABLE system_auth.roles",
            "Cannot DROP <table system_auth.roles>",
        ),
        (
            "CREATE TABLE system_traces.mine (k int PRIMARY KEY)",
            "Cannot CREATE <keyspace system_traces>",
        ),
    ] {
        let (code, message) = query_error(&dave, ddl).await;
        assert_eq!(
            (code, message.as_str()),
            (DbError::Unauthorized, want),
            "{ddl}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn altering_system_tables_is_refused_as_cassandra_refuses_it() {
    let server = TestServer::start_with(authorizing_config()).await;
    let admin = login(&server, "cassandra", "cassandra").await;
    for (alter, want) in [
        (
            "ALTER TABLE system.local WITH comment = 'x'",
            "system keyspace is not user-modifiable.",
        ),
        (
            "ALTER TABLE system_schema.tables WITH comment = 'x'",
            "system_schema keyspace is not user-modifiable.",
        ),
        (
            "ALTER TABLE system_auth.roles WITH gc_grace_seconds = 3600",
            "Cannot ALTER <table system_auth.roles>",
        ),
        (
            "ALTER TABLE system_traces.sessions WITH default_time_to_live = 3600",
            "Cannot ALTER <table system_traces.sessions>",
        ),
        (
            "ALTER TABLE system_distributed.repair_history WITH comment = 'x'",
            "Cannot ALTER <table system_distributed.repair_history>",
        ),
    ] {
        let (code, message) = query_error(&admin, alter).await;
        assert_eq!(
            (code, message.as_str()),
            (DbError::Unauthorized, want),
            "{alter}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_views_clients_is_read_as_cassandra_authorizes_it() {
    let server = TestServer::start_with(authorizing_config()).await;
    let admin = login(&server, "cassandra", "cassandra").await;
    user(&admin, "reader").await;
    let reader = login(&server, "reader", "reader").await;
    let clients = "SELECT username FROM system_views.clients";
    // A superuser reads it, and sees who is logged in on each connection.
    assert_eq!(client_users(&admin).await, ["cassandra", "reader"]);
    // Cassandra 5.0's readable system resources are system.local and peers, system_schema and
    // system_virtual_schema: system_views takes a grant, as every other table does.
    let (code, message) = query_error(&reader, clients).await;
    assert_eq!(code, DbError::Unauthorized);
    assert_eq!(
        message,
        denied("reader", "SELECT", "<table system_views.clients>")
    );
    run(
        &reader,
        "SELECT keyspace_name FROM system_virtual_schema.tables",
    )
    .await;
    run(&reader, "SELECT peer FROM system.peers_v2").await;
    run(&admin, "GRANT SELECT ON KEYSPACE system_views TO reader").await;
    assert_eq!(client_users(&reader).await, ["cassandra", "reader"]);
}

/// Function and MBean resources (`FunctionResource`, `JMXResource`): granted, listed and
/// refused as Cassandra 5.0 answers, and `<all functions in ks>` revoked with its keyspace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn function_and_mbean_resources_are_granted_as_cassandra_grants_them() {
    let server = TestServer::start_with(authorizing_config()).await;
    let admin = login(&server, "cassandra", "cassandra").await;
    run(&admin, KEYSPACE).await;
    run(&admin, "CREATE ROLE r").await;
    for resource in [
        "ALL FUNCTIONS",
        "ALL FUNCTIONS IN KEYSPACE app",
        "ALL MBEANS",
        "MBEAN 'org.apache.cassandra.db:type=StorageService'",
    ] {
        run(&admin, &format!("GRANT ALL ON {resource} TO r")).await;
    }
    let functions = ["CREATE", "ALTER", "DROP", "AUTHORIZE", "EXECUTE"];
    let mbeans = ["SELECT", "MODIFY", "AUTHORIZE", "DESCRIBE", "EXECUTE"];
    let mut want = Vec::new();
    for (resource, permissions) in [
        ("<all functions>", &functions),
        ("<all functions in app>", &functions),
        ("<all mbeans>", &mbeans),
        (
            "<mbean org.apache.cassandra.db:type=StorageService>",
            &mbeans,
        ),
    ] {
        for permission in permissions {
            want.push((resource.to_string(), permission.to_string()));
        }
    }
    assert_eq!(permissions_of(&admin, "r").await, want);

    for (cql, expected) in [
        (
            "GRANT SELECT ON ALL FUNCTIONS TO r",
            "Resource type FunctionResource does not support the requested permissions: SELECT",
        ),
        (
            "GRANT CREATE ON ALL MBEANS TO r",
            "Resource type JMXResource does not support the requested permissions: CREATE",
        ),
    ] {
        let (_, message) = query_error(&admin, cql).await;
        assert_eq!(message, expected, "{cql}");
    }
    for (cql, expected) in [
        (
            "GRANT EXECUTE ON FUNCTION app.f(int, text) TO r",
            "Resource <function app.f(int, text)> doesn't exist",
        ),
        (
            "GRANT EXECUTE ON FUNCTION f(int) TO r",
            "In this context function name must be explictly qualified by a keyspace",
        ),
        (
            "GRANT EXECUTE ON ALL FUNCTIONS IN KEYSPACE system TO r",
            "Altering permissions on builtin functions is not supported",
        ),
        (
            "GRANT EXECUTE ON ALL FUNCTIONS IN KEYSPACE ghost TO r",
            "Resource <all functions in ghost> doesn't exist",
        ),
    ] {
        let (error, message) = query_error(&admin, cql).await;
        assert_eq!(message, expected, "{cql}");
        assert!(matches!(error, DbError::Invalid), "{cql}: {error:?}");
    }

    run(&admin, "REVOKE ALL ON ALL MBEANS FROM r").await;
    run(&admin, "DROP KEYSPACE app").await;
    // The keyspace's functions went with it; the MBeans revoked: what is left.
    let left: Vec<(String, String)> = want
        .into_iter()
        .filter(|(resource, _)| resource == "<all functions>" || resource.starts_with("<mbean "))
        .collect();
    assert_eq!(permissions_of(&admin, "r").await, left);
}
