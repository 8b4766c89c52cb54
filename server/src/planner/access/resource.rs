//! Resources and who holds what on them: the catalog queries CassandraAuthorizer's checks
//! are made of. Pure: a catalog in, an answer out. Planning role and permission statements
//! uses them, and so does `authz`, which checks every other statement (and re-exports them).

use std::collections::BTreeSet;

use cql::statement::ast::AuthResource;
use storage::Catalog;

use crate::error::CqlResult;
use crate::planner::keyspace_of;

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

    /// Whether dropping this resource drops `other` with it: itself, and for a keyspace its
    /// tables and views.
    pub(crate) fn covers(&self, other: &Resource) -> bool {
        match (self, other) {
            (Resource::Keyspace(ks), Resource::Table(table_ks, _)) => ks == table_ks,
            _ => self == other,
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
