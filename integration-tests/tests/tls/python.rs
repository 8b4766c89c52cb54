//! The Python driver with an `ssl_context` and `cqlsh --ssl` against two TLS servers: one
//! requiring TLS, one also requiring a client certificate. Runs only
//! `integration-tests/python/test_tls.py`, which skips itself in the plain pytest run.

use std::path::PathBuf;
use std::process::Command;

use integration_tests::TestServer;
use server::config::{ClientAuth, ClientEncryption, PemSource};
use server::Config;

use crate::certs::Pki;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_driver_and_cqlsh_over_tls() {
    let pki = Pki::new();
    let tls = TestServer::start_with(Config {
        client_encryption: ClientEncryption::required(&pki.keystore),
        ..Config::default()
    })
    .await;
    let mutual = TestServer::start_with(Config {
        client_encryption: ClientEncryption {
            client_auth: ClientAuth::Required,
            truststore: PemSource::File(pki.ca.clone()),
            ..ClientEncryption::required(&pki.keystore)
        },
        ..Config::default()
    })
    .await;
    let root = repo_root();
    let envs = [
        ("CQL_HOST", "127.0.0.1".to_string()),
        ("CQL_TLS_PORT", tls.addr.port().to_string()),
        ("CQL_MTLS_PORT", mutual.addr.port().to_string()),
        ("CQL_TLS_CA", pki.ca.display().to_string()),
        ("CQL_TLS_CLIENT_CERT", pki.client_cert.display().to_string()),
        ("CQL_TLS_CLIENT_KEY", pki.client_key.display().to_string()),
        ("CQL_TLS_DIR", pki.dir.path().display().to_string()),
    ];
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
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"])
            .arg(root.join("integration-tests/python/test_tls.py"))
            .envs(envs)
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
        "python TLS tests failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains(" passed"), "pytest ran no test:\n{stdout}");
    assert!(!stdout.contains("skipped"), "TLS tests skipped:\n{stdout}");
    tls.stop().await;
    mutual.stop().await;
}
