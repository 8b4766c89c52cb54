//! `fromJson(text)` (Cassandra's `FromJsonFct`): the value a JSON text denotes, of the type
//! of whatever receives the call. Its return type is the receiver's, so there is no signature
//! to declare up front: one is made for each receiving type a statement uses (Cassandra's
//! `FromJsonFct.getInstance(returnType)`) and kept for the life of the process, as
//! `vector_fcts` keeps its similarity signatures per dimension.
//!
//! Resolution asks [`for_receiver`] (through `registry::made_for_receiver`); without a
//! receiver — in a SELECT's selection — there is no type to decode into, and the call is
//! refused as Cassandra refuses it.

use std::sync::OnceLock;

use bytes::Bytes;
use cql::types::{codec, ColumnType};

use super::{first, made_signature, Body, MadeSignatures, NativeFunction};
use crate::error::{CqlResult, FunctionFailure};
use crate::eval::json::decode::decode;
use crate::eval::json::value::parse;

/// The function's name in the `system` keyspace.
pub(crate) const FROM_JSON: &str = "fromjson";

/// `toJson`'s name: a selector only (`planner::selection`), refused by name in a term.
pub(crate) const TO_JSON: &str = "tojson";

/// `system.fromjson(text) -> receiver`: the signature for a receiver of type `receiver`,
/// made on first use and the same `&'static` function ever after.
pub(crate) fn for_receiver(receiver: &ColumnType) -> &'static NativeFunction {
    static MADE: MadeSignatures<ColumnType> = OnceLock::new();
    made_signature(&MADE, receiver.clone(), || {
        NativeFunction::new(
            FROM_JSON,
            vec![ColumnType::Text],
            receiver.clone(),
            Body::FromJson,
        )
    })
}

/// Runs `fromJson`: the JSON text of the argument decoded as the function's return type and
/// serialized; null for a null argument or JSON `null`.
///
/// # Errors
/// `FunctionFailure::FromJsonSyntax` for text that is not JSON, `FromJsonValue` for JSON
/// that does not fit the return type (Cassandra's `MarshalException` message).
pub(crate) fn execute(
    function: &NativeFunction,
    args: &[Option<Bytes>],
) -> CqlResult<Option<Bytes>> {
    let Some(bytes) = first(args) else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(bytes);
    let json = parse(&text).map_err(|err| FunctionFailure::FromJsonSyntax {
        text: text.to_string(),
        cause: err.to_string(),
    })?;
    let value = decode(&function.ret, &json)
        .map_err(|err| FunctionFailure::FromJsonValue(Box::new(err)))?;
    Ok(value.map(|value| {
        let mut out = Vec::new();
        codec::serialize_value(&value, &mut out);
        Bytes::from(out)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::functions::CallContext;
    use cql::types::CqlValue;

    fn run(receiver: &ColumnType, json: &str) -> CqlResult<Option<CqlValue>> {
        let function = for_receiver(receiver);
        let arg = Some(Bytes::copy_from_slice(json.as_bytes()));
        let ctx = CallContext { now_micros: 0 };
        let bytes = function.execute(&[arg], &ctx)?;
        Ok(bytes.map(|b| codec::deserialize_value(receiver, &b).expect("decodes")))
    }

    #[test]
    fn one_signature_is_made_per_receiver_type() {
        let a = for_receiver(&ColumnType::Int);
        let b = for_receiver(&ColumnType::Int);
        assert!(std::ptr::eq(a, b));
        assert_eq!(a.to_string(), "system.fromjson : (text) -> int");
        let map = ColumnType::Map {
            key: Box::new(ColumnType::Int),
            value: Box::new(ColumnType::Text),
            frozen: false,
        };
        let m = for_receiver(&map);
        assert!(!std::ptr::eq(a, m));
        assert_eq!(m.to_string(), "system.fromjson : (text) -> map<int, text>");
        assert!(std::ptr::eq(m, for_receiver(&map)));
        assert_eq!(m.body, Body::FromJson);
    }

    #[test]
    fn json_text_decodes_as_the_return_type() {
        assert_eq!(
            run(&ColumnType::Int, "\"42\"").unwrap(),
            Some(CqlValue::Int(42))
        );
        assert_eq!(
            run(&ColumnType::Int, " 7 ").unwrap(),
            Some(CqlValue::Int(7))
        );
        assert_eq!(
            run(&ColumnType::Timestamp, "0").unwrap(),
            Some(CqlValue::Timestamp(0))
        );
        let set = ColumnType::Set {
            element: Box::new(ColumnType::Text),
            frozen: false,
        };
        assert_eq!(
            run(&set, r#"["b", "a"]"#).unwrap(),
            Some(CqlValue::Set(vec![
                CqlValue::Text("a".into()),
                CqlValue::Text("b".into())
            ]))
        );
        assert_eq!(run(&ColumnType::Int, "null").unwrap(), None);
    }

    #[test]
    fn a_null_argument_is_a_null_result() {
        let function = for_receiver(&ColumnType::Int);
        let ctx = CallContext { now_micros: 0 };
        assert_eq!(function.execute(&[None], &ctx).unwrap(), None);
    }

    #[test]
    fn failures_carry_cassandras_messages() {
        let err = run(&ColumnType::Int, "\"xyz\"").unwrap_err();
        assert_eq!(
            err.to_string(),
            "execution of 'system.fromjson[text]' failed: Unable to make int from 'xyz'"
        );
        let err = run(&ColumnType::Int, "{").unwrap_err();
        assert!(
            err.to_string().starts_with(
                "execution of 'system.fromjson[text]' failed: Could not decode JSON string '{': "
            ),
            "{err}"
        );
    }
}
