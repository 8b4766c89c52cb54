//! Planner unit tests: statements planned against a schema snapshot, compared as printed
//! plans (or Cassandra's error messages). No storage is involved.

use std::collections::BTreeMap;
use std::sync::Arc;

use cql::statement::ast::Statement;
use storage::{Catalog, KeyspaceDef};
use uuid::Uuid;

use crate::planner::select::plan_select;
use crate::schema::table_def::create_table_def;
use crate::schema::Schema;

fn scope() -> crate::schema::table_def::types::TypeScope<'static> {
    static NO_TYPES: std::sync::OnceLock<crate::schema::table_def::types::UserTypes> =
        std::sync::OnceLock::new();
    crate::schema::table_def::types::TypeScope {
        keyspace: "ks",
        types: NO_TYPES.get_or_init(BTreeMap::new),
    }
}

/// A schema holding keyspace `ks` with the given CREATE TABLE statements.
pub(crate) fn schema(tables: &[&str]) -> Schema {
    let mut keyspace = KeyspaceDef {
        name: "ks".into(),
        replication: BTreeMap::new(),
        durable_writes: true,
        tables: BTreeMap::new(),
        types: BTreeMap::new(),
    };
    for (n, text) in tables.iter().enumerate() {
        let Ok(Statement::CreateTable(create)) = cql::statement::parse_statement(text) else {
            panic!("not a CREATE TABLE: {text}");
        };
        let id = Uuid::from_u128(n as u128 + 1);
        let def = create_table_def(&create, scope(), id).expect("table definition");
        keyspace.tables.insert(def.name.clone(), Arc::new(def));
    }
    let mut catalog = Catalog::default();
    catalog.keyspaces.insert("ks".into(), keyspace);
    Schema::new(catalog)
}

/// The definition of one table of keyspace `ks`, from its CREATE TABLE text.
pub(crate) fn table_from(create: &str) -> storage::TableDef {
    let Ok(Statement::CreateTable(create)) = cql::statement::parse_statement(create) else {
        panic!("not a CREATE TABLE: {create}");
    };
    create_table_def(&create, scope(), Uuid::from_u128(1)).expect("table definition")
}

/// The printed plan of `query`, or its error message.
fn plan(schema: &Schema, query: &str) -> String {
    let Ok(Statement::Select(select)) = cql::statement::parse_statement(query) else {
        panic!("not a SELECT: {query}");
    };
    match plan_select(schema, &select, Some("ks")) {
        Ok(plan) => plan.to_string(),
        Err(err) => format!("error: {err}"),
    }
}

fn tables() -> Schema {
    schema(&[
        "CREATE TABLE orders (userid text, orderid timeuuid, amount int, PRIMARY KEY (userid, orderid)) WITH CLUSTERING ORDER BY (orderid DESC)",
        "CREATE TABLE t (a int, b int, c int, d int, v int, PRIMARY KEY ((a, b), c, d))",
    ])
}

#[test]
fn key_restricted_reads_plan_as_partition_and_clustering_ranges() {
    let s = tables();
    let cases = [
        (
            "SELECT * FROM orders WHERE userid = 'u1'",
            "Select ks.orders partitions[userid = 'u1']",
        ),
        (
            "SELECT * FROM orders WHERE userid = ? AND orderid > ? ORDER BY orderid ASC",
            "Select ks.orders partitions[userid = ?] orderid > ? reversed",
        ),
        (
            "SELECT * FROM t WHERE a = 1 AND b IN (1, 2) AND c = 3 AND d >= 4 AND d < 9",
            "Select ks.t partitions[a = 1, b IN (1, 2)] clustering c = 3 d >= 4 d < 9",
        ),
        (
            "SELECT * FROM t WHERE token(a, b) > 0 AND token(a, b) <= 100",
            "Select ks.t tokens > 0 <= 100",
        ),
        ("SELECT * FROM t LIMIT 10", "Select ks.t scan limit 10"),
        (
            "SELECT * FROM t WHERE token(a, b) > 0 AND a = 1 AND b IN (1, 2)",
            "Select ks.t partitions[a = 1, b IN (1, 2)] token filter > 0",
        ),
        (
            "SELECT * FROM t WHERE token(a, b) > 0 AND a = 1 ALLOW FILTERING",
            "Select ks.t tokens > 0 filter[a]",
        ),
        (
            "SELECT * FROM t WHERE a = 1 AND b = 2 AND (c, d) IN ((1, 2), (3, 4))",
            "Select ks.t partitions[a = 1, b = 2] clustering (c, d) IN ((1, 2), (3, 4))",
        ),
        (
            "SELECT * FROM t WHERE v = 1 ALLOW FILTERING",
            "Select ks.t scan filter[v]",
        ),
    ];
    for (query, expected) in cases {
        assert_eq!(plan(&s, query), expected, "{query}");
    }
}

#[test]
fn result_shaping_is_part_of_the_plan() {
    let s = tables();
    let cases = [
        (
            "SELECT a, b, count(*) FROM t GROUP BY a, b, c",
            "Select ks.t scan group by partition+1",
        ),
        (
            "SELECT max(v) FROM t WHERE a = 1 AND b = 1",
            "Select ks.t partitions[a = 1, b = 1] aggregate",
        ),
        (
            "SELECT DISTINCT a, b FROM t LIMIT 3",
            "Select ks.t scan distinct limit 3",
        ),
        (
            "SELECT * FROM t PER PARTITION LIMIT 2",
            "Select ks.t scan per partition limit 2",
        ),
        (
            "SELECT * FROM t WHERE a = 1 AND b IN (1, 2) ORDER BY c DESC",
            "Select ks.t partitions[a = 1, b IN (1, 2)] reversed sort[c DESC]",
        ),
        (
            "SELECT * FROM t WHERE a = 1 AND b IN (2) AND c = 1 ORDER BY d DESC",
            "Select ks.t partitions[a = 1, b IN (2)] clustering c = 1 reversed",
        ),
        // A column named twice counts once, with its last direction (5.0's LinkedHashMap).
        (
            "SELECT * FROM t WHERE a = 1 AND b IN (1, 2) ORDER BY c ASC, c DESC",
            "Select ks.t partitions[a = 1, b IN (1, 2)] reversed sort[c DESC]",
        ),
        (
            "SELECT * FROM t WHERE a = 1 AND b = 1 ORDER BY c DESC, d ASC, c ASC",
            "Select ks.t partitions[a = 1, b = 1]",
        ),
    ];
    for (query, expected) in cases {
        assert_eq!(plan(&s, query), expected, "{query}");
    }
}

#[test]
fn cassandra_rejections_word_for_word() {
    let s = tables();
    let cases = [
        (
            "SELECT * FROM t WHERE a = 1",
            "error: Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING",
        ),
        (
            "SELECT * FROM t WHERE a = 1 AND b = 1 AND d = 1",
            "error: PRIMARY KEY column \"d\" cannot be restricted as preceding column \"c\" is not restricted",
        ),
        (
            "SELECT * FROM t WHERE a = 1 AND b = 1 AND c > 1 AND d = 1",
            "error: Clustering column \"d\" cannot be restricted (preceding column \"c\" is restricted by a non-EQ relation)",
        ),
        (
            "SELECT * FROM t ORDER BY c DESC",
            "error: ORDER BY is only supported when the partition key is restricted by an EQ or an IN.",
        ),
        (
            "SELECT * FROM t WHERE a = 1 AND b = 1 ORDER BY d",
            "error: Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY",
        ),
        (
            "SELECT * FROM t WHERE a = 1 AND b = 1 ORDER BY c ASC, d DESC",
            "error: Unsupported order by relation",
        ),
        (
            "SELECT count(*) FROM t GROUP BY a",
            "error: Group by is not supported on only a part of the partition key",
        ),
        (
            "SELECT count(*) FROM t PER PARTITION LIMIT 1",
            "error: PER PARTITION LIMIT is not allowed with aggregate queries.",
        ),
        (
            "SELECT DISTINCT a FROM t",
            "error: SELECT DISTINCT queries must request all the partition key columns (missing b)",
        ),
    ];
    for (query, expected) in cases {
        assert_eq!(plan(&s, query), expected, "{query}");
    }
}

/// `t` of [`tables`] with an index on `v`, `s` (static) and keys of `m`; SAI on `w` and `x`.
fn indexed() -> Schema {
    let mut def = table_from(
        "CREATE TABLE i (k int, c int, v int, w int, x int, s int static, m map<int, int>, PRIMARY KEY (k, c))",
    );
    for (n, (name, column, target, sai)) in [
        ("i_v_idx", "v", storage::IndexTargetKind::Simple, false),
        ("i_s_idx", "s", storage::IndexTargetKind::Simple, false),
        ("i_m_idx", "m", storage::IndexTargetKind::Keys, false),
        ("w_sai", "w", storage::IndexTargetKind::Simple, true),
        ("x_sai", "x", storage::IndexTargetKind::Simple, true),
    ]
    .into_iter()
    .enumerate()
    {
        let column = def.column(column).expect("column").id;
        def.indexes.push(storage::IndexDef {
            id: Uuid::from_u128(100 + n as u128),
            name: name.into(),
            column,
            target,
            custom_class: sai.then(|| "StorageAttachedIndex".to_string()),
            options: BTreeMap::new(),
        });
    }
    let mut catalog = Catalog::default();
    let mut keyspace = KeyspaceDef {
        name: "ks".into(),
        replication: BTreeMap::new(),
        durable_writes: true,
        tables: BTreeMap::new(),
        types: BTreeMap::new(),
    };
    keyspace.tables.insert(def.name.clone(), Arc::new(def));
    catalog.keyspaces.insert("ks".into(), keyspace);
    Schema::new(catalog)
}

#[test]
fn indexed_restrictions_plan_through_the_index() {
    let s = indexed();
    let filtering = format!("error: {}", crate::error::ALLOW_FILTERING_MESSAGE);
    let cases = [
        (
            "SELECT * FROM i WHERE v = 1",
            "Select ks.i scan index[i_v_idx] filter[v]",
        ),
        (
            "SELECT * FROM i WHERE k = 1 AND v = 1",
            "Select ks.i partitions[k = 1] index[i_v_idx] filter[v]",
        ),
        (
            "SELECT * FROM i WHERE m CONTAINS KEY 2",
            "Select ks.i scan index[i_m_idx] filter[m]",
        ),
        (
            "SELECT * FROM i WHERE s = 1",
            "Select ks.i scan index[i_s_idx] filter[s]",
        ),
        ("SELECT * FROM i WHERE v IN (1, 2)", filtering.as_str()),
        ("SELECT * FROM i WHERE c = 1 AND v = 1", filtering.as_str()),
        // A second restriction, or a clustering one without the partition, is filtering.
        ("SELECT * FROM i WHERE v = 1 AND s = 1", filtering.as_str()),
        ("SELECT * FROM i WHERE v = 1 AND c = 1", filtering.as_str()),
        ("SELECT * FROM i WHERE v > 1", filtering.as_str()),
        ("SELECT * FROM i WHERE m CONTAINS 2", filtering.as_str()),
        (
            "SELECT * FROM i WHERE v = 1 AND s = 1 ALLOW FILTERING",
            "Select ks.i scan index[i_s_idx] filter[s, v]",
        ),
        // Storage-attached indexes intersect.
        (
            "SELECT * FROM i WHERE w = 1 AND x = 2",
            "Select ks.i scan index[w_sai] filter[w, x]",
        ),
        // They answer ranges (both bounds are one range), alone or intersected, but a
        // legacy index does not join the intersection.
        (
            "SELECT * FROM i WHERE w > 1 AND w <= 5",
            "Select ks.i scan index[w_sai] filter[w]",
        ),
        (
            "SELECT * FROM i WHERE w > 1 AND x < 2",
            "Select ks.i scan index[w_sai] filter[w, x]",
        ),
        ("SELECT * FROM i WHERE w > 1 AND v > 2", filtering.as_str()),
        ("SELECT * FROM i WHERE w IN (1, 2)", filtering.as_str()),
    ];
    for (query, expected) in cases {
        assert_eq!(plan(&s, query), expected, "{query}");
    }
}
