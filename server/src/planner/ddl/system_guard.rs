//! Schema changes in the system keyspaces, refused as Cassandra refuses them before it looks
//! at anything else (`ClientState.preventSystemKSSchemaModification`, whatever the
//! authorizer): `system` and `system_schema` are never user-modifiable, the replicated ones
//! (`system_auth`, `system_distributed`, `system_traces`) only take a keyspace-level ALTER,
//! and the virtual ones are refused by the statement itself (`AlterSchemaStatement`).

use std::fmt;

use crate::error::{CqlResult, DdlError, UnauthorizedError};
use crate::schema::system_keyspaces::VIRTUAL_KEYSPACES;

/// What a schema statement changes, printed as Cassandra prints the resource
/// (`<keyspace ks>`, `<table ks.t>`). The planner's own, so it does not import `authz`
/// (which sits above it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SchemaResource {
    /// A keyspace.
    Keyspace(String),
    /// A table (or view) of a keyspace.
    Table(String, String),
}

impl SchemaResource {
    /// The resource's keyspace.
    fn keyspace(&self) -> &str {
        match self {
            SchemaResource::Keyspace(ks) | SchemaResource::Table(ks, _) => ks,
        }
    }
}

impl fmt::Display for SchemaResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaResource::Keyspace(ks) => write!(f, "<keyspace {ks}>"),
            SchemaResource::Table(ks, t) => write!(f, "<table {ks}.{t}>"),
        }
    }
}

/// The permission a schema statement needs on its resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SchemaPermission {
    /// CREATE (a keyspace, or a table in a keyspace).
    Create,
    /// ALTER.
    Alter,
    /// DROP.
    Drop,
}

impl SchemaPermission {
    fn name(self) -> &'static str {
        match self {
            SchemaPermission::Create => "CREATE",
            SchemaPermission::Alter => "ALTER",
            SchemaPermission::Drop => "DROP",
        }
    }
}

const LOCAL: &[&str] = &["system", "system_schema"];
const REPLICATED: &[&str] = &["system_auth", "system_distributed", "system_traces"];

/// Refuses `permission` on `resource` (a keyspace or a table) when it lies in a system
/// keyspace, with Cassandra's error.
pub(crate) fn check(permission: SchemaPermission, resource: &SchemaResource) -> CqlResult<()> {
    let keyspace = resource.keyspace();
    let replicated = REPLICATED.contains(&keyspace);
    let virtual_keyspace = VIRTUAL_KEYSPACES.contains(&keyspace);
    // Any other system keyspace is refused as the local ones are.
    let local = LOCAL.contains(&keyspace)
        || (!replicated && !virtual_keyspace && crate::schema::is_system_keyspace(keyspace));
    if local {
        return Err(UnauthorizedError::NotUserModifiable {
            keyspace: keyspace.to_string(),
        }
        .into());
    }
    if replicated {
        let keyspace_alter = permission == SchemaPermission::Alter
            && matches!(resource, SchemaResource::Keyspace(_));
        if !keyspace_alter {
            return Err(UnauthorizedError::ReplicatedSystemSchema {
                permission: permission.name(),
                resource: resource.to_string(),
            }
            .into());
        }
    }
    if virtual_keyspace {
        return Err(DdlError::VirtualKeyspaceNotModifiable {
            keyspace: keyspace.to_string(),
        }
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(permission: SchemaPermission, resource: SchemaResource) -> String {
        match check(permission, &resource) {
            Err(err) => err.to_string(),
            Ok(()) => "allowed".into(),
        }
    }

    #[test]
    fn system_keyspaces_refuse_schema_changes_as_cassandra_does() {
        use SchemaPermission::*;
        let table = |ks: &str, t: &str| SchemaResource::Table(ks.into(), t.into());
        let keyspace = |ks: &str| SchemaResource::Keyspace(ks.into());
        assert_eq!(
            message(Drop, keyspace("system")),
            "system keyspace is not user-modifiable."
        );
        assert_eq!(
            message(Alter, table("system_schema", "tables")),
            "system_schema keyspace is not user-modifiable."
        );
        assert_eq!(
            message(Drop, table("system_auth", "roles")),
            "Cannot DROP <table system_auth.roles>"
        );
        assert_eq!(
            message(Create, keyspace("system_traces")),
            "Cannot CREATE <keyspace system_traces>"
        );
        assert_eq!(message(Alter, keyspace("system_distributed")), "allowed");
        assert_eq!(
            message(Create, keyspace("system_views")),
            "Virtual keyspace 'system_views' is not user-modifiable"
        );
        assert_eq!(message(Drop, keyspace("ks")), "allowed");
    }
}
