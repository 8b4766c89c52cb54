//! The Python driver's retry policy on injected faults: `integration-tests/python/test_faults.py`,
//! given the CQL address in `CQL_HOST`/`CQL_PORT` and the HTTP door in `CQL_HTTP`.

use integration_tests::TestServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_driver_retry_policy_on_injected_faults() {
    let server = TestServer::start_with_http().await;
    let envs = vec![
        ("CQL_HOST", "127.0.0.1".to_string()),
        ("CQL_PORT", server.addr.port().to_string()),
        ("CQL_HTTP", server.http_addr().await.to_string()),
    ];
    let out = integration_tests::run_pytest("integration-tests/python/test_faults.py", envs).await;
    assert!(!out.contains(" skipped"), "every fault test ran:\n{out}");
}
