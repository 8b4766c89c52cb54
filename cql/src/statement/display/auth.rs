//! `Display` for role and permission statements. Passwords print as `'***'`: statements
//! reach logs, secrets never.

use std::fmt::{self, Formatter};

use super::clause::quote_string;
use crate::statement::ast::{AuthResource, PermissionStatement, RoleOptions, RoleStatement};

/// Role statements print with their passwords hidden: statements reach logs, secrets never.
impl fmt::Display for RoleStatement {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            RoleStatement::Create {
                name,
                if_not_exists,
                options,
                user,
            } => {
                let condition = if *if_not_exists { "IF NOT EXISTS " } else { "" };
                role_head(f, "CREATE", *user, condition, name)?;
                write!(f, "{}", RoleOptionsText(options))
            }
            RoleStatement::Alter {
                name,
                if_exists,
                options,
                user,
            } => {
                let condition = if *if_exists { "IF EXISTS " } else { "" };
                role_head(f, "ALTER", *user, condition, name)?;
                write!(f, "{}", RoleOptionsText(options))
            }
            RoleStatement::Drop {
                name,
                if_exists,
                user,
            } => {
                let condition = if *if_exists { "IF EXISTS " } else { "" };
                role_head(f, "DROP", *user, condition, name)
            }
            RoleStatement::List { users: true, .. } => f.write_str("LIST USERS"),
            RoleStatement::List { of, recursive, .. } => list_roles(f, of.as_deref(), *recursive),
            RoleStatement::Grant { role, grantee } => {
                write!(
                    f,
                    "GRANT {} TO {}",
                    quote_string(role),
                    quote_string(grantee)
                )
            }
            RoleStatement::Revoke { role, revokee } => {
                write!(
                    f,
                    "REVOKE {} FROM {}",
                    quote_string(role),
                    quote_string(revokee)
                )
            }
        }
    }
}

/// `verb ROLE|USER condition'name'`, e.g. `CREATE USER IF NOT EXISTS 'bob'`; `condition` is
/// empty or ends in a space.
fn role_head(
    f: &mut Formatter<'_>,
    verb: &str,
    user: bool,
    condition: &str,
    name: &str,
) -> fmt::Result {
    let noun = if user { "USER" } else { "ROLE" };
    write!(f, "{verb} {noun} {condition}{}", quote_string(name))
}

/// `LIST ROLES [OF 'name'] [NORECURSIVE]`.
fn list_roles(f: &mut Formatter<'_>, of: Option<&str>, recursive: bool) -> fmt::Result {
    f.write_str("LIST ROLES")?;
    if let Some(of) = of {
        write!(f, " OF {}", quote_string(of))?;
    }
    if !recursive {
        f.write_str(" NORECURSIVE")?;
    }
    Ok(())
}

/// ` WITH ...` for the options given, passwords as `'***'`.
struct RoleOptionsText<'a>(&'a RoleOptions);

impl fmt::Display for RoleOptionsText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = self.0;
        let mut parts = Vec::new();
        if o.password.is_some() {
            parts.push("PASSWORD = '***'".to_string());
        }
        if o.hashed_password.is_some() {
            parts.push("HASHED PASSWORD = '***'".to_string());
        }
        if let Some(login) = o.login {
            parts.push(format!("LOGIN = {login}"));
        }
        if let Some(superuser) = o.superuser {
            parts.push(format!("SUPERUSER = {superuser}"));
        }
        if let Some(options) = &o.options {
            let entries: Vec<String> = options
                .iter()
                .map(|(k, v)| format!("'{k}': '{v}'"))
                .collect();
            parts.push(format!("OPTIONS = {{{}}}", entries.join(", ")));
        }
        if parts.is_empty() {
            return Ok(());
        }
        write!(f, " WITH {}", parts.join(" AND "))
    }
}

impl fmt::Display for AuthResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthResource::AllKeyspaces => f.write_str("ALL KEYSPACES"),
            AuthResource::Keyspace(ks) => write!(f, "KEYSPACE {ks}"),
            AuthResource::Table(name) => write!(f, "TABLE {name}"),
            AuthResource::AllRoles => f.write_str("ALL ROLES"),
            AuthResource::Role(name) => write!(f, "ROLE '{}'", name.replace('\'', "''")),
            AuthResource::AllFunctions => f.write_str("ALL FUNCTIONS"),
            AuthResource::FunctionsIn(ks) => write!(f, "ALL FUNCTIONS IN KEYSPACE {ks}"),
            AuthResource::Function { name, args } => {
                let args: Vec<String> = args.iter().map(ToString::to_string).collect();
                write!(f, "FUNCTION {name}({})", args.join(", "))
            }
            AuthResource::AllMbeans => f.write_str("ALL MBEANS"),
            AuthResource::Mbean { name, pattern } => {
                let word = if *pattern { "MBEANS" } else { "MBEAN" };
                write!(f, "{word} '{}'", name.replace('\'', "''"))
            }
        }
    }
}

impl fmt::Display for PermissionStatement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let perms = |p: &Option<Vec<String>>| match p {
            None => "ALL PERMISSIONS".to_string(),
            Some(names) => names.join(", "),
        };
        let quoted = |role: &str| role.replace('\'', "''");
        match self {
            PermissionStatement::Grant {
                permissions,
                resource,
                role,
            } => write!(
                f,
                "GRANT {} ON {resource} TO '{}'",
                perms(permissions),
                quoted(role)
            ),
            PermissionStatement::Revoke {
                permissions,
                resource,
                role,
            } => write!(
                f,
                "REVOKE {} ON {resource} FROM '{}'",
                perms(permissions),
                quoted(role)
            ),
            PermissionStatement::List {
                permissions,
                resource,
                of,
                recursive,
            } => {
                write!(f, "LIST {}", perms(permissions))?;
                if let Some(resource) = resource {
                    write!(f, " ON {resource}")?;
                }
                if let Some(of) = of {
                    write!(f, " OF '{}'", quoted(of))?;
                }
                if !recursive {
                    f.write_str(" NORECURSIVE")?;
                }
                Ok(())
            }
        }
    }
}
