//! CassandraAuthorizer: permissions on resources, held by roles and inherited through the
//! roles they were granted; superusers hold every permission. Resources are Cassandra's data
//! and role resources (`data`, `data/ks`, `data/ks/table`, `roles`, `roles/name`); a
//! permission on a resource covers its children. Every statement names the permission it
//! needs on which resource (`super::required`) and is checked before it runs.

use cql::statement::ast::Statement;

use crate::config::Authorizer;
use crate::error::{CqlResult, UnauthorizedError};
use crate::node::Node;
use crate::planner::ddl::system_guard::{self, SchemaPermission, SchemaResource};
use crate::transport::session::Session;

pub(crate) use crate::planner::access::resource::{holds, Resource};

/// Keyspaces whose every table everyone logged in may read: Cassandra 5.0's readable system
/// resources (`ClientState.READABLE_SYSTEM_RESOURCES`), which drivers and tools need.
const READABLE_KEYSPACES: &[&str] = &["system_schema", "system_virtual_schema"];

/// Tables of `system` everyone logged in may read (the same list's).
const READABLE_SYSTEM_TABLES: &[&str] = &["local", "peers", "peers_v2"];

/// Whether everyone logged in may read `resource` without a grant.
fn readable_by_all(resource: &Resource) -> bool {
    match resource {
        Resource::Table(ks, t) => {
            READABLE_KEYSPACES.contains(&ks.as_str())
                || (ks == "system" && READABLE_SYSTEM_TABLES.contains(&t.as_str()))
        }
        _ => false,
    }
}

/// Refuses a schema change (CREATE, ALTER or DROP) in a system keyspace before any
/// permission is looked at, as `ClientState.preventSystemKSSchemaModification` does.
fn prevent_system_schema_change(permission: &str, resource: &Resource) -> CqlResult<()> {
    let permission = match permission {
        "CREATE" => SchemaPermission::Create,
        "ALTER" => SchemaPermission::Alter,
        "DROP" => SchemaPermission::Drop,
        _ => return Ok(()),
    };
    let resource = match resource {
        Resource::Keyspace(ks) => SchemaResource::Keyspace(ks.clone()),
        Resource::Table(ks, t) => SchemaResource::Table(ks.clone(), t.clone()),
        _ => return Ok(()),
    };
    system_guard::check(permission, &resource)
}

/// Checks that the session's role holds `permission` on `resource`, when CassandraAuthorizer
/// is in force.
///
/// # Errors
/// [`UnauthorizedError`] with Cassandra's message.
pub(crate) fn ensure(
    node: &Node,
    session: &Session,
    permission: &str,
    resource: &Resource,
) -> CqlResult<()> {
    if node.config().authorizer == Authorizer::AllowAll {
        return Ok(());
    }
    let Some(user) = session.user() else {
        return Err(UnauthorizedError::Anonymous.into());
    };
    prevent_system_schema_change(permission, resource)?;
    if permission == "SELECT" && readable_by_all(resource) {
        return Ok(());
    }
    if holds(&node.schema().catalog, &user, permission, resource) {
        return Ok(());
    }
    Err(UnauthorizedError::NoPermission {
        user,
        permission: permission.to_string(),
        resource: resource.to_string(),
    }
    .into())
}

/// Checks every permission `statement` needs.
///
/// # Errors
/// [`UnauthorizedError`] for the first one the role lacks.
pub(crate) fn authorize(
    node: &Node,
    session: &Session,
    statement: &Statement,
    keyspace: Option<&str>,
) -> CqlResult<()> {
    if node.config().authorizer == Authorizer::AllowAll {
        return Ok(());
    }
    let schema = node.schema();
    for (permission, resource) in super::required::required(&schema.catalog, statement, keyspace)? {
        ensure(node, session, permission, &resource)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_name_display_and_chain_as_cassandra() {
        let t = Resource::Table("ks".into(), "t".into());
        assert_eq!(t.name(), "data/ks/t");
        assert_eq!(t.to_string(), "<table ks.t>");
        assert_eq!(Resource::from_name("data/ks/t"), Some(t.clone()));
        assert_eq!(
            t.chain().iter().map(Resource::name).collect::<Vec<_>>(),
            ["data/ks/t", "data/ks", "data"]
        );
        assert_eq!(Resource::Role("r".into()).to_string(), "<role r>");
        assert_eq!(Resource::AllKeyspaces.to_string(), "<all keyspaces>");
        assert_eq!(
            Resource::from_name("functions"),
            Some(Resource::AllFunctions)
        );
        assert!(Resource::from_name("nonsense").is_none());
    }
}
