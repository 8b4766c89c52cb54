//! Reading a rule's JSON fields: text, numbers and flags (given as JSON values, or as text,
//! which is how the CQL door's `error_details` map carries them), and consistency names.

use serde_json::{Map, Value};

use crate::control::ControlError;

/// Consistency levels by name, as Cassandra's `ConsistencyLevel` names them.
const CONSISTENCIES: &[(&str, u16)] = &[
    ("ANY", 0x0000),
    ("ONE", 0x0001),
    ("TWO", 0x0002),
    ("THREE", 0x0003),
    ("QUORUM", 0x0004),
    ("ALL", 0x0005),
    ("LOCAL_QUORUM", 0x0006),
    ("EACH_QUORUM", 0x0007),
    ("SERIAL", 0x0008),
    ("LOCAL_SERIAL", 0x0009),
    ("LOCAL_ONE", 0x000A),
    ("NODE_LOCAL", 0x000B),
];

/// The code of a consistency level named `name` (any case).
///
/// # Errors
/// No level has that name.
pub(crate) fn consistency_code(name: &str) -> Result<u16, ControlError> {
    CONSISTENCIES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, code)| *code)
        .ok_or_else(|| ControlError::BadRequest(format!("unknown consistency {name}")))
}

/// The text field `name` of `fields` (absent or null: `None`).
///
/// # Errors
/// Present but not a string.
pub(crate) fn text_field(
    fields: &Map<String, Value>,
    name: &str,
) -> Result<Option<String>, ControlError> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(ControlError::BadRequest(format!(
            "\"{name}\" must be a string, not {other}"
        ))),
    }
}

/// The integer field `name` of `fields`, within `min..=max` (a JSON number or its text).
///
/// # Errors
/// Present but not an integer in range.
pub(crate) fn int_field(
    fields: &Map<String, Value>,
    name: &str,
    min: i64,
    max: i64,
) -> Result<Option<i64>, ControlError> {
    let number = match fields.get(name) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => n.as_i64().or_else(|| whole(n.as_f64())),
        Some(Value::String(text)) => text.trim().parse().ok(),
        Some(_) => None,
    };
    match number {
        Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
        _ => Err(ControlError::BadRequest(format!(
            "\"{name}\" must be an integer from {min} to {max}, not {}",
            fields.get(name).map_or(String::new(), Value::to_string)
        ))),
    }
}

/// A float that is a whole number, as an integer.
fn whole(value: Option<f64>) -> Option<i64> {
    value
        .filter(|v| v.fract() == 0.0 && v.abs() < 9.0e15)
        .map(|v| v as i64)
}

/// The `i32` field `name` of `fields`, at least 0.
///
/// # Errors
/// As [`int_field`].
pub(crate) fn count_field(
    fields: &Map<String, Value>,
    name: &str,
) -> Result<Option<i32>, ControlError> {
    Ok(int_field(fields, name, 0, i64::from(i32::MAX))?.and_then(|n| i32::try_from(n).ok()))
}

/// The number field `name` of `fields` (a JSON number or its text).
///
/// # Errors
/// Present but not a number.
pub(crate) fn float_field(
    fields: &Map<String, Value>,
    name: &str,
) -> Result<Option<f64>, ControlError> {
    let number = match fields.get(name) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(text)) => text.trim().parse().ok(),
        Some(_) => None,
    };
    number
        .map(Some)
        .ok_or_else(|| ControlError::BadRequest(format!("\"{name}\" must be a number")))
}

/// The flag `name` of `fields` (`true`, `false`, or their text).
///
/// # Errors
/// Present but not a flag.
pub(crate) fn flag_field(
    fields: &Map<String, Value>,
    name: &str,
) -> Result<Option<bool>, ControlError> {
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(flag)) => Ok(Some(*flag)),
        Some(Value::String(text)) if text.eq_ignore_ascii_case("true") => Ok(Some(true)),
        Some(Value::String(text)) if text.eq_ignore_ascii_case("false") => Ok(Some(false)),
        Some(other) => Err(ControlError::BadRequest(format!(
            "\"{name}\" must be true or false, not {other}"
        ))),
    }
}

/// Refuses a field of `fields` not in `known`; `place` names the object.
///
/// # Errors
/// The first unknown field.
pub(crate) fn only_known(
    fields: &Map<String, Value>,
    known: &[&str],
    place: &str,
) -> Result<(), ControlError> {
    match fields.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(ControlError::BadRequest(format!(
            "unknown field \"{unknown}\" in {place}: expected one of {}",
            known.join(", ")
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fields(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn numbers_and_flags_come_as_json_or_as_text() {
        let f = fields(json!({"a": 3, "b": "4", "c": 2.0, "d": "true", "e": false, "p": "0.5"}));
        assert_eq!(int_field(&f, "a", 0, 10).ok(), Some(Some(3)));
        assert_eq!(int_field(&f, "b", 0, 10).ok(), Some(Some(4)));
        assert_eq!(int_field(&f, "c", 0, 10).ok(), Some(Some(2)));
        assert_eq!(int_field(&f, "x", 0, 10).ok(), Some(None));
        assert!(int_field(&f, "a", 5, 10).is_err());
        assert_eq!(flag_field(&f, "d").ok(), Some(Some(true)));
        assert_eq!(flag_field(&f, "e").ok(), Some(Some(false)));
        assert!(flag_field(&f, "a").is_err());
        assert_eq!(float_field(&f, "p").ok(), Some(Some(0.5)));
        assert!(text_field(&f, "a").is_err());
    }

    #[test]
    fn consistencies_are_named_as_cassandra_names_them() {
        assert_eq!(consistency_code("quorum").ok(), Some(4));
        assert_eq!(consistency_code("LOCAL_ONE").ok(), Some(10));
        assert!(consistency_code("MOST").is_err());
    }
}
