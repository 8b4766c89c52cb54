//! Role statements (Cassandra's `Parser.g`: `createRoleStatement`, `createUserStatement`,
//! `alterRoleStatement`, `alterUserStatement`, `dropRoleStatement`, `dropUserStatement`,
//! `listRolesStatement`, `listUsersStatement`, `grantRoleStatement`, `revokeRoleStatement`).

use super::{Parser, Result};
use crate::statement::ast::{RoleOptions, RoleStatement, Statement};
use crate::statement::lexer::TokenKind;

impl Parser<'_> {
    /// `CREATE ROLE|USER ...`, after `CREATE`.
    pub(crate) fn create_role(&mut self) -> Result<Statement> {
        let user = self.eat_kw("user");
        if !user {
            self.expect_kw("role")?;
        }
        let if_not_exists = self.if_not_exists()?;
        let name = self.role_name(user)?;
        let options = if user {
            self.user_options()?
        } else if self.eat_kw("with") {
            self.role_options()?
        } else {
            RoleOptions::default()
        };
        Ok(Statement::Role(RoleStatement::Create {
            name,
            if_not_exists,
            options,
            user,
        }))
    }

    /// `ALTER ROLE|USER ...`, after `ALTER`.
    pub(crate) fn alter_role(&mut self) -> Result<Statement> {
        let user = self.eat_kw("user");
        if !user {
            self.expect_kw("role")?;
        }
        let if_exists = self.if_exists()?;
        let name = self.role_name(user)?;
        let options = if user {
            self.user_options()?
        } else {
            self.expect_kw("with")?;
            self.role_options()?
        };
        Ok(Statement::Role(RoleStatement::Alter {
            name,
            if_exists,
            options,
            user,
        }))
    }

    /// `DROP ROLE|USER [IF EXISTS] name`, after `DROP`.
    pub(crate) fn drop_role(&mut self) -> Result<Statement> {
        let user = self.eat_kw("user");
        if !user {
            self.expect_kw("role")?;
        }
        let if_exists = self.if_exists()?;
        let name = self.role_name(user)?;
        Ok(Statement::Role(RoleStatement::Drop {
            name,
            if_exists,
            user,
        }))
    }

    /// `LIST ROLES [OF name] [NORECURSIVE]` or `LIST USERS`.
    pub(crate) fn list_statement(&mut self) -> Result<Statement> {
        self.expect_kw("list")?;
        if self.at_permissions() {
            return self.list_permissions();
        }
        if self.eat_kw("users") {
            return Ok(Statement::Role(RoleStatement::List {
                of: None,
                recursive: true,
                users: true,
            }));
        }
        self.expect_kw("roles")?;
        let of = if self.eat_kw("of") {
            Some(self.role_name(false)?)
        } else {
            None
        };
        let recursive = !self.eat_kw("norecursive");
        Ok(Statement::Role(RoleStatement::List {
            of,
            recursive,
            users: false,
        }))
    }

    /// `GRANT role TO grantee`.
    pub(crate) fn grant_statement(&mut self) -> Result<Statement> {
        self.expect_kw("grant")?;
        if self.at_permissions() {
            return self.grant_permissions();
        }
        let role = self.role_name(false)?;
        self.expect_kw("to")?;
        let grantee = self.role_name(false)?;
        Ok(Statement::Role(RoleStatement::Grant { role, grantee }))
    }

    /// `REVOKE role FROM revokee`.
    pub(crate) fn revoke_statement(&mut self) -> Result<Statement> {
        self.expect_kw("revoke")?;
        if self.at_permissions() {
            return self.revoke_permissions();
        }
        let role = self.role_name(false)?;
        self.expect_kw("from")?;
        let revokee = self.role_name(false)?;
        Ok(Statement::Role(RoleStatement::Revoke { role, revokee }))
    }

    /// `userOrRoleName` (an unquoted name lower-cased, a quoted name or a string literal as
    /// written) or, for the `USER` forms, `username`, which refuses quoted names.
    fn role_name(&mut self, user: bool) -> Result<String> {
        let name = match self.peek() {
            TokenKind::String(s) => s.clone(),
            TokenKind::QuotedName(_) if user => {
                return Err(self.invalid(
                    "Quoted strings are are not supported for user names and USER is deprecated, please use ROLE",
                ))
            }
            TokenKind::QMark => {
                return Err(self.recognition(
                    "Bind variables cannot be used for role names".into(),
                ))
            }
            _ => return Ok(self.ident()?.name),
        };
        self.advance();
        Ok(name)
    }

    /// `roleOption (AND roleOption)*`.
    fn role_options(&mut self) -> Result<RoleOptions> {
        let mut options = RoleOptions::default();
        loop {
            if self.eat_kw("password") {
                self.expect_punct("=")?;
                options.password = Some(self.string_literal()?);
            } else if self.eat_kws(&["hashed", "password"]) {
                self.expect_punct("=")?;
                options.hashed_password = Some(self.string_literal()?);
            } else if self.eat_kw("login") {
                self.expect_punct("=")?;
                options.login = Some(self.boolean()?);
            } else if self.eat_kw("superuser") {
                self.expect_punct("=")?;
                options.superuser = Some(self.boolean()?);
            } else if self.eat_kw("options") {
                self.expect_punct("=")?;
                options.options = Some(self.string_map()?);
            } else {
                return Err(self.no_viable());
            }
            if !self.eat_kw("and") {
                return Ok(options);
            }
        }
    }

    /// `[WITH [HASHED] PASSWORD 'text'] [SUPERUSER | NOSUPERUSER]` of the `USER` forms.
    fn user_options(&mut self) -> Result<RoleOptions> {
        let mut options = RoleOptions {
            login: Some(true),
            ..RoleOptions::default()
        };
        if self.eat_kw("with") {
            if self.eat_kw("hashed") {
                self.expect_kw("password")?;
                options.hashed_password = Some(self.string_literal()?);
            } else {
                self.expect_kw("password")?;
                options.password = Some(self.string_literal()?);
            }
        }
        if self.eat_kw("superuser") {
            options.superuser = Some(true);
        } else if self.eat_kw("nosuperuser") {
            options.superuser = Some(false);
        }
        Ok(options)
    }

    fn string_literal(&mut self) -> Result<String> {
        match self.peek() {
            TokenKind::String(s) => {
                let s = s.clone();
                self.advance();
                Ok(s)
            }
            _ => Err(self.expected("STRING_LITERAL")),
        }
    }

    fn boolean(&mut self) -> Result<bool> {
        match self.peek() {
            TokenKind::Boolean(b) => {
                let b = *b;
                self.advance();
                Ok(b)
            }
            _ => Err(self.expected("BOOLEAN")),
        }
    }

    /// `{ 'k': 'v', ... }`.
    fn string_map(&mut self) -> Result<Vec<(String, String)>> {
        self.expect_punct("{")?;
        let mut entries = Vec::new();
        if self.eat_punct("}") {
            return Ok(entries);
        }
        loop {
            let key = self.string_literal()?;
            self.expect_punct(":")?;
            let value = self.string_literal()?;
            entries.push((key, value));
            if self.eat_punct("}") {
                return Ok(entries);
            }
            self.expect_punct(",")?;
        }
    }
}
