//! A tuple from a string constant (`TupleType.fromString`): fields separated by `:` (`\:` is a
//! literal colon), `@` for null (`\@` is a literal at sign), each field read by its own type's
//! `fromString`. Cassandra accepts it because a string constant is weakly assignable to any
//! non-native type other than collections and UDTs.
//!
//! A field that is itself a tuple recurses here; any other is read by `constant`, so this
//! file does not import `literal`, which calls it.

use cql::statement::ast::Literal;
use cql::types::duration::parse_duration;
use cql::types::{ColumnType, CqlValue};

use super::constant::constant_value;
use super::Receiver;
use crate::error::ValueError;

/// Splits on the colons not escaped by an odd number of backslashes
/// (`AbstractCompositeType.split`); no field at all for the empty string.
fn split(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut fields = Vec::new();
    let (mut start, mut backslashes) = (0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '\\' => backslashes += 1,
            ':' if backslashes % 2 == 0 => {
                fields.push(&text[start..i]);
                start = i + 1;
                backslashes = 0;
            }
            _ => backslashes = 0,
        }
    }
    fields.push(&text[start..]);
    fields
}

fn unescape(field: &str) -> String {
    field.replace("\\:", ":").replace("\\@", "@")
}

/// The tuple value of `text` for a tuple-typed receiver.
pub(super) fn tuple_from_string(
    text: &str,
    receiver: Receiver<'_>,
) -> Result<CqlValue, ValueError> {
    let ColumnType::Tuple(types) = receiver.ty else {
        return Err(not_a_string_of(text, receiver.name, receiver.ty));
    };
    let fields = split(text);
    if fields.len() > types.len() {
        return Err(ValueError::TooManyTupleFields {
            ty: receiver.ty.clone().into(),
            expected: types.len(),
            given: fields.len(),
        });
    }
    let values = fields
        .into_iter()
        .zip(types)
        .map(|(field, ty)| match field {
            "@" => Ok(None),
            field => field_from_string(&unescape(field), receiver.name, ty).map(Some),
        })
        .collect::<Result<_, _>>()?;
    Ok(CqlValue::Tuple(values))
}

/// A string constant for a type that does not read one.
fn not_a_string_of(text: &str, name: &str, ty: &ColumnType) -> ValueError {
    ValueError::ConstantNotOfType {
        kind: "STRING",
        text: text.to_string(),
        column: name.to_string(),
        ty: ty.clone().into(),
    }
}

/// One field by its type's `fromString` (the empty string is the empty value).
pub(super) fn field_from_string(
    text: &str,
    name: &str,
    ty: &ColumnType,
) -> Result<CqlValue, ValueError> {
    use ColumnType as T;
    let receiver = Receiver { name, ty };
    let parse = |lit: Literal| constant_value(&lit, receiver);
    match ty {
        T::Text => return Ok(CqlValue::Text(text.to_string())),
        T::Blob if text.is_empty() => return Ok(CqlValue::Blob(Vec::new())),
        _ if text.is_empty() => return Ok(CqlValue::Empty),
        _ => {}
    }
    match ty {
        T::Int | T::Bigint | T::Smallint | T::Tinyint | T::Varint | T::Counter => {
            parse(Literal::Integer(text.to_string()))
        }
        T::Float | T::Double | T::Decimal => parse(Literal::Float(text.to_string())),
        T::Ascii | T::Inet | T::Date | T::Time | T::Timestamp => {
            parse(Literal::String(text.to_string()))
        }
        T::Boolean if text.eq_ignore_ascii_case("true") => Ok(CqlValue::Boolean(true)),
        T::Boolean if text.eq_ignore_ascii_case("false") => Ok(CqlValue::Boolean(false)),
        T::Boolean => Err(ValueError::Unparsable {
            what: "boolean",
            text: text.to_string(),
        }),
        T::Uuid | T::Timeuuid => match uuid::Uuid::parse_str(text) {
            Ok(u) => parse(Literal::Uuid(u)),
            Err(_) if *ty == T::Timeuuid => Err(ValueError::UnknownTimeuuid {
                text: text.to_string(),
            }),
            Err(_) => Err(ValueError::Unparsable {
                what: "UUID",
                text: text.to_string(),
            }),
        },
        T::Blob => hex(text)
            .map(CqlValue::Blob)
            .ok_or_else(|| ValueError::NotHex {
                text: text.to_string(),
            }),
        T::Duration => parse_duration(text)
            .map(|d| CqlValue::Duration {
                months: d.months,
                days: d.days,
                nanoseconds: d.nanoseconds,
            })
            .map_err(ValueError::Duration),
        T::Tuple(_) => tuple_from_string(text, receiver),
        _ => Err(not_a_string_of(text, name, ty)),
    }
}

/// Bytes of an even-length hex string (`Hex.hexToBytes`).
fn hex(text: &str) -> Option<Vec<u8>> {
    text.as_bytes()
        .chunks(2)
        .map(|pair| match pair {
            [high, low] => {
                let digit = |b: &u8| char::from(*b).to_digit(16);
                Some((digit(high)? * 16 + digit(low)?) as u8)
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<CqlValue, ValueError> {
        let ty = ColumnType::Tuple(vec![ColumnType::Int, ColumnType::Text]);
        tuple_from_string(text, Receiver { name: "t", ty: &ty })
    }

    #[test]
    fn fields_split_on_unescaped_colons() {
        let t = |a: Option<i32>, b: Option<&str>| {
            CqlValue::Tuple(vec![
                a.map(CqlValue::Int),
                b.map(|b| CqlValue::Text(b.into())),
            ])
        };
        assert_eq!(parse("0:1").unwrap(), t(Some(0), Some("1")));
        assert_eq!(parse("1:1\\:1").unwrap(), t(Some(1), Some("1:1")));
        assert_eq!(parse("@:1").unwrap(), t(None, Some("1")));
        assert_eq!(
            parse("1").unwrap(),
            CqlValue::Tuple(vec![Some(CqlValue::Int(1))])
        );
        assert_eq!(
            parse("1:2:3").unwrap_err().to_string(),
            "Invalid tuple literal: too many elements. Type frozen<tuple<int, text>> expects 2 but got 3"
        );
        assert_eq!(
            parse("x:1").unwrap_err().to_string(),
            "Unable to make int from 'x'"
        );
    }
}
