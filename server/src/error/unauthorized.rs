//! `UnauthorizedError`: A logged-in role lacking a permission (code 0x2100).
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// A logged-in role lacking a permission (code 0x2100).
#[derive(Debug, thiserror::Error)]
pub(crate) enum UnauthorizedError {
    /// A role or permission statement, or a check, on a connection with no role logged in.
    #[error("You have to be logged in and not anonymous to perform this request")]
    Anonymous,
    /// A permission the user lacks on a resource (as Cassandra prints it, `<table ks.t>`).
    #[error("User {user} has no {permission} permission on {resource} or any of its parents")]
    NoPermission {
        user: String,
        permission: String,
        resource: String,
    },
    /// LIST ROLES OF a role not granted to the user (the trailing space is Cassandra's).
    #[error("You are not authorized to view roles granted to {role} ")]
    ViewRolesOf { role: String },
    #[error("You are not authorized to view {role}'s permissions")]
    ViewPermissionsOf { role: String },
    #[error("You are not authorized to view everyone's permissions")]
    ViewEveryonesPermissions,
    #[error("Only superusers can create a role with superuser status")]
    CreateSuperuser,
    #[error("You aren't allowed to alter your own superuser status")]
    AlterOwnSuperuser,
    #[error("Only superusers are allowed to alter superuser status")]
    AlterSuperuser,
    #[error("Only superusers can drop a role with superuser status")]
    DropSuperuser,
    /// DDL on a local system keyspace (`system`, `system_schema`, ...).
    #[error("{keyspace} keyspace is not user-modifiable.")]
    NotUserModifiable { keyspace: String },
    /// DDL other than ALTER KEYSPACE on a replicated system keyspace (`system_auth`, ...).
    #[error("Cannot {permission} {resource}")]
    ReplicatedSystemSchema {
        permission: &'static str,
        resource: String,
    },
}
