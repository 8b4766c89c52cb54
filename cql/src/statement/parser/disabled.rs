//! `CREATE`/`DROP` of user-defined functions, aggregates and triggers: parsed (so they are
//! refused with Cassandra's message rather than a syntax error), never run. A function or
//! aggregate body is not parsed: everything after its name up to the end of the statement
//! is skipped.

use super::{Parser, Result};
use crate::statement::ast::{DisabledDdl, Statement};
use crate::statement::lexer::TokenKind;

impl Parser<'_> {
    /// After `CREATE`: `[OR REPLACE] FUNCTION | AGGREGATE [IF NOT EXISTS] name ...`.
    pub(crate) fn create_function(&mut self) -> Result<Statement> {
        if self.eat_kw("or") {
            self.expect_kw("replace")?;
        }
        let aggregate = if self.eat_kw("aggregate") {
            true
        } else {
            self.expect_kw("function")?;
            false
        };
        self.if_not_exists()?;
        let name = self.qualified_name()?;
        self.expect_punct("(")?;
        while !self.at_eof() && !self.is_punct(";") {
            self.advance();
        }
        Ok(Statement::Disabled(DisabledDdl::CreateFunction {
            name,
            aggregate,
        }))
    }

    /// After `DROP`: `FUNCTION | AGGREGATE [IF EXISTS] name [(type, ...)]`.
    pub(crate) fn drop_function(&mut self) -> Result<Statement> {
        let aggregate = if self.eat_kw("aggregate") {
            true
        } else {
            self.expect_kw("function")?;
            false
        };
        let if_exists = self.if_exists()?;
        let name = self.qualified_name()?;
        let args = if self.eat_punct("(") {
            let mut types = Vec::new();
            if !self.is_punct(")") {
                types.push(self.cql_type()?);
                while self.eat_punct(",") {
                    types.push(self.cql_type()?);
                }
            }
            self.expect_punct(")")?;
            Some(types)
        } else {
            None
        };
        Ok(Statement::Disabled(DisabledDdl::DropFunction {
            name,
            aggregate,
            args,
            if_exists,
        }))
    }

    /// After `CREATE`: `TRIGGER [IF NOT EXISTS] name ON table USING 'class'`.
    pub(crate) fn create_trigger(&mut self) -> Result<Statement> {
        self.expect_kw("trigger")?;
        let if_not_exists = self.if_not_exists()?;
        let name = self.ident()?;
        self.expect_kw("on")?;
        let table = self.qualified_name()?;
        self.expect_kw("using")?;
        let TokenKind::String(class) = self.peek().clone() else {
            return Err(self.expected("STRING_LITERAL"));
        };
        self.advance();
        Ok(Statement::Disabled(DisabledDdl::CreateTrigger {
            name,
            table,
            class,
            if_not_exists,
        }))
    }

    /// After `DROP`: `TRIGGER [IF EXISTS] name ON table`.
    pub(crate) fn drop_trigger(&mut self) -> Result<Statement> {
        self.expect_kw("trigger")?;
        let if_exists = self.if_exists()?;
        let name = self.ident()?;
        self.expect_kw("on")?;
        let table = self.qualified_name()?;
        Ok(Statement::Disabled(DisabledDdl::DropTrigger {
            name,
            table,
            if_exists,
        }))
    }
}
