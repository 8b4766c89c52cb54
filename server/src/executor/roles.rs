//! Role statements (`CREATE/ALTER/DROP ROLE|USER`, `LIST ROLES|USERS`, `GRANT/REVOKE role`)
//! with Cassandra's checks and messages. Roles live in the catalog: a change is one durable
//! commit and installs a new catalog snapshot, as a schema change does (without changing the
//! schema version: roles are not schema).

use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;
use cql::frame::response::{ColumnSpec, ResultBody, ResultMetadata, Rows};
use cql::statement::ast::{RoleOptions, RoleStatement};
use cql::types::{codec, ColumnType, CqlValue};
use storage::{Catalog, CatalogOp, RoleDef};

use crate::auth::{hash_password, is_bcrypt_hash, DEFAULT_ROLE};
use crate::authz::{self, Resource};
use crate::config::Authenticator;
use crate::config::Authorizer;
use crate::error::{AccessError, CqlError, CqlResult, UnauthorizedError};
use crate::executor::access_catalog::commit;
use crate::node::Node;
use crate::session::Session;
use tracing::info;

/// Runs a role statement for the role logged in on `session`.
pub(crate) async fn execute(
    node: &Arc<Node>,
    session: &Session,
    statement: &RoleStatement,
) -> CqlResult<ResultBody> {
    // Every role statement needs a logged-in (not anonymous) role.
    let Some(user) = session.user() else {
        return Err(UnauthorizedError::Anonymous.into());
    };
    let _guard = node.ddl_lock.lock().await;
    let schema = node.schema();
    let mut catalog = schema.catalog.clone();
    let is_super = catalog.roles.get(&user).is_some_and(|r| r.is_superuser);
    let me = Caller {
        name: &user,
        is_super,
    };
    let authorizing = node.config.authorizer == Authorizer::Cassandra;
    if authorizing {
        check_permission(&catalog, &user, statement)?;
    }
    if let RoleStatement::List {
        of,
        recursive,
        users,
    } = statement
    {
        let everything =
            !authorizing || authz::holds(&catalog, &user, "DESCRIBE", &Resource::AllRoles);
        if !everything {
            let own = authz::roles_of(&catalog, &user);
            return match of {
                Some(of) if !own.contains(of.as_str()) => {
                    Err(UnauthorizedError::ViewRolesOf { role: of.clone() }.into())
                }
                Some(of) => list(&catalog, Some(of), *recursive, *users),
                None => list(&catalog, Some(&user), *recursive, *users),
            };
        }
        return list(&catalog, of.as_deref(), *recursive, *users);
    }
    let ops = match statement {
        RoleStatement::Create {
            name,
            if_not_exists,
            options,
            ..
        } => create(&mut catalog, &me, name, *if_not_exists, options)?,
        RoleStatement::Alter {
            name,
            if_exists,
            options,
            ..
        } => alter(&mut catalog, &me, name, *if_exists, options)?,
        RoleStatement::Drop {
            name, if_exists, ..
        } => drop_role(&mut catalog, &me, name, *if_exists)?,
        RoleStatement::Grant { role, grantee } => grant(&mut catalog, role, grantee)?,
        RoleStatement::Revoke { role, revokee } => revoke(&mut catalog, role, revokee)?,
        RoleStatement::List { .. } => Vec::new(),
    };
    commit(node, ops, catalog).await?;
    if let RoleStatement::Create { name, .. } = statement {
        drop(_guard);
        let created = Resource::Role(name.clone());
        Box::pin(super::permissions::grant_to_creator(node, session, created)).await?;
    }
    Ok(ResultBody::Void)
}

/// CassandraAuthorizer's checks on role statements: CREATE on all roles, DROP or AUTHORIZE
/// on the role, ALTER on another role (altering one's own password needs nothing).
fn check_permission(catalog: &Catalog, user: &str, statement: &RoleStatement) -> CqlResult<()> {
    let needed = match statement {
        RoleStatement::Alter { name, .. } if name != user => {
            Some(("ALTER", Resource::Role(name.clone())))
        }
        other => authz::role_statement_permission(other),
    };
    match needed {
        Some((permission, resource)) if !authz::holds(catalog, user, permission, &resource) => {
            Err(UnauthorizedError::NoPermission {
                user: user.to_string(),
                permission: permission.to_string(),
                resource: resource.to_string(),
            }
            .into())
        }
        _ => Ok(()),
    }
}

/// Creates the default superuser when PasswordAuthenticator is in force and no role exists.
///
/// # Errors
/// The role cannot be stored.
pub(crate) async fn ensure_default_role(node: &Arc<Node>) -> CqlResult<()> {
    if node.config.authenticator != Authenticator::Password {
        return Ok(());
    }
    let _guard = node.ddl_lock.lock().await;
    let schema = node.schema();
    if !schema.catalog.roles.is_empty() {
        return Ok(());
    }
    let role = RoleDef {
        name: DEFAULT_ROLE.into(),
        is_superuser: true,
        can_login: true,
        salted_hash: Some(hash_password(DEFAULT_ROLE)?),
        ..RoleDef::default()
    };
    let mut catalog = schema.catalog.clone();
    catalog.roles.insert(role.name.clone(), role.clone());
    commit(node, vec![CatalogOp::PutRole(role)], catalog).await?;
    info!("created the default superuser role {DEFAULT_ROLE}");
    Ok(())
}

/// The role running the statement.
struct Caller<'a> {
    name: &'a str,
    is_super: bool,
}

fn missing(name: &str) -> CqlError {
    AccessError::RoleNotFound {
        role: name.to_string(),
    }
    .into()
}

fn existing<'a>(catalog: &'a Catalog, name: &str) -> CqlResult<&'a RoleDef> {
    catalog.roles.get(name).ok_or_else(|| missing(name))
}

/// The hash the options set: `PASSWORD` hashed here, `HASHED PASSWORD` checked and kept.
fn new_hash(options: &RoleOptions) -> CqlResult<Option<String>> {
    match (&options.password, &options.hashed_password) {
        (Some(_), Some(_)) => Err(AccessError::PasswordAndHashedPassword.into()),
        (Some(password), None) => hash_password(password).map(Some),
        (None, Some(hash)) if is_bcrypt_hash(hash) => Ok(Some(hash.clone())),
        (None, Some(_)) => Err(AccessError::InvalidHashedPassword.into()),
        (None, None) => Ok(None),
    }
}

fn check_options(options: &RoleOptions) -> CqlResult<()> {
    match &options.options {
        Some(entries) if !entries.is_empty() => Err(AccessError::CustomOptions.into()),
        _ => Ok(()),
    }
}

fn create(
    catalog: &mut Catalog,
    me: &Caller<'_>,
    name: &str,
    if_not_exists: bool,
    options: &RoleOptions,
) -> CqlResult<Vec<CatalogOp>> {
    if name.is_empty() {
        return Err(AccessError::EmptyRoleName.into());
    }
    check_options(options)?;
    if options.superuser == Some(true) && !me.is_super {
        return Err(UnauthorizedError::CreateSuperuser.into());
    }
    if catalog.roles.contains_key(name) {
        if if_not_exists {
            return Ok(Vec::new());
        }
        return Err(AccessError::RoleExists {
            role: name.to_string(),
        }
        .into());
    }
    let role = RoleDef {
        name: name.to_string(),
        is_superuser: options.superuser.unwrap_or(false),
        can_login: options.login.unwrap_or(false),
        salted_hash: new_hash(options)?,
        ..RoleDef::default()
    };
    catalog.roles.insert(role.name.clone(), role.clone());
    Ok(vec![CatalogOp::PutRole(role)])
}

fn alter(
    catalog: &mut Catalog,
    me: &Caller<'_>,
    name: &str,
    if_exists: bool,
    options: &RoleOptions,
) -> CqlResult<Vec<CatalogOp>> {
    check_options(options)?;
    let Some(current) = catalog.roles.get(name) else {
        if if_exists {
            return Ok(Vec::new());
        }
        return Err(missing(name));
    };
    if options.superuser.is_some() {
        if name == me.name {
            return Err(UnauthorizedError::AlterOwnSuperuser.into());
        }
        if !me.is_super {
            return Err(UnauthorizedError::AlterSuperuser.into());
        }
    }
    if current.is_superuser && !me.is_super {
        return Err(UnauthorizedError::AlterSuperuser.into());
    }
    let mut role = current.clone();
    if let Some(hash) = new_hash(options)? {
        role.salted_hash = Some(hash);
    }
    if let Some(login) = options.login {
        role.can_login = login;
    }
    if let Some(superuser) = options.superuser {
        role.is_superuser = superuser;
    }
    catalog.roles.insert(role.name.clone(), role.clone());
    Ok(vec![CatalogOp::PutRole(role)])
}

fn drop_role(
    catalog: &mut Catalog,
    me: &Caller<'_>,
    name: &str,
    if_exists: bool,
) -> CqlResult<Vec<CatalogOp>> {
    if name == me.name {
        return Err(AccessError::DropOwnRole.into());
    }
    let Some(role) = catalog.roles.get(name) else {
        if if_exists {
            return Ok(Vec::new());
        }
        return Err(missing(name));
    };
    if role.is_superuser && !me.is_super {
        return Err(UnauthorizedError::DropSuperuser.into());
    }
    catalog.roles.remove(name);
    let mut ops = vec![CatalogOp::DropRole(name.to_string())];
    for member in catalog.roles.values_mut() {
        if member.member_of.remove(name) {
            ops.push(CatalogOp::PutRole(member.clone()));
        }
    }
    Ok(ops)
}

/// `name` and the roles granted to it: directly, or also through other roles.
fn granted(catalog: &Catalog, name: &str, recursive: bool) -> BTreeSet<String> {
    if recursive {
        return authz::roles_of(catalog, name);
    }
    let mut out = BTreeSet::from([name.to_string()]);
    if let Some(role) = catalog.roles.get(name) {
        out.extend(role.member_of.iter().cloned());
    }
    out
}

fn grant(catalog: &mut Catalog, role: &str, grantee: &str) -> CqlResult<Vec<CatalogOp>> {
    existing(catalog, role)?;
    existing(catalog, grantee)?;
    if granted(catalog, grantee, true).contains(role) {
        return Err(AccessError::AlreadyGranted {
            role: role.to_string(),
            grantee: grantee.to_string(),
        }
        .into());
    }
    if granted(catalog, role, true).contains(grantee) {
        return Err(AccessError::CircularGrant {
            role: role.to_string(),
            grantee: grantee.to_string(),
        }
        .into());
    }
    let Some(target) = catalog.roles.get_mut(grantee) else {
        return Err(missing(grantee));
    };
    target.member_of.insert(role.to_string());
    Ok(vec![CatalogOp::PutRole(target.clone())])
}

fn revoke(catalog: &mut Catalog, role: &str, revokee: &str) -> CqlResult<Vec<CatalogOp>> {
    existing(catalog, role)?;
    existing(catalog, revokee)?;
    let Some(target) = catalog.roles.get_mut(revokee) else {
        return Err(missing(revokee));
    };
    if !target.member_of.remove(role) {
        return Err(AccessError::NotGranted {
            role: role.to_string(),
            revokee: revokee.to_string(),
        }
        .into());
    }
    Ok(vec![CatalogOp::PutRole(target.clone())])
}

/// `LIST ROLES` (`role`, `super`, `login`, `options`, `datacenters`) or `LIST USERS` (`name`,
/// `super`, `datacenters`: roles that can log in), sorted by name; Void when there are none.
fn list(
    catalog: &Catalog,
    of: Option<&str>,
    recursive: bool,
    users: bool,
) -> CqlResult<ResultBody> {
    let names: Vec<String> = match of {
        Some(name) => {
            existing(catalog, name)?;
            granted(catalog, name, recursive).into_iter().collect()
        }
        None => catalog.roles.keys().cloned().collect(),
    };
    let roles: Vec<&RoleDef> = names
        .iter()
        .filter_map(|name| catalog.roles.get(name))
        .filter(|role| !users || role.can_login)
        .collect();
    if roles.is_empty() {
        return Ok(ResultBody::Void);
    }
    let spec = |name: &str, ty: ColumnType| ColumnSpec {
        keyspace: "system_auth".into(),
        table: "roles".into(),
        name: name.into(),
        ty,
    };
    let text = |s: &str| Some(Bytes::copy_from_slice(s.as_bytes()));
    let boolean = |b: bool| Some(Bytes::from(vec![u8::from(b)]));
    let (columns, rows): (Vec<ColumnSpec>, Vec<Vec<Option<Bytes>>>) = if users {
        (
            vec![
                spec("name", ColumnType::Text),
                spec("super", ColumnType::Boolean),
                spec("datacenters", ColumnType::Text),
            ],
            roles
                .iter()
                .map(|r| vec![text(&r.name), boolean(r.is_superuser), text("ALL")])
                .collect(),
        )
    } else {
        let options = ColumnType::Map {
            key: Box::new(ColumnType::Text),
            value: Box::new(ColumnType::Text),
            frozen: false,
        };
        let empty_map = {
            let mut out = Vec::new();
            codec::serialize_value(&CqlValue::Map(Vec::new()), &mut out);
            Some(Bytes::from(out))
        };
        (
            vec![
                spec("role", ColumnType::Text),
                spec("super", ColumnType::Boolean),
                spec("login", ColumnType::Boolean),
                spec("options", options),
                spec("datacenters", ColumnType::Text),
            ],
            roles
                .iter()
                .map(|r| {
                    vec![
                        text(&r.name),
                        boolean(r.is_superuser),
                        boolean(r.can_login),
                        empty_map.clone(),
                        text("ALL"),
                    ]
                })
                .collect(),
        )
    };
    Ok(ResultBody::Rows(Rows {
        metadata: ResultMetadata::describing(columns.into()),
        rows,
    }))
}
