//! Printed-plan tests of role and permission statements: each planned for a caller against a
//! catalog built here, compared as a printed `AccessPlan` or Cassandra's error message. No
//! storage is involved.

use cql::statement::ast::Statement;
use storage::{Catalog, RoleDef};

use crate::planner::access::{plan_access, AccessContext, AccessStatement};
use crate::planner::select::tests::schema;

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
    for def in [
        role("admin", true, true),
        alice,
        bob,
        role("staff", false, false),
    ] {
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
            ("CREATE ROLE r WITH LOGIN = true AND SUPERUSER = false", "put role r (login, superuser=false) then grant creator all on <role r>"),
            ("CREATE ROLE IF NOT EXISTS bob", "no change"),
            ("ALTER ROLE bob WITH LOGIN = true", "put role bob (login, superuser=false, member of {staff})"),
            ("DROP ROLE staff", "drop role staff; put role bob (nologin, superuser=false)"),
            ("GRANT staff TO alice", "put role alice (login, superuser=false, member of {staff}, <keyspace ks> SELECT, <all roles> CREATE)"),
            ("REVOKE staff FROM bob", "put role bob (nologin, superuser=false)"),
            ("DROP ROLE IF EXISTS nobody", "no change"),
        ],
    );
}

#[test]
fn a_password_prints_as_a_flag_never_as_its_hash() {
    let hash = "$2a$10$1gGRfTqYHPPQLPLcOZsrZOy.sQXt1IDAhF1MyRNYCEx3.hXb4Ef9G";
    let query = format!("ALTER ROLE bob WITH HASHED PASSWORD = '{hash}'");
    let printed = plan_as("admin", &query);
    assert_eq!(
        printed,
        "put role bob (nologin, superuser=false, password, member of {staff})"
    );
    assert!(!printed.contains(hash));
}

#[test]
fn permission_changes_print_the_grantee_stored() {
    check(
        "admin",
        &[
            ("GRANT SELECT ON TABLE t TO bob", "put role bob (nologin, superuser=false, member of {staff}, <table ks.t> SELECT)"),
            ("GRANT ALL ON KEYSPACE ks TO staff", "put role staff (nologin, superuser=false, <keyspace ks> ALTER AUTHORIZE CREATE DROP MODIFY SELECT SELECT_MASKED UNMASK)"),
            ("REVOKE SELECT ON KEYSPACE ks FROM alice", "put role alice (login, superuser=false, <all roles> CREATE)"),
            ("GRANT ALTER ON ROLE staff TO bob", "put role bob (nologin, superuser=false, member of {staff}, <role staff> ALTER)"),
        ],
    );
}

#[test]
fn listings_are_read_from_the_catalog() {
    check(
        "admin",
        &[
            ("LIST ROLES", "list system_auth.roles (role, super, login, options, datacenters): admin true true {} ALL; alice false true {} ALL; bob false false {} ALL; staff false false {} ALL"),
            ("LIST USERS", "list system_auth.roles (name, super, datacenters): admin true ALL; alice false ALL"),
            ("LIST ROLES OF bob", "list system_auth.roles (role, super, login, options, datacenters): bob false false {} ALL; staff false false {} ALL"),
            ("LIST ALL PERMISSIONS OF alice", "list system_auth.permissions (role, username, resource, permission): alice alice <keyspace ks> SELECT; alice alice <all roles> CREATE"),
            ("LIST ALL PERMISSIONS OF staff", "list system_auth.permissions: none"),
        ],
    );
    check("bob", &[("LIST ROLES", "list system_auth.roles (role, super, login, options, datacenters): bob false false {} ALL; staff false false {} ALL")]);
}

#[test]
fn refusals_keep_cassandras_messages() {
    check(
        "admin",
        &[
            ("CREATE ROLE alice", "error: alice already exists"),
            ("CREATE ROLE ''", "error: Role name can't be an empty string"),
            ("DROP ROLE admin", "error: Cannot DROP primary role for current login"),
            ("GRANT bob TO staff", "error: bob is a member of staff"),
            ("GRANT staff TO bob", "error: bob is a member of staff"),
            ("REVOKE staff FROM alice", "error: alice is not a member of staff"),
            ("ALTER ROLE nobody WITH LOGIN = true", "error: Role nobody doesn't exist"),
            ("GRANT SELECT ON TABLE t TO nobody", "error: Role nobody doesn't exist"),
            ("LIST ALL PERMISSIONS OF nobody", "error: <role nobody> doesn't exist"),
            ("LIST ALL PERMISSIONS ON TABLE ks.missing", "error: <table ks.missing> doesn't exist"),
            ("CREATE ROLE r WITH OPTIONS = {'a': 'b'}", "error: org.apache.cassandra.auth.CassandraRoleManager doesn't support OPTIONS"),
            ("ALTER ROLE admin WITH SUPERUSER = false", "error: You aren't allowed to alter your own superuser status or that of a role granted to you"),
            ("GRANT SELECT ON TABLE ks.missing TO bob", "error: Resource <table ks.missing> doesn't exist"),
            ("GRANT DESCRIBE ON TABLE t TO bob", "error: Resource type DataResource does not support the requested permissions: DESCRIBE"),
            ("GRANT MODIFY ON ROLE bob TO staff", "error: Resource type RoleResource does not support the requested permissions: MODIFY"),
        ],
    );
}

#[test]
fn refusals_for_callers_lacking_rights() {
    check(
        "alice",
        &[
            ("CREATE ROLE r WITH SUPERUSER = true", "error: Only superusers can create a role with superuser status"),
            ("DROP ROLE bob", "error: User alice does not have sufficient privileges to perform the requested operation"),
            ("ALTER ROLE bob WITH PASSWORD = 'x'", "error: User alice does not have sufficient privileges to perform the requested operation"),
            ("ALTER ROLE alice WITH LOGIN = false", "error: You aren't allowed to alter LOGIN"),
            ("ALTER ROLE bob WITH SUPERUSER = true", "error: Only superusers are allowed to alter superuser status"),
            ("ALTER ROLE alice WITH SUPERUSER = false", "error: You aren't allowed to alter your own superuser status or that of a role granted to you"),
            ("GRANT SELECT ON KEYSPACE ks TO bob", "error: User alice has no AUTHORIZE permission on <keyspace ks> or any of its parents"),
            ("LIST ROLES OF bob", "error: You are not authorized to view roles granted to bob "),
            ("LIST ALL PERMISSIONS", "error: You are not authorized to view everyone's permissions"),
        ],
    );
    check(
        "bob",
        &[(
            "LIST ALL PERMISSIONS OF alice",
            "error: You are not authorized to view alice's permissions",
        )],
    );
}

#[test]
fn creating_a_role_grants_the_creator_only_when_it_is_created() {
    check(
        "alice",
        &[
            (
                "CREATE ROLE r",
                "put role r (nologin, superuser=false) then grant creator all on <role r>",
            ),
            ("CREATE ROLE IF NOT EXISTS bob", "no change"),
        ],
    );
}

#[test]
fn dropping_a_resource_revokes_what_is_held_on_it() {
    use crate::planner::access::plan_revoke_all_on;
    use crate::planner::access::resource::Resource;
    let catalog = catalog();
    let printed = |resource: Resource| {
        plan_revoke_all_on(&catalog, &resource)
            .map_or("nothing held".to_string(), |p| p.to_string())
    };
    assert_eq!(
        printed(Resource::Keyspace("ks".into())),
        "put role alice (login, superuser=false, <all roles> CREATE)"
    );
    assert_eq!(
        printed(Resource::Table("ks".into(), "t".into())),
        "nothing held"
    );
    assert_eq!(printed(Resource::Keyspace("other".into())), "nothing held");
}
