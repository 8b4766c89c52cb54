//! `toJson(x)` and `fromJson(x)` as plain functions, for the native function registry to call.
//!
//! - `system.tojson(any) -> text`: a selector; the JSON text of its argument (`"null"` for null).
//! - `system.fromjson(text) -> <receiver type>`: a term; its type is the receiver's, so it
//!   cannot stand in a selection clause.

use bytes::Bytes;
use cql::statement::ast::Term;
use cql::types::{ColumnType, CqlValue};

use super::{evaluate, EvalContext, Evaluated, Receiver};
use crate::error::{CqlError, CqlResult, FunctionError, FunctionFailure};
use crate::json::decode::decode;
use crate::json::value::parse;

/// The function names as Cassandra reports them.
pub(crate) const TO_JSON: &str = "system.tojson";
/// See [`TO_JSON`].
pub(crate) const FROM_JSON: &str = "system.fromjson";

/// `toJson(value)` over a serialized value of `ty`: the text value of the result.
///
/// # Errors
/// `Server` when the bytes do not decode as `ty`.
pub(crate) fn to_json(ty: &ColumnType, value: Option<&Bytes>) -> CqlResult<Bytes> {
    crate::json::value_json(ty, value).map(Bytes::from)
}

/// `fromJson(json_text)` for `receiver`: the value its JSON text denotes (`None` for a null
/// argument or JSON `null`).
///
/// # Errors
/// `Invalid` for a wrong argument count; `FunctionFailure` for text that is not JSON or does
/// not fit the receiver's type.
pub(crate) fn from_json(
    args: &[Term],
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<CqlValue>> {
    let [arg] = args else {
        return Err(FunctionError::ArgumentCount {
            function: FROM_JSON.into(),
            required: 1,
            provided: args.len(),
        }
        .into());
    };
    if let Term::Function { name, .. } = arg {
        if name.name.name.eq_ignore_ascii_case("tojson") {
            return Err(to_json_outside_selection());
        }
    }
    let text_receiver = Receiver {
        name: "arg0(system.fromjson)",
        ty: &ColumnType::Text,
    };
    let bytes = match evaluate(arg, text_receiver, ctx)? {
        Evaluated::Value(bytes) => bytes,
        Evaluated::Null | Evaluated::Unset => return Ok(None),
    };
    let text = String::from_utf8_lossy(&bytes);
    let json = parse(&text).map_err(|err| FunctionFailure::FromJsonSyntax {
        text: text.to_string(),
        cause: err.to_string(),
    })?;
    decode(receiver.ty, &json).map_err(|err| FunctionFailure::FromJsonValue(Box::new(err)).into())
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
