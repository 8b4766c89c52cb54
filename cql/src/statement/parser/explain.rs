//! `EXPLAIN [ANALYZE] statement`: our extension (Cassandra has no EXPLAIN). Only the
//! statements that read or write rows by key can be explained.

use super::{Parser, Result};
use crate::statement::ast::{Explain, Statement};

impl Parser<'_> {
    /// `EXPLAIN [ANALYZE] (selectStatement | insertStatement | updateStatement |
    /// deleteStatement)`.
    pub(crate) fn explain_statement(&mut self) -> Result<Statement> {
        self.expect_kw("explain")?;
        let analyze = self.eat_kw("analyze");
        let statement = match self.keyword_text().as_deref() {
            Some("select") => self.select_statement()?,
            Some("insert") => self.insert_statement()?,
            Some("update") => self.update_statement()?,
            Some("delete") => self.delete_statement()?,
            _ => return Err(self.expected("SELECT, INSERT, UPDATE or DELETE")),
        };
        Ok(Statement::Explain(Box::new(Explain { analyze, statement })))
    }
}
