//! Resources and who holds what on them: the catalog queries CassandraAuthorizer's checks
//! are made of. Pure: a catalog in, an answer out. Planning role and permission statements
//! uses them, and so does `authz`, which checks every other statement (and re-exports them).

use std::collections::BTreeSet;

use cql::statement::ast::AuthResource;
use storage::Catalog;

use crate::error::AccessError;
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
    /// Every function (`functions`).
    AllFunctions,
    /// The functions of a keyspace (`functions/ks`).
    FunctionsIn(String),
    /// One function: keyspace, name and argument types as CQL writes them. Never stored:
    /// this server runs no user-defined function, so none exists to be granted on.
    Function(String, String, Vec<String>),
    /// Every MBean (`mbean`).
    AllMbeans,
    /// An MBean's JMX object name or pattern (`mbean/name`).
    Mbean(String),
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
/// `FunctionResource`'s permissions on every function or a keyspace's.
const FUNCTIONS_PERMISSIONS: &[&str] = &["CREATE", "ALTER", "DROP", "AUTHORIZE", "EXECUTE"];
const FUNCTION_PERMISSIONS: &[&str] = &["ALTER", "DROP", "AUTHORIZE", "EXECUTE"];
/// `JMXResource`'s permissions, in Cassandra's order.
const MBEAN_PERMISSIONS: &[&str] = &["SELECT", "MODIFY", "AUTHORIZE", "DESCRIBE", "EXECUTE"];

impl Resource {
    /// The stored name (`data/ks/t`).
    pub(crate) fn name(&self) -> String {
        match self {
            Resource::AllKeyspaces => "data".into(),
            Resource::Keyspace(ks) => format!("data/{ks}"),
            Resource::Table(ks, t) => format!("data/{ks}/{t}"),
            Resource::AllRoles => "roles".into(),
            Resource::Role(r) => format!("roles/{r}"),
            Resource::AllFunctions => "functions".into(),
            Resource::FunctionsIn(ks) => format!("functions/{ks}"),
            Resource::Function(ks, f, args) => format!("functions/{ks}/{f}[{}]", args.join("^")),
            Resource::AllMbeans => "mbean".into(),
            Resource::Mbean(name) => format!("mbean/{name}"),
        }
    }

    /// The resource a stored name stands for.
    pub(crate) fn from_name(name: &str) -> Option<Resource> {
        if let Some(object) = name.strip_prefix("mbean/") {
            return Some(Resource::Mbean(object.into()));
        }
        let parts: Vec<&str> = name.split('/').collect();
        Some(match parts.as_slice() {
            ["data"] => Resource::AllKeyspaces,
            ["data", ks] => Resource::Keyspace((*ks).into()),
            ["data", ks, t] => Resource::Table((*ks).into(), (*t).into()),
            ["roles"] => Resource::AllRoles,
            ["roles", r] => Resource::Role((*r).into()),
            ["functions"] => Resource::AllFunctions,
            ["functions", ks] => Resource::FunctionsIn((*ks).into()),
            ["mbean"] => Resource::AllMbeans,
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
            Resource::Function(ks, ..) => vec![
                self.clone(),
                Resource::FunctionsIn(ks.clone()),
                Resource::AllFunctions,
            ],
            Resource::FunctionsIn(_) => vec![self.clone(), Resource::AllFunctions],
            Resource::Mbean(_) => vec![self.clone(), Resource::AllMbeans],
            Resource::AllKeyspaces
            | Resource::AllRoles
            | Resource::AllFunctions
            | Resource::AllMbeans => vec![self.clone()],
        }
    }

    /// Whether dropping this resource drops `other` with it: itself, and for a keyspace its
    /// tables, views and functions.
    pub(crate) fn covers(&self, other: &Resource) -> bool {
        match (self, other) {
            (Resource::Keyspace(ks), Resource::Table(table_ks, _)) => ks == table_ks,
            (Resource::Keyspace(ks), Resource::FunctionsIn(functions_ks)) => ks == functions_ks,
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
            Resource::AllFunctions | Resource::FunctionsIn(_) => FUNCTIONS_PERMISSIONS,
            Resource::Function(..) => FUNCTION_PERMISSIONS,
            Resource::AllMbeans | Resource::Mbean(_) => MBEAN_PERMISSIONS,
        }
    }

    /// Cassandra's name for the resource's class, as its refusals print it.
    pub(crate) fn class_name(&self) -> &'static str {
        match self {
            Resource::AllKeyspaces | Resource::Keyspace(_) | Resource::Table(..) => "DataResource",
            Resource::AllRoles | Resource::Role(_) => "RoleResource",
            Resource::AllFunctions | Resource::FunctionsIn(_) | Resource::Function(..) => {
                "FunctionResource"
            }
            Resource::AllMbeans | Resource::Mbean(_) => "JMXResource",
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
            Resource::AllFunctions => f.write_str("<all functions>"),
            Resource::FunctionsIn(ks) => write!(f, "<all functions in {ks}>"),
            Resource::Function(ks, name, args) => {
                write!(f, "<function {ks}.{name}({})>", args.join(", "))
            }
            Resource::AllMbeans => f.write_str("<all mbeans>"),
            Resource::Mbean(name) => write!(f, "<mbean {name}>"),
        }
    }
}

/// The resource a statement names, resolved against the session keyspace.
///
/// # Errors
/// A table named without a keyspace and no keyspace in use; a function named without one
/// (Cassandra takes no session keyspace there).
pub(crate) fn resource_of(resource: &AuthResource, keyspace: Option<&str>) -> CqlResult<Resource> {
    Ok(match resource {
        AuthResource::AllKeyspaces => Resource::AllKeyspaces,
        AuthResource::Keyspace(ks) => Resource::Keyspace(ks.name.clone()),
        AuthResource::Table(name) => {
            Resource::Table(keyspace_of(name, keyspace)?, name.name.name.clone())
        }
        AuthResource::AllRoles => Resource::AllRoles,
        AuthResource::Role(r) => Resource::Role(r.clone()),
        AuthResource::AllFunctions => Resource::AllFunctions,
        AuthResource::FunctionsIn(ks) => Resource::FunctionsIn(ks.name.clone()),
        AuthResource::Function { name, args } => {
            let Some(ks) = &name.keyspace else {
                return Err(AccessError::FunctionWithoutKeyspace.into());
            };
            let args = args.iter().map(ToString::to_string).collect();
            Resource::Function(ks.name.clone(), name.name.name.clone(), args)
        }
        AuthResource::AllMbeans => Resource::AllMbeans,
        AuthResource::Mbean { name, .. } => Resource::Mbean(name.clone()),
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
