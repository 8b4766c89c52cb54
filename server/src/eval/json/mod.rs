//! CQL's JSON support: `SELECT JSON`, `INSERT JSON` and the `toJson`/`fromJson` functions.
//!
//! - [`value`]: a JSON reader that keeps numbers as text and members in order.
//! - [`render`]: values to JSON text per type (Cassandra's `toJSONString`).
//! - [`decode`]: JSON to values per type (Cassandra's `fromJSONObject`), with its messages.
//!
//! `toJson` and the values of an `INSERT JSON` evaluate terms, so they live with term
//! evaluation (`crate::eval::values::json_functions`, `crate::eval::values::json_insert`); `fromJson` is
//! a native function (`crate::eval::functions::json_fcts`). This module only converts between JSON
//! text and values.
//!
//! The planner and executor call in here; nothing here reads storage.

pub(crate) mod decode;
pub(crate) mod render;
pub(crate) mod value;

use bytes::Bytes;
use cql::frame::response::ColumnSpec;
use cql::types::{codec, ColumnType};

use crate::error::{CqlResult, InternalError, ValueError};

/// The name of the one result column of `SELECT JSON`.
pub(crate) const JSON_COLUMN: &str = "[json]";

/// The JSON text of one serialized value of `ty` (`None` is `null`). An empty value of a
/// non-collection type shows as `""`, as Cassandra's `Selection.rowToJson` writes it.
///
/// # Errors
/// `Server` when stored bytes do not decode as `ty`; `Invalid` for a `varint` or `decimal`
/// too long to print.
pub(crate) fn value_json(ty: &ColumnType, value: Option<&Bytes>) -> CqlResult<String> {
    match value {
        None => Ok("null".into()),
        Some(bytes) if bytes.is_empty() && !empty_is_a_value(ty) => Ok("\"\"".into()),
        Some(bytes) => {
            let value = codec::deserialize_value(ty, bytes)
                .map_err(InternalError::UndecodableStoredValue)?;
            Ok(render::to_json(Some(&value)).map_err(ValueError::NumberText)?)
        }
    }
}

/// Whether the zero-length value of `ty` is an ordinary value (`""`, `0x`, an empty
/// collection) rather than Cassandra's "empty" placeholder.
fn empty_is_a_value(ty: &ColumnType) -> bool {
    ty.is_collection() || matches!(ty, ColumnType::Text | ColumnType::Ascii | ColumnType::Blob)
}

/// Turns the result of a `SELECT JSON` into one `[json]` text column: each row becomes an
/// object keyed by the output column names (see [`render::name_key`]).
///
/// # Errors
/// `Server` when stored bytes do not decode as their column's type.
pub(crate) fn select_json(
    columns: &[ColumnSpec],
    rows: Vec<Vec<Option<Bytes>>>,
) -> CqlResult<(ColumnSpec, Vec<Vec<Option<Bytes>>>)> {
    let (keyspace, table) = columns
        .first()
        .map(|c| (c.keyspace.clone(), c.table.clone()))
        .unwrap_or_default();
    let spec = ColumnSpec {
        keyspace,
        table,
        name: JSON_COLUMN.into(),
        ty: ColumnType::Text,
    };
    let rows = rows
        .into_iter()
        .map(|row| {
            let mut out = String::from("{");
            for (i, (column, value)) in columns.iter().zip(&row).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&render::name_key(&column.name));
                out.push_str(": ");
                out.push_str(&value_json(&column.ty, value.as_ref())?);
            }
            out.push('}');
            Ok(vec![Some(Bytes::from(out))])
        })
        .collect::<CqlResult<Vec<_>>>()?;
    Ok((spec, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, ty: ColumnType) -> ColumnSpec {
        ColumnSpec {
            keyspace: "ks".into(),
            table: "t".into(),
            name: name.into(),
            ty,
        }
    }

    /// `toJson` of a 100,000-digit varint took 13 s with the former digit-at-a-time
    /// conversion; now 300,000 digits print in a debug build in well under a second.
    #[test]
    fn long_numbers_render_and_oversized_ones_are_refused() {
        let digits = format!("-{}", "31".repeat(150_000));
        let bytes = cql::types::number_text::varint_from_text(&digits).expect("varint");
        let json = value_json(&ColumnType::Varint, Some(&Bytes::from(bytes.clone())));
        assert_eq!(json.expect("json"), digits);
        let mut decimal = 3i32.to_be_bytes().to_vec();
        decimal.extend_from_slice(&bytes);
        let json = value_json(&ColumnType::Decimal, Some(&Bytes::from(decimal))).expect("json");
        assert_eq!(json.len(), digits.len() + 1);
        assert!(json.ends_with(&format!(
            "{}.131",
            &digits[digits.len() - 6..digits.len() - 3]
        )));

        let huge = Bytes::from(vec![0x55; 500_000]);
        let err = value_json(&ColumnType::Varint, Some(&huge)).expect_err("too long");
        assert_eq!(
            err.to_string(),
            "a number of about 1204120 digits exceeds the maximum of 1000000 digits that can be shown as text"
        );
    }

    #[test]
    fn rows_become_one_json_column() {
        let columns = [
            spec("k", ColumnType::Int),
            spec("Foo", ColumnType::Text),
            spec("count", ColumnType::Bigint),
            spec("e", ColumnType::Int),
            spec("b", ColumnType::Blob),
        ];
        let rows = vec![vec![
            Some(Bytes::from_static(&[0, 0, 0, 7])),
            Some(Bytes::from_static(b"hi")),
            None,
            Some(Bytes::new()),
            Some(Bytes::new()),
        ]];
        let (spec, rows) = select_json(&columns, rows).unwrap();
        assert_eq!(spec.name, "[json]");
        assert_eq!(spec.ty, ColumnType::Text);
        assert_eq!(
            rows,
            vec![vec![Some(Bytes::from(
                r#"{"k": 7, "\"Foo\"": "hi", "count": null, "e": "", "b": "0x"}"#
            ))]]
        );
    }
}
