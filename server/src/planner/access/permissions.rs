//! `GRANT`, `REVOKE` and `LIST` of permissions planned (CassandraAuthorizer), with
//! Cassandra's checks and messages; and the grant a creator receives on what it created.
//! Permissions are kept with the role they are granted to, in the catalog.

use cql::statement::ast::PermissionStatement;
use cql::types::ColumnType;
use storage::{Catalog, CatalogOp};

use super::resource::{holds, resource_of, roles_of, Resource};
use super::{text_cell, AccessContext, AccessPlan, AccessRows};
use crate::error::{AccessError, CqlError, CqlResult, UnauthorizedError};

/// Plans a permission statement for `context.user` (CassandraAuthorizer is in force: the
/// executor refuses these statements under AllowAllAuthorizer).
pub(super) fn plan(
    current: &Catalog,
    statement: &PermissionStatement,
    context: AccessContext<'_>,
) -> CqlResult<AccessPlan> {
    let keyspace = context.session_keyspace;
    let (permissions, resource, role, grant) = match statement {
        PermissionStatement::List {
            permissions,
            resource,
            of,
            recursive,
        } => {
            let resource = resource
                .as_ref()
                .map(|r| resource_of(r, keyspace))
                .transpose()?;
            let listing = Listing {
                names: permissions.as_deref(),
                resource,
                of: of.as_deref(),
                recursive: *recursive,
            };
            return list(current, context.user, listing).map(AccessPlan::Rows);
        }
        PermissionStatement::Grant {
            permissions,
            resource,
            role,
        } => (permissions, resource, role, true),
        PermissionStatement::Revoke {
            permissions,
            resource,
            role,
        } => (permissions, resource, role, false),
    };
    let resource = resource_of(resource, keyspace)?;
    let wanted = requested(permissions.as_deref(), &resource)?;
    check_grantable(current, context.user, &resource, role, &wanted)?;
    let mut catalog = current.clone();
    let op = change_permissions(&mut catalog, role, &resource, wanted, grant)?;
    Ok(AccessPlan::Change {
        ops: vec![op],
        catalog,
        grant_to_creator: None,
    })
}

/// The grant of every permission that applies to `resource` to its creator `user`, as
/// Cassandra makes after a CREATE; `None` when `user` is not a role (any more).
pub(crate) fn plan_creator_grant(
    current: &Catalog,
    user: &str,
    resource: &Resource,
) -> Option<AccessPlan> {
    let mut catalog = current.clone();
    let role = catalog.roles.get_mut(user)?;
    role.permissions
        .entry(resource.name())
        .or_default()
        .extend(resource.applicable().iter().map(|p| p.to_string()));
    let op = CatalogOp::PutRole(role.clone());
    Some(AccessPlan::Change {
        ops: vec![op],
        catalog,
        grant_to_creator: None,
    })
}

/// The revocation of every permission on `dropped` (and, for a keyspace, on its tables and
/// views) from every role, as Cassandra's `AuthSchemaChangeListener` revokes them when the
/// resource is dropped; `None` when no role holds any.
pub(crate) fn plan_revoke_all_on(current: &Catalog, dropped: &Resource) -> Option<AccessPlan> {
    let mut catalog = current.clone();
    let mut ops = Vec::new();
    for role in catalog.roles.values_mut() {
        let before = role.permissions.len();
        role.permissions
            .retain(|name, _| !Resource::from_name(name).is_some_and(|r| dropped.covers(&r)));
        if role.permissions.len() != before {
            ops.push(CatalogOp::PutRole(role.clone()));
        }
    }
    (!ops.is_empty()).then_some(AccessPlan::Change {
        ops,
        catalog,
        grant_to_creator: None,
    })
}

/// Whether `user` may grant or revoke `wanted` on `resource` to or from `role`, in
/// Cassandra's order: the granter holds AUTHORIZE on the resource and every permission it
/// hands out (`authorize`), then the grantee and the resource exist (`validate`).
fn check_grantable(
    catalog: &Catalog,
    user: &str,
    resource: &Resource,
    role: &str,
    wanted: &[&'static str],
) -> CqlResult<()> {
    for permission in std::iter::once("AUTHORIZE").chain(wanted.iter().copied()) {
        if !holds(catalog, user, permission, resource) {
            return Err(UnauthorizedError::NoPermission {
                user: user.to_string(),
                permission: permission.to_string(),
                resource: resource.to_string(),
            }
            .into());
        }
    }
    if !catalog.roles.contains_key(role) {
        return Err(AccessError::NoSuchRole {
            role: role.to_string(),
        }
        .into());
    }
    if let Resource::FunctionsIn(ks) | Resource::Function(ks, ..) = resource {
        if ks == "system" {
            return Err(AccessError::BuiltinFunctions.into());
        }
    }
    if !exists(catalog, resource) {
        return Err(AccessError::ResourceNotFound {
            resource: resource.to_string(),
        }
        .into());
    }
    Ok(())
}

/// Grants (or revokes) `wanted` on `resource` to (from) `role` in `catalog`; the catalog
/// operation that stores the changed role.
fn change_permissions(
    catalog: &mut Catalog,
    role: &str,
    resource: &Resource,
    wanted: Vec<&'static str>,
    grant: bool,
) -> CqlResult<CatalogOp> {
    let Some(target) = catalog.roles.get_mut(role) else {
        return Err(role_not_found(role));
    };
    let held = target.permissions.entry(resource.name()).or_default();
    for permission in wanted {
        if grant {
            held.insert(permission.to_string());
        } else {
            held.remove(permission);
        }
    }
    if held.is_empty() {
        target.permissions.remove(&resource.name());
    }
    Ok(CatalogOp::PutRole(target.clone()))
}

/// The permissions a statement names on `resource`: ALL means every applicable one; others
/// must apply (Cassandra's message names those that do not).
fn requested(names: Option<&[String]>, resource: &Resource) -> CqlResult<Vec<&'static str>> {
    let applicable = resource.applicable();
    let Some(names) = names else {
        return Ok(applicable.to_vec());
    };
    let unsupported: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !applicable.contains(n))
        .collect();
    if !unsupported.is_empty() {
        let permissions = unsupported.iter().map(|p| p.to_string()).collect();
        return Err(AccessError::NotSupported {
            resource_type: resource.class_name(),
            permissions,
        }
        .into());
    }
    Ok(applicable
        .iter()
        .copied()
        .filter(|p| names.iter().any(|n| n == p))
        .collect())
}

/// Whether `resource` exists: a keyspace or table (a view too), system ones included, a
/// role, a keyspace's functions. No single function exists (this server runs no
/// user-defined one); an MBean is taken to (there is no JMX server to ask, and a grant on
/// one changes nothing here).
fn exists(catalog: &Catalog, resource: &Resource) -> bool {
    match resource {
        Resource::AllKeyspaces
        | Resource::AllRoles
        | Resource::AllFunctions
        | Resource::AllMbeans
        | Resource::Mbean(_) => true,
        Resource::Function(..) => false,
        Resource::Keyspace(ks) | Resource::FunctionsIn(ks) => {
            catalog.keyspaces.contains_key(ks) || crate::schema::is_system_keyspace(ks)
        }
        Resource::Table(ks, t) => {
            catalog.table(ks, t).is_some()
                || crate::schema::system_keyspaces()
                    .get(ks)
                    .is_some_and(|k| k.tables.contains_key(t))
        }
        Resource::Role(r) => catalog.roles.contains_key(r),
    }
}

fn role_not_found(role: &str) -> CqlError {
    AccessError::RoleNotFound {
        role: role.to_string(),
    }
    .into()
}

/// Cassandra's `Permission` enum, in declaration order: how `PermissionDetails` sorts the
/// permissions of one role on one resource.
const PERMISSION_ORDER: &[&str] = &[
    "CREATE",
    "ALTER",
    "DROP",
    "SELECT",
    "MODIFY",
    "AUTHORIZE",
    "DESCRIBE",
    "EXECUTE",
    "UNMASK",
    "SELECT_MASKED",
];

/// Where `permission` sorts in a listing (unknown names last).
fn permission_order(permission: &str) -> usize {
    PERMISSION_ORDER
        .iter()
        .position(|p| *p == permission)
        .unwrap_or(PERMISSION_ORDER.len())
}

/// What a `LIST ... PERMISSIONS` asks for: the permissions (all when `None`), on the
/// resource (any when `None`), of the role (every one when `None`).
struct Listing<'a> {
    names: Option<&'a [String]>,
    resource: Option<Resource>,
    of: Option<&'a str>,
    recursive: bool,
}

/// `LIST ... PERMISSIONS`: `role`, `username`, `resource`, `permission` for each permission
/// held directly by the roles listed, on the resource (and, recursively, its parents).
fn list(catalog: &Catalog, user: &str, listing: Listing<'_>) -> CqlResult<AccessRows> {
    let Listing {
        names,
        resource,
        of,
        recursive,
    } = listing;
    if let Some(resource) = resource.as_ref().filter(|r| !exists(catalog, r)) {
        return Err(AccessError::ListedNotFound {
            resource: resource.to_string(),
        }
        .into());
    }
    let roles = listed_roles(catalog, user, of, recursive)?;
    let resources: Option<Vec<String>> = resource.map(|r| {
        let chain = r.chain();
        let kept = if recursive { chain.len() } else { 1 };
        chain.iter().take(kept).map(Resource::name).collect()
    });
    let rows = permission_rows(catalog, &roles, names, resources.as_deref());
    let columns = ["role", "username", "resource", "permission"]
        .into_iter()
        .map(|name| (name, ColumnType::Text))
        .collect();
    // Cassandra names the listing's table `permissions` (`ListPermissionsStatement`).
    Ok(AccessRows::new("permissions", columns, rows))
}

/// The roles whose permissions `user` lists: `of` (with the roles it holds when
/// `recursive`), or every role for a superuser; others may list only roles they hold.
fn listed_roles(
    catalog: &Catalog,
    user: &str,
    of: Option<&str>,
    recursive: bool,
) -> CqlResult<Vec<String>> {
    let is_super = roles_of(catalog, user)
        .iter()
        .any(|r| catalog.roles.get(r).is_some_and(|d| d.is_superuser));
    match of {
        Some(of) => {
            if !catalog.roles.contains_key(of) {
                return Err(AccessError::ListedNotFound {
                    resource: Resource::Role(of.to_string()).to_string(),
                }
                .into());
            }
            if !is_super && !roles_of(catalog, user).contains(of) {
                return Err(UnauthorizedError::ViewPermissionsOf {
                    role: of.to_string(),
                }
                .into());
            }
            Ok(if recursive {
                roles_of(catalog, of).into_iter().collect()
            } else {
                vec![of.to_string()]
            })
        }
        None if is_super => Ok(catalog.roles.keys().cloned().collect()),
        None => Err(UnauthorizedError::ViewEveryonesPermissions.into()),
    }
}

/// One row per permission `roles` hold directly, restricted to the permissions `names`
/// and the resources (by name) `resources` when given.
fn permission_rows(
    catalog: &Catalog,
    roles: &[String],
    names: Option<&[String]>,
    resources: Option<&[String]>,
) -> Vec<Vec<Option<bytes::Bytes>>> {
    let mut rows = Vec::new();
    for role in roles {
        let Some(def) = catalog.roles.get(role) else {
            continue;
        };
        for (resource_name, held) in &def.permissions {
            if resources.is_some_and(|r| !r.contains(resource_name)) {
                continue;
            }
            let Some(shown) = Resource::from_name(resource_name) else {
                continue;
            };
            let mut held: Vec<&String> = held.iter().collect();
            held.sort_by_key(|p| permission_order(p));
            for permission in held {
                if names.is_some_and(|n| !n.iter().any(|p| p == permission)) {
                    continue;
                }
                rows.push(vec![
                    text_cell(role),
                    text_cell(role),
                    text_cell(&shown.to_string()),
                    text_cell(permission),
                ]);
            }
        }
    }
    rows
}
