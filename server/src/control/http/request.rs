//! Reading one HTTP/1.1 request: the request line, the headers (only `Content-Length` is
//! read), and the body.

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// The longest request head read.
const MAX_HEAD: usize = 8 * 1024;

/// The longest body read.
const MAX_BODY: usize = 1 << 20;

/// A request that cannot be read, and why.
#[derive(Debug)]
pub(crate) struct Malformed(pub(crate) String);

/// One request.
#[derive(Debug, Default)]
pub(crate) struct Request {
    /// `GET`, `POST`, ...
    pub(crate) method: String,
    /// The path, percent-decoded, without the query.
    pub(crate) path: String,
    /// The query's `name=value` pairs, percent-decoded.
    pub(crate) query: Vec<(String, String)>,
    /// The body (empty when there is none).
    pub(crate) body: Vec<u8>,
}

impl Request {
    /// Reads a request from `stream`.
    ///
    /// # Errors
    /// The head is longer than 8 KiB or not HTTP; the body is longer than 1 MiB; the
    /// connection fails or ends early.
    pub(crate) async fn read(stream: &mut TcpStream) -> Result<Request, Malformed> {
        let mut buffer = Vec::with_capacity(1024);
        let mut chunk = [0u8; 4096];
        let head_end = loop {
            if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break at;
            }
            if buffer.len() > MAX_HEAD {
                return Err(Malformed("request head over 8 KiB".into()));
            }
            let read = stream.read(&mut chunk).await.map_err(io)?;
            if read == 0 {
                return Err(Malformed(
                    "connection closed before the request ended".into(),
                ));
            }
            buffer.extend_from_slice(&chunk[..read]);
        };
        let mut request = Request::from_head(&buffer[..head_end])?;
        let length = content_length(&buffer[..head_end])?;
        if length > MAX_BODY {
            return Err(Malformed("request body over 1 MiB".into()));
        }
        let mut body = buffer.split_off(head_end + 4);
        while body.len() < length {
            let read = stream.read(&mut chunk).await.map_err(io)?;
            if read == 0 {
                return Err(Malformed("connection closed before the body ended".into()));
            }
            body.extend_from_slice(&chunk[..read]);
        }
        body.truncate(length);
        request.body = body;
        Ok(request)
    }

    /// The method, path and query of a request head.
    fn from_head(head: &[u8]) -> Result<Request, Malformed> {
        let text = std::str::from_utf8(head).map_err(|_| Malformed("head is not UTF-8".into()))?;
        let line = text.lines().next().unwrap_or_default();
        let mut parts = line.split(' ');
        let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
            return Err(Malformed(format!("not an HTTP request line: {line}")));
        };
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        Ok(Request {
            method: method.to_string(),
            path: percent_decode(path),
            query: query
                .split('&')
                .filter(|pair| !pair.is_empty())
                .map(|pair| {
                    let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                    (percent_decode(name), percent_decode(value))
                })
                .collect(),
            body: Vec::new(),
        })
    }

    /// `METHOD /path?query` (the query as decoded pairs), as the query log shows it.
    pub(crate) fn line(&self) -> String {
        let mut line = format!("{} {}", self.method, self.path);
        for (i, (name, value)) in self.query.iter().enumerate() {
            line.push(if i == 0 { '?' } else { '&' });
            line.push_str(name);
            if !value.is_empty() {
                line.push('=');
                line.push_str(value);
            }
        }
        line
    }

    /// The value of the query parameter `name`.
    pub(crate) fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The `Content-Length` of a head, 0 without one.
fn content_length(head: &[u8]) -> Result<usize, Malformed> {
    let text = String::from_utf8_lossy(head);
    for line in text.lines().skip(1) {
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                return value
                    .trim()
                    .parse()
                    .map_err(|_| Malformed(format!("invalid Content-Length: {}", value.trim())));
            }
        }
    }
    Ok(0)
}

/// `%XX` escapes decoded (`+` kept: paths and our parameters do not use it for spaces).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn io(err: std::io::Error) -> Malformed {
    Malformed(err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_give_method_path_and_query() {
        let request = Request::from_head(b"GET /queries?limit=5&x=a%20b HTTP/1.1\r\nHost: h")
            .expect("request");
        assert_eq!(request.method, "GET");
        assert_eq!(request.path, "/queries");
        assert_eq!(request.query("limit"), Some("5"));
        assert_eq!(request.query("x"), Some("a b"));
        assert_eq!(request.query("y"), None);
        assert_eq!(request.line(), "GET /queries?limit=5&x=a b");
        let snapshot = Request::from_head(b"PUT /snapshots/before%2Dall HTTP/1.1").expect("put");
        assert_eq!(snapshot.path, "/snapshots/before-all");
        assert!(Request::from_head(b"garbage").is_err());
    }

    #[test]
    fn content_length_is_read_in_any_case() {
        let head = b"POST /faults HTTP/1.1\r\ncontent-LENGTH: 12\r\nHost: h";
        assert_eq!(content_length(head).expect("length"), 12);
        assert_eq!(content_length(b"GET / HTTP/1.1").expect("none"), 0);
        assert!(content_length(b"POST / HTTP/1.1\r\nContent-Length: x").is_err());
    }
}
