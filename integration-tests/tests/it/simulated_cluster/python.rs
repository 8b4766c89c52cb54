//! The Python driver and cqlsh on a simulated cluster
//! (`integration-tests/python_cluster/test_simulated_cluster.py`).

use super::cluster;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_driver_and_cqlsh_on_a_simulated_cluster() {
    let server = cluster("dc1:3,dc2:2").await;
    let envs = vec![
        ("CQL_PORT", server.addr.port().to_string()),
        ("CQL_HTTP", server.http_addr().await.to_string()),
    ];
    let log = integration_tests::run_pytest("integration-tests/python_cluster", envs).await;
    assert!(log.contains("4 passed"), "{log}");
}
