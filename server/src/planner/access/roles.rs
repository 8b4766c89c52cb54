//! Role statements planned (`CREATE/ALTER/DROP ROLE|USER`, `GRANT/REVOKE role`, `LIST
//! ROLES|USERS`), with `CassandraRoleManager`'s checks and messages, against the catalog's
//! roles.

use std::collections::BTreeSet;

use bytes::Bytes;
use cql::statement::ast::{RoleOptions, RoleStatement};
use cql::types::{codec, ColumnType, CqlValue};
use storage::{Catalog, CatalogOp, RoleDef};

use super::password::{hash_password, is_bcrypt_hash};
use super::resource::{holds, roles_of, Resource};
use super::{boolean_cell, text_cell, AccessContext, AccessPlan, AccessRows};
use crate::error::{AccessError, CqlError, CqlResult, UnauthorizedError};

/// The role running the statement.
struct Caller<'a> {
    name: &'a str,
    is_super: bool,
    /// Whether CassandraAuthorizer is in force (permissions are then checked).
    authorizing: bool,
}

/// Plans a role statement for `context.user`: its permission first (when authorizing),
/// then the listing or the change.
pub(super) fn plan(
    current: &Catalog,
    statement: &RoleStatement,
    context: AccessContext<'_>,
) -> CqlResult<AccessPlan> {
    let user = context.user;
    if context.authorizing {
        check_permission(current, user, statement)?;
    }
    if let RoleStatement::List {
        of,
        recursive,
        users,
    } = statement
    {
        return list_visible(current, context, of.as_deref(), *recursive, *users);
    }
    let me = Caller {
        name: user,
        is_super: is_superuser(current, user),
        authorizing: context.authorizing,
    };
    let mut catalog = current.clone();
    let (ops, grant_to_creator) = match statement {
        RoleStatement::Create {
            name,
            if_not_exists,
            options,
            ..
        } => {
            let ops = create(&mut catalog, &me, name, *if_not_exists, options)?;
            // As `CreateRoleStatement.execute`: no grant when IF NOT EXISTS created nothing.
            let created = (!ops.is_empty()).then(|| Resource::Role(name.clone()));
            (ops, created)
        }
        RoleStatement::Alter {
            name,
            if_exists,
            options,
            ..
        } => (alter(&mut catalog, &me, name, *if_exists, options)?, None),
        RoleStatement::Drop {
            name, if_exists, ..
        } => (drop_role(&mut catalog, &me, name, *if_exists)?, None),
        RoleStatement::Grant { role, grantee } => (grant(&mut catalog, role, grantee)?, None),
        RoleStatement::Revoke { role, revokee } => (revoke(&mut catalog, role, revokee)?, None),
        RoleStatement::List { .. } => (Vec::new(), None),
    };
    Ok(AccessPlan::Change {
        ops,
        catalog,
        grant_to_creator,
    })
}

/// `LIST ROLES|USERS [OF of]` as `context.user` may see it: everything with DESCRIBE on all
/// roles (or no authorizer), else only roles the user holds (its own by default).
fn list_visible(
    current: &Catalog,
    context: AccessContext<'_>,
    of: Option<&str>,
    recursive: bool,
    users: bool,
) -> CqlResult<AccessPlan> {
    let user = context.user;
    let everything = !context.authorizing || holds(current, user, "DESCRIBE", &Resource::AllRoles);
    let of = match of {
        _ if everything => of,
        Some(of) if !roles_of(current, user).contains(of) => {
            return Err(UnauthorizedError::ViewRolesOf { role: of.into() }.into())
        }
        Some(of) => Some(of),
        None => Some(user),
    };
    list(current, of, recursive, users).map(AccessPlan::Rows)
}

/// CassandraAuthorizer's checks on role statements (`AuthenticationStatement.checkPermission`,
/// with its own message): CREATE on all roles, DROP or AUTHORIZE on the role. ALTER ROLE
/// checks its own, after its superuser checks (see [`alter`]).
fn check_permission(catalog: &Catalog, user: &str, statement: &RoleStatement) -> CqlResult<()> {
    let needed = match statement {
        RoleStatement::Create { .. } => ("CREATE", Resource::AllRoles),
        RoleStatement::Drop { name, .. } => ("DROP", Resource::Role(name.clone())),
        RoleStatement::Grant { role, .. } | RoleStatement::Revoke { role, .. } => {
            ("AUTHORIZE", Resource::Role(role.clone()))
        }
        RoleStatement::Alter { .. } | RoleStatement::List { .. } => return Ok(()),
    };
    ensure_role_permission(catalog, user, needed.0, &needed.1)
}

/// `user` holds `permission` on `resource`, else Cassandra's role-statement refusal.
fn ensure_role_permission(
    catalog: &Catalog,
    user: &str,
    permission: &str,
    resource: &Resource,
) -> CqlResult<()> {
    if holds(catalog, user, permission, resource) {
        return Ok(());
    }
    Err(UnauthorizedError::InsufficientPrivileges {
        user: user.to_string(),
    }
    .into())
}

/// Whether `user` is a superuser, directly or through a role granted to it.
fn is_superuser(catalog: &Catalog, user: &str) -> bool {
    roles_of(catalog, user)
        .iter()
        .any(|r| catalog.roles.get(r).is_some_and(|d| d.is_superuser))
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
        Some(_) => Err(AccessError::CustomOptions.into()),
        None => Ok(()),
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

/// ALTER ROLE, checked as `AlterRoleStatement` checks it: the superuser flag first (never
/// one's own, nor that of a role one holds; only by superusers), then — for others than
/// superusers — only the password of one's own role, or ALTER on another role; then the
/// options and the role's existence.
fn alter(
    catalog: &mut Catalog,
    me: &Caller<'_>,
    name: &str,
    if_exists: bool,
    options: &RoleOptions,
) -> CqlResult<Vec<CatalogOp>> {
    if options.superuser.is_some() {
        if roles_of(catalog, me.name).contains(name) {
            return Err(UnauthorizedError::AlterOwnSuperuser.into());
        }
        if !me.is_super {
            return Err(UnauthorizedError::AlterSuperuser.into());
        }
    }
    if !me.is_super {
        if name == me.name {
            if let Some(option) = not_alterable_by_self(options) {
                return Err(UnauthorizedError::NotAlterable { option }.into());
            }
        } else if me.authorizing {
            ensure_role_permission(catalog, me.name, "ALTER", &Resource::Role(name.to_string()))?;
        }
    }
    check_options(options)?;
    let Some(current) = catalog.roles.get(name) else {
        if if_exists {
            return Ok(Vec::new());
        }
        return Err(AccessError::NoSuchRole {
            role: name.to_string(),
        }
        .into());
    };
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

/// The first option (as `IRoleManager.Option` names it) a role may not alter on itself:
/// CassandraRoleManager lets it alter its password only.
fn not_alterable_by_self(options: &RoleOptions) -> Option<&'static str> {
    if options.login.is_some() {
        return Some("LOGIN");
    }
    if options.options.is_some() {
        return Some("OPTIONS");
    }
    None
}

/// DROP ROLE, checked as `DropRoleStatement` checks it: a superuser role only by a
/// superuser, then the role's existence, then never one's own role. Every permission on the
/// role goes with it (`revokeAllOn`), and it leaves the roles it was granted to.
fn drop_role(
    catalog: &mut Catalog,
    me: &Caller<'_>,
    name: &str,
    if_exists: bool,
) -> CqlResult<Vec<CatalogOp>> {
    let Some(role) = catalog.roles.get(name) else {
        if if_exists {
            return Ok(Vec::new());
        }
        return Err(missing(name));
    };
    if role.is_superuser && !me.is_super {
        return Err(UnauthorizedError::DropSuperuser.into());
    }
    if name == me.name {
        return Err(AccessError::DropOwnRole.into());
    }
    catalog.roles.remove(name);
    let mut ops = vec![CatalogOp::DropRole(name.to_string())];
    let resource = Resource::Role(name.to_string()).name();
    for member in catalog.roles.values_mut() {
        let was_member = member.member_of.remove(name);
        let held = member.permissions.remove(&resource).is_some();
        if was_member || held {
            ops.push(CatalogOp::PutRole(member.clone()));
        }
    }
    Ok(ops)
}

/// `name` and the roles granted to it: directly, or also through other roles.
fn granted(catalog: &Catalog, name: &str, recursive: bool) -> BTreeSet<String> {
    if recursive {
        return roles_of(catalog, name);
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
/// `super`, `datacenters`: roles that can log in), sorted by name; VOID when there are none.
fn list(
    catalog: &Catalog,
    of: Option<&str>,
    recursive: bool,
    users: bool,
) -> CqlResult<AccessRows> {
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
    if users {
        let columns = vec![
            ("name", ColumnType::Text),
            ("super", ColumnType::Boolean),
            ("datacenters", ColumnType::Text),
        ];
        let rows = roles
            .iter()
            .map(|r| {
                vec![
                    text_cell(&r.name),
                    boolean_cell(r.is_superuser),
                    text_cell("ALL"),
                ]
            })
            .collect();
        return Ok(AccessRows::new("roles", columns, rows));
    }
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
    let columns = vec![
        ("role", ColumnType::Text),
        ("super", ColumnType::Boolean),
        ("login", ColumnType::Boolean),
        ("options", options),
        ("datacenters", ColumnType::Text),
    ];
    let rows = roles
        .iter()
        .map(|r| {
            vec![
                text_cell(&r.name),
                boolean_cell(r.is_superuser),
                boolean_cell(r.can_login),
                empty_map.clone(),
                text_cell("ALL"),
            ]
        })
        .collect();
    Ok(AccessRows::new("roles", columns, rows))
}
