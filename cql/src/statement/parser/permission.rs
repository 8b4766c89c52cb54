//! Permission statements (Cassandra's `grantPermissionsStatement`,
//! `revokePermissionsStatement`, `listPermissionsStatement`), and the choice between them and
//! the role forms of `GRANT`, `REVOKE` and `LIST`.

use super::{Parser, Result};
use crate::statement::ast::{AuthResource, PermissionStatement, Statement};
use crate::statement::lexer::TokenKind;

/// Cassandra 5.0's permission names.
const PERMISSIONS: [&str; 10] = [
    "create",
    "alter",
    "drop",
    "select",
    "modify",
    "authorize",
    "describe",
    "execute",
    "unmask",
    "select_masked",
];

impl Parser<'_> {
    /// Whether `GRANT`/`REVOKE`/`LIST` continue with permissions rather than a role: a
    /// permission name or `ALL`, followed by `ON`, `PERMISSION(S)`, `OF` or the end.
    pub(crate) fn at_permissions(&self) -> bool {
        let first = matches!(self.peek(), TokenKind::Ident(w)
            if w.eq_ignore_ascii_case("all") || PERMISSIONS.iter().any(|p| w.eq_ignore_ascii_case(p)));
        first
            && (["on", "permission", "permissions", "of", "norecursive"]
                .iter()
                .any(|kw| self.is_kw_at(1, kw))
                || self.is_punct_at(1, ",")
                || matches!(self.peek_at(1), TokenKind::Eof))
    }

    /// `GRANT permissions ON resource TO role`, after `GRANT`.
    pub(crate) fn grant_permissions(&mut self) -> Result<Statement> {
        let permissions = self.permissions()?;
        self.expect_kw("on")?;
        let resource = self.resource()?;
        self.expect_kw("to")?;
        let role = self.permission_role()?;
        Ok(Statement::Permission(PermissionStatement::Grant {
            permissions,
            resource,
            role,
        }))
    }

    /// `REVOKE permissions ON resource FROM role`, after `REVOKE`.
    pub(crate) fn revoke_permissions(&mut self) -> Result<Statement> {
        let permissions = self.permissions()?;
        self.expect_kw("on")?;
        let resource = self.resource()?;
        self.expect_kw("from")?;
        let role = self.permission_role()?;
        Ok(Statement::Permission(PermissionStatement::Revoke {
            permissions,
            resource,
            role,
        }))
    }

    /// `LIST permissions [ON resource] [OF role] [NORECURSIVE]`, after `LIST`.
    pub(crate) fn list_permissions(&mut self) -> Result<Statement> {
        let permissions = self.permissions()?;
        let resource = if self.eat_kw("on") {
            Some(self.resource()?)
        } else {
            None
        };
        let of = if self.eat_kw("of") {
            Some(self.permission_role()?)
        } else {
            None
        };
        let recursive = !self.eat_kw("norecursive");
        Ok(Statement::Permission(PermissionStatement::List {
            permissions,
            resource,
            of,
            recursive,
        }))
    }

    /// `ALL [PERMISSIONS]` (`None`) or `permission [PERMISSION] (, ...)*`.
    fn permissions(&mut self) -> Result<Option<Vec<String>>> {
        if self.eat_kw("all") {
            self.eat_kw("permissions");
            return Ok(None);
        }
        let mut names = Vec::new();
        loop {
            let name = self.keyword_text().unwrap_or_default();
            if !PERMISSIONS.contains(&name.as_str()) {
                return Err(self.no_viable());
            }
            self.advance();
            self.eat_kw("permission");
            names.push(name.to_ascii_uppercase());
            if !self.eat_punct(",") {
                return Ok(Some(names));
            }
        }
    }

    /// `ALL KEYSPACES`, `KEYSPACE ks`, `[TABLE] [ks.]t`, `ALL ROLES`, `ROLE name`, `ALL
    /// FUNCTIONS [IN KEYSPACE ks]`, `FUNCTION [ks.]f(types)`, `ALL MBEANS`, `MBEAN[S] 'name'`.
    fn resource(&mut self) -> Result<AuthResource> {
        if self.eat_kws(&["all", "keyspaces"]) {
            return Ok(AuthResource::AllKeyspaces);
        }
        if self.eat_kws(&["all", "roles"]) {
            return Ok(AuthResource::AllRoles);
        }
        if self.eat_kws(&["all", "functions"]) {
            if self.eat_kws(&["in", "keyspace"]) {
                return Ok(AuthResource::FunctionsIn(self.ident()?));
            }
            return Ok(AuthResource::AllFunctions);
        }
        if self.eat_kws(&["all", "mbeans"]) {
            return Ok(AuthResource::AllMbeans);
        }
        if self.eat_kw("function") {
            return self.function_resource();
        }
        for (word, pattern) in [("mbean", false), ("mbeans", true)] {
            if self.eat_kw(word) {
                let TokenKind::String(name) = self.peek().clone() else {
                    return Err(self.expected("STRING_LITERAL"));
                };
                self.advance();
                return Ok(AuthResource::Mbean { name, pattern });
            }
        }
        if self.eat_kw("keyspace") {
            return Ok(AuthResource::Keyspace(self.ident()?));
        }
        if self.eat_kw("role") {
            return Ok(AuthResource::Role(self.permission_role()?));
        }
        if self.is_kw("all") {
            return Err(self.invalid("Only keyspace, table and role resources are supported"));
        }
        self.eat_kw("table");
        Ok(AuthResource::Table(self.qualified_name()?))
    }

    /// After `FUNCTION`: `[ks.]name(type, ...)`; the argument list is required.
    fn function_resource(&mut self) -> Result<AuthResource> {
        let name = self.qualified_name()?;
        self.expect_punct("(")?;
        let mut args = Vec::new();
        if !self.is_punct(")") {
            args.push(self.cql_type()?);
            while self.eat_punct(",") {
                args.push(self.cql_type()?);
            }
        }
        self.expect_punct(")")?;
        Ok(AuthResource::Function { name, args })
    }

    /// A role name: an unquoted name lower-cased, a quoted name or a string as written.
    fn permission_role(&mut self) -> Result<String> {
        if let TokenKind::String(s) = self.peek() {
            let s = s.clone();
            self.advance();
            return Ok(s);
        }
        Ok(self.ident()?.name)
    }
}
