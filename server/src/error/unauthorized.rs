//! `UnauthorizedError`: A logged-in role lacking a permission (code 0x2100).
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// A logged-in role lacking a permission (code 0x2100).
#[derive(Debug, thiserror::Error)]
pub(crate) enum UnauthorizedError {
    /// A role or permission statement, or a check, on a connection with no role logged in.
    /// Origin: service/ClientState.java ensureNotAnonymous
    #[error("You have to be logged in and not anonymous to perform this request")]
    Anonymous,
    /// A permission the user lacks on a resource (as Cassandra prints it, `<table ks.t>`).
    /// Origin: service/ClientState.java ensurePermissionOnResourceChain
    #[error("User {user} has no {permission} permission on {resource} or any of its parents")]
    NoPermission {
        user: String,
        permission: String,
        resource: String,
    },
    /// A role statement (CREATE, ALTER or DROP ROLE, GRANT or REVOKE of a role) whose
    /// permission on the role resource the user lacks.
    /// Origin: cql3/statements/AuthenticationStatement.java checkPermission
    #[error("User {user} does not have sufficient privileges to perform the requested operation")]
    InsufficientPrivileges { user: String },
    /// LIST ROLES OF a role not granted to the user (the trailing space is Cassandra's).
    /// Origin: cql3/statements/ListRolesStatement.java execute
    #[error("You are not authorized to view roles granted to {role} ")]
    ViewRolesOf { role: String },
    /// LIST PERMISSIONS OF a role the user does not hold.
    /// Origin: auth/CassandraAuthorizer.java list
    #[error("You are not authorized to view {role}'s permissions")]
    ViewPermissionsOf { role: String },
    /// LIST PERMISSIONS of every role by a non-superuser.
    /// Origin: auth/CassandraAuthorizer.java list
    #[error("You are not authorized to view everyone's permissions")]
    ViewEveryonesPermissions,
    /// Origin: cql3/statements/CreateRoleStatement.java authorize
    #[error("Only superusers can create a role with superuser status")]
    CreateSuperuser,
    /// ALTER ROLE ... SUPERUSER of the user's own role or of one granted to it.
    /// Origin: cql3/statements/AlterRoleStatement.java authorize
    #[error(
        "You aren't allowed to alter your own superuser status or that of a role granted to you"
    )]
    AlterOwnSuperuser,
    /// Origin: cql3/statements/AlterRoleStatement.java authorize
    #[error("Only superusers are allowed to alter superuser status")]
    AlterSuperuser,
    /// ALTER ROLE of the user's own role setting an option other than its password
    /// (`IRoleManager.Option`'s name: `LOGIN`, `OPTIONS`).
    /// Origin: cql3/statements/AlterRoleStatement.java authorize
    #[error("You aren't allowed to alter {option}")]
    NotAlterable { option: &'static str },
    /// Origin: cql3/statements/DropRoleStatement.java authorize
    #[error("Only superusers can drop a role with superuser status")]
    DropSuperuser,
    /// DDL on a local system keyspace (`system`, `system_schema`, ...).
    /// Origin: service/ClientState.java preventSystemKSSchemaModification
    #[error("{keyspace} keyspace is not user-modifiable.")]
    NotUserModifiable { keyspace: String },
    /// DDL other than ALTER KEYSPACE on a replicated system keyspace (`system_auth`, ...).
    /// Origin: service/ClientState.java preventSystemKSSchemaModification
    #[error("Cannot {permission} {resource}")]
    ReplicatedSystemSchema {
        permission: &'static str,
        resource: String,
    },
}
