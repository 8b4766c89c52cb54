//! `INSERT JSON`: the planner gives every table column a synthetic bind marker numbered after
//! the statement's own markers, so the usual INSERT plan applies; at execution
//! [`bind_values`] reads the JSON object (a literal or a bound value) and binds each marker to
//! the column's serialized value, `null`, or — for columns omitted under `DEFAULT UNSET` —
//! `unset`, which leaves the column untouched.

use bytes::Bytes;
use cql::frame::request::Value;
use cql::statement::ast::{BindMarker, Term};
use cql::types::{codec, ColumnType};
use storage::{ColumnKind, TableDef};

use super::{evaluate, EvalContext, Evaluated, Receiver};
use crate::error::{CqlResult, ValueError};
use crate::eval::json::decode::{decode, unquote_name};
use crate::eval::json::value::{parse, Json};

/// The JSON source of an INSERT, carried by its plan.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonInsert {
    /// The JSON text: a string literal or a bind marker.
    pub source: Term,
    /// `DEFAULT UNSET`: omitted columns keep their value instead of becoming null.
    pub default_unset: bool,
    /// Column `i` of the table is bound to marker `first_marker + i`.
    pub first_marker: usize,
}

impl JsonInsert {
    /// The synthetic marker standing for column `column`'s value.
    pub(crate) fn marker(&self, column: usize) -> Term {
        Term::Bind(BindMarker::Anonymous(self.first_marker + column))
    }
}

/// One more than the highest marker index in `terms` (0 without markers).
pub(crate) fn marker_count<'a>(terms: impl IntoIterator<Item = &'a Term>) -> usize {
    terms
        .into_iter()
        .filter_map(|t| match t {
            Term::Bind(BindMarker::Anonymous(i) | BindMarker::Named(_, i)) => Some(i + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

fn json_text(json: &JsonInsert, ctx: &EvalContext<'_>) -> CqlResult<String> {
    let receiver = Receiver {
        name: crate::eval::json::JSON_COLUMN,
        ty: &ColumnType::Text,
    };
    match evaluate(&json.source, receiver, ctx)? {
        Evaluated::Value(bytes) => {
            String::from_utf8(bytes.to_vec()).map_err(|_| ValueError::JsonNotUtf8.into())
        }
        Evaluated::Null | Evaluated::Unset => Err(ValueError::JsonNull.into()),
    }
}

/// Reads the JSON object into (column name, value) members, Cassandra's case rules applied.
fn members(text: &str) -> CqlResult<Vec<(String, Json)>> {
    match parse(text) {
        Ok(Json::Object(members)) => Ok(members
            .into_iter()
            .map(|(k, v)| (unquote_name(&k), v))
            .collect()),
        Ok(Json::Null) => Err(ValueError::JsonNull.into()),
        Ok(other) => Err(ValueError::JsonNotAMap {
            kind: other.kind(),
            text: text.to_string(),
        }
        .into()),
        Err(err) => Err(ValueError::JsonMapSyntax {
            message: err.message,
            offset: err.offset,
            text: text.to_string(),
        }
        .into()),
    }
}

/// The request's bound values followed by one value per table column for the synthetic
/// markers of `json`.
///
/// # Errors
/// Cassandra's messages for a null or non-object JSON text, an unknown column, or a value
/// that does not fit its column's type.
pub(crate) fn bind_values(
    json: &JsonInsert,
    def: &TableDef,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Value>> {
    let mut given = members(&json_text(json, ctx)?)?;
    let mut binds: Vec<Value> = ctx.binds.to_vec();
    binds.resize(json.first_marker, Value::Unset);
    for column in &def.columns {
        // The last occurrence of a key wins, as in a JSON map.
        let found = given.iter().rposition(|(name, _)| *name == column.name);
        let value = match found {
            Some(i) => {
                let (_, value) = given.remove(i);
                given.retain(|(name, _)| *name != column.name);
                let decoded = decode(&column.ty, &value).map_err(|err| ValueError::JsonValue {
                    column: column.name.clone(),
                    source: Box::new(err),
                })?;
                match decoded {
                    Some(v) => {
                        let mut out = Vec::new();
                        codec::serialize_value(&v, &mut out);
                        Value::Bytes(Bytes::from(out))
                    }
                    None => Value::Null,
                }
            }
            None if json.default_unset
                && matches!(column.kind, ColumnKind::Regular | ColumnKind::Static) =>
            {
                Value::Unset
            }
            None => Value::Null,
        };
        binds.push(value);
    }
    if let Some((name, _)) = given.first() {
        return Err(ValueError::JsonUnknownColumn {
            column: name.clone(),
        }
        .into());
    }
    Ok(binds)
}
