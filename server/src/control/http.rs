//! The HTTP door (`http_address`): a minimal HTTP/1.1 server on its own listener. It serves
//! `GET /metrics` (the Prometheus text) and `GET /ready` always, and the test controls'
//! routes (JSON in, JSON out) when they are on. One request per connection
//! (`Connection: close`); a request head of at most 8 KiB and a body of at most 1 MiB, read
//! within 5 s.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use prometheus_client::registry::Registry;
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tracing::debug;

use super::{query_log, ControlError};
use crate::node::Node;
use crate::telemetry::prometheus::exposition::{self, CONTENT_TYPE};

mod request;
pub(crate) mod routes;

use request::Request;

/// How long a client has to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// Answers requests on `listener` until the task is dropped.
pub(crate) async fn serve(listener: TcpListener, node: Arc<Node>) {
    let registry = Arc::new(exposition::registry(node.clone()));
    loop {
        let (stream, client) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(err) => {
                debug!(cause = %err, "HTTP accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let (node, registry) = (node.clone(), registry.clone());
        tokio::spawn(async move {
            if let Err(err) = answer(stream, client, &node, &registry).await {
                debug!(cause = %err, "HTTP request failed");
            }
        });
    }
}

/// Reads one request from `client` and writes its response.
async fn answer(
    mut stream: TcpStream,
    client: SocketAddr,
    node: &Arc<Node>,
    registry: &Arc<Registry>,
) -> std::io::Result<()> {
    let request = match tokio::time::timeout(READ_TIMEOUT, Request::read(&mut stream)).await {
        Ok(Ok(request)) => request,
        Ok(Err(request::Malformed(why))) => {
            let body = error_body(why);
            stream
                .write_all(&response("400 Bad Request", "application/json", &body))
                .await?;
            return stream.shutdown().await;
        }
        Err(_) => return Ok(()),
    };
    let peers = Peers {
        client,
        local: stream.local_addr()?,
    };
    let reply = respond(request, node, registry, peers).await;
    stream.write_all(&reply).await?;
    stream.shutdown().await
}

/// The two ends of an HTTP connection.
#[derive(Debug, Clone, Copy)]
struct Peers {
    client: SocketAddr,
    local: SocketAddr,
}

/// The whole response to `request`.
async fn respond(
    request: Request,
    node: &Arc<Node>,
    registry: &Arc<Registry>,
    peers: Peers,
) -> Vec<u8> {
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/metrics") => {
            // A scrape may read the store (table sizes): off the runtime's workers.
            let registry = registry.clone();
            let text = tokio::task::spawn_blocking(move || exposition::render(&registry)).await;
            match text {
                Ok(Ok(text)) => response("200 OK", CONTENT_TYPE, &text),
                _ => response(
                    "500 Internal Server Error",
                    "text/plain",
                    "encoding failed\n",
                ),
            }
        }
        ("GET", "/ready") => ready(node),
        _ => control(&request, node, peers).await,
    }
}

/// A control route's response; the request is recorded in the query log (`/metrics` and
/// `/ready`, polled by scrapers and harnesses, are not).
async fn control(request: &Request, node: &Arc<Node>, peers: Peers) -> Vec<u8> {
    let started = Instant::now();
    let noted = query_log::note_http(
        node,
        peers.client,
        peers.local,
        || request.line(),
        &request.body,
    );
    let answered = match routes::command(request) {
        Ok(Some(command)) => super::command::run(node, command).await,
        Ok(None) => Err(ControlError::NotFound(format!(
            "no route {} {}",
            request.method, request.path
        ))),
        Err(err) => Err(err),
    };
    let (status, error) = match &answered {
        Ok(_) => ("200 OK", None),
        Err(err) => (err.status(), Some(err.to_string())),
    };
    let code = status
        .split(' ')
        .next()
        .and_then(|code| code.parse().ok())
        .unwrap_or(500);
    query_log::record_http(node, noted, code, error, started.elapsed());
    match answered {
        Ok(value) => response(status, "application/json", &value.to_string()),
        Err(err) => failure(&err),
    }
}

/// `GET /ready`: 200 once CQL clients are accepted, 503 before.
fn ready(node: &Node) -> Vec<u8> {
    let controls = node.controls();
    let body = json!({
        "ready": controls.is_ready(),
        "cql_address": controls.cql_address().map(|a| a.to_string()),
    })
    .to_string();
    let status = if controls.is_ready() {
        "200 OK"
    } else {
        "503 Service Unavailable"
    };
    response(status, "application/json", &body)
}

/// The answer to a control that failed.
fn failure(err: &ControlError) -> Vec<u8> {
    response(
        err.status(),
        "application/json",
        &error_body(err.to_string()),
    )
}

/// `{"error": message}`.
fn error_body(message: impl Into<String>) -> String {
    json!({ "error": message.into() }).to_string()
}

/// An HTTP/1.1 response closing the connection.
fn response(status: &str, content_type: &str, body: &str) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status_of(response: &[u8]) -> String {
        let text = String::from_utf8_lossy(response);
        text.lines().next().unwrap_or_default().to_string()
    }

    #[test]
    fn ready_is_503_until_clients_are_accepted() {
        let node = Node::open(crate::Config::default()).expect("open node");
        assert_eq!(status_of(&ready(&node)), "HTTP/1.1 503 Service Unavailable");
        node.controls()
            .mark_ready(std::net::SocketAddr::from(([127, 0, 0, 1], 9042)));
        let answer = ready(&node);
        assert_eq!(status_of(&answer), "HTTP/1.1 200 OK");
        let text = String::from_utf8_lossy(&answer);
        assert!(
            text.ends_with(r#"{"cql_address":"127.0.0.1:9042","ready":true}"#),
            "{text}"
        );
    }

    #[tokio::test]
    async fn controls_answer_404_when_off() {
        let config = crate::Config {
            test_controls: Some(false),
            ..crate::Config::default()
        };
        let node = Arc::new(Node::open(config).expect("open node"));
        let refused = crate::control::command::run(&node, crate::control::Command::Clock)
            .await
            .expect_err("controls are off");
        let answer = failure(&refused);
        assert_eq!(status_of(&answer), "HTTP/1.1 404 Not Found");
        let text = String::from_utf8_lossy(&answer);
        assert!(text.contains("test controls are off"), "{text}");
    }
}
