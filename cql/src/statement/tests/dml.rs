//! SELECT, INSERT, UPDATE, DELETE and BATCH, including what drivers and cassandra-stress send.

use super::*;

#[test]
fn select_forms() {
    verified_stmt("SELECT * FROM t");
    verified_stmt("SELECT JSON DISTINCT a, b AS bee FROM ks.t");
    verified_stmt("SELECT json FROM t");
    verified_stmt("SELECT distinct, json FROM t");
    verified_stmt("SELECT COUNT(*) FROM t");
    one_statement_parses_to("select count(1) from t", "SELECT COUNT(*) FROM t");
    verified_stmt("SELECT count(a), WRITETIME(c), TTL(c), maxwritetime(c) FROM t");
    one_statement_parses_to(
        "select writetime(c), ttl(\"C\") from t",
        "SELECT WRITETIME(c), TTL(\"C\") FROM t",
    );
    verified_stmt("SELECT token(a, b), ks.fn(a, 1, 'x'), now() FROM t");
    verified_stmt("SELECT CAST(a AS text), u.field, m['k'], l[1..3], l[..2], l[1..] FROM t");
    verified_stmt("SELECT (a + b) * c, a - b - c, a - (b - c), - a, -5, ?, :name FROM t");
    verified_stmt("SELECT a FROM t WHERE a = 1 GROUP BY a, b ORDER BY b ASC, c DESC PER PARTITION LIMIT 2 LIMIT 10 ALLOW FILTERING");
    one_statement_parses_to(
        "SELECT a FROM t ORDER BY b",
        "SELECT a FROM t ORDER BY b ASC",
    );
    verified_stmt("SELECT * FROM t LIMIT ?");
}

#[test]
fn where_relations() {
    verified_stmt(
        "SELECT * FROM t WHERE a = 1 AND b < 2 AND c <= 3 AND d > 4 AND e >= 5 AND f != 6",
    );
    verified_stmt("SELECT * FROM t WHERE a IN (1, 2) AND b IN ? AND c NOT IN (3) AND d IN ()");
    verified_stmt("SELECT * FROM t WHERE s CONTAINS 1 AND m CONTAINS KEY 'k' AND n LIKE 'a%'");
    verified_stmt("SELECT * FROM t WHERE a IS NOT NULL AND m['k'] = 'v'");
    verified_stmt("SELECT * FROM t WHERE (a, b) > (1, 2) AND (a, b) <= ?");
    verified_stmt(
        "SELECT * FROM t WHERE (a, b) IN ((1, 2), (3, 4)) AND (c) IN ? AND (d, e) IN (?, ?)",
    );
    verified_stmt("SELECT * FROM t WHERE TOKEN(a, b) > ? AND TOKEN(a, b) <= token(1, 2)");
    one_statement_parses_to(
        "select * from t where (a = 1) and token(k) > -5",
        "SELECT * FROM t WHERE a = 1 AND TOKEN(k) > -5",
    );
    let s = verified_stmt("SELECT * FROM t WHERE id = 123e4567-e89b-12d3-a456-426655440000 AND d = 1h30m AND b = 0xcafe AND f = -Infinity AND g = NaN AND h = -1.5e3");
    let Statement::Select(s) = s else { panic!() };
    assert_eq!(
        s.where_clause[1],
        Relation::Single {
            column: id("d"),
            op: Operator::Eq,
            value: Term::Literal(Literal::Duration("1h30m".into()))
        }
    );
    one_statement_parses_to(
        "SELECT * FROM t WHERE d = -P1DT2H // trailing\n",
        "SELECT * FROM t WHERE d = -P1DT2H",
    );
}

#[test]
fn driver_system_queries() {
    for q in [
        "SELECT * FROM system.peers_v2",
        "SELECT * FROM system.local WHERE key = 'local'",
        "SELECT host_id, peer, data_center, rack, rpc_address, rpc_address, release_version, schema_version FROM system.peers",
        "SELECT host_id, cluster_name, data_center, rack, partitioner, release_version, schema_version FROM system.local WHERE key = 'local'",
        "SELECT host_id, peer, peer_port, data_center, rack, native_address, native_port, release_version, schema_version FROM system.peers_v2",
        "SELECT keyspace_name, table_name, column_name, kind, position, type FROM system_schema.columns",
        "SELECT keyspace_name, replication, durable_writes FROM system_schema.keyspaces WHERE keyspace_name IN ?",
        "SELECT * FROM system_schema.functions WHERE keyspace_name = 'ks' AND function_name = 'f' AND argument_types = ['int', 'text']",
    ] {
        verified_stmt(q);
    }
    for q in [
        "select * from system.local where key = 'local'",
        "SELECT * FROM system.local WHERE key='local'",
        "SELECT * from system_virtual_schema.keyspaces",
        "select cluster_name from system.local where key = 'local'",
        "SELECT schema_version FROM system.local WHERE key='local';",
        "SELECT broadcast_address, cluster_name, data_center, host_id, listen_address, partitioner, rack, release_version, rpc_address, schema_version, tokens FROM system.local WHERE key='local'",
    ] {
        parses(q);
    }
}

#[test]
fn insert_forms() {
    verified_stmt("INSERT INTO ks.t (a, b, \"C\") VALUES (1, 'x', ?) IF NOT EXISTS USING TTL 10 AND TIMESTAMP 123");
    verified_stmt("INSERT INTO t JSON '{\"a\": 1}' DEFAULT UNSET");
    one_statement_parses_to("INSERT INTO t JSON ? DEFAULT NULL", "INSERT INTO t JSON ?");
    verified_stmt("INSERT INTO t (a) VALUES (1) USING TIMEOUT 500ms");
    verified_stmt("INSERT INTO t (a, b, c, d, e) VALUES ([1, 2], {1, 2}, {'k': 1}, {}, (1, 'a'))");
    verified_stmt("INSERT INTO t (u, v) VALUES ({street: 'x', \"Zip\": 1}, {a: {b: [1]}})");
    one_statement_parses_to(
        "INSERT INTO t (a, b, c, d) VALUES (now(), uuid(), toTimestamp(now()), blobAsText(0x6869))",
        "INSERT INTO t (a, b, c, d) VALUES (now(), uuid(), totimestamp(now()), blobastext(0x6869))",
    );
    verified_stmt(
        "INSERT INTO t (a, b, c) VALUES ((int) ?, (frozen<list<int>>) [1], 1 + 2 * 3 - -4)",
    );
    verified_stmt("INSERT INTO t (a, b) VALUES (- ?, 'it''s')");
    one_statement_parses_to(
        "insert into t (a) values ($$it's$$)",
        "INSERT INTO t (a) VALUES ('it''s')",
    );
    let Statement::Insert(i) = parses("INSERT INTO t (a) VALUES ({})") else {
        panic!()
    };
    let InsertValues::Columns { values, .. } = &i.values else {
        panic!()
    };
    assert_eq!(values[0], Term::Map(vec![]));
}

#[test]
fn update_forms() {
    verified_stmt("UPDATE ks.t USING TTL 5 AND TIMESTAMP ? SET a = 1, b = b + 1, c = c - {2}, d = [0] + d, m['k'] = 'v', u.f = 3 WHERE k = 0");
    one_statement_parses_to(
        "UPDATE t SET a += 1, b -= {'x'} WHERE k = 0",
        "UPDATE t SET a = a + 1, b = b - {'x'} WHERE k = 0",
    );
    verified_stmt("UPDATE t SET a = 1 WHERE k = 0 IF EXISTS");
    verified_stmt("UPDATE t SET a = 1 WHERE k = 0 IF a = 2 AND b IN (1, 2) AND m['k'] = 'v' AND u.f > 3 AND c IN ? AND s CONTAINS 1");
    let s = parses("UPDATE t SET l = l - [1] WHERE k = 0");
    let Statement::Update(u) = s else { panic!() };
    assert!(matches!(
        u.assignments[0],
        Assignment::Modify {
            op: ArithOp::Sub,
            ..
        }
    ));
}

#[test]
fn delete_forms() {
    verified_stmt("DELETE FROM t WHERE k = 0");
    verified_stmt(
        "DELETE a, m['k'], u.f FROM ks.t USING TIMESTAMP 5 WHERE k = 0 AND c > 1 IF EXISTS",
    );
    verified_stmt("DELETE a FROM t WHERE k IN (1, 2) IF a = 1");
}

#[test]
fn batch_forms() {
    verified_stmt("BEGIN BATCH INSERT INTO t (a) VALUES (1); UPDATE t SET a = 2 WHERE k = 1; DELETE FROM t WHERE k = 2; APPLY BATCH");
    verified_stmt(
        "BEGIN UNLOGGED BATCH USING TIMESTAMP 10 INSERT INTO t (a) VALUES (?); APPLY BATCH",
    );
    verified_stmt("BEGIN COUNTER BATCH UPDATE c SET n = n + 1 WHERE k = ?; APPLY BATCH");
    one_statement_parses_to(
        "begin batch insert into t (a) values (1) insert into t (a) values (2) apply batch;",
        "BEGIN BATCH INSERT INTO t (a) VALUES (1); INSERT INTO t (a) VALUES (2); APPLY BATCH",
    );
}

#[test]
fn cassandra_stress_dml() {
    for q in [
        "UPDATE \"standard1\" SET \"C0\" = ?,\"C1\" = ?,\"C2\" = ?,\"C3\" = ?,\"C4\" = ? WHERE KEY=?",
        "UPDATE \"standard1\" USING TIMESTAMP 12345 SET \"C0\" = ? WHERE KEY=?",
        "SELECT \"C0\",\"C1\",\"C2\",\"C3\",\"C4\" FROM \"standard1\" WHERE KEY=?",
        "UPDATE counter1 SET \"C0\"=\"C0\"+?,\"C1\"=\"C1\"+?,\"C2\"=\"C2\"+?,\"C3\"=\"C3\"+?,\"C4\"=\"C4\"+? WHERE KEY=?",
        "SELECT * FROM \"counter1\" WHERE KEY=?",
        "INSERT INTO standard1 (key, \"C0\", \"C1\", \"C2\", \"C3\", \"C4\") VALUES (?, ?, ?, ?, ?, ?)",
        "SELECT key, \"C0\", \"C1\", \"C2\", \"C3\", \"C4\" FROM standard1 WHERE KEY=?",
        "UPDATE typestest SET c1 = ?,c2 = ? WHERE pk1 = ? AND pk2 = ? AND ck1 = ?",
        "INSERT INTO t (k1, k2) values(?, ?)",
        "select * from typestest where name = ? and choice = ? LIMIT 100",
        "select * from typestest where name = ? and choice = ? and date >= ? LIMIT 100",
        "SELECT token(name, choice), value FROM typestest WHERE token(name, choice) > -9223372036854775808 AND token(name, choice) <= 0",
        "UPDATE \"standard1\" SET \"C0\" = 0x0102 WHERE KEY=0xcafe",
        "TRUNCATE keyspace1.standard1",
    ] {
        parses(q);
    }
    let p = super::super::parse("UPDATE counter1 SET \"C0\"=\"C0\"+?,\"C1\"=\"C1\"+? WHERE KEY=?")
        .unwrap();
    assert_eq!(p.bind_count, 3);
}

#[test]
fn selectors_take_type_hinted_terms() {
    use crate::statement::ast::{CqlType, SelectExpr, Statement, Term};
    use crate::types::ColumnType;
    let Ok(Statement::Select(select)) =
        crate::statement::parse_statement("SELECT a + (int) ?, (float) NaN FROM t")
    else {
        panic!("parses");
    };
    let SelectExpr::Arith(_, _, right) = &select.selectors[0].expr else {
        panic!("an operation");
    };
    assert!(matches!(
        &**right,
        SelectExpr::Term(Term::TypeCast(CqlType::Native(ColumnType::Int), _))
    ));
    assert!(matches!(
        &select.selectors[1].expr,
        SelectExpr::Term(Term::TypeCast(CqlType::Native(ColumnType::Float), _))
    ));
}

#[test]
fn type_hinted_selectors_round_trip() {
    verified_stmt("SELECT (int) (c - a) FROM t");
    verified_stmt("SELECT (bigint) a + b FROM t");
}

#[test]
fn cast_terms_round_trip() {
    verified_stmt("INSERT INTO t (k, v) VALUES (1, CAST(1.3 AS int))");
    verified_stmt("UPDATE t SET v = CAST(? AS text) WHERE k = CAST(1.5 AS int)");
}

#[test]
fn explain_wraps_reads_and_writes() {
    let Statement::Explain(explain) = verified_stmt("EXPLAIN SELECT * FROM ks.t WHERE k = ?")
    else {
        panic!("not an EXPLAIN");
    };
    assert!(!explain.analyze);
    assert!(matches!(explain.statement, Statement::Select(_)));
    one_statement_parses_to(
        "explain analyze select v from t where k = 1 allow filtering",
        "EXPLAIN ANALYZE SELECT v FROM t WHERE k = 1 ALLOW FILTERING",
    );
    verified_stmt("EXPLAIN INSERT INTO t (k, v) VALUES (?, ?)");
    verified_stmt("EXPLAIN ANALYZE UPDATE t SET v = 1 WHERE k = 2");
    verified_stmt("EXPLAIN DELETE FROM t WHERE k = 1");
    let p = parse("EXPLAIN SELECT * FROM t WHERE k = ? AND c > :c").expect("parses");
    assert_eq!(p.bind_count, 2);
    let err = parse_statement("EXPLAIN TRUNCATE t").unwrap_err();
    assert!(
        err.to_string()
            .contains("mismatched input 'TRUNCATE' expecting SELECT, INSERT, UPDATE or DELETE"),
        "{err}"
    );
    // `explain` stays usable as a name.
    verified_stmt("SELECT explain FROM explain");
}
