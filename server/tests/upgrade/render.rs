//! Results as stable text, and the manifest that holds them.
//!
//! The text is defined here, not by a `Debug` implementation of the server's or a driver's
//! types, so it stays the same while those change: a checked-in manifest must compare equal
//! for as long as its fixture is kept (forever). Cells are decoded with the `cql` crate and
//! written as CQL-like literals; numbers that have an exact text (dates as days since the
//! epoch, times as nanoseconds, timestamps as milliseconds, decimals as `unscaled e-scale`)
//! are written as such. A column named `ttl(...)` shows `positive` for a positive TTL, so
//! the text does not depend on when the test runs.

use cql::frame::response::{ColumnSpec, Response, ResultBody};
use cql::types::codec::deserialize_value;
use cql::types::CqlValue;
use num_bigint::BigInt;

/// One check: a query, who runs it, and its result as lines of text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// `user/password` of the role that runs the query.
    pub(crate) login: String,
    /// The CQL text.
    pub(crate) query: String,
    /// The result, one line per row (`(no rows)`, or `error 0x....`).
    pub(crate) lines: Vec<String>,
}

/// The manifest's first lines (comments; the parser skips lines starting with `#`).
const HEADER: &str = "\
# Expected contents of this fixture's data directory (server/tests/upgrade/main.rs).
# Written by scripts/upgrade-fixture.sh; never edit or delete it.
# An entry is `as USER/PASSWORD: QUERY`, then its result, one indented line per row.
";

/// The whole manifest text of `entries`, after the record of the versions the fixture holds.
pub(crate) fn manifest(format: &str, entries: &[Entry]) -> String {
    let mut text = String::from(HEADER);
    for line in format.lines().filter(|l| !l.trim().is_empty()) {
        text.push_str(&format!("# {line}\n"));
    }
    for entry in entries {
        text.push_str(&format!("\nas {}: {}\n", entry.login, entry.query));
        for line in &entry.lines {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text
}

/// The entries of a manifest's text.
pub(crate) fn parse(text: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some(row) = line.strip_prefix("  ") {
            let entry = entries.last_mut().expect("a row line follows an entry");
            entry.lines.push(row.to_owned());
            continue;
        }
        let rest = line
            .strip_prefix("as ")
            .expect("an entry line starts with `as `");
        let (login, query) = rest.split_once(": ").expect("`as USER/PASSWORD: QUERY`");
        entries.push(Entry {
            login: login.to_owned(),
            query: query.to_owned(),
            lines: Vec::new(),
        });
    }
    entries
}

/// A response as lines of text: one per row, or the error's code.
pub(crate) fn response(response: &Response) -> Vec<String> {
    match response {
        Response::Result(ResultBody::Rows(rows)) if rows.rows.is_empty() => {
            vec!["(no rows)".to_owned()]
        }
        Response::Result(ResultBody::Rows(rows)) => {
            assert!(rows.metadata.paging_state.is_none(), "one page only");
            let specs = &rows.metadata.columns;
            rows.rows.iter().map(|row| self::row(specs, row)).collect()
        }
        Response::Result(_) => vec!["(done)".to_owned()],
        Response::Error(error) => vec![format!("error 0x{:04x}", error.code)],
        other => panic!("unexpected answer {other:?}"),
    }
}

fn row(specs: &[ColumnSpec], cells: &[Option<bytes::Bytes>]) -> String {
    let cells: Vec<String> = specs
        .iter()
        .zip(cells)
        .map(|(spec, cell)| format!("{}={}", spec.name, self::cell(spec, cell.as_deref())))
        .collect();
    cells.join(" | ")
}

fn cell(spec: &ColumnSpec, bytes: Option<&[u8]>) -> String {
    let Some(bytes) = bytes else {
        return "null".to_owned();
    };
    let value = deserialize_value(&spec.ty, bytes)
        .unwrap_or_else(|e| panic!("column {}: {e:?}", spec.name));
    match value {
        CqlValue::Int(ttl) if spec.name.starts_with("ttl(") && ttl > 0 => "positive".to_owned(),
        value => literal(&value),
    }
}

/// A value as a CQL-like literal.
pub(crate) fn literal(value: &CqlValue) -> String {
    match value {
        CqlValue::Ascii(s) | CqlValue::Text(s) => quoted(s),
        CqlValue::Bigint(n) | CqlValue::Counter(n) | CqlValue::Timestamp(n) => n.to_string(),
        CqlValue::Time(n) => n.to_string(),
        CqlValue::Int(n) => n.to_string(),
        CqlValue::Smallint(n) => n.to_string(),
        CqlValue::Tinyint(n) => n.to_string(),
        CqlValue::Blob(b) => hex(b),
        CqlValue::Boolean(b) => b.to_string(),
        CqlValue::Decimal { unscaled, scale } => {
            format!(
                "{}e{}",
                BigInt::from_signed_bytes_be(unscaled),
                -i64::from(*scale)
            )
        }
        CqlValue::Varint(b) => BigInt::from_signed_bytes_be(b).to_string(),
        CqlValue::Double(x) => format!("{x:?}"),
        CqlValue::Float(x) => format!("{x:?}"),
        CqlValue::Uuid(u) | CqlValue::Timeuuid(u) => u.hyphenated().to_string(),
        CqlValue::Inet(ip) => ip.to_string(),
        CqlValue::Date(d) => (i64::from(*d) - (1i64 << 31)).to_string(),
        CqlValue::Duration {
            months,
            days,
            nanoseconds,
        } => format!("{months}mo{days}d{nanoseconds}ns"),
        CqlValue::List(items) | CqlValue::Vector(items) => format!("[{}]", joined(items)),
        CqlValue::Set(items) => format!("{{{}}}", joined(items)),
        CqlValue::Map(pairs) => {
            let pairs: Vec<String> = pairs
                .iter()
                .map(|(k, v)| format!("{}: {}", literal(k), literal(v)))
                .collect();
            format!("{{{}}}", pairs.join(", "))
        }
        CqlValue::Udt(fields) => {
            let fields: Vec<String> = fields
                .iter()
                .map(|(name, v)| format!("{name}: {}", optional(v.as_ref())))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        CqlValue::Tuple(items) => {
            let items: Vec<String> = items.iter().map(|v| optional(v.as_ref())).collect();
            format!("({})", items.join(", "))
        }
        CqlValue::Empty => "<empty>".to_owned(),
    }
}

fn optional(value: Option<&CqlValue>) -> String {
    value.map_or_else(|| "null".to_owned(), literal)
}

fn joined(items: &[CqlValue]) -> String {
    let items: Vec<String> = items.iter().map(literal).collect();
    items.join(", ")
}

/// `'text'` with quotes doubled and control characters escaped, so a value is one line.
fn quoted(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\'' => out.push_str("''"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn hex(bytes: &[u8]) -> String {
    let digits: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("0x{digits}")
}
