//! `toJson(x)`, a selector: the JSON text of its argument (`"null"` for null), applied to a
//! SELECT's rows once they are read. It only makes sense in a selection clause; anywhere a
//! value is expected it is refused with [`to_json_outside_selection`].
//!
//! `fromJson(text)` is a native function made per receiving type (`crate::eval::functions::json_fcts`).

use bytes::Bytes;
use cql::types::ColumnType;

use crate::error::{CqlError, CqlResult, FunctionError};

/// The function name as Cassandra reports it.
pub(crate) const TO_JSON: &str = "system.tojson";

/// `toJson(value)` over a serialized value of `ty`: the text value of the result.
///
/// # Errors
/// `Server` when the bytes do not decode as `ty`.
pub(crate) fn to_json(ty: &ColumnType, value: Option<&Bytes>) -> CqlResult<Bytes> {
    crate::eval::json::value_json(ty, value).map(Bytes::from)
}

/// The error for `toJson` where a value is expected (it only makes sense as a selector).
pub(crate) fn to_json_outside_selection() -> CqlError {
    FunctionError::ToJsonOutsideSelection.into()
}

/// Replaces the values of `toJson(x)` outputs (index, type of `x`) by their JSON text.
///
/// # Errors
/// `Server` when stored bytes do not decode as their type.
pub(crate) fn apply_to_json(
    outputs: &[(usize, ColumnType)],
    rows: &mut [Vec<Option<Bytes>>],
) -> CqlResult<()> {
    for row in rows.iter_mut() {
        for (index, ty) in outputs {
            if let Some(cell) = row.get_mut(*index) {
                *cell = Some(to_json(ty, cell.as_ref())?);
            }
        }
    }
    Ok(())
}
