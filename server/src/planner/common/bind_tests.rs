//! Marker receivers inside function calls, as PREPARE reports them: named by the signature
//! the call resolves to (`arg0(system.fromjson)`), `fromJson`'s made for its receiver.

use cql::types::ColumnType;

use crate::planner::common::bind_info::bind_info;
use crate::planner::select::tests::schema;

const TABLE: &str = "CREATE TABLE ks.t (k int PRIMARY KEY, v int, m map<int, text>, b blob)";

/// `(name, type)` of each marker of `query`, or the error PREPARE would answer.
fn receivers(query: &str) -> Result<Vec<(String, ColumnType)>, String> {
    let parsed = cql::statement::parse(query).expect("parses");
    let info = bind_info(
        &schema(&[TABLE]),
        &parsed.statement,
        parsed.bind_count,
        Some("ks"),
    )
    .map_err(|err| err.to_string())?;
    Ok(info.specs.into_iter().map(|s| (s.name, s.ty)).collect())
}

fn text_arg(function: &str) -> (String, ColumnType) {
    (format!("arg0(system.{function})"), ColumnType::Text)
}

#[test]
fn from_json_markers_take_text() {
    let k = ("k".to_string(), ColumnType::Int);
    assert_eq!(
        receivers("INSERT INTO t (k, v) VALUES (?, fromJson(?))"),
        Ok(vec![k.clone(), text_arg("fromjson")])
    );
    assert_eq!(
        receivers("UPDATE t SET m = fromJson(?) WHERE k = ?"),
        Ok(vec![text_arg("fromjson"), k.clone()])
    );
    assert_eq!(
        receivers("SELECT * FROM t WHERE k = fromJson(:j)"),
        Ok(vec![("j".to_string(), ColumnType::Text)])
    );
    // Markers nested in the argument are named by the calls around them.
    assert_eq!(
        receivers("INSERT INTO t (k, b) VALUES (0, textAsBlob(fromJson(?)))"),
        Ok(vec![text_arg("fromjson")])
    );
    assert_eq!(
        receivers("INSERT INTO t (k, v) VALUES (0, fromJson((text) ?))"),
        Ok(vec![text_arg("fromjson")])
    );
}

#[test]
fn to_json_markers_take_a_blob() {
    assert_eq!(
        receivers("DELETE FROM t WHERE k = fromJson(toJson(?))"),
        Ok(vec![("arg0(system.tojson)".to_string(), ColumnType::Blob)])
    );
}

#[test]
fn a_from_json_call_that_does_not_resolve_is_the_answer() {
    assert_eq!(
        receivers("INSERT INTO t (k, v) VALUES (0, fromJson(?, ?))"),
        Err(
            "Invalid number of arguments in call to function system.fromjson: 1 required but 2 provided"
                .to_string()
        )
    );
}

#[test]
fn from_json_is_refused_in_a_selection() {
    assert_eq!(
        receivers("SELECT fromJson(v) FROM t WHERE k = ?"),
        Err("fromJson() cannot be used in the selection clause of a SELECT statement".to_string())
    );
    // In another keyspace it is no native function (Cassandra's `equalsNativeFunction`).
    assert_eq!(
        receivers("SELECT ks.fromjson(v) FROM t WHERE k = ?"),
        Err("Unknown function 'ks.fromjson'".to_string())
    );
    // Nested in another selector, too.
    assert_eq!(
        receivers("SELECT textasblob(fromJson(v)) FROM t WHERE k = ?"),
        Err("fromJson() cannot be used in the selection clause of a SELECT statement".to_string())
    );
}
