//! Values to JSON text as Cassandra's `AbstractType.toJSONString` writes them: strings, uuids,
//! inets, blobs (`"0x.."`), dates, times, timestamps and durations quoted; numbers and booleans
//! bare (NaN and infinities as `null`); lists, sets and tuples as arrays; maps and UDTs as
//! objects whose keys are strings.

use cql::types::number_text::{decimal_to_text, varint_to_text, NumberTextError};
use cql::types::CqlValue;

use crate::eval::datetime::print::{
    duration_string, format_date, format_time, format_timestamp_with,
};

/// `s` as a JSON string literal, escaped as Jackson's `JsonStringEncoder` does.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A column or field name as a JSON object key: names that are not all lower case are
/// wrapped in double quotes first, as CQL would need to write them.
pub(crate) fn name_key(name: &str) -> String {
    if name == name.to_lowercase() {
        quote(name)
    } else {
        quote(&format!("\"{name}\""))
    }
}

/// The JSON text of `value`; `None` is `null`.
///
/// # Errors
///
/// A `varint` or `decimal` too long to print (`cql::types::number_text::MAX_DIGITS`).
pub(crate) fn to_json(value: Option<&CqlValue>) -> Result<String, NumberTextError> {
    let mut out = String::new();
    match value {
        Some(v) => write_value(v, &mut out)?,
        None => out.push_str("null"),
    }
    Ok(out)
}

fn write_value(value: &CqlValue, out: &mut String) -> Result<(), NumberTextError> {
    match value {
        CqlValue::Ascii(s) | CqlValue::Text(s) => out.push_str(&quote(s)),
        CqlValue::Bigint(v) | CqlValue::Counter(v) => out.push_str(&v.to_string()),
        CqlValue::Int(v) => out.push_str(&v.to_string()),
        CqlValue::Smallint(v) => out.push_str(&v.to_string()),
        CqlValue::Tinyint(v) => out.push_str(&v.to_string()),
        CqlValue::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        CqlValue::Blob(b) => {
            out.push_str("\"0x");
            out.push_str(&crate::error::hex(b));
            out.push('"');
        }
        CqlValue::Varint(bytes) => out.push_str(&varint_to_text(bytes)?),
        CqlValue::Decimal { unscaled, scale } => out.push_str(&decimal_to_text(unscaled, *scale)?),
        CqlValue::Double(v) => out.push_str(&java_double(*v)),
        CqlValue::Float(v) => out.push_str(&java_float(*v)),
        CqlValue::Uuid(u) | CqlValue::Timeuuid(u) => out.push_str(&quote(&u.to_string())),
        CqlValue::Inet(ip) => out.push_str(&quote(&crate::eval::java_text::java_inet(ip))),
        CqlValue::Timestamp(ms) => out.push_str(&quote(&format_timestamp_with(*ms, ' '))),
        CqlValue::Date(d) => out.push_str(&quote(&format_date(*d))),
        CqlValue::Time(ns) => out.push_str(&quote(&format_time(*ns))),
        CqlValue::Duration {
            months,
            days,
            nanoseconds,
        } => out.push_str(&quote(&duration_string(*months, *days, *nanoseconds))),
        CqlValue::List(items) | CqlValue::Set(items) | CqlValue::Vector(items) => {
            write_items(items.iter().map(Some), out)?;
        }
        CqlValue::Tuple(items) => write_items(items.iter().map(Option::as_ref), out)?,
        CqlValue::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&map_key(k)?);
                out.push_str(": ");
                write_value(v, out)?;
            }
            out.push('}');
        }
        CqlValue::Udt(fields) => {
            out.push('{');
            for (i, (name, v)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&name_key(name));
                out.push_str(": ");
                out.push_str(&to_json(v.as_ref())?);
            }
            out.push('}');
        }
        CqlValue::Empty => out.push_str("\"\""),
    }
    Ok(())
}

fn write_items<'a>(
    items: impl Iterator<Item = Option<&'a CqlValue>>,
    out: &mut String,
) -> Result<(), NumberTextError> {
    out.push('[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match item {
            Some(v) => write_value(v, out)?,
            None => out.push_str("null"),
        }
    }
    out.push(']');
    Ok(())
}

/// A map key: its JSON text if that is a string already, else that text as a string.
fn map_key(key: &CqlValue) -> Result<String, NumberTextError> {
    let text = to_json(Some(key))?;
    Ok(if text.starts_with('"') {
        text
    } else {
        quote(&text)
    })
}

/// Java's `Double.toString`; JSON has no NaN or infinities, so Cassandra writes `null`.
pub(crate) fn java_double(v: f64) -> String {
    if v.is_finite() {
        crate::eval::java_text::java_double(v)
    } else {
        "null".into()
    }
}

/// Java's `Float.toString` (see [`java_double`]).
pub(crate) fn java_float(v: f32) -> String {
    if v.is_finite() {
        crate::eval::java_text::java_float(v)
    } else {
        "null".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn j(v: CqlValue) -> String {
        to_json(Some(&v)).expect("printable")
    }

    #[test]
    fn strings_are_quoted_and_escaped() {
        assert_eq!(
            j(CqlValue::Text("a\"b\\c\n\u{0}é".into())),
            r#""a\"b\\c\n\u0000é""#
        );
        assert_eq!(j(CqlValue::Ascii(String::new())), "\"\"");
    }

    #[test]
    fn numbers_are_bare_and_java_formatted() {
        assert_eq!(j(CqlValue::Int(-123123)), "-123123");
        assert_eq!(j(CqlValue::Bigint(123123123123)), "123123123123");
        assert_eq!(j(CqlValue::Tinyint(-128)), "-128");
        assert_eq!(j(CqlValue::Double(123123.0)), "123123.0");
        assert_eq!(j(CqlValue::Double(123123.123123)), "123123.123123");
        assert_eq!(j(CqlValue::Double(1e10)), "1.0E10");
        assert_eq!(j(CqlValue::Double(1.5e-5)), "1.5E-5");
        assert_eq!(j(CqlValue::Double(f64::NAN)), "null");
        assert_eq!(j(CqlValue::Float(f32::NEG_INFINITY)), "null");
        assert_eq!(j(CqlValue::Float(123.123)), "123.123");
        assert_eq!(j(CqlValue::Boolean(false)), "false");
    }

    #[test]
    fn quoted_scalars() {
        assert_eq!(j(CqlValue::Blob(vec![0, 0, 0, 1])), "\"0x00000001\"");
        assert_eq!(j(CqlValue::Blob(vec![])), "\"0x\"");
        let u = Uuid::parse_str("6bddc89a-5644-11e4-97fc-56847afe9799").unwrap();
        assert_eq!(
            j(CqlValue::Timeuuid(u)),
            "\"6bddc89a-5644-11e4-97fc-56847afe9799\""
        );
        assert_eq!(
            j(CqlValue::Inet("127.0.0.1".parse().unwrap())),
            "\"127.0.0.1\""
        );
        assert_eq!(
            j(CqlValue::Inet("::1".parse().unwrap())),
            "\"0:0:0:0:0:0:0:1\""
        );
        assert_eq!(
            j(CqlValue::Timestamp(1388534400000)),
            "\"2014-01-01 00:00:00.000Z\""
        );
        assert_eq!(j(CqlValue::Date((1u32 << 31) + 6290)), "\"1987-03-23\"");
        assert_eq!(j(CqlValue::Time(123)), "\"00:00:00.000000123\"");
        let d = CqlValue::Duration {
            months: 13,
            days: 2,
            nanoseconds: 36_300_000_000_000,
        };
        assert_eq!(j(d), "\"1y1mo2d10h5m\"");
    }

    #[test]
    fn collections_tuples_and_udts() {
        let list = CqlValue::List(vec![CqlValue::Int(1), CqlValue::Int(2)]);
        assert_eq!(j(list), "[1, 2]");
        let map = CqlValue::Map(vec![
            (CqlValue::Int(1), CqlValue::Text("x".into())),
            (CqlValue::Text("k".into()), CqlValue::Int(2)),
        ]);
        assert_eq!(j(map), r#"{"1": "x", "k": 2}"#);
        let tuple_key = CqlValue::Map(vec![(
            CqlValue::Tuple(vec![Some(CqlValue::Text("a".into())), None]),
            CqlValue::Int(1),
        )]);
        assert_eq!(j(tuple_key), r#"{"[\"a\", null]": 1}"#);
        let tuple = CqlValue::Tuple(vec![Some(CqlValue::Int(1)), None]);
        assert_eq!(j(tuple), "[1, null]");
        let udt = CqlValue::Udt(vec![
            ("a".into(), Some(CqlValue::Int(1))),
            ("Foo".into(), None),
        ]);
        assert_eq!(j(udt), r#"{"a": 1, "\"Foo\"": null}"#);
        assert_eq!(to_json(None).as_deref(), Ok("null"));
    }

    #[test]
    fn keys_quote_names_with_capitals() {
        assert_eq!(name_key("k"), "\"k\"");
        assert_eq!(name_key("ttl(v)"), "\"ttl(v)\"");
        assert_eq!(name_key("Foo"), r#""\"Foo\"""#);
    }
}
