//! Bound values as CQL literals, for the `bound_var_<i>_<name>` parameters of a traced
//! EXECUTE (Cassandra's `asCQL3Type().toCQLLiteral(value)`, cut at 1,000 characters).

use cql::frame::request::Value;
use cql::types::{codec, ColumnType, CqlValue};

use crate::eval::json::render::to_json;

/// Characters of a bound value kept; Cassandra then appends `...'`.
const MAX_BOUND_VALUE: usize = 1_000;

/// The literal of `value` bound to a marker of type `ty`.
pub(crate) fn bound_value(ty: &ColumnType, value: Option<&Value>) -> String {
    let text = match value {
        None | Some(Value::Null) => "null".to_string(),
        Some(Value::Unset) => "unset".to_string(),
        Some(Value::Bytes(bytes)) => match codec::deserialize_value(ty, bytes) {
            Ok(value) => literal(&value),
            Err(_) => format!("0x{}", crate::error::hex(bytes)),
        },
    };
    match text.char_indices().nth(MAX_BOUND_VALUE) {
        Some((at, _)) => format!("{}...'", &text[..at]),
        None => text,
    }
}

/// A value as CQL text: strings quoted with `''` escapes, uuids and numbers bare, blobs
/// `0x...`, collections, tuples and UDTs in their literal syntax.
pub(crate) fn literal(value: &CqlValue) -> String {
    let items = |items: &mut dyn Iterator<Item = String>| items.collect::<Vec<_>>().join(", ");
    match value {
        CqlValue::Ascii(s) | CqlValue::Text(s) => quote(s),
        CqlValue::Uuid(u) | CqlValue::Timeuuid(u) => u.to_string(),
        CqlValue::Blob(b) => format!("0x{}", crate::error::hex(b)),
        CqlValue::Empty => "''".to_string(),
        CqlValue::List(values) => format!("[{}]", items(&mut values.iter().map(literal))),
        CqlValue::Set(values) => format!("{{{}}}", items(&mut values.iter().map(literal))),
        CqlValue::Map(entries) => format!(
            "{{{}}}",
            items(
                &mut entries
                    .iter()
                    .map(|(k, v)| format!("{}: {}", literal(k), literal(v)))
            )
        ),
        CqlValue::Tuple(values) => format!(
            "({})",
            items(&mut values.iter().map(|v| optional(v.as_ref())))
        ),
        CqlValue::Udt(fields) => format!(
            "{{{}}}",
            items(
                &mut fields
                    .iter()
                    .map(|(name, v)| format!("{name}: {}", optional(v.as_ref())))
            )
        ),
        // Numbers, booleans, times and addresses: their JSON text, quoted as CQL quotes.
        other => match to_json(Some(other)) {
            Ok(json) => match json.strip_prefix('"').and_then(|j| j.strip_suffix('"')) {
                Some(inner) => quote(inner),
                None => json,
            },
            Err(_) => "?".to_string(),
        },
    }
}

fn optional(value: Option<&CqlValue>) -> String {
    value.map_or_else(|| "null".to_string(), literal)
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn bound(ty: ColumnType, value: CqlValue) -> String {
        let mut out = Vec::new();
        codec::serialize_value(&value, &mut out);
        bound_value(&ty, Some(&Value::Bytes(Bytes::from(out))))
    }

    #[test]
    fn values_print_as_cql_literals() {
        assert_eq!(bound(ColumnType::Int, CqlValue::Int(42)), "42");
        assert_eq!(
            bound(ColumnType::Text, CqlValue::Text("it's".into())),
            "'it''s'"
        );
        assert_eq!(
            bound(ColumnType::Blob, CqlValue::Blob(vec![0xca, 0xfe])),
            "0xcafe"
        );
        assert_eq!(
            bound(
                ColumnType::List {
                    element: Box::new(ColumnType::Text),
                    frozen: false,
                },
                CqlValue::List(vec![CqlValue::Text("a".into())])
            ),
            "['a']"
        );
        assert_eq!(bound_value(&ColumnType::Int, Some(&Value::Null)), "null");
        let long = bound(ColumnType::Text, CqlValue::Text("x".repeat(2000)));
        assert_eq!(long.len(), 1000 + 4);
        assert!(long.ends_with("...'"));
    }
}
