//! `AccessError`: Role and permission management (CREATE ROLE, GRANT, LIST ...) that cannot be done.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// Role and permission management (CREATE ROLE, GRANT, LIST ...) that cannot be done.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AccessError {
    #[error("{role} doesn't exist")]
    RoleNotFound { role: String },
    #[error("{role} already exists")]
    RoleExists { role: String },
    #[error("Role name can't be an empty string")]
    EmptyRoleName,
    #[error("Properties 'password' and 'hashed password' are mutually exclusive")]
    PasswordAndHashedPassword,
    /// `HASHED PASSWORD` that is not a bcrypt hash.
    #[error("Invalid hashed password value. Please use jBcrypt.")]
    InvalidHashedPassword,
    /// `OPTIONS` on a role.
    #[error("Custom options are not supported by CassandraRoleManager")]
    CustomOptions,
    /// DROP ROLE of the role logged in.
    #[error("Cannot DROP primary role for current login")]
    DropOwnRole,
    /// GRANT of a role the grantee already has.
    #[error("{grantee} is a member of {role}")]
    AlreadyGranted { role: String, grantee: String },
    /// GRANT of a role that has the grantee: a cycle.
    #[error("{role} is a member of {grantee}")]
    CircularGrant { role: String, grantee: String },
    #[error("{revokee} is not a member of {role}")]
    NotGranted { role: String, revokee: String },
    /// GRANT, REVOKE or LIST PERMISSIONS (the operation) under AllowAllAuthorizer.
    #[error(
        "{operation} operation is not supported by the AllowAllAuthorizer if it is not enabled"
    )]
    AllowAllAuthorizer { operation: String },
    /// Permissions that do not apply to a role resource.
    #[error(
        "Resource type RoleResource does not support the requested permissions: {}",
        .permissions.join(",")
    )]
    NotForRoles { permissions: Vec<String> },
    /// Permissions that do not apply to a data resource.
    #[error(
        "Resource type DataResource does not support the requested permissions: {}",
        .permissions.join(",")
    )]
    NotForData { permissions: Vec<String> },
    /// A resource (as Cassandra prints it, `<table ks.t>`) that does not exist.
    #[error("Resource {resource} doesn't exist")]
    ResourceNotFound { resource: String },
}
