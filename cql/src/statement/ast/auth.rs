//! Access control: role management and permissions on resources.

use super::term::{CqlType, Ident, QualifiedName};

/// A role statement: who may log in and which roles hold which (Cassandra's role
/// management; `USER` forms are the legacy spellings).
#[derive(Debug, Clone, PartialEq)]
pub enum RoleStatement {
    /// `CREATE ROLE [IF NOT EXISTS] name [WITH options]`, `CREATE USER ...`.
    Create {
        /// The role name.
        name: String,
        /// `IF NOT EXISTS`.
        if_not_exists: bool,
        /// The options given.
        options: RoleOptions,
        /// Written as `CREATE USER` (which implies `LOGIN = true`).
        user: bool,
    },
    /// `ALTER ROLE [IF EXISTS] name WITH options`, `ALTER USER ...`.
    Alter {
        /// The role name.
        name: String,
        /// `IF EXISTS`.
        if_exists: bool,
        /// The options given.
        options: RoleOptions,
        /// Written as `ALTER USER`.
        user: bool,
    },
    /// `DROP ROLE [IF EXISTS] name`, `DROP USER ...`.
    Drop {
        /// The role name.
        name: String,
        /// `IF EXISTS`.
        if_exists: bool,
        /// Written as `DROP USER`.
        user: bool,
    },
    /// `LIST ROLES [OF name] [NORECURSIVE]`, `LIST USERS`.
    List {
        /// `OF name`.
        of: Option<String>,
        /// Without `NORECURSIVE`: the roles granted through other roles too.
        recursive: bool,
        /// Written as `LIST USERS`.
        users: bool,
    },
    /// `GRANT role TO grantee`.
    Grant {
        /// The role granted.
        role: String,
        /// The role it is granted to.
        grantee: String,
    },
    /// `REVOKE role FROM revokee`.
    Revoke {
        /// The role revoked.
        role: String,
        /// The role it is revoked from.
        revokee: String,
    },
}

/// The options of `CREATE ROLE` / `ALTER ROLE` (and the `USER` forms).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RoleOptions {
    /// `PASSWORD = '...'`.
    pub password: Option<String>,
    /// `HASHED PASSWORD = '...'` (a bcrypt hash).
    pub hashed_password: Option<String>,
    /// `LOGIN = true|false`.
    pub login: Option<bool>,
    /// `SUPERUSER = true|false` (`SUPERUSER` / `NOSUPERUSER` for users).
    pub superuser: Option<bool>,
    /// `OPTIONS = {...}`.
    pub options: Option<Vec<(String, String)>>,
}

impl RoleOptions {
    /// Whether no option was given.
    pub fn is_empty(&self) -> bool {
        *self == RoleOptions::default()
    }
}

/// A resource permissions are granted on (Cassandra's `DataResource`, `RoleResource`,
/// `FunctionResource` and `JMXResource`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthResource {
    /// `ALL KEYSPACES`.
    AllKeyspaces,
    /// `KEYSPACE ks`.
    Keyspace(Ident),
    /// `[TABLE] [ks.]table`.
    Table(QualifiedName),
    /// `ALL ROLES`.
    AllRoles,
    /// `ROLE name`.
    Role(String),
    /// `ALL FUNCTIONS`.
    AllFunctions,
    /// `ALL FUNCTIONS IN KEYSPACE ks`.
    FunctionsIn(Ident),
    /// `FUNCTION [ks.]name(type, ...)`.
    Function {
        /// The function's name, as written.
        name: QualifiedName,
        /// Its argument types.
        args: Vec<CqlType>,
    },
    /// `ALL MBEANS`.
    AllMbeans,
    /// `MBEAN 'name'` (`pattern`: false) or `MBEANS 'pattern'` (true).
    Mbean {
        /// The JMX object name or pattern.
        name: String,
        /// Whether the `MBEANS` form was used.
        pattern: bool,
    },
}

/// `GRANT`, `REVOKE` and `LIST` of permissions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionStatement {
    /// `GRANT permissions ON resource TO role`.
    Grant {
        /// The permissions (upper-case names); `None` for `ALL [PERMISSIONS]`.
        permissions: Option<Vec<String>>,
        /// The resource.
        resource: AuthResource,
        /// The grantee.
        role: String,
    },
    /// `REVOKE permissions ON resource FROM role`.
    Revoke {
        /// The permissions; `None` for `ALL [PERMISSIONS]`.
        permissions: Option<Vec<String>>,
        /// The resource.
        resource: AuthResource,
        /// The role they are revoked from.
        role: String,
    },
    /// `LIST permissions [ON resource] [OF role] [NORECURSIVE]`.
    List {
        /// The permissions asked about; `None` for `ALL [PERMISSIONS]`.
        permissions: Option<Vec<String>>,
        /// `ON resource`.
        resource: Option<AuthResource>,
        /// `OF role`.
        of: Option<String>,
        /// Without `NORECURSIVE`: permissions held through granted roles, and on the
        /// resource's parents, too.
        recursive: bool,
    },
}
