//! Printed-plan tests of role and permission statements: each planned for a caller against a
//! catalog built here, compared as a printed `AccessPlan` or Cassandra's error message. No
//! storage is involved.

use cql::statement::ast::Statement;
use storage::{Catalog, RoleDef};

use crate::planner::access::{plan_access, AccessContext, AccessStatement};
use crate::planner::select_tests::schema;

/// Keyspace `ks` with table `t`, and roles: `admin` (a superuser), `alice` (can log in,
/// may create roles and holds SELECT on `ks`), `bob` (granted `staff`) and `staff`.
fn catalog() -> Catalog {
    let mut catalog = schema(&["CREATE TABLE t (k int PRIMARY KEY, v int)"])
        .catalog
        .clone();
    let role = |name: &str, is_superuser: bool, can_login: bool| RoleDef {
        name: name.into(),
        is_superuser,
        can_login,
        ..RoleDef::default()
    };
    let mut alice = role("alice", false, true);
    alice
        .permissions
        .insert("roles".into(), ["CREATE".to_string()].into());
    alice
        .permissions
        .insert("data/ks".into(), ["SELECT".to_string()].into());
    let mut bob = role("bob", false, false);
    bob.member_of.insert("staff".into());
    for def in [role("admin", true, true), alice, bob, role("staff", false, false)] {
        catalog.roles.insert(def.name.clone(), def);
    }
    catalog
}

/// The printed plan of a role or permission statement run by `user` (CassandraAuthorizer
/// in force, `ks` in use), or its error message.
fn plan_as(user: &str, query: &str) -> String {
    let statement = match cql::statement::parse_statement(query) {
        Ok(statement) => statement,
        Err(err) => panic!("{query}: {err}"),
    };
    let statement = match &statement {
        Statement::Role(statement) => AccessStatement::Role(statement),
        Statement::Permission(statement) => AccessStatement::Permission(statement),
        other => panic!("not a role or permission statement: {other}"),
    };
    let context = AccessContext {
        user,
        authorizing: true,
        session_keyspace: Some("ks"),
    };
    match plan_access(&catalog(), statement, context) {
        Ok(plan) => plan.to_string(),
        Err(err) => format!("error: {err}"),
    }
}

/// Asserts each statement's printed plan, run by `user`.
fn check(user: &str, cases: &[(&str, &str)]) {
    for (query, expected) in cases {
        assert_eq!(plan_as(user, query), *expected, "{query}");
    }
}

#[test]
fn role_changes_print_the_roles_stored() {
    check(
        "admin",
        &[
            ("CREATE ROLE r WITH LOGIN = true AND SUPERUSER = false", "?"),
            ("CREATE ROLE IF NOT EXISTS bob", "?"),
            ("ALTER ROLE bob WITH LOGIN = true", "?"),
            ("DROP ROLE staff", "?"),
            ("GRANT staff TO alice", "?"),
            ("REVOKE staff FROM bob", "?"),
            ("DROP ROLE IF EXISTS nobody", "?"),
        ],
    );
}

#[test]
fn a_password_prints_as_a_flag_never_as_its_hash() {
    let hash = "$2a$10$1gGRfTqYHPPQLPLcOZsrZOy.sQXt1IDAhF1MyRNYCEx3.hXb4Ef9G";
    let query = format!("ALTER ROLE bob WITH HASHED PASSWORD = '{hash}'");
    let printed = plan_as("admin", &query);
    assert_eq!(printed, "?");
    assert!(!printed.contains(hash));
}

#[test]
fn permission_changes_print_the_grantee_stored() {
    check(
        "admin",
        &[
            ("GRANT SELECT ON TABLE t TO bob", "?"),
            ("GRANT ALL ON KEYSPACE ks TO staff", "?"),
            ("REVOKE SELECT ON KEYSPACE ks FROM alice", "?"),
            ("GRANT ALTER ON ROLE staff TO bob", "?"),
        ],
    );
}

#[test]
fn listings_are_read_from_the_catalog() {
    check(
        "admin",
        &[
            ("LIST ROLES", "?"),
            ("LIST USERS", "?"),
            ("LIST ROLES OF bob", "?"),
            ("LIST ALL PERMISSIONS OF alice", "?"),
            ("LIST ALL PERMISSIONS OF staff", "?"),
        ],
    );
    check("bob", &[("LIST ROLES", "?")]);
}

#[test]
fn refusals_keep_cassandras_messages() {
    check(
        "admin",
        &[
            ("CREATE ROLE alice", "?"),
            ("CREATE ROLE ''", "?"),
            ("DROP ROLE admin", "?"),
            ("GRANT bob TO staff", "?"),
            ("GRANT staff TO bob", "?"),
            ("REVOKE staff FROM alice", "?"),
            ("ALTER ROLE nobody WITH LOGIN = true", "?"),
            ("GRANT SELECT ON TABLE ks.missing TO bob", "?"),
            ("GRANT DESCRIBE ON TABLE t TO bob", "?"),
            ("GRANT MODIFY ON ROLE bob TO staff", "?"),
        ],
    );
}

#[test]
fn refusals_for_callers_lacking_rights() {
    check(
        "alice",
        &[
            ("CREATE ROLE r WITH SUPERUSER = true", "?"),
            ("DROP ROLE bob", "?"),
            ("ALTER ROLE alice WITH SUPERUSER = false", "?"),
            ("GRANT SELECT ON KEYSPACE ks TO bob", "?"),
            ("LIST ROLES OF bob", "?"),
            ("LIST ALL PERMISSIONS", "?"),
        ],
    );
    check("bob", &[("LIST ALL PERMISSIONS OF alice", "?")]);
}

#[test]
fn creating_a_role_grants_the_creator_even_when_it_exists() {
    check(
        "alice",
        &[
            ("CREATE ROLE r", "?"),
            ("CREATE ROLE IF NOT EXISTS bob", "?"),
        ],
    );
}
