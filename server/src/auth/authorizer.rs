//! CassandraAuthorizer: permissions on resources, held by roles and inherited through the
//! roles they were granted; superusers hold every permission. Resources are Cassandra's data
//! and role resources (`data`, `data/ks`, `data/ks/table`, `roles`, `roles/name`); a
//! permission on a resource covers its children. Every statement names the permission it
//! needs on which resource ([`required`]) and is checked before it runs.

use cql::statement::ast::{AlterType, QualifiedName, Statement};

use crate::config::Authorizer;
use crate::error::{CqlResult, UnauthorizedError};
use crate::node::Node;
use crate::planner::keyspace_of;
use crate::transport::session::Session;

pub(crate) use crate::planner::access::resource::{holds, Resource};

/// Keyspaces everyone may read (Cassandra's readable system resources, and the schema).
const READABLE_KEYSPACES: &[&str] = &[
    "system",
    "system_schema",
    "system_virtual_schema",
    "system_traces",
];

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
    if permission == "SELECT"
        && matches!(resource, Resource::Table(ks, _) if READABLE_KEYSPACES.contains(&ks.as_str()))
    {
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

fn table(name: &QualifiedName, keyspace: Option<&str>) -> CqlResult<Resource> {
    Ok(Resource::Table(
        keyspace_of(name, keyspace)?,
        name.name.name.clone(),
    ))
}

/// The permissions a statement needs, on which resources (Cassandra's `authorize` of each
/// statement). Role and permission statements check their own.
///
/// # Errors
/// A table named without a keyspace and no keyspace in use.
pub(crate) fn required(
    statement: &Statement,
    keyspace: Option<&str>,
) -> CqlResult<Vec<(&'static str, Resource)>> {
    let keyspace_resource = |name: &QualifiedName| -> CqlResult<Resource> {
        Ok(Resource::Keyspace(keyspace_of(name, keyspace)?))
    };
    Ok(match statement {
        Statement::Select(s) => vec![("SELECT", table(&s.table, keyspace)?)],
        Statement::Insert(s) => vec![("MODIFY", table(&s.table, keyspace)?)],
        Statement::Update(s) => vec![("MODIFY", table(&s.table, keyspace)?)],
        Statement::Delete(s) => vec![("MODIFY", table(&s.table, keyspace)?)],
        Statement::Truncate(name) => vec![("MODIFY", table(name, keyspace)?)],
        Statement::Explain(explain) => required(&explain.statement, keyspace)?,
        Statement::Batch(batch) => {
            let mut out = Vec::new();
            for inner in &batch.statements {
                out.extend(required(inner, keyspace)?);
            }
            out
        }
        Statement::CreateKeyspace(_) => vec![("CREATE", Resource::AllKeyspaces)],
        Statement::AlterKeyspace(s) => vec![("ALTER", Resource::Keyspace(s.name.name.clone()))],
        Statement::DropKeyspace { name, .. } => {
            vec![("DROP", Resource::Keyspace(name.name.clone()))]
        }
        Statement::CreateTable(s) => vec![("CREATE", keyspace_resource(&s.name)?)],
        Statement::AlterTable(s) => vec![("ALTER", table(&s.name, keyspace)?)],
        Statement::DropTable { name, .. } => vec![("DROP", table(name, keyspace)?)],
        Statement::CreateIndex(s) => vec![("ALTER", table(&s.table, keyspace)?)],
        Statement::CreateView(s) => vec![("ALTER", table(&s.base, keyspace)?)],
        Statement::CreateType(s) => vec![("CREATE", keyspace_resource(&s.name)?)],
        Statement::AlterType(AlterType::Add { name, .. } | AlterType::Rename { name, .. }) => {
            vec![("ALTER", keyspace_resource(name)?)]
        }
        Statement::DropType { name, .. } => vec![("DROP", keyspace_resource(name)?)],
        Statement::DropIndex { .. }
        | Statement::Disabled(_)
        | Statement::AlterView { .. }
        | Statement::DropView { .. }
        | Statement::Use(_)
        | Statement::Describe(_)
        | Statement::Role(_)
        | Statement::Permission(_) => Vec::new(),
    })
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
    for (permission, resource) in required(statement, keyspace)? {
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
        assert!(Resource::from_name("functions").is_none());
    }
}
