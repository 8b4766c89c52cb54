//! Role statements: every form parses to the AST Cassandra's grammar gives it, names keep
//! their case only when quoted or written as strings, and printing hides passwords.

use super::*;

fn role(sql: &str) -> RoleStatement {
    match parse_statement(sql).unwrap_or_else(|e| panic!("{sql}\n  -> {e}")) {
        Statement::Role(r) => r,
        other => panic!("{sql}: not a role statement: {other:?}"),
    }
}

#[test]
fn create_role_and_user() {
    let create = role("CREATE ROLE IF NOT EXISTS Alice WITH PASSWORD = 'x' AND LOGIN = true AND SUPERUSER = false");
    assert_eq!(
        create,
        RoleStatement::Create {
            name: "alice".into(),
            if_not_exists: true,
            options: RoleOptions {
                password: Some("x".into()),
                login: Some(true),
                superuser: Some(false),
                ..RoleOptions::default()
            },
            user: false,
        }
    );
    assert_eq!(
        create.to_string(),
        "CREATE ROLE IF NOT EXISTS 'alice' WITH PASSWORD = '***' AND LOGIN = true AND SUPERUSER = false"
    );
    let RoleStatement::Create { name, options, .. } = role("CREATE ROLE 'Bob'") else {
        panic!("create");
    };
    assert_eq!((name.as_str(), options.is_empty()), ("Bob", true));
    let RoleStatement::Create { options, user, .. } =
        role("CREATE USER carol WITH PASSWORD 'pw' SUPERUSER")
    else {
        panic!("create user");
    };
    assert!(user);
    assert_eq!(options.login, Some(true));
    assert_eq!(options.superuser, Some(true));
    assert_eq!(options.password.as_deref(), Some("pw"));
    let RoleStatement::Create { options, .. } =
        role("CREATE ROLE d WITH HASHED PASSWORD = '$2a$10$x' AND OPTIONS = {'a': 'b'}")
    else {
        panic!("hashed");
    };
    assert_eq!(options.hashed_password.as_deref(), Some("$2a$10$x"));
    assert_eq!(options.options, Some(vec![("a".into(), "b".into())]));
}

#[test]
fn alter_drop_list_grant_revoke() {
    assert!(matches!(
        role("ALTER ROLE IF EXISTS a WITH LOGIN = false"),
        RoleStatement::Alter {
            if_exists: true,
            ..
        }
    ));
    assert!(matches!(
        role("ALTER USER a WITH PASSWORD 'p' NOSUPERUSER"),
        RoleStatement::Alter { user: true, .. }
    ));
    assert_eq!(
        role("DROP USER IF EXISTS a"),
        RoleStatement::Drop {
            name: "a".into(),
            if_exists: true,
            user: true
        }
    );
    assert_eq!(
        role("LIST ROLES OF a NORECURSIVE"),
        RoleStatement::List {
            of: Some("a".into()),
            recursive: false,
            users: false
        }
    );
    assert!(matches!(
        role("LIST USERS"),
        RoleStatement::List { users: true, .. }
    ));
    assert_eq!(
        role("GRANT a TO \"B\""),
        RoleStatement::Grant {
            role: "a".into(),
            grantee: "B".into()
        }
    );
    assert_eq!(role("REVOKE a FROM b").to_string(), "REVOKE 'a' FROM 'b'");
}

#[test]
fn role_names_refuse_markers_and_quoted_user_names() {
    let err = parse_statement("CREATE ROLE ?").unwrap_err();
    assert!(
        err.to_string()
            .contains("Bind variables cannot be used for role names"),
        "{err}"
    );
    let err = parse_statement("CREATE USER \"Quoted\"").unwrap_err();
    assert!(
        err.to_string()
            .contains("Quoted strings are are not supported for user names"),
        "{err}"
    );
}

#[test]
fn role_statements_print_canonically_with_names_quoted() {
    for (sql, printed) in [
        (
            "CREATE USER IF NOT EXISTS 'o''brien' WITH PASSWORD 'pw' NOSUPERUSER",
            "CREATE USER IF NOT EXISTS 'o''brien' WITH PASSWORD = '***' AND LOGIN = true AND SUPERUSER = false",
        ),
        ("CREATE ROLE r", "CREATE ROLE 'r'"),
        (
            "ALTER USER IF EXISTS u WITH PASSWORD 'p' SUPERUSER",
            "ALTER USER IF EXISTS 'u' WITH PASSWORD = '***' AND LOGIN = true AND SUPERUSER = true",
        ),
        (
            "ALTER ROLE 'A''b' WITH HASHED PASSWORD = 'h' AND OPTIONS = {'k': 'v'}",
            "ALTER ROLE 'A''b' WITH HASHED PASSWORD = '***' AND OPTIONS = {'k': 'v'}",
        ),
        ("DROP ROLE IF EXISTS \"R\"", "DROP ROLE IF EXISTS 'R'"),
        ("DROP USER u", "DROP USER 'u'"),
        ("LIST ROLES", "LIST ROLES"),
        ("LIST ROLES OF 'x''y' NORECURSIVE", "LIST ROLES OF 'x''y' NORECURSIVE"),
        ("LIST USERS", "LIST USERS"),
        ("GRANT 'a''b' TO c", "GRANT 'a''b' TO 'c'"),
        ("REVOKE a FROM 'c''d'", "REVOKE 'a' FROM 'c''d'"),
    ] {
        assert_eq!(role(sql).to_string(), printed, "{sql}");
    }
}

#[test]
fn function_and_mbean_resources_parse_and_print_back() {
    for (sql, printed) in [
        ("GRANT EXECUTE ON ALL FUNCTIONS TO r", "ALL FUNCTIONS"),
        (
            "GRANT ALL ON ALL FUNCTIONS IN KEYSPACE ks TO r",
            "ALL FUNCTIONS IN KEYSPACE ks",
        ),
        (
            "REVOKE EXECUTE ON FUNCTION ks.f(int, frozen<list<text>>) FROM r",
            "FUNCTION ks.f(int, frozen<list<text>>)",
        ),
        ("LIST ALL PERMISSIONS ON FUNCTION f() OF r", "FUNCTION f()"),
        ("GRANT SELECT ON ALL MBEANS TO r", "ALL MBEANS"),
        (
            "GRANT SELECT ON MBEAN 'org.apache.cassandra.db:type=Tables' TO r",
            "MBEAN 'org.apache.cassandra.db:type=Tables'",
        ),
        (
            "GRANT SELECT ON MBEANS 'org.apache.cassandra.db:*' TO r",
            "MBEANS 'org.apache.cassandra.db:*'",
        ),
    ] {
        let statement = parse_statement(sql).unwrap_or_else(|e| panic!("{sql}\n  -> {e}"));
        let Statement::Permission(permission) = &statement else {
            panic!("{sql}: {statement:?}");
        };
        let resource = match permission {
            PermissionStatement::Grant { resource, .. }
            | PermissionStatement::Revoke { resource, .. } => resource.clone(),
            PermissionStatement::List { resource, .. } => resource.clone().expect("a resource"),
        };
        assert_eq!(resource.to_string(), printed, "{sql}");
        let again = parse_statement(&statement.to_string()).expect("printed form parses");
        assert_eq!(again, statement, "{sql}");
    }
    // A function resource names its argument types, even none.
    assert!(parse_statement("GRANT EXECUTE ON FUNCTION ks.f TO r").is_err());
}
