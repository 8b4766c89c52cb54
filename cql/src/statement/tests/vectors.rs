//! Cassandra 5.0 additions: `vector<T, n>` dimensions as `Parser.g` reads them, `ORDER BY v ANN
//! OF ...`, and the function/aggregate/trigger DDL that is parsed only to be refused.

use super::super::ast::*;
use super::super::{parse_statement, parse_type};

#[test]
fn vector_dimensions_are_ints_and_may_be_negative_until_resolved() {
    assert!(matches!(
        parse_type("vector<float, -18>").unwrap(),
        CqlType::Vector(_, -18)
    ));
    let err = parse_type("vector<float, 2147483648>")
        .unwrap_err()
        .to_string();
    assert!(err.contains("NumberFormatException"), "{err}");
    for bad in [
        "vector<float, dog>",
        "vector<float, 1.5>",
        "vector<float, 123x>",
    ] {
        assert!(parse_type(bad).is_err(), "{bad}");
    }
}

#[test]
fn ann_orderings_parse_and_print_back() {
    let text = "SELECT * FROM t WHERE k = 1 ORDER BY v ANN OF [1.0, 2.0] ASC LIMIT 3";
    let Statement::Select(select) = parse_statement(text).unwrap() else {
        panic!("not a select");
    };
    assert_eq!(select.ann.len(), 1);
    assert!(select.order_by.is_empty());
    let again = parse_statement(&select.to_string()).unwrap();
    assert_eq!(again, Statement::Select(select));
}

#[test]
fn function_aggregate_and_trigger_ddl_parses() {
    let create = "CREATE OR REPLACE FUNCTION IF NOT EXISTS ks.f (a int) RETURNS NULL ON NULL \
                  INPUT RETURNS int LANGUAGE java AS $$ return a; $$";
    assert!(matches!(
        parse_statement(create).unwrap(),
        Statement::Disabled(DisabledDdl::CreateFunction {
            aggregate: false,
            ..
        })
    ));
    let drop = parse_statement("DROP AGGREGATE IF EXISTS ks.agg(int, text)").unwrap();
    let Statement::Disabled(DisabledDdl::DropFunction {
        aggregate: true,
        args: Some(args),
        if_exists: true,
        ..
    }) = drop
    else {
        panic!("{drop:?}");
    };
    assert_eq!(args.len(), 2);
    assert!(matches!(
        parse_statement("CREATE TRIGGER tr ON ks.t USING 'org.example.T'").unwrap(),
        Statement::Disabled(DisabledDdl::CreateTrigger { .. })
    ));
    assert!(matches!(
        parse_statement("DROP TRIGGER IF EXISTS tr ON t").unwrap(),
        Statement::Disabled(DisabledDdl::DropTrigger {
            if_exists: true,
            ..
        })
    ));
}
