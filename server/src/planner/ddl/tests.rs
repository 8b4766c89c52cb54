//! Printed-plan tests of schema statements: each statement planned against a catalog built
//! here, compared as a printed `SchemaChangePlan`, `no-op` (an `IF [NOT] EXISTS` that changes
//! nothing) or Cassandra's error message. No storage is involved.

use storage::Catalog;

use crate::planner::ddl::{plan_schema_change, SchemaContext};
use crate::planner::select::tests::schema;

/// What the tests plan with: a fixed clock, materialized views enabled.
const CONTEXT: SchemaContext<'static> = SchemaContext {
    now_micros: 1_700_000_000_000_000,
    materialized_views_enabled: true,
    datacenters: &["datacenter1"],
};

/// The printed plan of a schema statement (`ks` in use), `no-op`, or its error message.
fn plan_with(catalog: &Catalog, context: SchemaContext<'_>, query: &str) -> String {
    let statement = match cql::statement::parse_statement(query) {
        Ok(statement) => statement,
        Err(err) => panic!("{query}: {err}"),
    };
    match plan_schema_change(catalog, &statement, Some("ks"), context) {
        Ok(Some(plan)) => plan.to_string(),
        Ok(None) => "no-op".into(),
        Err(err) => format!("error: {err}"),
    }
}

/// Asserts each statement's printed plan against `catalog`.
fn check(catalog: &Catalog, cases: &[(&str, &str)]) {
    for (query, expected) in cases {
        assert_eq!(plan_with(catalog, CONTEXT, query), *expected, "{query}");
    }
}

/// Keyspace `ks` with the tables the tests change.
fn catalog() -> Catalog {
    schema(&[
        "CREATE TABLE t (k int, c int, s int static, v text, l list<int>, PRIMARY KEY (k, c))",
        "CREATE TABLE base (k int, c int, v int, PRIMARY KEY (k, c))",
    ])
    .catalog
}

/// `catalog` once each statement's plan is applied in turn.
fn applied(catalog: Catalog, statements: &[&str]) -> Catalog {
    statements.iter().fold(catalog, |catalog, query| {
        let statement = match cql::statement::parse_statement(query) {
            Ok(statement) => statement,
            Err(err) => panic!("{query}: {err}"),
        };
        match plan_schema_change(&catalog, &statement, Some("ks"), CONTEXT) {
            Ok(Some(plan)) => plan.catalog,
            Ok(None) => panic!("{query}: no change"),
            Err(err) => panic!("{query}: {err}"),
        }
    })
}

/// [`catalog`] plus type `address (street text, zip int)`, used by table `homes`.
fn catalog_with_type() -> Catalog {
    applied(
        catalog(),
        &[
            "CREATE TYPE address (street text, zip int)",
            "CREATE TABLE homes (k int PRIMARY KEY, addr frozen<address>)",
        ],
    )
}

#[test]
fn keyspaces_are_put_altered_and_dropped() {
    check(
        &catalog(),
        &[
            (
                "CREATE KEYSPACE ks2 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
                "CREATED KEYSPACE ks2: put keyspace ks2 replication {class: org.apache.cassandra.locator.SimpleStrategy, replication_factor: 1}",
            ),
            (
                "CREATE KEYSPACE ks2 WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 3} AND durable_writes = false",
                "CREATED KEYSPACE ks2: put keyspace ks2 replication {class: org.apache.cassandra.locator.NetworkTopologyStrategy, datacenter1: 3} durable_writes false",
            ),
            (
                "ALTER KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
                "UPDATED KEYSPACE ks: put keyspace ks replication {class: org.apache.cassandra.locator.SimpleStrategy, replication_factor: 3}",
            ),
            ("DROP KEYSPACE ks", "DROPPED KEYSPACE ks: drop keyspace ks"),
            (
                "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
                "no-op",
            ),
            ("DROP KEYSPACE IF EXISTS nope", "no-op"),
            ("ALTER KEYSPACE IF EXISTS nope WITH durable_writes = true", "no-op"),
        ],
    );
}

#[test]
fn keyspace_errors_keep_cassandras_messages() {
    check(
        &catalog(),
        &[
            (
                "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
                "error: Cannot add existing keyspace \"ks\"",
            ),
            (
                "CREATE KEYSPACE \"bad-name\" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
                "error: Keyspace name must not be empty, more than 48 characters long, or contain non-alphanumeric-underscore characters (got 'bad-name')",
            ),
            ("DROP KEYSPACE nope", "error: Keyspace 'nope' doesn't exist"),
            (
                "CREATE KEYSPACE ks2 WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3}",
                "error: Unrecognized strategy option {dc1} passed to NetworkTopologyStrategy for keyspace ks2",
            ),
            ("DROP KEYSPACE system", "error: system keyspace is not user-modifiable."),
            ("ALTER KEYSPACE system_schema WITH durable_writes = true", "error: system_schema keyspace is not user-modifiable."),
        ],
    );
}

#[test]
fn tables_are_created_with_their_key_order_statics_and_options() {
    check(
        &catalog(),
        &[
            ("CREATE TABLE t2 (k int PRIMARY KEY, v text)", "CREATED TABLE ks.t2: put table ks.t2 (k int, v text, PRIMARY KEY (k))"),
            (
                "CREATE TABLE t2 (a int, b int, c int, d text, s int static, v int, PRIMARY KEY ((a, b), c, d)) WITH CLUSTERING ORDER BY (c DESC, d ASC) AND gc_grace_seconds = 3600 AND comment = 'it''s'",
                "CREATED TABLE ks.t2: put table ks.t2 (a int, b int, c int, d text, s int static, v int, PRIMARY KEY ((a, b), c, d)) clustering order (c DESC, d ASC) with comment = 'it''s', gc_grace_seconds = 3600",
            ),
            ("CREATE TABLE IF NOT EXISTS t (k int PRIMARY KEY)", "no-op"),
            ("CREATE TABLE t (k int PRIMARY KEY)", "error: Cannot add already existing table \"t\" to keyspace \"ks\""),
            ("CREATE TABLE nope.t2 (k int PRIMARY KEY)", "error: Keyspace 'nope' doesn't exist"),
            ("CREATE TABLE system_auth.t2 (k int PRIMARY KEY)", "error: Cannot CREATE <keyspace system_auth>"),
        ],
    );
}

#[test]
fn tables_are_altered_and_dropped() {
    check(
        &catalog(),
        &[
            ("ALTER TABLE t ADD w int", "UPDATED TABLE ks.t: put table ks.t (k int, c int, s int static, l list<int>, v text, w int, PRIMARY KEY (k, c))"),
            ("ALTER TABLE t ADD IF NOT EXISTS v text", "no-op"),
            ("ALTER TABLE t DROP v", "UPDATED TABLE ks.t: put table ks.t (k int, c int, s int static, l list<int>, PRIMARY KEY (k, c)) dropped [v at 1700000000000000]"),
            ("ALTER TABLE t DROP v USING TIMESTAMP 42", "UPDATED TABLE ks.t: put table ks.t (k int, c int, s int static, l list<int>, PRIMARY KEY (k, c)) dropped [v at 42]"),
            ("ALTER TABLE t DROP IF EXISTS nope", "no-op"),
            ("ALTER TABLE t RENAME c TO cc", "UPDATED TABLE ks.t: put table ks.t (k int, cc int, s int static, l list<int>, v text, PRIMARY KEY (k, cc))"),
            ("ALTER TABLE t WITH default_time_to_live = 60", "UPDATED TABLE ks.t: put table ks.t (k int, c int, s int static, l list<int>, v text, PRIMARY KEY (k, c)) with default_time_to_live = 60"),
            ("ALTER TABLE IF EXISTS nope ADD w int", "no-op"),
            ("DROP TABLE t", "DROPPED TABLE ks.t: drop table ks.t"),
            ("DROP TABLE IF EXISTS nope", "no-op"),
        ],
    );
}

#[test]
fn table_errors_keep_cassandras_messages() {
    check(
        &catalog(),
        &[
            (
                "ALTER TABLE t DROP k",
                "error: Cannot drop PRIMARY KEY column k",
            ),
            (
                "ALTER TABLE t DROP nope",
                "error: Column nope was not found in table 't'",
            ),
            (
                "ALTER TABLE t RENAME v TO w",
                "error: Cannot rename non PRIMARY KEY column v",
            ),
            (
                "ALTER TABLE t ALTER v TYPE blob",
                "error: Altering column types is no longer supported",
            ),
            (
                "ALTER TABLE nope ADD w int",
                "error: Table 'ks.nope' doesn't exist",
            ),
            ("DROP TABLE nope", "error: Table 'ks.nope' doesn't exist"),
            (
                "DROP TABLE system.local",
                "error: system keyspace is not user-modifiable.",
            ),
        ],
    );
}

#[test]
fn indexes_are_added_to_their_table() {
    check(
        &catalog(),
        &[
            ("CREATE INDEX ON t (v)", "UPDATED TABLE ks.t: put table ks.t (k int, c int, s int static, l list<int>, v text, PRIMARY KEY (k, c)) indexes [t_v_idx on v]"),
            ("CREATE INDEX li ON t (l)", "UPDATED TABLE ks.t: put table ks.t (k int, c int, s int static, l list<int>, v text, PRIMARY KEY (k, c)) indexes [li on values(l)]"),
            ("CREATE INDEX IF NOT EXISTS ON t (v)", "UPDATED TABLE ks.t: put table ks.t (k int, c int, s int static, l list<int>, v text, PRIMARY KEY (k, c)) indexes [t_v_idx on v]"),
            (
                "CREATE CUSTOM INDEX vi ON t (v) USING 'StorageAttachedIndex' WITH OPTIONS = {'case_sensitive': 'false'}",
                "UPDATED TABLE ks.t: put table ks.t (k int, c int, s int static, l list<int>, v text, PRIMARY KEY (k, c)) indexes [vi on v using 'StorageAttachedIndex' {case_sensitive: false}]",
            ),
            ("CREATE INDEX ON t (k)", "error: Cannot create secondary index on the only partition key column k"),
            ("CREATE INDEX ON nope (v)", "error: Table 'nope' doesn't exist"),
            (
                "CREATE CUSTOM INDEX ON t (v) USING 'org.apache.cassandra.index.sasi.SASIIndex'",
                "error: SASI indexes are disabled. Enable in cassandra.yaml to use.",
            ),
            ("DROP INDEX IF EXISTS nope", "no-op"),
            ("DROP INDEX nope", "error: Index 'ks.nope' doesn't exist'"),
        ],
    );
}

#[test]
fn indexes_are_dropped_and_vector_indexes_warn() {
    let catalog =
        schema(&["CREATE TABLE t (k int PRIMARY KEY, v text, e vector<float, 3>)"]).catalog;
    let with_index = applied(catalog, &["CREATE INDEX vi ON t (v)"]);
    check(
        &with_index,
        &[
            ("DROP INDEX vi", "UPDATED TABLE ks.t: put table ks.t (k int, e vector<float, 3>, v text, PRIMARY KEY (k))"),
            ("CREATE INDEX vi ON t (v)", "error: Index 'vi' already exists"),
            ("CREATE INDEX other ON t (v)", "error: Index other is a duplicate of existing index vi"),
            ("CREATE CUSTOM INDEX ON t (e) USING 'sai'", "UPDATED TABLE ks.t: put table ks.t (k int, e vector<float, 3>, v text, PRIMARY KEY (k)) indexes [vi on v, t_e_idx on e using 'sai'] warning \"SAI ANN indexes on vector columns are experimental and are not recommended for production use.\\nThey don't yet support SELECT queries with:\\n * Consistency level higher than ONE/LOCAL_ONE.\\n * Paging.\\n * No LIMIT clauses.\\n * PER PARTITION LIMIT clauses.\\n * GROUP BY clauses.\\n * Aggregation functions.\\n * Filters on columns without a SAI index.\""),
        ],
    );
}

#[test]
fn user_types_are_created_altered_and_dropped() {
    check(
        &catalog_with_type(),
        &[
            ("CREATE TYPE point (x int, y int)", "CREATED TYPE ks.point: put type ks.point (x int, y int)"),
            ("CREATE TYPE IF NOT EXISTS address (x int)", "no-op"),
            ("ALTER TYPE address ADD city text", "UPDATED TYPE ks.address: put type ks.address (street text, zip int, city text); put table ks.homes (k int, addr frozen<address>, PRIMARY KEY (k))"),
            ("ALTER TYPE address RENAME zip TO postcode", "UPDATED TYPE ks.address: put type ks.address (street text, postcode int); put table ks.homes (k int, addr frozen<address>, PRIMARY KEY (k))"),
            ("CREATE TYPE address (x int)", "error: A user type with name 'address' already exists"),
            ("CREATE TYPE point (x int, x text)", "error: Duplicate field name 'x' in type 'point'"),
            ("ALTER TYPE address ADD zip int", "error: Cannot add field zip to type ks.address: a field with name zip already exists"),
            ("ALTER TYPE address RENAME nope TO x", "error: Unkown field nope in user type ks.address"),
            ("ALTER TYPE nope ADD x int", "error: Type ks.nope doesn't exist"),
            ("DROP TYPE address", "error: Cannot drop user type 'ks.address' as it is still used by tables homes"),
            ("DROP TYPE IF EXISTS nope", "no-op"),
        ],
    );
    check(
        &catalog(),
        &[
            (
                "CREATE TYPE point (x int, y int)",
                "CREATED TYPE ks.point: put type ks.point (x int, y int)",
            ),
            ("DROP TYPE IF EXISTS point", "no-op"),
        ],
    );
}

#[test]
fn materialized_views_are_created_altered_and_dropped() {
    let create = "CREATE MATERIALIZED VIEW mv AS SELECT * FROM base WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, k, c)";
    let catalog = catalog();
    check(
        &catalog,
        &[
            (create, "CREATED TABLE ks.mv: put view ks.mv of base (v int, k int, c int, PRIMARY KEY (v, k, c)) where v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL; put views of ks.base [mv] warning \"Materialized views are experimental and are not recommended for production use.\""),
            (
                "CREATE MATERIALIZED VIEW mv AS SELECT k, c FROM base WHERE k IS NOT NULL AND c = 1 PRIMARY KEY (c, k) WITH CLUSTERING ORDER BY (k DESC)",
                "CREATED TABLE ks.mv: put view ks.mv of base (c int, k int, PRIMARY KEY (c, k)) clustering order (k DESC) where k IS NOT NULL AND c = 1; put views of ks.base [mv] warning \"Materialized views are experimental and are not recommended for production use.\"",
            ),
            (
                "CREATE MATERIALIZED VIEW mv AS SELECT * FROM base WHERE k IS NOT NULL PRIMARY KEY (k, c)",
                "error: Primary key columns c must be restricted with 'IS NOT NULL' or otherwise",
            ),
            ("DROP MATERIALIZED VIEW IF EXISTS mv", "no-op"),
            ("DROP MATERIALIZED VIEW mv", "error: Materialized view 'ks.mv' doesn't exist"),
        ],
    );
    assert_eq!(
        plan_with(
            &catalog,
            SchemaContext {
                materialized_views_enabled: false,
                ..CONTEXT
            },
            create
        ),
        "error: Materialized views are disabled. Enable in cassandra.yaml to use."
    );
    let with_view = applied(catalog, &[create]);
    check(
        &with_view,
        &[
            ("ALTER MATERIALIZED VIEW mv WITH comment = 'by v'", "UPDATED TABLE ks.mv: put view ks.mv of base (v int, k int, c int, PRIMARY KEY (v, k, c)) with comment = 'by v' where v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL"),
            ("ALTER MATERIALIZED VIEW mv WITH gc_grace_seconds = 0", "error: Cannot alter gc_grace_seconds of a materialized view to 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed."),
            (&create.replace("VIEW mv", "VIEW IF NOT EXISTS mv"), "no-op"),
            ("ALTER TABLE base ADD w int", "UPDATED TABLE ks.base: put table ks.base (k int, c int, v int, w int, PRIMARY KEY (k, c)); put view ks.mv of base (v int, k int, c int, w int, PRIMARY KEY (v, k, c)) where v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL; put views of ks.base [mv]"),
            ("ALTER TABLE base RENAME c TO cc", "UPDATED TABLE ks.base: put table ks.base (k int, cc int, v int, PRIMARY KEY (k, cc)); put view ks.mv of base (v int, k int, cc int, PRIMARY KEY (v, k, cc)) where v IS NOT NULL AND k IS NOT NULL AND cc IS NOT NULL; put views of ks.base [mv]"),
            ("DROP TABLE base", "error: Cannot drop a table when materialized views still depend on it (ks)"),
            ("DROP MATERIALIZED VIEW mv", "DROPPED TABLE ks.mv: drop table ks.mv; put views of ks.base []"),
        ],
    );
}

#[test]
fn functions_and_triggers_are_refused() {
    check(
        &catalog(),
        &[
            (
                "CREATE FUNCTION f (x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return x;'",
                "error: cqld does not run user-defined functions: CREATE FUNCTION is not supported, whatever user_defined_functions_enabled says",
            ),
            (
                "CREATE AGGREGATE a (int) SFUNC f STYPE int",
                "error: cqld does not run user-defined aggregates: CREATE AGGREGATE is not supported, whatever user_defined_functions_enabled says",
            ),
            ("DROP FUNCTION IF EXISTS f", "no-op"),
            ("DROP FUNCTION f", "error: Function 'ks.f' doesn't exist"),
            ("DROP AGGREGATE a (int)", "error: Aggregate 'ks.a(int)' doesn't exist"),
            ("CREATE TRIGGER tr ON t USING 'org.Trigger'", "error: Trigger class 'org.Trigger' couldn't be loaded"),
            ("DROP TRIGGER IF EXISTS tr ON t", "no-op"),
            ("DROP TRIGGER tr ON t", "error: Trigger 'tr' on 'ks.t' doesn't exist"),
            ("SELECT * FROM t", "error: This schema statement is not supported yet: SELECT * FROM t"),
        ],
    );
}

/// CREATE TABLE's checks in 5.0's words: the parser-time ones name the table as written, the
/// later ones the table alone; CLUSTERING ORDER lists every column outside the clustering key.
/// LocalStrategy and a view's id that is no UUID are refused in 5.0's words too.
#[test]
fn create_table_refusals_name_the_table_as_5_0_does() {
    check(
        &catalog(),
        &[
            (
                "CREATE TABLE ks.x (k int, v int)",
                "error: No PRIMARY KEY specifed for table 'ks.x' (exactly one required)",
            ),
            (
                "CREATE TABLE x (k int, v int)",
                "error: No PRIMARY KEY specifed for table 'x' (exactly one required)",
            ),
            (
                "CREATE TABLE ks.x (k int PRIMARY KEY, v int, v text)",
                "error: Duplicate column 'v' declaration for table 'ks.x'",
            ),
            (
                "CREATE TABLE ks.x (k int, c int, PRIMARY KEY (k, z))",
                "error: Unknown column 'z' referenced in PRIMARY KEY for table 'x'",
            ),
            (
                "CREATE TABLE x (k int, c int, v int, w int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (v ASC, c ASC, w DESC)",
                "error: Only clustering key columns can be defined in CLUSTERING ORDER directive: [v, w] are not clustering columns",
            ),
            (
                "CREATE TABLE x (k int, c int, d int, PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (d ASC, c ASC)",
                "error: The order of columns in the CLUSTERING ORDER directive must match that of the clustering columns (c must appear before d)",
            ),
            (
                "CREATE TABLE x (k int, c int, d int, PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (d ASC)",
                "error: Missing CLUSTERING ORDER for column c",
            ),
            (
                "CREATE TABLE ks.x (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c ASC, c DESC)",
                "error: Duplicate column 'c' in CLUSTERING ORDER BY clause for table 'ks.x'",
            ),
            (
                "CREATE KEYSPACE l WITH replication = {'class': 'LocalStrategy'}",
                "error: Unable to use given strategy class: LocalStrategy is reserved for internal use.",
            ),
            (
                "CREATE MATERIALIZED VIEW mv2 AS SELECT k, c FROM base WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k) WITH id = 'nope'",
                "error: Invalid table id",
            ),
        ],
    );
}
