//! `AccessError`: Role and permission management (CREATE ROLE, GRANT, LIST ...) that cannot be done.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// Role and permission management (CREATE ROLE, GRANT, LIST ...) that cannot be done.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AccessError {
    /// DROP ROLE, GRANT or REVOKE of a role, LIST ROLES OF: a role that does not exist.
    /// Origin: cql3/statements/DropRoleStatement.java validate
    #[error("{role} doesn't exist")]
    RoleNotFound { role: String },
    /// ALTER ROLE, or GRANT or REVOKE of permissions, naming a role that does not exist.
    /// Origin: cql3/statements/AlterRoleStatement.java validate
    #[error("Role {role} doesn't exist")]
    NoSuchRole { role: String },
    /// Origin: cql3/statements/CreateRoleStatement.java validate
    #[error("{role} already exists")]
    RoleExists { role: String },
    /// Origin: cql3/statements/CreateRoleStatement.java validate
    #[error("Role name can't be an empty string")]
    EmptyRoleName,
    /// Origin: auth/RoleOptions.java validate
    #[error("Properties 'password' and 'hashed password' are mutually exclusive")]
    PasswordAndHashedPassword,
    /// `HASHED PASSWORD` that is not a bcrypt hash.
    /// Origin: auth/RoleOptions.java validate
    #[error("Invalid hashed password value. Please use jBcrypt.")]
    InvalidHashedPassword,
    /// `OPTIONS` on a role: CassandraRoleManager supports no custom options.
    /// Origin: auth/RoleOptions.java validate
    #[error("org.apache.cassandra.auth.CassandraRoleManager doesn't support OPTIONS")]
    CustomOptions,
    /// DROP ROLE of the role logged in.
    /// Origin: cql3/statements/DropRoleStatement.java validate
    #[error("Cannot DROP primary role for current login")]
    DropOwnRole,
    /// GRANT of a role the grantee already has.
    /// Origin: auth/CassandraRoleManager.java grantRole
    #[error("{grantee} is a member of {role}")]
    AlreadyGranted { role: String, grantee: String },
    /// GRANT of a role that has the grantee: a cycle.
    /// Origin: auth/CassandraRoleManager.java grantRole
    #[error("{role} is a member of {grantee}")]
    CircularGrant { role: String, grantee: String },
    /// Origin: auth/CassandraRoleManager.java revokeRole
    #[error("{revokee} is not a member of {role}")]
    NotGranted { role: String, revokee: String },
    /// GRANT, REVOKE or LIST PERMISSIONS (the operation) under AllowAllAuthorizer.
    /// Origin: auth/AllowAllAuthorizer.java grant, revoke, list
    #[error("{operation} operation is not supported by AllowAllAuthorizer")]
    AllowAllAuthorizer { operation: String },
    /// Permissions that do not apply to a resource of Cassandra's class `resource_type`
    /// (`DataResource`, `RoleResource`, `FunctionResource`, `JMXResource`).
    /// Origin: ours — Cassandra's parser words it (src/antlr/Parser.g filterPermissions, not
    /// under src/java)
    #[error(
        "Resource type {resource_type} does not support the requested permissions: {}",
        .permissions.join(",")
    )]
    NotSupported {
        resource_type: &'static str,
        permissions: Vec<String>,
    },
    /// GRANT, REVOKE or LIST on `FUNCTION f(...)` without a keyspace.
    /// Origin: auth/FunctionResource.java functionFromCql (its spelling)
    #[error("In this context function name must be explictly qualified by a keyspace")]
    FunctionWithoutKeyspace,
    /// GRANT or REVOKE on the functions of the `system` keyspace.
    /// Origin: cql3/statements/PermissionsManagementStatement.java validate
    #[error("Altering permissions on builtin functions is not supported")]
    BuiltinFunctions,
    /// GRANT or REVOKE on a resource (as Cassandra prints it, `<table ks.t>`) that does not
    /// exist.
    /// Origin: cql3/statements/PermissionsManagementStatement.java validate
    #[error("Resource {resource} doesn't exist")]
    ResourceNotFound { resource: String },
    /// LIST PERMISSIONS on a resource, or of a role, that does not exist (printed as
    /// Cassandra prints resources: `<table ks.t>`, `<role r>`).
    /// Origin: cql3/statements/ListPermissionsStatement.java validate
    #[error("{resource} doesn't exist")]
    ListedNotFound { resource: String },
}
