//! Parser tests: sqlparser-style round trips (`verified_stmt`: parse, print, compare with the
//! input; `one_statement_parses_to`: inputs whose canonical form differs), per statement form.

mod ddl;
mod dml;
mod errors;
mod roles;
mod vectors;

use super::ast::*;
use super::{parse, parse_statement, Statement};

/// Parses `sql`, checks that printing gives `sql` back and that the printed text re-parses to
/// the same AST.
#[track_caller]
pub(super) fn verified_stmt(sql: &str) -> Statement {
    one_statement_parses_to(sql, sql)
}

/// Parses `sql`, checks that it prints as `canonical` and that `canonical` parses to the same
/// AST and prints unchanged.
#[track_caller]
pub(super) fn one_statement_parses_to(sql: &str, canonical: &str) -> Statement {
    let stmt = parse_statement(sql).unwrap_or_else(|e| panic!("{sql}\n  -> {e}"));
    assert_eq!(stmt.to_string(), canonical, "printing {sql}");
    let again = parse_statement(canonical).unwrap_or_else(|e| panic!("{canonical}\n  -> {e}"));
    assert_eq!(again, stmt, "re-parsing {canonical}");
    stmt
}

/// Parses `sql`, which must succeed, and checks that its canonical form round-trips.
#[track_caller]
pub(super) fn parses(sql: &str) -> Statement {
    let stmt = parse_statement(sql).unwrap_or_else(|e| panic!("{sql}\n  -> {e}"));
    let printed = stmt.to_string();
    let again = parse_statement(&printed).unwrap_or_else(|e| panic!("{printed}\n  -> {e}"));
    assert_eq!(again, stmt, "re-parsing {printed}");
    stmt
}

pub(super) fn id(name: &str) -> Ident {
    Ident {
        name: name.into(),
        quoted: false,
    }
}

#[test]
fn bind_markers_are_counted_in_order() {
    let p = parse("UPDATE t SET a = ?, b = :bee WHERE k = ? AND c IN ? IF d = :dee").unwrap();
    assert_eq!(p.bind_count, 5);
    assert_eq!(
        p.bind_names,
        vec![None, Some(id("bee")), None, None, Some(id("dee"))]
    );
    let Statement::Update(u) = p.statement else {
        panic!("not an update")
    };
    assert_eq!(
        u.assignments[1],
        Assignment::Set {
            column: id("b"),
            value: Term::Bind(BindMarker::Named(id("bee"), 1))
        }
    );
    // Backtracking (JSON / DISTINCT / casts) must not count a marker twice.
    let p = parse("SELECT json FROM t WHERE a = (int) ? AND b = (1, ?) LIMIT ?").unwrap();
    assert_eq!(p.bind_count, 3);
}

#[test]
fn scripts_and_types() {
    let stmts = super::parse_statements(
        "USE ks; -- comment\nSELECT * FROM t;;\n/* x */ INSERT INTO t (a) VALUES (?);",
    )
    .unwrap();
    assert_eq!(stmts.len(), 3);
    let ty = super::parse_type("frozen<map<text, int>>").unwrap();
    assert_eq!(ty.to_string(), "frozen<map<text, int>>");
    let ty = super::parse_type("map<varchar,frozen<list<frozen<tuple<int,ks.addr>>>>>").unwrap();
    assert_eq!(
        ty.to_string(),
        "map<text, frozen<list<frozen<tuple<int, ks.addr>>>>>"
    );
    assert_eq!(
        super::parse_type("vector<float, 3>").unwrap(),
        CqlType::Vector(
            Box::new(CqlType::Native(crate::types::ColumnType::Float)),
            3
        )
    );
    assert!(super::parse_type("int int").is_err());
    assert!(super::parse_type("list<int").is_err());
}

#[test]
fn reserved_keywords() {
    assert!(super::is_reserved_keyword("select"));
    assert!(super::is_reserved_keyword("KeySpace"));
    assert!(!super::is_reserved_keyword("key"));
    assert!(!super::is_reserved_keyword("ttl"));
    assert!(!super::is_reserved_keyword("length"));
}
