//! The HTTP door (`http_address`): a minimal HTTP/1.1 server on its own listener. It serves
//! `GET /metrics` (the Prometheus text) and `GET /ready` always, and the test controls'
//! routes (JSON in, JSON out) when they are on. One request per connection
//! (`Connection: close`); a request head of at most 8 KiB and a body of at most 1 MiB, read
//! within 5 s.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::registry::Registry;
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tracing::debug;

use super::{Command, ControlError};
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
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(err) => {
                debug!(cause = %err, "HTTP accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let (node, registry) = (node.clone(), registry.clone());
        tokio::spawn(async move {
            if let Err(err) = answer(stream, &node, &registry).await {
                debug!(cause = %err, "HTTP request failed");
            }
        });
    }
}

/// Reads one request and writes its response.
async fn answer(
    mut stream: TcpStream,
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
    let reply = respond(request, node, registry).await;
    stream.write_all(&reply).await?;
    stream.shutdown().await
}

/// The whole response to `request`.
async fn respond(request: Request, node: &Arc<Node>, registry: &Arc<Registry>) -> Vec<u8> {
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
        _ => match routes::command(&request) {
            Ok(Some(command)) => run(node, command).await,
            Ok(None) => response(
                "404 Not Found",
                "application/json",
                &error_body(format!("no route {} {}", request.method, request.path)),
            ),
            Err(err) => failure(&err),
        },
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

/// Runs a control and answers its JSON.
async fn run(node: &Arc<Node>, command: Command) -> Vec<u8> {
    match super::command::run(node, command).await {
        Ok(value) => response("200 OK", "application/json", &value.to_string()),
        Err(err) => failure(&err),
    }
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
