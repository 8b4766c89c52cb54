//! Selector planning against a hand-built table: names, types and messages.

use cql::statement::ast::{SelectExpr, Statement};
use cql::types::ColumnType;
use storage::TableDef;
use uuid::Uuid;

use super::{plan_scalar, Scalar};
use crate::schema::table_def::create_table_def;

/// `t (k int, c int, v text, b blob, i int, g bigint, f float, ts timestamp, a int, d int)`
/// plus a column `u` of UDT `ks.pt (x int, label text)` added by hand.
fn table() -> TableDef {
    let text = "CREATE TABLE t (k int, c int, v text, b blob, i int, g bigint, f float, \
                ts timestamp, a int, d int, PRIMARY KEY (k, c))";
    let Ok(Statement::CreateTable(create)) = cql::statement::parse_statement(text) else {
        panic!("not a CREATE TABLE");
    };
    let types = crate::schema::table_def::types::UserTypes::new();
    let scope = crate::schema::table_def::types::TypeScope {
        keyspace: "ks",
        types: &types,
    };
    let mut def = create_table_def(&create, scope, Uuid::from_u128(1)).expect("definition");
    let mut udt = def.columns.last().expect("a regular column").clone();
    udt.name = "u".into();
    udt.ty = ColumnType::Udt {
        keyspace: "ks".into(),
        name: "pt".into(),
        fields: vec![
            ("x".into(), ColumnType::Int),
            ("label".into(), ColumnType::Text),
        ],
        frozen: true,
    };
    def.columns.push(udt);
    def
}

fn selector(text: &str) -> SelectExpr {
    let query = format!("SELECT {text} FROM t");
    let Ok(Statement::Select(select)) = cql::statement::parse_statement(&query) else {
        panic!("not a SELECT: {query}");
    };
    select.selectors[0].expr.clone()
}

/// The column name and type of a selector, or its error message.
fn plan(text: &str) -> Result<(String, ColumnType), String> {
    plan_scalar(&table(), &selector(text))
        .map(|p| (p.name, p.ty))
        .map_err(|e| e.to_string())
}

#[test]
fn calls_casts_and_operations_are_named_as_cassandra_names_them() {
    let cases = [
        ("textAsBlob(v)", "system.textasblob(v)", ColumnType::Blob),
        (
            "system.blobAsInt(b)",
            "system.blobasint(b)",
            ColumnType::Int,
        ),
        ("CAST(i AS text)", "cast(i as text)", ColumnType::Text),
        ("CAST(i AS int)", "i", ColumnType::Int),
        ("CAST(ts AS date)", "cast(ts as date)", ColumnType::Date),
        ("a - c / i + d", "a - c / i + d", ColumnType::Int),
        ("(c - i) / a + d", "(c - i) / a + d", ColumnType::Int),
        ("-(c - a) % d", "-(c - a) % d", ColumnType::Int),
        ("i + g", "i + g", ColumnType::Bigint),
        ("g * f", "g * f", ColumnType::Double),
        ("i + 1", "i + 1", ColumnType::Int),
        ("1 + 1", "1 + 1", ColumnType::Int),
        (
            "tinyintAsBlob(4)",
            "system.tinyintasblob(4)",
            ColumnType::Blob,
        ),
        (
            "toDate(now())",
            "system.todate(system.now())",
            ColumnType::Date,
        ),
        ("u.label", "u.label", ColumnType::Text),
        (
            "textAsBlob(u.label)",
            "system.textasblob(u.label)",
            ColumnType::Blob,
        ),
        ("ts + 1mo2h", "ts + 1mo2h", ColumnType::Timestamp),
        (
            "(int)((c - a) % d / (a + d))",
            "(int)((c - a) % d / (a + d))",
            ColumnType::Int,
        ),
        ("v + ' ' + v", "v + ' ' + v", ColumnType::Text),
        (
            "bigintAsBlob(token(k))",
            "system.bigintasblob(system.token(k))",
            ColumnType::Blob,
        ),
    ];
    for (text, name, ty) in cases {
        assert_eq!(plan(text), Ok((name.to_string(), ty)), "{text}");
    }
}

#[test]
fn terms_take_the_argument_type_of_the_resolved_signature() {
    let planned = plan_scalar(&table(), &selector("intAsBlob(?)")).expect("plans");
    let Scalar::Call { args, .. } = planned.scalar else {
        panic!("expected a call");
    };
    assert!(matches!(
        &args[0],
        Scalar::Term {
            ty: ColumnType::Int,
            ..
        }
    ));
    let mut markers = Vec::new();
    Scalar::Call {
        function: crate::eval::functions::registry::candidates("intasblob")
            .first()
            .expect("declared"),
        args,
    }
    .markers(&mut markers);
    assert_eq!(markers.len(), 1);
    assert_eq!(markers[0].1, ColumnType::Int);
}

#[test]
fn field_selection_reads_the_udt_field_by_position() {
    let planned = plan_scalar(&table(), &selector("u.label")).expect("plans");
    match planned.scalar {
        Scalar::Field { value, index } => {
            assert_eq!(index, 1);
            assert!(matches!(*value, Scalar::Column(_)));
        }
        other => panic!("expected a field, got {other:?}"),
    }
}

#[test]
fn selector_errors_are_cassandras() {
    let cases = [
        ("nosuch(v)", "Unknown function 'nosuch'"),
        ("ks.textAsBlob(v)", "Unknown function 'ks.textasblob'"),
        ("CAST(v AS boolean)", "v cannot be cast to boolean"),
        (
            "CAST(b AS int)",
            "Invalid call to function system.castAsInt, none of its type signatures match (known type signatures: system.castAsInt : (tinyint) -> int, system.castAsInt : (smallint) -> int, system.castAsInt : (bigint) -> int, system.castAsInt : (float) -> int, system.castAsInt : (double) -> int, system.castAsInt : (decimal) -> int, system.castAsInt : (counter) -> int, system.castAsInt : (varint) -> int)",
        ),
        (
            "'x'",
            "Cannot infer type for term 'x' in selection clause (try using a cast to force a type)",
        ),
        (
            "textAsBlob(i)",
            "Type error: i cannot be passed as argument 0 of function system.textasblob of type text",
        ),
        (
            "textAsBlob(1)",
            "Type error: 1 cannot be passed as argument 0 of function system.textasblob of type text",
        ),
        (
            "v * 2",
            "the '*' operation is not supported between v and 2",
        ),
        (
            "i.x",
            "Invalid field selection: i of type int is not a user type",
        ),
        ("u.nosuch", "u of type frozen<pt> has no field nosuch"),
        (
            "(int)(g + 1)",
            "Cannot assign value (int)(g + 1) to (int)(g + 1) of type int",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(plan(text), Err(message.to_string()), "{text}");
    }
}
