//! Injected faults (test controls) through the scylla driver and the Python driver: each
//! error arrives as the driver's own typed error, the drivers' retry policies and the scylla
//! driver's speculative execution react to them as their sources say, and rules are listed
//! and removed through both doors.

mod doors;
mod driver_errors;
mod outcomes;
mod python;
mod retries;

use std::time::Duration;

use integration_tests::{session_in, TestServer};
use scylla::client::session::Session;
use serde_json::Value;

/// A server with its HTTP door, a session in a new keyspace `ks` with table
/// `t (k int PRIMARY KEY, v int)` holding row (1, 10).
async fn setup(keyspace: &str) -> (TestServer, Session) {
    let server = TestServer::start_with_http().await;
    let session = session_in(&server, keyspace).await;
    session
        .query_unpaged("CREATE TABLE t (k int PRIMARY KEY, v int)", ())
        .await
        .expect("create table");
    session
        .query_unpaged("INSERT INTO t (k, v) VALUES (1, 10)", ())
        .await
        .expect("insert");
    (server, session)
}

/// Adds a fault rule over HTTP; its id.
async fn add_fault(server: &TestServer, body: Value) -> String {
    let (status, answer) = server.http("POST", "/faults", &body.to_string()).await;
    assert_eq!(status, 200, "POST /faults {body}: {answer}");
    answer["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no id in {answer}"))
        .to_string()
}

/// The rules, as `GET /faults` lists them.
async fn list_faults(server: &TestServer) -> Vec<Value> {
    let (status, answer) = server.http("GET", "/faults", "").await;
    assert_eq!(status, 200, "{answer}");
    answer.as_array().cloned().unwrap_or_default()
}

/// How often rule `id` fired (`None` once retired or removed).
async fn fired(server: &TestServer, id: &str) -> Option<u64> {
    list_faults(server)
        .await
        .iter()
        .find(|rule| rule["id"] == id)
        .and_then(|rule| rule["fired"].as_u64())
}

/// Runs `f` until it returns `Some`, for at most `limit`.
async fn eventually<T, F, Fut>(limit: Duration, mut f: F) -> Option<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if let Some(value) = f().await {
            return Some(value);
        }
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
