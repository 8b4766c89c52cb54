//! `GRANT`, `REVOKE` and `LIST` of permissions (CassandraAuthorizer), with Cassandra's checks
//! and messages. Permissions are kept with the role they are granted to, in the catalog.

use std::sync::Arc;

use bytes::Bytes;
use cql::frame::response::{ColumnSpec, ResultBody, ResultMetadata, Rows};
use cql::statement::ast::PermissionStatement;
use cql::types::ColumnType;
use storage::{Catalog, CatalogOp};

use crate::authz::{self, Resource};
use crate::config::Authorizer;
use crate::error::{AccessError, CqlError, CqlResult, UnauthorizedError};
use crate::executor::access_catalog::commit;
use crate::node::Node;
use crate::session::Session;

/// Runs a permission statement for the role logged in on `session`.
pub(crate) async fn execute(
    node: &Arc<Node>,
    session: &Session,
    statement: &PermissionStatement,
    keyspace: Option<&str>,
) -> CqlResult<ResultBody> {
    if node.config.authorizer == Authorizer::AllowAll {
        return Err(AccessError::AllowAllAuthorizer {
            operation: operation_name(statement).to_string(),
        }
        .into());
    }
    let Some(user) = session.user() else {
        return Err(UnauthorizedError::Anonymous.into());
    };
    let _guard = node.ddl_lock.lock().await;
    let schema = node.schema();
    let mut catalog = schema.catalog.clone();
    let (permissions, resource, role, grant) = match statement {
        PermissionStatement::List {
            permissions,
            resource,
            of,
            recursive,
        } => {
            let resource = resource
                .as_ref()
                .map(|r| authz::resource_of(r, keyspace))
                .transpose()?;
            return list(
                &catalog,
                &user,
                permissions.as_deref(),
                resource,
                of.as_deref(),
                *recursive,
            );
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
    let resource = authz::resource_of(resource, keyspace)?;
    let wanted = requested(permissions.as_deref(), &resource)?;
    check_grantable(&catalog, &user, &resource, role, &wanted)?;
    let op = change_permissions(&mut catalog, role, &resource, wanted, grant)?;
    commit(node, vec![op], catalog).await?;
    Ok(ResultBody::Void)
}

/// The statement as Cassandra names it when the AllowAllAuthorizer refuses it.
fn operation_name(statement: &PermissionStatement) -> &'static str {
    match statement {
        PermissionStatement::Grant { .. } => "GRANT",
        PermissionStatement::Revoke { .. } => "REVOKE",
        PermissionStatement::List { .. } => "LIST PERMISSIONS",
    }
}

/// Whether `user` may grant or revoke `wanted` on `resource` to or from `role`: both exist,
/// and the granter holds AUTHORIZE on the resource and every permission it hands out.
fn check_grantable(
    catalog: &Catalog,
    user: &str,
    resource: &Resource,
    role: &str,
    wanted: &[&'static str],
) -> CqlResult<()> {
    check_exists(catalog, resource)?;
    if !catalog.roles.contains_key(role) {
        return Err(role_not_found(role));
    }
    for permission in std::iter::once("AUTHORIZE").chain(wanted.iter().copied()) {
        if !authz::holds(catalog, user, permission, resource) {
            return Err(UnauthorizedError::NoPermission {
                user: user.to_string(),
                permission: permission.to_string(),
                resource: resource.to_string(),
            }
            .into());
        }
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
        return Err(match resource {
            Resource::AllRoles | Resource::Role(_) => AccessError::NotForRoles { permissions },
            _ => AccessError::NotForData { permissions },
        }
        .into());
    }
    Ok(applicable
        .iter()
        .copied()
        .filter(|p| names.iter().any(|n| n == p))
        .collect())
}

fn check_exists(catalog: &Catalog, resource: &Resource) -> CqlResult<()> {
    let exists = match resource {
        Resource::AllKeyspaces | Resource::AllRoles => true,
        Resource::Keyspace(ks) => {
            catalog.keyspaces.contains_key(ks) || crate::schema::is_system_keyspace(ks)
        }
        Resource::Table(ks, t) => {
            catalog.table(ks, t).is_some()
                || crate::schema::system_keyspaces()
                    .get(ks)
                    .is_some_and(|k| k.tables.contains_key(t))
        }
        Resource::Role(r) => catalog.roles.contains_key(r),
    };
    if exists {
        Ok(())
    } else {
        Err(AccessError::ResourceNotFound {
            resource: resource.to_string(),
        }
        .into())
    }
}

fn role_not_found(role: &str) -> CqlError {
    AccessError::RoleNotFound {
        role: role.to_string(),
    }
    .into()
}

/// `LIST ... PERMISSIONS`: `role`, `username`, `resource`, `permission` for each permission
/// held directly by the roles listed, on the resource (and, recursively, its parents).
fn list(
    catalog: &Catalog,
    user: &str,
    names: Option<&[String]>,
    resource: Option<Resource>,
    of: Option<&str>,
    recursive: bool,
) -> CqlResult<ResultBody> {
    let roles = listed_roles(catalog, user, of, recursive)?;
    let resources: Option<Vec<String>> = resource.map(|r| {
        let chain = r.chain();
        let kept = if recursive { chain.len() } else { 1 };
        chain.iter().take(kept).map(Resource::name).collect()
    });
    let rows = permission_rows(catalog, &roles, names, resources.as_deref());
    if rows.is_empty() {
        return Ok(ResultBody::Void);
    }
    let spec = |name: &str| ColumnSpec {
        keyspace: "system_auth".into(),
        table: "role_permissions".into(),
        name: name.into(),
        ty: ColumnType::Text,
    };
    Ok(ResultBody::Rows(Rows {
        metadata: ResultMetadata::describing(
            vec![
                spec("role"),
                spec("username"),
                spec("resource"),
                spec("permission"),
            ]
            .into(),
        ),
        rows,
    }))
}

/// The roles whose permissions `user` lists: `of` (with the roles it holds when
/// `recursive`), or every role for a superuser; others may list only roles they hold.
fn listed_roles(
    catalog: &Catalog,
    user: &str,
    of: Option<&str>,
    recursive: bool,
) -> CqlResult<Vec<String>> {
    let is_super = authz::roles_of(catalog, user)
        .iter()
        .any(|r| catalog.roles.get(r).is_some_and(|d| d.is_superuser));
    match of {
        Some(of) => {
            if !catalog.roles.contains_key(of) {
                return Err(role_not_found(of));
            }
            if !is_super && !authz::roles_of(catalog, user).contains(of) {
                return Err(UnauthorizedError::ViewPermissionsOf {
                    role: of.to_string(),
                }
                .into());
            }
            Ok(if recursive {
                authz::roles_of(catalog, of).into_iter().collect()
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
) -> Vec<Vec<Option<Bytes>>> {
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
            for permission in held {
                if names.is_some_and(|n| !n.iter().any(|p| p == permission)) {
                    continue;
                }
                let text = |s: &str| Some(Bytes::copy_from_slice(s.as_bytes()));
                rows.push(vec![
                    text(role),
                    text(role),
                    text(&shown.to_string()),
                    text(permission),
                ]);
            }
        }
    }
    rows
}

/// Grants the creator of a keyspace, table or role every permission that applies to it, as
/// Cassandra does, when CassandraAuthorizer is in force.
///
/// # Errors
/// The grant cannot be stored.
pub(crate) async fn grant_to_creator(
    node: &Arc<Node>,
    session: &Session,
    resource: Resource,
) -> CqlResult<()> {
    let Some(user) = session.user() else {
        return Ok(());
    };
    if node.config.authorizer == Authorizer::AllowAll {
        return Ok(());
    }
    let _guard = node.ddl_lock.lock().await;
    let mut catalog = node.schema().catalog.clone();
    let Some(role) = catalog.roles.get_mut(&user) else {
        return Ok(());
    };
    role.permissions
        .entry(resource.name())
        .or_default()
        .extend(resource.applicable().iter().map(|p| p.to_string()));
    let op = CatalogOp::PutRole(role.clone());
    commit(node, vec![op], catalog).await
}
