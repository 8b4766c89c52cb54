//! PasswordAuthenticator through the scylla driver: the default superuser, SASL PLAIN logins,
//! role statements with Cassandra's messages, roles that survive a restart, and the anonymous
//! client of AllowAllAuthenticator refused role statements.

use integration_tests::{query_error, TestServer};
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::errors::DbError;
use server::config::{Authenticator, Config};

fn password_config(dir: Option<&std::path::Path>) -> Config {
    Config {
        authenticator: Authenticator::Password,
        data_dir: dir.map(std::path::PathBuf::from),
        ..Config::default()
    }
}

async fn login(server: &TestServer, user: &str, password: &str) -> Result<Session, String> {
    SessionBuilder::new()
        .known_node_addr(server.addr)
        .user(user, password)
        .build()
        .await
        .map_err(|err| err.to_string())
}

async fn run(session: &Session, cql: &str) {
    session
        .query_unpaged(cql, &[])
        .await
        .unwrap_or_else(|err| panic!("{cql}: {err}"));
}

/// The first column (`role` or `name`) of `LIST ROLES` (5 columns) or `LIST USERS` (3).
async fn names(session: &Session, cql: &str) -> Vec<String> {
    type RoleRow = (
        String,
        bool,
        bool,
        std::collections::HashMap<String, String>,
        String,
    );
    let result = session.query_unpaged(cql, &[]).await.expect(cql);
    let rows = result.into_rows_result().expect("rows");
    if cql.contains("USERS") {
        return rows
            .rows::<(String, bool, String)>()
            .expect("name, super, datacenters")
            .map(|row| row.expect("a row").0)
            .collect();
    }
    rows.rows::<RoleRow>()
        .expect("role, super, login, options, datacenters")
        .map(|row| row.expect("a row").0)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_superuser_logs_in_and_wrong_passwords_reveal_nothing() {
    let server = TestServer::start_with(password_config(None)).await;
    let admin = login(&server, "cassandra", "cassandra")
        .await
        .expect("default role");
    run(
        &admin,
        "CREATE ROLE alice WITH PASSWORD = 'wonder' AND LOGIN = true",
    )
    .await;
    for (user, password) in [("cassandra", "wrong"), ("alice", "bad"), ("nobody", "x")] {
        let err = login(&server, user, password).await.expect_err("refused");
        assert!(
            err.contains(&format!(
                "Provided username {user} and/or password are incorrect"
            )),
            "{err}"
        );
    }
    run(&admin, "CREATE ROLE reader WITH PASSWORD = 'r'").await;
    let err = login(&server, "reader", "r").await.expect_err("no LOGIN");
    assert!(err.contains("reader is not permitted to log in"), "{err}");
    // No session without credentials.
    let anonymous = SessionBuilder::new()
        .known_node_addr(server.addr)
        .build()
        .await;
    assert!(anonymous.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn role_statements_follow_cassandra() {
    let server = TestServer::start_with(password_config(None)).await;
    let admin = login(&server, "cassandra", "cassandra")
        .await
        .expect("login");
    run(
        &admin,
        "CREATE ROLE alice WITH PASSWORD = 'wonder' AND LOGIN = true",
    )
    .await;
    run(
        &admin,
        "CREATE USER bob WITH PASSWORD 'builder' NOSUPERUSER",
    )
    .await;
    run(&admin, "CREATE ROLE IF NOT EXISTS alice").await;
    let (code, message) = query_error(&admin, "CREATE ROLE alice").await;
    assert_eq!(
        (code, message.as_str()),
        (DbError::Invalid, "alice already exists")
    );
    run(&admin, "GRANT alice TO bob").await;
    let (_, message) = query_error(&admin, "GRANT bob TO alice").await;
    assert_eq!(message, "bob is a member of alice");
    let (_, message) = query_error(&admin, "REVOKE cassandra FROM bob").await;
    assert_eq!(message, "bob is not a member of cassandra");
    let (_, message) = query_error(&admin, "GRANT ghost TO bob").await;
    assert_eq!(message, "ghost doesn't exist");
    assert_eq!(names(&admin, "LIST ROLES OF bob").await, ["alice", "bob"]);
    assert_eq!(
        names(&admin, "LIST USERS").await,
        ["alice", "bob", "cassandra"]
    );

    let alice = login(&server, "alice", "wonder").await.expect("alice");
    let (code, message) = query_error(&alice, "CREATE ROLE evil WITH SUPERUSER = true").await;
    assert_eq!(code, DbError::Unauthorized);
    assert_eq!(
        message,
        "Only superusers can create a role with superuser status"
    );
    let (_, message) = query_error(&alice, "DROP ROLE alice").await;
    assert_eq!(message, "Cannot DROP primary role for current login");

    run(&admin, "ALTER ROLE alice WITH PASSWORD = 'changed'").await;
    assert!(login(&server, "alice", "wonder").await.is_err());
    assert!(login(&server, "alice", "changed").await.is_ok());
    run(&admin, "DROP ROLE alice").await;
    assert!(login(&server, "alice", "changed").await.is_err());
    assert_eq!(names(&admin, "LIST ROLES OF bob").await, ["bob"]);
    let (_, message) = query_error(&admin, "DROP ROLE alice").await;
    assert_eq!(message, "alice doesn't exist");
    run(&admin, "DROP ROLE IF EXISTS alice").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(password_config(Some(dir.path()))).await;
    let admin = login(&server, "cassandra", "cassandra")
        .await
        .expect("login");
    run(
        &admin,
        "CREATE ROLE carol WITH PASSWORD = 'c' AND LOGIN = true",
    )
    .await;
    run(&admin, "ALTER ROLE cassandra WITH PASSWORD = 'new'").await;
    drop(admin);
    server.stop().await;
    let server = TestServer::start_with(password_config(Some(dir.path()))).await;
    assert!(login(&server, "carol", "c").await.is_ok());
    assert!(login(&server, "cassandra", "cassandra").await.is_err());
    let admin = login(&server, "cassandra", "new")
        .await
        .expect("changed password");
    let result = admin
        .query_unpaged(
            "SELECT role, can_login, is_superuser FROM system_auth.roles",
            &[],
        )
        .await
        .unwrap();
    let mut roles: Vec<(String, bool, bool)> = result
        .into_rows_result()
        .unwrap()
        .rows::<(String, bool, bool)>()
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    roles.sort();
    assert_eq!(
        roles,
        [
            ("carol".to_string(), true, false),
            ("cassandra".to_string(), true, true)
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anonymous_client_may_not_run_role_statements() {
    let server = TestServer::start().await;
    let session = server.session().await;
    let (code, message) = query_error(&session, "LIST ROLES").await;
    assert_eq!(code, DbError::Unauthorized);
    assert_eq!(
        message,
        "You have to be logged in and not anonymous to perform this request"
    );
}

fn authorizing_config() -> Config {
    Config {
        authorizer: server::config::Authorizer::Cassandra,
        ..password_config(None)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cassandra_authorizer_checks_every_statement() {
    let server = TestServer::start_with(authorizing_config()).await;
    let admin = login(&server, "cassandra", "cassandra")
        .await
        .expect("login");
    run(&admin, "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").await;
    run(&admin, "CREATE TABLE ks.t (k int PRIMARY KEY, v text)").await;
    run(&admin, "INSERT INTO ks.t (k, v) VALUES (1, 'one')").await;
    run(
        &admin,
        "CREATE ROLE reader WITH PASSWORD = 'r' AND LOGIN = true",
    )
    .await;
    run(&admin, "CREATE ROLE writers").await;
    let reader = login(&server, "reader", "r").await.expect("reader");

    let denied = |perm: &str, resource: &str| {
        format!("User reader has no {perm} permission on {resource} or any of its parents")
    };
    let (code, message) = query_error(&reader, "SELECT * FROM ks.t").await;
    assert_eq!(code, DbError::Unauthorized);
    assert_eq!(message, denied("SELECT", "<table ks.t>"));
    // System tables drivers read stay readable; system_auth does not.
    run(&reader, "SELECT release_version FROM system.local").await;
    let (_, message) = query_error(&reader, "SELECT role FROM system_auth.roles").await;
    assert_eq!(message, denied("SELECT", "<table system_auth.roles>"));

    // A permission on the keyspace covers its tables; through a granted role too.
    run(&admin, "GRANT SELECT ON KEYSPACE ks TO reader").await;
    run(&reader, "SELECT * FROM ks.t").await;
    let (_, message) = query_error(&reader, "INSERT INTO ks.t (k, v) VALUES (2, 'two')").await;
    assert_eq!(message, denied("MODIFY", "<table ks.t>"));
    run(&admin, "GRANT MODIFY, SELECT ON TABLE ks.t TO writers").await;
    run(&admin, "GRANT writers TO reader").await;
    run(&reader, "INSERT INTO ks.t (k, v) VALUES (2, 'two')").await;
    // Prepared statements are checked at every execution: a revoke takes effect at once.
    let insert = reader
        .prepare("INSERT INTO ks.t (k, v) VALUES (?, ?)")
        .await
        .expect("prepare");
    reader
        .execute_unpaged(&insert, (3, "three"))
        .await
        .expect("allowed");
    run(&admin, "REVOKE writers FROM reader").await;
    let err = reader
        .execute_unpaged(&insert, (4, "four"))
        .await
        .expect_err("revoked");
    assert!(
        err.to_string().contains(&denied("MODIFY", "<table ks.t>")),
        "{err}"
    );

    let (_, message) = query_error(&admin, "GRANT DESCRIBE ON TABLE ks.t TO reader").await;
    assert_eq!(
        message,
        "Resource type DataResource does not support the requested permissions: DESCRIBE"
    );
    let (_, message) = query_error(&reader, "CREATE KEYSPACE k2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").await;
    assert_eq!(message, denied("CREATE", "<all keyspaces>"));
    let (_, message) = query_error(&reader, "CREATE ROLE x").await;
    assert_eq!(
        message,
        "User reader does not have sufficient privileges to perform the requested operation"
    );
    let (_, message) = query_error(&reader, "LIST ALL PERMISSIONS").await;
    assert_eq!(
        message,
        "You are not authorized to view everyone's permissions"
    );

    // A creator holds every permission on what it creates.
    run(&admin, "GRANT CREATE ON ALL KEYSPACES TO reader").await;
    run(&reader, "CREATE KEYSPACE mine WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").await;
    run(&reader, "CREATE TABLE mine.t (k int PRIMARY KEY)").await;
    run(&reader, "INSERT INTO mine.t (k) VALUES (1)").await;
    run(&reader, "DROP TABLE mine.t").await;

    let result = admin
        .query_unpaged("LIST SELECT OF reader NORECURSIVE", &[])
        .await
        .unwrap();
    let rows: Vec<(String, String, String, String)> = result
        .into_rows_result()
        .unwrap()
        .rows()
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert!(rows.contains(&(
        "reader".into(),
        "reader".into(),
        "<keyspace ks>".into(),
        "SELECT".into()
    )));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_statements_need_cassandra_authorizer() {
    let server = TestServer::start_with(password_config(None)).await;
    let admin = login(&server, "cassandra", "cassandra")
        .await
        .expect("login");
    let (_, message) = query_error(&admin, "GRANT SELECT ON ALL KEYSPACES TO cassandra").await;
    assert_eq!(
        message,
        "GRANT operation is not supported by AllowAllAuthorizer"
    );
}

/// A STARTUP request asking for CQL 3.0.0.
fn startup_request() -> cql::frame::request::Request {
    cql::frame::request::Request::Startup(cql::frame::request::Startup {
        options: vec![("CQL_VERSION".into(), "3.0.0".into())],
    })
}

/// A raw connection to `server` that sent STARTUP and was asked for credentials.
async fn awaiting_credentials(server: &TestServer) -> integration_tests::RawConnection {
    let mut raw = integration_tests::RawConnection::connect(server.addr).await;
    raw.send(0, &startup_request()).await;
    let (_, _, response) = raw.recv().await.expect("an answer to STARTUP");
    assert!(
        matches!(
            response,
            cql::frame::response::Response::Authenticate { .. }
        ),
        "{response:?}"
    );
    raw
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_auth_response_is_taken_while_credentials_are_awaited() {
    use cql::frame::request::Request;
    use cql::frame::response::Response;
    let server = TestServer::start_with(password_config(None)).await;
    let mut raw = awaiting_credentials(&server).await;
    let startup = startup_request();
    // As Cassandra's ServerConnection: OPTIONS and a second STARTUP too are refused.
    raw.send(1, &Request::Options).await;
    raw.send(2, &startup).await;
    raw.query(3, "SELECT * FROM system.local").await;
    for (want_stream, opcode) in [(1, "OPTIONS"), (2, "STARTUP"), (3, "QUERY")] {
        let (_, stream, response) = raw.recv().await.expect("an answer");
        let Response::Error(err) = response else {
            panic!("{response:?}")
        };
        assert_eq!(stream, want_stream);
        assert_eq!(
            (err.code, err.message),
            (
                0x000A,
                format!("Unexpected message {opcode}, expecting SASL_RESPONSE")
            )
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_finishes_the_sasl_exchange_is_timed_out() {
    let config = Config {
        handshake_timeout: std::time::Duration::from_millis(300),
        ..password_config(None)
    };
    let server = TestServer::start_with(config).await;
    let mut raw = awaiting_credentials(&server).await;
    let waited = std::time::Instant::now();
    assert!(raw.recv().await.is_none(), "closed without AUTH_RESPONSE");
    assert!(waited.elapsed() < std::time::Duration::from_secs(5));
}
