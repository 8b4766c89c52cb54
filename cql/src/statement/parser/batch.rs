//! `batchStatement`: `BEGIN [UNLOGGED | COUNTER] BATCH [USING ...] (stmt ;?)* APPLY BATCH`.

use super::{Parser, Result};
use crate::statement::ast::{Batch, BatchKind, Statement};

impl Parser<'_> {
    /// A batch of INSERT, UPDATE and DELETE statements; `;` between them is optional.
    pub(crate) fn batch_statement(&mut self) -> Result<Statement> {
        self.expect_kw("begin")?;
        let kind = if self.eat_kw("unlogged") {
            BatchKind::Unlogged
        } else if self.eat_kw("counter") {
            BatchKind::Counter
        } else {
            BatchKind::Logged
        };
        self.expect_kw("batch")?;
        let using = self.using_clause()?;
        let mut statements = Vec::new();
        loop {
            let kw = self.keyword_text().unwrap_or_default();
            let statement = match kw.as_str() {
                "insert" => self.insert_statement()?,
                "update" => self.update_statement()?,
                "delete" => self.delete_statement()?,
                "apply" => break,
                _ => return Err(self.expected("K_APPLY")),
            };
            statements.push(statement);
            self.eat_punct(";");
        }
        self.expect_kw("apply")?;
        self.expect_kw("batch")?;
        Ok(Statement::Batch(Box::new(Batch {
            kind,
            using,
            statements,
        })))
    }
}
