//! Printed-plan tests of INSERT, UPDATE and DELETE: statements planned against a schema
//! snapshot, compared as printed `ModifyPlan`s (or the planner's error messages).

use std::collections::BTreeMap;
use std::sync::Arc;

use cql::statement::ast::Statement;
use cql::types::ColumnType;
use storage::UserTypeDef;
use uuid::Uuid;

use crate::planner::modify::delete::plan_delete;
use crate::planner::modify::{plan_insert, plan_update};
use crate::planner::select::tests::schema;
use crate::schema::table_def::create_table_def;
use crate::schema::table_def::types::{TypeScope, UserTypes};
use crate::schema::Schema;

/// The printed plan of an INSERT, UPDATE or DELETE, or its error message.
fn plan(schema: &Schema, query: &str) -> String {
    let planned = match cql::statement::parse_statement(query) {
        Ok(Statement::Insert(stmt)) => plan_insert(schema, &stmt, Some("ks")),
        Ok(Statement::Update(stmt)) => plan_update(schema, &stmt, Some("ks")),
        Ok(Statement::Delete(stmt)) => plan_delete(schema, &stmt, Some("ks")),
        _ => panic!("not an INSERT, UPDATE or DELETE: {query}"),
    };
    match planned {
        Ok(plan) => plan.to_string(),
        Err(err) => format!("error: {err}"),
    }
}

/// Asserts each query's printed plan.
fn check(schema: &Schema, cases: &[(&str, &str)]) {
    for (query, expected) in cases {
        assert_eq!(plan(schema, query), *expected, "{query}");
    }
}

fn tables() -> Schema {
    schema(&[
        "CREATE TABLE t (k int, c int, v int, s int static, l list<int>, st set<int>, m map<int, text>, PRIMARY KEY (k, c))",
        "CREATE TABLE t2 (a int, b int, c int, d int, v int, PRIMARY KEY ((a, b), c, d))",
        "CREATE TABLE counts (k int PRIMARY KEY, n counter)",
    ])
}

/// Keyspace `ks` with type `address (street text, zip int)` and table
/// `u (k int PRIMARY KEY, addr address)`, the UDT not frozen.
fn udt_schema() -> Schema {
    let address = UserTypeDef {
        keyspace: "ks".into(),
        name: "address".into(),
        fields: vec![
            ("street".into(), ColumnType::Text),
            ("zip".into(), ColumnType::Int),
        ],
    };
    let types: UserTypes = BTreeMap::from([("address".to_string(), Arc::new(address))]);
    let text = "CREATE TABLE u (k int PRIMARY KEY, addr address)";
    let Ok(Statement::CreateTable(create)) = cql::statement::parse_statement(text) else {
        panic!("not a CREATE TABLE: {text}");
    };
    let scope = TypeScope {
        keyspace: "ks",
        types: &types,
    };
    let def = create_table_def(&create, scope, Uuid::from_u128(1)).expect("table definition");
    let keyspace = storage::KeyspaceDef {
        name: "ks".into(),
        replication: BTreeMap::new(),
        durable_writes: true,
        tables: BTreeMap::from([(def.name.clone(), Arc::new(def))]),
        types,
    };
    let mut catalog = storage::Catalog::default();
    catalog.keyspaces.insert("ks".into(), keyspace);
    Schema::new(catalog)
}

#[test]
fn inserts_write_their_key_and_values() {
    check(
        &tables(),
        &[
            (
                "INSERT INTO t (k, c, v) VALUES (1, 2, 3)",
                "Insert ks.t partitions[k = 1] clustering c = 2 set v = 3",
            ),
            (
                "INSERT INTO t (c, k, l, m) VALUES (?, ?, [1, 2], {1: 'a'})",
                "Insert ks.t partitions[k = ?] clustering c = ? set l = [1, 2], m = {1: 'a'}",
            ),
            (
                "INSERT INTO t (k, c, v) VALUES (1, 2, 3) USING TTL 10 AND TIMESTAMP 5",
                "Insert ks.t partitions[k = 1] clustering c = 2 set v = 3 ttl 10 timestamp 5",
            ),
            (
                "INSERT INTO t (k, c, v) VALUES (1, 2, 3) IF NOT EXISTS USING TTL ?",
                "Insert ks.t partitions[k = 1] clustering c = 2 set v = 3 ttl ? if not exists",
            ),
            // Static columns alone: the partition's static row, no clustering.
            (
                "INSERT INTO t (k, s) VALUES (1, 7)",
                "Insert ks.t partitions[k = 1] set s = 7",
            ),
        ],
    );
}

#[test]
fn json_inserts_bind_every_column_from_the_source() {
    check(
        &tables(),
        // Operations follow the table's column order: key, static, then regular columns.
        &[
            (
                r#"INSERT INTO t JSON '{"k": 1, "c": 2, "v": 3}'"#,
                r#"Insert ks.t partitions[k = ?] clustering c = ? set s = ?, l = ?, m = ?, st = ?, v = ? json '{"k": 1, "c": 2, "v": 3}'"#,
            ),
            (
                "INSERT INTO t2 JSON ? DEFAULT UNSET USING TTL 5",
                "Insert ks.t2 partitions[a = ?, b = ?] clustering c = ? clustering d = ? set v = ? json ? default unset ttl 5",
            ),
        ],
    );
}

#[test]
fn updates_show_each_column_operation() {
    check(
        &tables(),
        &[
            (
                "UPDATE t USING TTL 10 SET v = 3 WHERE k = 1 AND c = 2 IF v = 1",
                "Update ks.t partitions[k = 1] clustering c = 2 set v = 3 ttl 10 if v = 1",
            ),
            (
                "UPDATE t SET l = l + [1], st = st - {2}, m = m + {1: 'a'} WHERE k = 1 AND c = 2",
                "Update ks.t partitions[k = 1] clustering c = 2 set l = l + [1], st = st - {2}, m = m + {1: 'a'}",
            ),
            (
                "UPDATE t USING TIMESTAMP 7 SET l = [0] + l, m[1] = 'x', l[0] = ? WHERE k = 1 AND c = 2",
                "Update ks.t partitions[k = 1] clustering c = 2 set l = [0] + l, m[1] = 'x', l[0] = ? timestamp 7",
            ),
            (
                "UPDATE t SET s = 1 WHERE k = 1",
                "Update ks.t partitions[k = 1] set s = 1",
            ),
        ],
    );
}

#[test]
fn counter_and_field_updates() {
    check(
        &tables(),
        &[
            (
                "UPDATE counts SET n = n + 1 WHERE k = 1",
                "Update ks.counts partitions[k = 1] set n = n + 1",
            ),
            (
                "UPDATE counts SET n = n - ? WHERE k IN (1, 2)",
                "Update ks.counts partitions[k IN (1, 2)] set n = n - ?",
            ),
        ],
    );
    check(
        &udt_schema(),
        &[
            (
                "UPDATE u SET addr.zip = 5, addr.street = 'main' WHERE k = 1 IF addr.zip > 3",
                "Update ks.u partitions[k = 1] set addr.zip = 5, addr.street = 'main' if addr.zip > 3",
            ),
            (
                "DELETE addr.street FROM u WHERE k = 1 IF EXISTS",
                "Delete columns ks.u partitions[k = 1] DELETE addr.street if exists",
            ),
        ],
    );
}

#[test]
fn updates_address_several_partitions_and_rows() {
    check(
        &tables(),
        &[
            (
                "UPDATE t2 SET v = 1 WHERE a IN (1, 2) AND b = 3 AND c IN (4, 5) AND d = 6",
                "Update ks.t2 partitions[a IN (1, 2), b = 3] clustering c IN (4, 5) clustering d = 6 set v = 1",
            ),
            (
                "UPDATE t2 SET v = 1 WHERE a = 1 AND b IN ? AND (c, d) IN ((1, 2), (3, 4))",
                "Update ks.t2 partitions[a = 1, b IN ?] clustering (c, d) IN ((1, 2), (3, 4)) set v = 1",
            ),
            (
                "UPDATE t2 SET v = 1 WHERE a = 1 AND b = 2 AND (c, d) = (3, 4)",
                "Update ks.t2 partitions[a = 1, b = 2] clustering c = 3 clustering d = 4 set v = 1",
            ),
        ],
    );
}

#[test]
fn conditional_updates_print_their_if_clause() {
    check(
        &tables(),
        &[
            (
                "UPDATE t SET v = 1 WHERE k = 1 AND c = 2 IF EXISTS",
                "Update ks.t partitions[k = 1] clustering c = 2 set v = 1 if exists",
            ),
            (
                "UPDATE t SET v = 1 WHERE k = 1 AND c = 2 IF v IN (1, ?) AND m[1] = 'a' AND l CONTAINS 3",
                "Update ks.t partitions[k = 1] clustering c = 2 set v = 1 if v IN (1, ?) AND m[1] = 'a' AND l CONTAINS 3",
            ),
            (
                "UPDATE t SET s = 2 WHERE k = 1 IF s = 1",
                "Update ks.t partitions[k = 1] set s = 2 if s = 1",
            ),
        ],
    );
}

#[test]
fn deletes_of_rows_columns_and_elements() {
    check(
        &tables(),
        &[
            (
                "DELETE FROM t WHERE k = 1 AND c = 2",
                "Delete rows ks.t partitions[k = 1] clustering c = 2",
            ),
            (
                "DELETE FROM t USING TIMESTAMP 9 WHERE k IN (1, 2) AND c IN (3, 4)",
                "Delete rows ks.t partitions[k IN (1, 2)] clustering c IN (3, 4) timestamp 9",
            ),
            (
                "DELETE FROM counts WHERE k = 1",
                "Delete rows ks.counts partitions[k = 1]",
            ),
            (
                "DELETE v, l FROM t WHERE k = 1 AND c = 2",
                "Delete columns ks.t partitions[k = 1] clustering c = 2 DELETE v, DELETE l",
            ),
            (
                "DELETE m[1], l[?], st[2] FROM t WHERE k = 1 AND c = 2 IF v = 0",
                "Delete columns ks.t partitions[k = 1] clustering c = 2 DELETE m[1], DELETE l[?], DELETE st[2] if v = 0",
            ),
            (
                "DELETE s FROM t WHERE k = 1",
                "Delete columns ks.t partitions[k = 1] DELETE s",
            ),
        ],
    );
}

#[test]
fn range_deletes_print_their_clustering_range() {
    check(
        &tables(),
        &[
            (
                "DELETE FROM t WHERE k = 1",
                "Delete range ks.t partitions[k = 1]",
            ),
            (
                "DELETE FROM t2 WHERE a = 1 AND b = 2 AND c IN (1, 2)",
                "Delete range ks.t2 partitions[a = 1, b = 2] clustering c IN (1, 2)",
            ),
            (
                "DELETE FROM t2 WHERE a = 1 AND b = 2 AND c = 3 AND d > 4 AND d <= ?",
                "Delete range ks.t2 partitions[a = 1, b = 2] clustering c = 3 d > 4 d <= ?",
            ),
            (
                "DELETE FROM t2 WHERE a = 1 AND b = 2 AND c < 3",
                "Delete range ks.t2 partitions[a = 1, b = 2] c < 3",
            ),
            // A single-column bound beside a multi-column one is planned as a 1-wide tuple.
            (
                "DELETE FROM t2 WHERE a = 1 AND b = 2 AND (c, d) >= (1, 2) AND c < 5",
                "Delete range ks.t2 partitions[a = 1, b = 2] (c, d) >= (1, 2) (c) < (5)",
            ),
            (
                "DELETE s FROM t WHERE k = 1 IF s = 3",
                "Delete columns ks.t partitions[k = 1] DELETE s if s = 3",
            ),
        ],
    );
}

#[test]
fn refusals_word_for_word() {
    check(
        &tables(),
        &[
            (
                "INSERT INTO t (k, v) VALUES (1, 2)",
                "error: Some clustering keys are missing: c",
            ),
            (
                "INSERT INTO counts (k, n) VALUES (1, 2)",
                "error: INSERT statements are not allowed on counter tables, use UPDATE instead",
            ),
            (
                "UPDATE t SET v = 1 WHERE k = 1 AND c > 2",
                "error: Slice restrictions are not supported on the clustering columns in UPDATE statements",
            ),
            (
                "DELETE v FROM t2 WHERE a = 1 AND b = 2 AND c > 1",
                "error: Range deletions are not supported for specific columns",
            ),
            (
                "DELETE v FROM t WHERE k = 1",
                "error: Range deletions are not supported for specific columns",
            ),
        ],
    );
}
