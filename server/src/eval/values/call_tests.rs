//! Calls evaluated for a receiver, `fromJson` (a signature made per receiving type) above all:
//! its value, its null, and Cassandra's messages for what it refuses.

use bytes::Bytes;
use cql::frame::request::Value;
use cql::statement::ast::{InsertValues, Statement, Term};
use cql::types::ColumnType;

use crate::eval::values::{evaluate, EvalContext, Evaluated, Receiver};

/// The first value of `INSERT INTO t (v) VALUES (<value>)`.
fn term(value: &str) -> Term {
    let text = format!("INSERT INTO t (v) VALUES ({value})");
    let Ok(Statement::Insert(insert)) = cql::statement::parse_statement(&text) else {
        panic!("not an INSERT: {text}");
    };
    let InsertValues::Columns { mut values, .. } = insert.values else {
        panic!("no values: {text}");
    };
    values.remove(0)
}

/// `value` evaluated for column `v` of type `ty` with `binds`.
fn eval(value: &str, ty: &ColumnType, binds: &[Value]) -> Result<Evaluated, String> {
    let receiver = Receiver { name: "v", ty };
    let ctx = EvalContext {
        binds,
        now_micros: 0,
    };
    evaluate(&term(value), receiver, &ctx).map_err(|err| err.to_string())
}

fn int(v: i32) -> Evaluated {
    Evaluated::Value(Bytes::copy_from_slice(&v.to_be_bytes()))
}

fn text(s: &str) -> Value {
    Value::Bytes(Bytes::copy_from_slice(s.as_bytes()))
}

#[test]
fn from_json_decodes_for_the_receiver() {
    assert_eq!(
        eval("fromJson('\"42\"')", &ColumnType::Int, &[]),
        Ok(int(42))
    );
    assert_eq!(
        eval("fromJson(?)", &ColumnType::Int, &[text("7")]),
        Ok(int(7))
    );
    let list = ColumnType::List {
        element: Box::new(ColumnType::Int),
        frozen: false,
    };
    let elements = eval("[fromJson('1'), 2]", &list, &[]).expect("a list");
    let Evaluated::Value(bytes) = elements else {
        panic!("{elements:?}")
    };
    assert_eq!(
        cql::types::codec::deserialize_value(&list, &bytes).expect("decodes"),
        cql::types::CqlValue::List(vec![
            cql::types::CqlValue::Int(1),
            cql::types::CqlValue::Int(2)
        ])
    );
}

#[test]
fn from_json_of_null_is_null() {
    assert_eq!(
        eval("fromJson(?)", &ColumnType::Int, &[Value::Null]),
        Ok(Evaluated::Null)
    );
    assert_eq!(
        eval("fromJson(null)", &ColumnType::Int, &[]),
        Ok(Evaluated::Null)
    );
    assert_eq!(
        eval("fromJson('null')", &ColumnType::Int, &[]),
        Ok(Evaluated::Null)
    );
}

#[test]
fn from_json_refusals_keep_cassandras_messages() {
    let cases = [
        (
            "fromJson('\"xyz\"')",
            "execution of 'system.fromjson[text]' failed: Unable to make int from 'xyz'",
        ),
        (
            "fromJson('1', '2')",
            "Invalid number of arguments in call to function system.fromjson: 1 required but 2 provided",
        ),
        (
            "fromJson()",
            "Invalid number of arguments in call to function system.fromjson: 1 required but 0 provided",
        ),
        (
            "fromJson(toJson(?))",
            "toJson() may only be used within the selection clause of SELECT statements",
        ),
        (
            "toJson(?)",
            "toJson() may only be used within the selection clause of SELECT statements",
        ),
        (
            "fromJson(1)",
            "Type error: 1 cannot be passed as argument 0 of function system.fromjson of type text",
        ),
        ("ks.fromJson('1')", "Unknown function ks.fromjson called"),
    ];
    for (value, expected) in cases {
        assert_eq!(
            eval(value, &ColumnType::Int, &[text("1")]),
            Err(expected.to_string()),
            "{value}"
        );
    }
    let err = eval("fromJson('{')", &ColumnType::Int, &[]).expect_err("not JSON");
    assert!(
        err.starts_with(
            "execution of 'system.fromjson[text]' failed: Could not decode JSON string '{': "
        ),
        "{err}"
    );
}

#[test]
fn an_unset_argument_is_refused_as_for_any_function() {
    assert_eq!(
        eval("fromJson(?)", &ColumnType::Int, &[Value::Unset]),
        Err("Invalid unset value for argument in call to function fromjson".to_string())
    );
}
