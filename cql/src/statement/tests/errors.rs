//! Error messages and positions, the depth limit, and no panics on arbitrary input.

use super::super::{parse_statement, ParseErrorKind};

fn err(sql: &str) -> String {
    match parse_statement(sql) {
        Ok(s) => panic!("{sql} parsed as {s:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn cassandra_style_messages() {
    assert_eq!(
        err("create keyspace with replication = {}"),
        "line 1:16 no viable alternative at input 'with' (create keyspace [with] replication...)"
    );
    assert_eq!(
        err("expend the table now please"),
        "line 1:0 no viable alternative at input 'expend' ([expend] the...)"
    );
    assert_eq!(
        err("SELECT * FROM transfers_buying WHERE buyingteam = 'SCP' OR 'SCB'"),
        "line 1:56 missing EOF at 'OR' (...transfers_buying WHERE buyingteam = 'SCP' [OR] 'SC...)"
    );
    assert_eq!(
        err("SELECT a b FROM t"),
        "line 1:9 mismatched input 'b' expecting K_FROM (SELECT a [b] FROM...)"
    );
    // At the end of input Cassandra reports `0:-1` and no snippet.
    assert_eq!(
        err("SELECT * FROM"),
        "line 0:-1 no viable alternative at input '<EOF>'"
    );
    assert_eq!(
        err("SELECT *\nFROM t WHERE\n  a = = 1"),
        "line 3:6 no viable alternative at input '=' (...FROM t WHERE  a = [=] 1)"
    );
    assert_eq!(
        err("SELECT 'a' # b"),
        "line 1:11 no viable alternative at character '#'"
    );
    assert_eq!(
        err("UPDATE t SET a = b + 1 WHERE k = 0"),
        "Only expressions of the form X = X +<value> are supported."
    );
}

#[test]
fn positions_are_exposed() {
    let e = parse_statement("SELECT * FROM t\n WHERE a IN").unwrap_err();
    assert!(e.at_end);
    let e = parse_statement("SELECT * FROM t\n WHERE LIMIT 1").unwrap_err();
    assert_eq!((e.line, e.column, e.at_end), (2, 7, false));
    assert!(matches!(e.kind, ParseErrorKind::Syntax { .. }));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    for (open, close) in [("(", ")"), ("[", "]"), ("{", "}"), ("frozen<", ">")] {
        let sql = format!(
            "INSERT INTO t (a) VALUES ({}1{})",
            open.repeat(10_000),
            close.repeat(10_000)
        );
        let e = parse_statement(&sql).unwrap_err();
        assert!(
            e.to_string().contains("nested too deeply") || e.line > 0,
            "{e}"
        );
    }
    let sql = format!(
        "SELECT {}a{} FROM t",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    assert!(parse_statement(&sql).is_err());
    let sql = format!(
        "SELECT * FROM t WHERE {}a = 1{}",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    assert!(parse_statement(&sql).is_err());
    let sql = format!(
        "CREATE TABLE t (a {}int{})",
        "frozen<".repeat(10_000),
        ">".repeat(10_000)
    );
    assert!(parse_statement(&sql).is_err());
    let sql = format!("SELECT * FROM t WHERE a = {}1", "- ".repeat(10_000));
    assert!(parse_statement(&sql).is_err());
}

/// A small deterministic generator (xorshift) so the test needs no dependency and is
/// reproducible.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn random_input_never_panics() {
    const PIECES: [&str; 40] = [
        "SELECT ",
        "* ",
        "FROM ",
        "t ",
        "WHERE ",
        "a ",
        "= ",
        "? ",
        ":n ",
        "( ",
        ") ",
        "[ ",
        "] ",
        "{ ",
        "} ",
        ", ",
        "; ",
        ". ",
        "'s' ",
        "$$x$$ ",
        "1 ",
        "-",
        "1.5e3 ",
        "0xff ",
        "1h ",
        "P1D ",
        "NaN ",
        "IN ",
        "AND ",
        "INSERT INTO ",
        "VALUES ",
        "UPDATE ",
        "SET ",
        "+ ",
        "CREATE TABLE ",
        "PRIMARY KEY ",
        "frozen<",
        ">",
        "BEGIN BATCH ",
        "\"Q\" ",
    ];
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..3000 {
        let len = (xorshift(&mut state) % 24) as usize;
        let mut sql = String::new();
        for _ in 0..len {
            let i = (xorshift(&mut state) % PIECES.len() as u64) as usize;
            sql.push_str(PIECES[i]);
        }
        if let Ok(stmt) = parse_statement(&sql) {
            let printed = stmt.to_string();
            assert_eq!(
                parse_statement(&printed).ok(),
                Some(stmt),
                "{sql} -> {printed}"
            );
        }
    }
    for _ in 0..3000 {
        let len = (xorshift(&mut state) % 40) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| (xorshift(&mut state) % 128) as u8)
            .collect();
        let sql = String::from_utf8_lossy(&bytes);
        let _ = parse_statement(&sql);
    }
}

#[test]
fn a_property_or_property_map_key_given_twice_is_a_syntax_error() {
    let e = parse_statement(
        "CREATE KEYSPACE k WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2, 'dc1': 3}",
    )
    .unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::Recognition(_)));
    assert_eq!(e.to_string(), "Multiple definition for property dc1");
    let e = parse_statement("ALTER TABLE t WITH comment = 'a' AND comment = 'b'").unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::Recognition(_)));
    assert_eq!(e.to_string(), "Multiple definition for property 'comment'");
}

#[test]
fn a_bind_marker_for_a_keyspace_or_table_name_is_a_syntax_error() {
    for (cql, message) in [
        ("USE ?", "Bind variables cannot be used for keyspace names"),
        (
            "DROP KEYSPACE ?",
            "Bind variables cannot be used for keyspace names",
        ),
        (
            "SELECT * FROM ?.t",
            "Bind variables cannot be used for keyspace names",
        ),
        (
            "SELECT * FROM ks.?",
            "Bind variables cannot be used for table names",
        ),
        (
            "TRUNCATE ?",
            "Bind variables cannot be used for table names",
        ),
    ] {
        let e = parse_statement(cql).unwrap_err();
        assert!(matches!(e.kind, ParseErrorKind::Recognition(_)), "{cql}");
        assert_eq!(e.to_string(), message, "{cql}");
    }
}

#[test]
fn a_minus_glued_to_a_duration_is_part_of_it() {
    let e = parse_statement("INSERT INTO t (p, d) VALUES (1, 1y-2mo)").unwrap_err();
    assert!(e.to_string().contains("-2mo"), "{e}");
    assert!(parse_statement("INSERT INTO t (p, d) VALUES (1, -1y2mo)").is_ok());
    assert!(parse_statement("SELECT * FROM t WHERE d = -3d").is_ok());
}
