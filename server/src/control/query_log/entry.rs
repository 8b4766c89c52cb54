//! What the query log keeps of one request: what it asked ([`Noted`], taken when it was
//! decoded) and what it got ([`Outcome`], taken when its answer is known: [`super::outcome`]). Both are kept raw
//! (bound values as sent, the prepared statement by reference); they become text only when
//! the log is read ([`super::render`]), so recording a request costs a few copies.

use bytes::Bytes;
use cql::frame::request::{Batch, BatchQuery, QueryParameters, Request, Value};
use cql::frame::Opcode;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use super::examined::Examined;
use super::outcome::Outcome;
use crate::node::prepared::PreparedStatement;
use crate::node::Node;
use crate::telemetry::redact::may_carry_password;
use crate::transport::session::{Driver, Session};

/// The longest bound value kept, in bytes; a longer one is kept as its length.
const MAX_VALUE_BYTES: usize = 2048;

/// The longest statement text kept, in bytes; a longer one is cut (and its values are then
/// shown as blobs: the cut text no longer parses).
pub(super) const MAX_TEXT_BYTES: usize = 8192;

/// A request as it came, taken before it is handled.
#[derive(Debug)]
pub(crate) struct Noted {
    /// When it came, by the node's clock (microseconds since the epoch).
    pub(super) at_micros: i64,
    /// The address the client reached.
    pub(super) coordinator: IpAddr,
    /// The client's address and port (one connection).
    pub(super) client: SocketAddr,
    /// The driver the client named in STARTUP.
    pub(super) driver: Option<Arc<Driver>>,
    /// The keyspace the request ran in: its own (v5), else the connection's.
    pub(super) keyspace: Option<String>,
    /// `QUERY`, `PREPARE`, `EXECUTE`, `BATCH` or `HTTP`.
    pub(super) opcode: &'static str,
    /// The statement (or HTTP request) with its values.
    pub(super) statement: Logged,
    /// The query parameters sent.
    pub(super) options: Options,
    /// What its reads examined, when it read.
    pub(super) examined: Option<Examined>,
}

/// The query parameters of a request, as sent (`None`: not sent, or not in this message).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Options {
    pub(super) consistency: Option<u16>,
    pub(super) serial_consistency: Option<u16>,
    pub(super) page_size: Option<i32>,
    pub(super) paging_state: Option<bool>,
    pub(super) default_timestamp: Option<i64>,
}

/// A request's statement as kept.
#[derive(Debug)]
pub(super) enum Logged {
    /// Nothing to show: the request did not decode.
    Nothing,
    /// A statement that may carry a password: neither its text nor its values are kept,
    /// only how many values it had.
    Hidden { values: usize },
    /// Statement text (QUERY, PREPARE, text in a BATCH); `cut` when it was too long to keep.
    Text {
        text: Box<str>,
        cut: bool,
        values: Values,
    },
    /// A prepared statement (EXECUTE, an id in a BATCH), shown by its text.
    Prepared {
        statement: Arc<PreparedStatement>,
        values: Values,
    },
    /// An EXECUTE (or BATCH entry) of an id the node does not hold.
    UnknownId(Bytes),
    /// A BATCH message: its type (0 logged, 1 unlogged, 2 counter) and statements.
    Batch { kind: u8, statements: Vec<Logged> },
    /// A request to the HTTP door: `METHOD /path?query`, and its body if any.
    Http {
        line: String,
        body: Option<Box<str>>,
    },
}

/// Bound values as sent: positional, or by name (flag 0x40). Their bytes are copied into one
/// buffer (one allocation, and nothing held of the connection's buffer).
#[derive(Debug, Default)]
pub(super) struct Values {
    /// Every kept value's bytes, one after another.
    bytes: Box<[u8]>,
    pub(super) values: Vec<Kept>,
    pub(super) names: Option<Vec<String>>,
}

/// One bound value as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kept {
    Null,
    Unset,
    /// A value: where its bytes are in [`Values::bytes`].
    Bytes(std::ops::Range<usize>),
    /// A value too long to keep: its length in bytes.
    TooLong(usize),
}

impl Values {
    /// `values` (and their `names`), copied.
    pub(super) fn copy(values: &[Value], names: Option<&[String]>) -> Values {
        let length: usize = values.iter().map(kept_length).sum();
        let mut bytes = Vec::with_capacity(length);
        let kept = values
            .iter()
            .map(|value| match value {
                Value::Null => Kept::Null,
                Value::Unset => Kept::Unset,
                Value::Bytes(sent) if sent.len() > MAX_VALUE_BYTES => Kept::TooLong(sent.len()),
                Value::Bytes(sent) => {
                    let start = bytes.len();
                    bytes.extend_from_slice(sent);
                    Kept::Bytes(start..bytes.len())
                }
            })
            .collect();
        Values {
            bytes: bytes.into_boxed_slice(),
            values: kept,
            names: names.map(<[String]>::to_vec),
        }
    }

    /// A kept value as a protocol value (`None`: too long to have been kept).
    pub(super) fn value(&self, kept: &Kept) -> Option<Value> {
        match kept {
            Kept::Null => Some(Value::Null),
            Kept::Unset => Some(Value::Unset),
            Kept::Bytes(range) => self
                .bytes
                .get(range.clone())
                .map(|bytes| Value::Bytes(Bytes::copy_from_slice(bytes))),
            Kept::TooLong(_) => None,
        }
    }
}

/// The bytes [`Values::copy`] keeps of `value`.
fn kept_length(value: &Value) -> usize {
    match value {
        Value::Bytes(sent) if sent.len() <= MAX_VALUE_BYTES => sent.len(),
        _ => 0,
    }
}

/// One entry of the log.
#[derive(Debug)]
pub(crate) struct Entry {
    /// The entry's number: 1 for the node's first, and on.
    pub(super) id: u64,
    pub(super) noted: Box<Noted>,
    pub(super) outcome: Outcome,
}

/// The name the log gives `opcode`, for the requests it records (QUERY, PREPARE, EXECUTE,
/// BATCH); `None` for the others (STARTUP, OPTIONS, REGISTER, AUTH_RESPONSE).
pub(super) fn logged_opcode(opcode: u8) -> Option<&'static str> {
    match Opcode::try_from(opcode).ok()? {
        Opcode::Query => Some("QUERY"),
        Opcode::Prepare => Some("PREPARE"),
        Opcode::Execute => Some("EXECUTE"),
        Opcode::Batch => Some("BATCH"),
        _ => None,
    }
}

impl Noted {
    /// The start of an entry for a request with `opcode` from `session`'s client.
    fn new(node: &Node, session: &Session, opcode: &'static str) -> Noted {
        Noted {
            at_micros: node.clock().now_micros(),
            coordinator: session.local.ip(),
            client: session.peer,
            driver: session.driver(),
            keyspace: None,
            opcode,
            statement: Logged::Nothing,
            options: Options::default(),
            examined: None,
        }
    }

    /// The entry of a CQL request with `opcode`, decoded as `request` (`None`: it did not
    /// decode); `None` for an opcode the log does not record.
    pub(super) fn of_request(
        node: &Node,
        session: &Session,
        opcode: u8,
        request: Option<&Request>,
    ) -> Option<Box<Noted>> {
        let mut noted = Noted::new(node, session, logged_opcode(opcode)?);
        match request {
            Some(Request::Query(query)) => {
                noted.parameters(session, &query.params);
                noted.statement = text(&query.query, Sent::of(&query.params));
            }
            Some(Request::Execute(execute)) => {
                noted.parameters(session, &execute.params);
                noted.statement = prepared(node, &execute.id, Sent::of(&execute.params));
            }
            Some(Request::Prepare(prepare)) => {
                noted.keyspace = prepare.keyspace.clone().or_else(|| session.keyspace());
                noted.statement = text(&prepare.query, Sent::default());
            }
            Some(Request::Batch(batch)) => noted.batch(node, session, batch),
            _ => {}
        }
        Some(Box::new(noted))
    }

    /// The entry of a request to the HTTP door from `client`, reached at `local`.
    pub(super) fn of_http(
        node: &Node,
        client: SocketAddr,
        local: SocketAddr,
        line: String,
        body: &[u8],
    ) -> Box<Noted> {
        let body = (!body.is_empty()).then(|| kept_text(&String::from_utf8_lossy(body)).0);
        Box::new(Noted {
            at_micros: node.clock().now_micros(),
            coordinator: local.ip(),
            client,
            driver: None,
            keyspace: None,
            opcode: "HTTP",
            statement: Logged::Http { line, body },
            options: Options::default(),
            examined: None,
        })
    }

    /// Adds what a part of the request's handling read.
    pub(super) fn add_examined(&mut self, examined: Examined) {
        if examined.reads > 0 {
            self.examined = Some(self.examined.unwrap_or_default().plus(examined));
        }
    }

    /// The keyspace and options of a QUERY or EXECUTE.
    fn parameters(&mut self, session: &Session, params: &QueryParameters) {
        self.keyspace = params.keyspace.clone().or_else(|| session.keyspace());
        self.options = Options {
            consistency: Some(params.consistency),
            serial_consistency: params.serial_consistency,
            page_size: params.page_size,
            paging_state: Some(params.paging_state.is_some()),
            default_timestamp: params.default_timestamp,
        };
    }

    /// A BATCH's keyspace, options and statements.
    fn batch(&mut self, node: &Node, session: &Session, batch: &Batch) {
        self.keyspace = batch.keyspace.clone().or_else(|| session.keyspace());
        self.options = Options {
            consistency: Some(batch.consistency),
            serial_consistency: batch.serial_consistency,
            default_timestamp: batch.default_timestamp,
            ..Options::default()
        };
        let statements = batch
            .statements
            .iter()
            .map(|entry| {
                let sent = Sent {
                    values: &entry.values,
                    names: None,
                };
                match &entry.query {
                    BatchQuery::Text(query) => text(query, sent),
                    BatchQuery::Prepared(id) => prepared(node, id, sent),
                }
            })
            .collect();
        self.statement = Logged::Batch {
            kind: batch.kind,
            statements,
        };
    }
}

/// The values a statement was sent with, and their names when sent by name.
#[derive(Debug, Default, Clone, Copy)]
struct Sent<'a> {
    values: &'a [Value],
    names: Option<&'a [String]>,
}

impl Sent<'_> {
    /// The values of a QUERY's or EXECUTE's parameters.
    fn of(params: &QueryParameters) -> Sent<'_> {
        Sent {
            values: &params.values,
            names: params.value_names.as_deref(),
        }
    }

    /// The values, copied.
    fn kept(self) -> Values {
        Values::copy(self.values, self.names)
    }
}

/// Statement text with its values; hidden when it may carry a password.
fn text(query: &str, sent: Sent<'_>) -> Logged {
    if may_carry_password(query) {
        return Logged::Hidden {
            values: sent.values.len(),
        };
    }
    let (text, cut) = kept_text(query);
    Logged::Text {
        text,
        cut,
        values: sent.kept(),
    }
}

/// The prepared statement `id` with its values; hidden when it may carry a password.
fn prepared(node: &Node, id: &Bytes, sent: Sent<'_>) -> Logged {
    match node.prepared().get(id) {
        Some(statement) if statement.may_carry_password => Logged::Hidden {
            values: sent.values.len(),
        },
        Some(statement) => Logged::Prepared {
            statement,
            values: sent.kept(),
        },
        None => Logged::UnknownId(Bytes::copy_from_slice(id)),
    }
}

/// `text`, cut to [`MAX_TEXT_BYTES`] on a character boundary; whether it was cut.
fn kept_text(text: &str) -> (Box<str>, bool) {
    if text.len() <= MAX_TEXT_BYTES {
        return (text.into(), false);
    }
    let mut end = MAX_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (format!("{}...", &text[..end]).into(), true)
}

#[cfg(test)]
impl Noted {
    /// An entry of `opcode` running `statement` from 10.0.0.7:40000 at the epoch.
    pub(super) fn sample(opcode: &'static str, statement: Logged) -> Box<Noted> {
        Box::new(Noted {
            at_micros: 0,
            coordinator: IpAddr::from([127, 0, 0, 1]),
            client: SocketAddr::from(([10, 0, 0, 7], 40000)),
            driver: None,
            keyspace: Some("ks".into()),
            opcode,
            statement,
            options: Options::default(),
            examined: None,
        })
    }

    /// [`Logged::Text`] of `query` with `values`.
    pub(super) fn text_sample(query: &str, values: &[Value]) -> Logged {
        text(
            query,
            Sent {
                values,
                names: None,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_and_long_values_kept_as_lengths() {
        let (short, cut) = kept_text("SELECT 1");
        assert_eq!((&*short, cut), ("SELECT 1", false));
        let long = "é".repeat(MAX_TEXT_BYTES);
        let (kept_long, cut) = kept_text(&long);
        assert!(cut && kept_long.ends_with("...") && kept_long.len() <= MAX_TEXT_BYTES + 3);
        let sent = [
            Value::Bytes(Bytes::from(vec![7; MAX_VALUE_BYTES + 1])),
            Value::Bytes(Bytes::from_static(b"ab")),
            Value::Null,
            Value::Unset,
            Value::Bytes(Bytes::from_static(b"c")),
        ];
        let values = Values::copy(&sent, None);
        assert_eq!(
            values.values,
            [
                Kept::TooLong(MAX_VALUE_BYTES + 1),
                Kept::Bytes(0..2),
                Kept::Null,
                Kept::Unset,
                Kept::Bytes(2..3)
            ]
        );
        assert_eq!(&*values.bytes, b"abc");
        let back: Vec<_> = values.values.iter().map(|v| values.value(v)).collect();
        assert_eq!(
            back,
            [
                None,
                Some(sent[1].clone()),
                Some(Value::Null),
                Some(Value::Unset),
                Some(sent[4].clone())
            ]
        );
    }

    #[test]
    fn statements_with_passwords_keep_neither_text_nor_values() {
        let params = QueryParameters {
            values: vec![Value::Bytes(Bytes::from_static(b"secret"))],
            ..QueryParameters::default()
        };
        let hidden = text("ALTER ROLE r WITH PASSWORD = ?", Sent::of(&params));
        assert!(matches!(hidden, Logged::Hidden { values: 1 }));
        let shown = text("SELECT * FROM t WHERE k = ?", Sent::of(&params));
        assert!(matches!(shown, Logged::Text { cut: false, .. }));
    }

    #[test]
    fn only_statement_opcodes_are_logged() {
        let names: Vec<_> = [0x07, 0x09, 0x0A, 0x0D, 0x01, 0x05, 0x0B, 0x0F, 0x42]
            .into_iter()
            .map(logged_opcode)
            .collect();
        assert_eq!(
            names,
            [
                Some("QUERY"),
                Some("PREPARE"),
                Some("EXECUTE"),
                Some("BATCH"),
                None,
                None,
                None,
                None,
                None
            ]
        );
    }
}
