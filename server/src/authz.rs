//! CassandraAuthorizer: permissions on resources, held by roles and inherited through the
//! roles they were granted; superusers hold every permission. Resources are Cassandra's data
//! and role resources (`data`, `data/ks`, `data/ks/table`, `roles`, `roles/name`); a
//! permission on a resource covers its children. Every statement names the permission it
//! needs on which resource ([`required`]) and is checked before it runs.

use std::collections::BTreeSet;

use cql::statement::ast::{AlterType, AuthResource, QualifiedName, RoleStatement, Statement};
use storage::Catalog;

use crate::config::Authorizer;
use crate::error::{CqlResult, UnauthorizedError};
use crate::node::Node;
use crate::planner::keyspace_of;
use crate::session::Session;

/// A resource permissions apply to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resource {
    /// Every keyspace (`data`).
    AllKeyspaces,
    /// A keyspace and its tables (`data/ks`).
    Keyspace(String),
    /// A table (`data/ks/t`).
    Table(String, String),
    /// Every role (`roles`).
    AllRoles,
    /// One role (`roles/name`).
    Role(String),
}

/// Permissions a keyspace (or every keyspace) can be granted (Cassandra 5.0).
const KEYSPACE_PERMISSIONS: &[&str] = &[
    "CREATE",
    "ALTER",
    "DROP",
    "SELECT",
    "MODIFY",
    "AUTHORIZE",
    "UNMASK",
    "SELECT_MASKED",
];
const TABLE_PERMISSIONS: &[&str] = &[
    "ALTER",
    "DROP",
    "SELECT",
    "MODIFY",
    "AUTHORIZE",
    "UNMASK",
    "SELECT_MASKED",
];
const ALL_ROLES_PERMISSIONS: &[&str] = &["CREATE", "ALTER", "DROP", "AUTHORIZE", "DESCRIBE"];
const ROLE_PERMISSIONS: &[&str] = &["ALTER", "DROP", "AUTHORIZE"];

/// Keyspaces everyone may read (Cassandra's readable system resources, and the schema).
const READABLE_KEYSPACES: &[&str] = &[
    "system",
    "system_schema",
    "system_virtual_schema",
    "system_traces",
];

impl Resource {
    /// The stored name (`data/ks/t`).
    pub(crate) fn name(&self) -> String {
        match self {
            Resource::AllKeyspaces => "data".into(),
            Resource::Keyspace(ks) => format!("data/{ks}"),
            Resource::Table(ks, t) => format!("data/{ks}/{t}"),
            Resource::AllRoles => "roles".into(),
            Resource::Role(r) => format!("roles/{r}"),
        }
    }

    /// The resource a stored name stands for.
    pub(crate) fn from_name(name: &str) -> Option<Resource> {
        let parts: Vec<&str> = name.split('/').collect();
        Some(match parts.as_slice() {
            ["data"] => Resource::AllKeyspaces,
            ["data", ks] => Resource::Keyspace((*ks).into()),
            ["data", ks, t] => Resource::Table((*ks).into(), (*t).into()),
            ["roles"] => Resource::AllRoles,
            ["roles", r] => Resource::Role((*r).into()),
            _ => return None,
        })
    }

    /// This resource, then its parents up to the root.
    pub(crate) fn chain(&self) -> Vec<Resource> {
        match self {
            Resource::Table(ks, _) => vec![
                self.clone(),
                Resource::Keyspace(ks.clone()),
                Resource::AllKeyspaces,
            ],
            Resource::Keyspace(_) => vec![self.clone(), Resource::AllKeyspaces],
            Resource::Role(_) => vec![self.clone(), Resource::AllRoles],
            Resource::AllKeyspaces | Resource::AllRoles => vec![self.clone()],
        }
    }

    /// The permissions this resource can be granted.
    pub(crate) fn applicable(&self) -> &'static [&'static str] {
        match self {
            Resource::AllKeyspaces | Resource::Keyspace(_) => KEYSPACE_PERMISSIONS,
            Resource::Table(..) => TABLE_PERMISSIONS,
            Resource::AllRoles => ALL_ROLES_PERMISSIONS,
            Resource::Role(_) => ROLE_PERMISSIONS,
        }
    }
}

/// Cassandra's display (`<table ks.t>`), as messages and `LIST PERMISSIONS` show it.
impl std::fmt::Display for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Resource::AllKeyspaces => f.write_str("<all keyspaces>"),
            Resource::Keyspace(ks) => write!(f, "<keyspace {ks}>"),
            Resource::Table(ks, t) => write!(f, "<table {ks}.{t}>"),
            Resource::AllRoles => f.write_str("<all roles>"),
            Resource::Role(r) => write!(f, "<role {r}>"),
        }
    }
}

/// The resource a statement names, resolved against the session keyspace.
///
/// # Errors
/// A table named without a keyspace and no keyspace in use.
pub(crate) fn resource_of(resource: &AuthResource, keyspace: Option<&str>) -> CqlResult<Resource> {
    Ok(match resource {
        AuthResource::AllKeyspaces => Resource::AllKeyspaces,
        AuthResource::Keyspace(ks) => Resource::Keyspace(ks.name.clone()),
        AuthResource::Table(name) => {
            Resource::Table(keyspace_of(name, keyspace)?, name.name.name.clone())
        }
        AuthResource::AllRoles => Resource::AllRoles,
        AuthResource::Role(r) => Resource::Role(r.clone()),
    })
}

/// `role` and every role granted to it, directly or not.
pub(crate) fn roles_of(catalog: &Catalog, role: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::from([role.to_string()]);
    let mut pending = vec![role.to_string()];
    while let Some(next) = pending.pop() {
        if let Some(def) = catalog.roles.get(&next) {
            for parent in &def.member_of {
                if out.insert(parent.clone()) {
                    pending.push(parent.clone());
                }
            }
        }
    }
    out
}

/// Whether `user` holds `permission` on `resource` or a parent of it.
pub(crate) fn holds(catalog: &Catalog, user: &str, permission: &str, resource: &Resource) -> bool {
    let roles = roles_of(catalog, user);
    if roles
        .iter()
        .any(|r| catalog.roles.get(r).is_some_and(|d| d.is_superuser))
    {
        return true;
    }
    let names: Vec<String> = resource.chain().iter().map(Resource::name).collect();
    roles
        .iter()
        .filter_map(|r| catalog.roles.get(r))
        .any(|def| {
            names.iter().any(|name| {
                def.permissions
                    .get(name)
                    .is_some_and(|perms| perms.contains(permission))
            })
        })
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
    if node.config.authorizer == Authorizer::AllowAll {
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
    if node.config.authorizer == Authorizer::AllowAll {
        return Ok(());
    }
    for (permission, resource) in required(statement, keyspace)? {
        ensure(node, session, permission, &resource)?;
    }
    Ok(())
}

/// The permission a role statement needs (Cassandra: CREATE on all roles, ALTER or DROP on
/// the role, AUTHORIZE on the role granted); `None` for those that check themselves.
pub(crate) fn role_statement_permission(
    statement: &RoleStatement,
) -> Option<(&'static str, Resource)> {
    match statement {
        RoleStatement::Create { .. } => Some(("CREATE", Resource::AllRoles)),
        RoleStatement::Drop { name, .. } => Some(("DROP", Resource::Role(name.clone()))),
        RoleStatement::Grant { role, .. } | RoleStatement::Revoke { role, .. } => {
            Some(("AUTHORIZE", Resource::Role(role.clone())))
        }
        RoleStatement::Alter { .. } | RoleStatement::List { .. } => None,
    }
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
