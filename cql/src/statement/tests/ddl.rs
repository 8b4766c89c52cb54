//! Schema statements, including cassandra-stress's exact DDL.

use super::*;

#[test]
fn keyspace_forms() {
    verified_stmt("CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1} AND durable_writes = true");
    one_statement_parses_to(
        "CREATE KEYSPACE ks WITH REPLICATION = {'class' : 'NetworkTopologyStrategy', 'dc1' : '3', 'x': 1.5, 'y': false}",
        "CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': '3', 'x': 1.5, 'y': false}",
    );
    verified_stmt("ALTER KEYSPACE IF EXISTS ks WITH durable_writes = false");
    verified_stmt("DROP KEYSPACE IF EXISTS ks");
    verified_stmt("USE \"Ks\"");
    one_statement_parses_to("TRUNCATE TABLE ks.t", "TRUNCATE ks.t");
    one_statement_parses_to("truncate columnfamily t", "TRUNCATE t");
}

#[test]
fn create_table_forms() {
    verified_stmt("CREATE TABLE t (k int PRIMARY KEY, v text)");
    verified_stmt("CREATE TABLE IF NOT EXISTS ks.t (k int, c1 int, c2 text, s int STATIC, PRIMARY KEY (k, c1, c2))");
    verified_stmt("CREATE TABLE t (k1 int, k2 int, c1 int, PRIMARY KEY ((k1, k2), c1))");
    one_statement_parses_to(
        "CREATE TABLE t (k int, PRIMARY KEY ((k)))",
        "CREATE TABLE t (k int, PRIMARY KEY (k))",
    );
    verified_stmt("CREATE TABLE t (k int, c1 int, c2 int, PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC) AND COMPACT STORAGE AND comment = 'x' AND compaction = {'class': 'LeveledCompactionStrategy'}");
    verified_stmt("CREATE TABLE t (k int PRIMARY KEY, a list<int>, b set<text>, c map<text, frozen<list<int>>>, d tuple<int, text>, e frozen<ks.addr>, f vector<float, 3>, g 'org.apache.Custom', h addr)");
    one_statement_parses_to(
        "CREATE COLUMNFAMILY t (a frozen<list<frozen<map<int,text>>>>, b varchar, PRIMARY KEY ((a), b))",
        "CREATE TABLE t (a frozen<list<frozen<map<int, text>>>>, b text, PRIMARY KEY (a, b))",
    );
    let Statement::CreateTable(t) = parses("CREATE TABLE t (k int, c int, PRIMARY KEY (k, c))")
    else {
        panic!()
    };
    assert_eq!(t.partition_key, vec![id("k")]);
    assert_eq!(t.clustering_key, vec![id("c")]);
}

#[test]
fn cassandra_stress_ddl() {
    let keyspace = "CREATE KEYSPACE IF NOT EXISTS \"keyspace1\" WITH replication = {'class': 'org.apache.cassandra.locator.SimpleStrategy', 'replication_factor' : '1'} AND durable_writes = true;\n";
    let Statement::CreateKeyspace(ks) = parses(keyspace) else {
        panic!()
    };
    assert_eq!(ks.properties[0].name, "replication");
    assert_eq!(
        ks.properties[0].value,
        PropertyValue::Map(vec![
            (
                "class".into(),
                Literal::String("org.apache.cassandra.locator.SimpleStrategy".into())
            ),
            ("replication_factor".into(), Literal::String("1".into())),
        ])
    );
    parses("USE \"keyspace1\"");
    parses("USE \"keyspace1\";");
    parses("CREATE TABLE IF NOT EXISTS standard1 (key blob PRIMARY KEY \n, \"C0\" blob\n, \"C1\" blob\n, \"C2\" blob\n, \"C3\" blob\n, \"C4\" blob) WITH compression = {};\n");
    let counter = "CREATE TABLE IF NOT EXISTS counter1 (key blob PRIMARY KEY,\n, \"C0\" counter\n, \"C1\" counter\n, \"C2\" counter\n, \"C3\" counter\n, \"C4\" counter) WITH compression = {};\n";
    let Statement::CreateTable(t) = parses(counter) else {
        panic!()
    };
    assert_eq!(t.columns.len(), 6);
    assert!(t.columns[0].primary_key);
    assert_eq!(t.properties[0].value, PropertyValue::Map(vec![]));
    parses("CREATE TABLE IF NOT EXISTS standard1 (key blob, \"C0\" blob, \"C1\" blob, \"C2\" blob, \"C3\" blob, \"C4\" blob, PRIMARY KEY (key)) WITH compression = {};");
    parses("CREATE TABLE IF NOT EXISTS standard1 (key blob PRIMARY KEY) WITH compression = {'class' : 'LZ4Compressor'} AND compaction = { 'class' : 'LeveledCompactionStrategy', 'sstable_size_in_mb' : '160'}");
    parses("CREATE KEYSPACE IF NOT EXISTS \"keyspace1\" WITH REPLICATION = {'class': 'SimpleStrategy', 'replication_factor': '1'};");
    parses("CREATE TABLE typestest (name text, choice boolean, date timestamp, address inet, dbl double, lval bigint, ival int, uid timeuuid, value blob, PRIMARY KEY((name,choice), date, address, dbl, lval, ival, uid)) WITH compaction = { 'class':'LeveledCompactionStrategy' }");
    parses("CREATE KEYSPACE stresscql WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};");
    parses("TRUNCATE keyspace1.counter3");
}

#[test]
fn alter_and_drop_table() {
    verified_stmt("ALTER TABLE IF EXISTS t ADD IF NOT EXISTS a int");
    verified_stmt("ALTER TABLE t ADD (a int, b list<text> STATIC)");
    one_statement_parses_to("ALTER TABLE t ADD (a int)", "ALTER TABLE t ADD a int");
    verified_stmt("ALTER TABLE t DROP IF EXISTS a USING TIMESTAMP 123");
    verified_stmt("ALTER TABLE t DROP (a, b)");
    verified_stmt("ALTER TABLE t RENAME IF EXISTS a TO b AND c TO d");
    verified_stmt("ALTER TABLE t ALTER a TYPE blob");
    verified_stmt("ALTER TABLE ks.t WITH comment = 'x' AND gc_grace_seconds = 10");
    one_statement_parses_to(
        "alter columnfamily t with caching = ALL",
        "ALTER TABLE t WITH caching = ALL",
    );
    verified_stmt("DROP TABLE IF EXISTS ks.t");
}

#[test]
fn index_forms() {
    verified_stmt("CREATE INDEX ON t (a)");
    verified_stmt("CREATE INDEX IF NOT EXISTS idx ON ks.t (KEYS(m))");
    verified_stmt("CREATE INDEX i2 ON t (VALUES(l))");
    verified_stmt("CREATE INDEX i3 ON t (ENTRIES(m))");
    verified_stmt("CREATE INDEX i4 ON t (FULL(f))");
    verified_stmt("CREATE INDEX i5 ON t (keys)");
    verified_stmt("CREATE CUSTOM INDEX i ON t (a) USING 'org.apache.cassandra.index.sasi.SASIIndex' WITH OPTIONS = {'mode': 'CONTAINS'}");
    verified_stmt("DROP INDEX IF EXISTS ks.idx");
}

#[test]
fn type_forms() {
    verified_stmt(
        "CREATE TYPE IF NOT EXISTS ks.addr (street text, zip int, tags frozen<set<text>>)",
    );
    verified_stmt("ALTER TYPE addr ADD city text");
    verified_stmt("ALTER TYPE ks.addr RENAME street TO road AND zip TO code");
    verified_stmt("DROP TYPE IF EXISTS ks.addr");
    assert!(parse_statement("CREATE TYPE date (a int)").is_err());
}

#[test]
fn describe_forms() {
    for (input, canonical) in [
        ("DESC KEYSPACES", "DESCRIBE KEYSPACES"),
        ("DESCRIBE TABLE ks.t", "DESCRIBE TABLE ks.t"),
        ("DESC FULL SCHEMA", "DESCRIBE FULL SCHEMA"),
        ("desc schema", "DESCRIBE SCHEMA"),
        ("DESC ONLY KEYSPACE ks", "DESCRIBE ONLY KEYSPACE ks"),
        ("DESC KEYSPACE", "DESCRIBE KEYSPACE"),
        ("DESC ks.t", "DESCRIBE ks.t"),
        ("DESC only", "DESCRIBE only"),
        ("DESC CLUSTER", "DESCRIBE CLUSTER"),
        ("DESC TABLES", "DESCRIBE TABLES"),
        ("DESC COLUMNFAMILY t", "DESCRIBE TABLE t"),
        ("DESC INDEX ks.i", "DESCRIBE INDEX ks.i"),
        ("DESC MATERIALIZED VIEW v", "DESCRIBE MATERIALIZED VIEW v"),
        ("DESC TYPES", "DESCRIBE TYPES"),
        ("DESC TYPE ks.addr", "DESCRIBE TYPE ks.addr"),
        ("DESC FUNCTIONS", "DESCRIBE FUNCTIONS"),
        ("DESC FUNCTION ks.f", "DESCRIBE FUNCTION ks.f"),
        ("DESC AGGREGATES", "DESCRIBE AGGREGATES"),
        ("DESC AGGREGATE agg", "DESCRIBE AGGREGATE agg"),
        (
            "DESC TABLE t WITH INTERNALS",
            "DESCRIBE TABLE t WITH INTERNALS",
        ),
        (
            "DESC KEYSPACE ks WITH INTERNALS;",
            "DESCRIBE KEYSPACE ks WITH INTERNALS",
        ),
    ] {
        one_statement_parses_to(input, canonical);
    }
}

#[test]
fn view_statements_print_canonically() {
    verified_stmt(
        "CREATE MATERIALIZED VIEW IF NOT EXISTS ks.mv AS SELECT a, b FROM ks.t WHERE a IS NOT NULL AND b > 1 PRIMARY KEY ((a), b) WITH CLUSTERING ORDER BY (b DESC) AND comment = 'x'",
    );
    verified_stmt("CREATE MATERIALIZED VIEW mv AS SELECT * FROM t WHERE p IS NOT NULL PRIMARY KEY ((p)) WITH comment = 'y' AND gc_grace_seconds = 5");
    verified_stmt(
        "ALTER MATERIALIZED VIEW IF EXISTS ks.mv WITH comment = 'c' AND gc_grace_seconds = 1",
    );
    verified_stmt("DROP MATERIALIZED VIEW ks.mv");
    verified_stmt("DROP MATERIALIZED VIEW IF EXISTS mv");
    verified_stmt("DROP KEYSPACE ks");
    verified_stmt("DROP TABLE t");
}

/// Refused DDL prints a summary (the body of a function is left out), which need not parse.
#[test]
fn refused_ddl_prints_a_summary() {
    for (sql, printed) in [
        (
            "CREATE OR REPLACE FUNCTION IF NOT EXISTS ks.f (a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$ return a; $$",
            "CREATE FUNCTION ks.f (...)",
        ),
        (
            "DROP AGGREGATE IF EXISTS ks.agg(int, text)",
            "DROP AGGREGATE IF EXISTS ks.agg(int, text)",
        ),
        ("DROP FUNCTION f", "DROP FUNCTION f"),
        (
            "CREATE TRIGGER IF NOT EXISTS tr ON ks.t USING 'org.example.T'",
            "CREATE TRIGGER IF NOT EXISTS tr ON ks.t USING 'org.example.T'",
        ),
        ("DROP TRIGGER IF EXISTS tr ON t", "DROP TRIGGER IF EXISTS tr ON t"),
        ("DROP TRIGGER tr ON ks.t", "DROP TRIGGER tr ON ks.t"),
    ] {
        let stmt = parse_statement(sql).unwrap_or_else(|e| panic!("{sql}\n  -> {e}"));
        assert_eq!(stmt.to_string(), printed, "{sql}");
    }
}
