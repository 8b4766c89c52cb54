//! The metrics endpoint: a minimal plain-HTTP/1.1 responder on its own listener. `GET
//! /metrics` answers the metrics text; any other path 404, any other method 405. One request
//! per connection (`Connection: close`), a request head of at most 8 KiB read within 5 s.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::registry::Registry;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tracing::debug;

use super::exposition;
use super::exposition::CONTENT_TYPE;
use crate::node::Node;

/// The longest request head read.
const MAX_HEAD: usize = 8 * 1024;

/// How long a client has to send its request head.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// Answers scrapes on `listener` until the task is dropped.
pub(crate) async fn serve(listener: TcpListener, node: Arc<Node>) {
    let registry = Arc::new(exposition::registry(node));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(err) => {
                debug!(cause = %err, "metrics accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let registry = registry.clone();
        tokio::spawn(async move {
            if let Err(err) = answer(stream, &registry).await {
                debug!(cause = %err, "metrics request failed");
            }
        });
    }
}

/// Reads one request and writes its response.
async fn answer(mut stream: TcpStream, registry: &Arc<Registry>) -> std::io::Result<()> {
    let head = match tokio::time::timeout(READ_TIMEOUT, read_head(&mut stream)).await {
        Ok(head) => head?,
        Err(_) => return Ok(()),
    };
    // A scrape may read the store (table sizes): off the runtime's workers.
    let registry = registry.clone();
    let response = tokio::task::spawn_blocking(move || respond(&head, &registry))
        .await
        .map_err(std::io::Error::other)?;
    stream.write_all(&response).await?;
    stream.shutdown().await
}

/// The request head: bytes up to the blank line, at most [`MAX_HEAD`].
async fn read_head(stream: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_HEAD {
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            break;
        }
        head.extend_from_slice(&chunk[..read]);
    }
    Ok(head)
}

/// The whole response to the request whose head is `head`.
fn respond(head: &[u8], registry: &Registry) -> Vec<u8> {
    let line = head
        .split(|&b| b == b'\r' || b == b'\n')
        .next()
        .unwrap_or_default();
    let mut parts = line.split(|&b| b == b' ');
    let (method, target) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    let path = target.split(|&b| b == b'?').next().unwrap_or_default();
    match (method, path) {
        (b"GET", b"/metrics") => match exposition::render(registry) {
            Ok(text) => response("200 OK", CONTENT_TYPE, &text),
            Err(_) => response(
                "500 Internal Server Error",
                "text/plain",
                "encoding failed\n",
            ),
        },
        (b"GET", _) => response("404 Not Found", "text/plain", "metrics are at /metrics\n"),
        _ => response("405 Method Not Allowed", "text/plain", "only GET\n"),
    }
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

    fn answer_to(head: &str) -> String {
        let registry = Registry::default();
        String::from_utf8(respond(head.as_bytes(), &registry)).expect("text")
    }

    #[test]
    fn only_get_metrics_is_served() {
        let ok = answer_to("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(
            ok.contains("Content-Type: application/openmetrics-text"),
            "{ok}"
        );
        assert!(ok.ends_with("# EOF\n"), "{ok}");
        let query = answer_to("GET /metrics?x=1 HTTP/1.0\r\n\r\n");
        assert!(query.starts_with("HTTP/1.1 200 OK\r\n"), "{query}");
        assert!(answer_to("GET / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert!(answer_to("POST /metrics HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
        assert!(answer_to("").starts_with("HTTP/1.1 405"));
    }
}
