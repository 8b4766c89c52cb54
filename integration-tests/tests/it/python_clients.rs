//! Real Python clients: the DataStax Python driver and cqlsh 6.2, installed into the project's
//! venv by `scripts/python-env.sh`, run by pytest against an in-process server.

use integration_tests::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_driver_and_cqlsh() {
    let server = TestServer::start().await;
    run_pytest(&server, "integration-tests/python").await;
}

/// The Python driver's PlainTextAuthProvider and `cqlsh -u -p` against PasswordAuthenticator.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_driver_and_cqlsh_log_in() {
    let config = server::config::Config {
        authenticator: server::config::Authenticator::Password,
        ..server::config::Config::default()
    };
    let server = TestServer::start_with(config).await;
    run_pytest(&server, "integration-tests/python_auth").await;
}

/// Runs pytest on `dir` (relative to the repository) against `server`.
async fn run_pytest(server: &TestServer, dir: &'static str) {
    let envs = vec![
        ("CQL_HOST", "127.0.0.1".to_string()),
        ("CQL_PORT", server.addr.port().to_string()),
    ];
    integration_tests::run_pytest(dir, envs).await;
}
