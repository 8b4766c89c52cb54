//! `describeStatement`: `DESCRIBE | DESC` and every target of Cassandra 4.0+'s server-side
//! describe, with an optional `WITH INTERNALS`.

use super::{Parser, Result};
use crate::statement::ast::{Describe, DescribeTarget, Statement};

impl Parser<'_> {
    /// `(DESCRIBE | DESC) target [WITH INTERNALS]`.
    pub(crate) fn describe_statement(&mut self) -> Result<Statement> {
        if !self.eat_kw("describe") {
            self.expect_kw("desc")?;
        }
        let target = self.describe_target()?;
        let with_internals = if self.eat_kw("with") {
            self.expect_kw("internals")?;
            true
        } else {
            false
        };
        Ok(Statement::Describe(Describe {
            target,
            with_internals,
        }))
    }

    fn describe_target(&mut self) -> Result<DescribeTarget> {
        // A plural keyword followed by `.` is a keyspace name (`DESC tables.t`).
        let word = if self.is_punct_at(1, ".") {
            String::new()
        } else {
            self.keyword_text().unwrap_or_default()
        };
        let simple = match word.as_str() {
            "cluster" => Some(DescribeTarget::Cluster),
            "schema" => Some(DescribeTarget::Schema { full: false }),
            "keyspaces" => Some(DescribeTarget::Keyspaces),
            "tables" | "columnfamilies" => Some(DescribeTarget::Tables),
            "types" => Some(DescribeTarget::Types),
            "functions" => Some(DescribeTarget::Functions),
            "aggregates" => Some(DescribeTarget::Aggregates),
            _ => None,
        };
        if let Some(target) = simple {
            self.advance();
            return Ok(target);
        }
        if self.eat_kws(&["full", "schema"]) {
            return Ok(DescribeTarget::Schema { full: true });
        }
        let only = self.is_kw("only") && (self.is_kw_at(1, "keyspace"));
        if only {
            self.advance();
        }
        if self.eat_kw("keyspace") {
            let name = if self.is_ident_at(0) {
                Some(self.ident()?)
            } else {
                None
            };
            return Ok(DescribeTarget::Keyspace { name, only });
        }
        if self.eat_table_kw() {
            return Ok(DescribeTarget::Table(self.qualified_name()?));
        }
        if self.eat_kw("index") {
            return Ok(DescribeTarget::Index(self.qualified_name()?));
        }
        if self.eat_kw("materialized") {
            self.expect_kw("view")?;
            return Ok(DescribeTarget::MaterializedView(self.qualified_name()?));
        }
        let named: Option<fn(_) -> DescribeTarget> = match word.as_str() {
            "type" => Some(DescribeTarget::Type),
            "function" => Some(DescribeTarget::Function),
            "aggregate" => Some(DescribeTarget::Aggregate),
            _ => None,
        };
        if let Some(wrap) = named {
            self.advance();
            return Ok(wrap(self.qualified_name()?));
        }
        Ok(DescribeTarget::Name(self.qualified_name()?))
    }
}
