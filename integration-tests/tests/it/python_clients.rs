//! Real Python clients: the DataStax Python driver and cqlsh 6.2, installed into the project's
//! venv by `scripts/python-env.sh`, run by pytest against an in-process server.

use std::path::PathBuf;
use std::process::Command;

use integration_tests::TestServer;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

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
    let root = repo_root();
    let port = server.addr.port().to_string();
    let output = tokio::task::spawn_blocking(move || {
        let env = Command::new("bash")
            .arg(root.join("scripts/python-env.sh"))
            .output()
            .expect("run python-env.sh");
        assert!(
            env.status.success(),
            "venv setup failed: {}",
            String::from_utf8_lossy(&env.stderr)
        );
        let venv = PathBuf::from(String::from_utf8_lossy(&env.stdout).trim().to_string());
        Command::new(venv.join("bin/python"))
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(root.join(dir))
            .env("CQL_HOST", "127.0.0.1")
            .env("CQL_PORT", port)
            .output()
            .expect("run pytest")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}\n{stderr}");
    assert!(
        output.status.success(),
        "python client tests failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains(" passed"), "pytest ran no test:\n{stdout}");
}
