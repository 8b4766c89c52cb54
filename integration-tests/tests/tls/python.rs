//! The Python driver with an `ssl_context` and `cqlsh --ssl` against two TLS servers: one
//! requiring TLS, one also requiring a client certificate. Runs only
//! `integration-tests/python/test_tls.py`, which skips itself in the plain pytest run.

use integration_tests::TestServer;
use server::config::{ClientAuth, ClientEncryption, PemSource};
use server::Config;

use crate::certs::Pki;

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
    let envs = [
        ("CQL_HOST", "127.0.0.1".to_string()),
        ("CQL_TLS_PORT", tls.addr.port().to_string()),
        ("CQL_MTLS_PORT", mutual.addr.port().to_string()),
        ("CQL_TLS_CA", pki.ca.display().to_string()),
        ("CQL_TLS_CLIENT_CERT", pki.client_cert.display().to_string()),
        ("CQL_TLS_CLIENT_KEY", pki.client_key.display().to_string()),
        ("CQL_TLS_DIR", pki.dir.path().display().to_string()),
    ];
    let stdout =
        integration_tests::run_pytest("integration-tests/python/test_tls.py", envs.to_vec()).await;
    assert!(!stdout.contains("skipped"), "TLS tests skipped:\n{stdout}");
    tls.stop().await;
    mutual.stop().await;
}
