//! JSON values to CQL values per receiving type, as Cassandra's `AbstractType.fromJSONObject`
//! reads them: numbers from JSON numbers or strings, timestamps from strings or integers,
//! blobs from `"0x.."`, booleans from `true` or `"true"`, map keys from strings, UDTs from
//! objects. The error prints the message Cassandra's `MarshalException` carries.

use cql::statement::ast::Literal;
use cql::types::number_text::NumberTextError;
use cql::types::{ColumnType, CqlValue};

use super::value::{is_integer, Json, JsonSyntaxError};
use crate::error::ValueError;
use crate::eval::literals::{decimal, literal_value, sort_map, sort_set, Receiver};

/// A value, or why the JSON value does not fit its receiving type.
type Decoded = Result<Option<CqlValue>, ValueError>;

fn got(what: impl Into<String>, json: &Json) -> ValueError {
    ValueError::JsonExpected {
        what: what.into(),
        kind: json.kind(),
        json: json.to_string(),
    }
}

fn syntax(err: JsonSyntaxError) -> ValueError {
    ValueError::JsonSyntax {
        message: err.message,
        offset: err.offset,
    }
}

/// Types a literal through the CQL literal rules, keeping their message.
fn literal(ty: &ColumnType, lit: Literal) -> Decoded {
    literal_value(&lit, Receiver { name: "", ty }).map(Some)
}

/// Reads `json` as a value of `ty`; JSON `null` is `None`.
///
/// # Errors
/// Cassandra's message when the value does not fit the type.
pub(crate) fn decode(ty: &ColumnType, json: &Json) -> Decoded {
    if *json == Json::Null {
        return Ok(None);
    }
    use ColumnType as T;
    match ty {
        T::Ascii => text(ty, json, "an ascii string"),
        T::Text => text(ty, json, "a UTF-8 string"),
        T::Int => integer(ty, json, "an int value"),
        T::Bigint | T::Counter => integer(ty, json, "a bigint value"),
        T::Smallint => integer(ty, json, "a short value"),
        T::Tinyint => integer(ty, json, "a byte value"),
        T::Varint => integer(ty, json, "an integer value"),
        T::Float | T::Double => match json {
            Json::Number(n) | Json::String(n) => literal(ty, Literal::Float(n.clone())),
            _ => Err(got(format!("a {ty} value"), json)),
        },
        T::Decimal => match json {
            Json::Number(n) | Json::String(n) => decimal(n).map(Some).map_err(|err| match err {
                NumberTextError::Malformed => ValueError::JsonDecimal { text: n.clone() },
                too_long => ValueError::NumberText(too_long),
            }),
            _ => Err(got("a decimal value", json)),
        },
        T::Boolean => boolean(json),
        T::Blob => blob(json),
        T::Timestamp => match json {
            Json::String(s) => literal(ty, Literal::String(s.clone())),
            Json::Number(n) if is_integer(n) => literal(ty, Literal::Integer(n.clone())),
            _ => Err(got(
                "a long or a datestring representation of a timestamp value",
                json,
            )),
        },
        T::Date => string_only(ty, json, "a string representation of a date value"),
        T::Time => string_only(ty, json, "a string representation of a time value"),
        T::Uuid | T::Timeuuid => match json {
            // UUIDSerializer.fromString: the text must parse as a UUID (no CQL quoting rules).
            Json::String(s) => match uuid::Uuid::parse_str(s.trim()) {
                Ok(u) => literal(ty, Literal::Uuid(u)),
                Err(_) => Err(ValueError::Unparsable {
                    what: "UUID",
                    text: s.clone(),
                }),
            },
            _ => Err(got("a string representation of a uuid", json)),
        },
        T::Inet => string_only(ty, json, "a string representation of an inet value"),
        T::Duration => match json {
            Json::String(s) => cql::types::duration::parse_duration(s)
                .map(|d| {
                    Some(CqlValue::Duration {
                        months: d.months,
                        days: d.days,
                        nanoseconds: d.nanoseconds,
                    })
                })
                .map_err(ValueError::Duration),
            _ => Err(got("a string representation of a duration", json)),
        },
        T::List { element, .. } => match json {
            Json::Array(items) => elements(element, items, "list").map(|v| Some(CqlValue::List(v))),
            _ => Err(got("a list", json)),
        },
        T::Set { element, .. } => match json {
            Json::Array(items) => {
                elements(element, items, "set").map(|v| Some(CqlValue::Set(sort_set(v, element))))
            }
            _ => Err(got("a list (representing a set)", json)),
        },
        T::Map { key, value, .. } => map(key, value, json),
        T::Tuple(types) => tuple(types, json),
        T::Udt { name, fields, .. } => udt(name, fields, json),
        T::Vector { element, dimension } => vector(element, *dimension, json),
        T::Custom(class) => Err(ValueError::JsonCustomType {
            class: class.clone(),
        }),
    }
}

fn text(ty: &ColumnType, json: &Json, what: &str) -> Decoded {
    match json {
        Json::String(s) => literal(ty, Literal::String(s.clone())),
        _ => Err(got(what, json)),
    }
}

fn string_only(ty: &ColumnType, json: &Json, what: &str) -> Decoded {
    match json {
        Json::String(s) => literal(ty, Literal::String(s.clone())),
        _ => Err(got(what, json)),
    }
}

/// An integer type: from an integral JSON number (an exponent form is accepted when its
/// value is integral) or from a string of digits.
fn integer(ty: &ColumnType, json: &Json, what: &str) -> Decoded {
    match json {
        Json::String(s) => literal(ty, Literal::Integer(s.trim().to_string())),
        Json::Number(n) if is_integer(n) => literal(ty, Literal::Integer(n.clone())),
        Json::Number(n) => match integral_text(n) {
            Some(digits) => literal(ty, Literal::Integer(digits)),
            None => Err(got(what, json)),
        },
        _ => Err(got(what, json)),
    }
}

/// The integer digits of `1.5E3`-style text when its value is integral.
fn integral_text(number: &str) -> Option<String> {
    let lower = number.to_ascii_lowercase();
    let (mantissa, exponent) = lower.split_once('e')?;
    let exponent: i64 = exponent.parse().ok()?;
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let frac = frac.trim_end_matches('0');
    let shift = exponent - frac.len() as i64;
    if !(0..=400).contains(&shift) {
        return None;
    }
    Some(format!("{sign}{int}{frac}{}", "0".repeat(shift as usize)))
}

fn boolean(json: &Json) -> Decoded {
    match json {
        Json::Bool(b) => Ok(Some(CqlValue::Boolean(*b))),
        Json::String(s) if s.eq_ignore_ascii_case("true") => Ok(Some(CqlValue::Boolean(true))),
        Json::String(s) if s.eq_ignore_ascii_case("false") => Ok(Some(CqlValue::Boolean(false))),
        Json::String(s) => Err(ValueError::Unparsable {
            what: "boolean",
            text: s.clone(),
        }),
        _ => Err(got("a boolean value", json)),
    }
}

fn blob(json: &Json) -> Decoded {
    let Json::String(s) = json else {
        return Err(got("a string representation of a blob", json));
    };
    let Some(hex) = s.strip_prefix("0x") else {
        return Err(ValueError::JsonBlobPrefix { text: s.clone() });
    };
    let bad = || ValueError::NotHex {
        text: hex.to_string(),
    };
    if hex.len() % 2 != 0 {
        return Err(bad());
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| {
            hex.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(bad)?;
    Ok(Some(CqlValue::Blob(bytes)))
}

/// `VectorType.fromJSONObject`: a JSON list (or a string holding one) of exactly `dimension`
/// non-null elements.
fn vector(element: &ColumnType, dimension: u32, json: &Json) -> Decoded {
    let parsed;
    let json = match json {
        Json::String(s) => {
            parsed = super::value::parse(s).map_err(syntax)?;
            &parsed
        }
        other => other,
    };
    let Json::Array(items) = json else {
        return Err(got("a list", json));
    };
    if items.len() != dimension as usize {
        return Err(ValueError::JsonListSize {
            dimension,
            given: items.len(),
            json: json.to_string(),
        });
    }
    elements(element, items, "list").map(|v| Some(CqlValue::Vector(v)))
}

fn elements(
    element: &ColumnType,
    items: &[Json],
    kind: &'static str,
) -> Result<Vec<CqlValue>, ValueError> {
    items
        .iter()
        .map(|item| decode(element, item)?.ok_or(ValueError::JsonNullElement { kind }))
        .collect()
}

/// A map key arrives as a JSON string: text keys are the string itself, other types are
/// read from the string's JSON content (`"1"` for an int, `"[1, 2]"` for a frozen list),
/// falling back to the string when it is not JSON (`"2014-01-01"` for a timestamp).
fn map_key(key_type: &ColumnType, key: &str) -> Decoded {
    if matches!(key_type, ColumnType::Text | ColumnType::Ascii) {
        return decode(key_type, &Json::String(key.to_string()));
    }
    match super::value::parse(key) {
        Ok(Json::String(_)) | Err(_) => decode(key_type, &Json::String(key.to_string())),
        Ok(json) => decode(key_type, &json),
    }
}

fn map(key_type: &ColumnType, value_type: &ColumnType, json: &Json) -> Decoded {
    let Json::Object(members) = json else {
        return Err(got("a map", json));
    };
    let mut entries = Vec::with_capacity(members.len());
    for (k, v) in members {
        let key = map_key(key_type, k)?.ok_or(ValueError::JsonNullKey)?;
        let value = decode(value_type, v)?.ok_or(ValueError::JsonNullValue)?;
        entries.push((key, value));
    }
    Ok(Some(CqlValue::Map(sort_map(entries, key_type))))
}

fn tuple(types: &[ColumnType], json: &Json) -> Decoded {
    let Json::Array(items) = json else {
        return Err(got("a list representation of a tuple", json));
    };
    if items.len() > types.len() {
        return Err(ValueError::JsonTupleExtraItems {
            expected: types.len(),
            given: items.len(),
        });
    }
    if items.len() < types.len() {
        return Err(ValueError::JsonTupleMissingItems {
            expected: types.len(),
            given: items.len(),
        });
    }
    let values = types
        .iter()
        .zip(items)
        .map(|(ty, item)| decode(ty, item))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(CqlValue::Tuple(values)))
}

/// A JSON object key as a column or field name: `"\"Name\""` keeps its case, anything
/// else is lower-cased (Cassandra's `Json.handleCaseSensitivity`).
pub(crate) fn unquote_name(key: &str) -> String {
    match key.strip_prefix('"').and_then(|k| k.strip_suffix('"')) {
        Some(inner) if key.len() >= 2 => inner.to_string(),
        _ => key.to_lowercase(),
    }
}

fn udt(name: &str, fields: &[(String, ColumnType)], json: &Json) -> Decoded {
    let Json::Object(members) = json else {
        return Err(got("a map", json));
    };
    let mut given: Vec<(String, &Json)> =
        members.iter().map(|(k, v)| (unquote_name(k), v)).collect();
    let mut values = Vec::with_capacity(fields.len());
    for (field, ty) in fields {
        let value = match given.iter().position(|(k, _)| k == field) {
            Some(i) => decode(ty, given.remove(i).1)?,
            None => None,
        };
        values.push((field.clone(), value));
    }
    if let Some((unknown, _)) = given.first() {
        return Err(ValueError::UnknownField {
            field: unknown.clone(),
            type_name: name.to_string(),
        });
    }
    Ok(Some(CqlValue::Udt(values)))
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
