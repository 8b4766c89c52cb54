//! `CREATE`, `ALTER` and `DROP MATERIALIZED VIEW`.

use super::{Parser, Result};
use crate::statement::ast::{CreateView, Statement};

impl Parser<'_> {
    /// After `CREATE MATERIALIZED VIEW`: `[IF NOT EXISTS] v AS SELECT selectors FROM t
    /// WHERE ... PRIMARY KEY (...) [WITH ...]`.
    pub(crate) fn create_view(&mut self) -> Result<Statement> {
        let binds_before = self.binds_seen();
        let if_not_exists = self.if_not_exists()?;
        let name = self.qualified_name()?;
        self.expect_kw("as")?;
        self.expect_kw("select")?;
        let selectors = self.selectors()?;
        self.expect_kw("from")?;
        let base = self.qualified_name()?;
        let where_clause = if self.eat_kw("where") {
            self.where_clause()?
        } else {
            Vec::new()
        };
        let mut view = CreateView {
            name,
            if_not_exists,
            base,
            selectors,
            where_clause,
            partition_key: Vec::new(),
            clustering_key: Vec::new(),
            clustering_order: Vec::new(),
            properties: Vec::new(),
            has_bind_markers: false,
        };
        self.expect_kw("primary")?;
        self.expect_kw("key")?;
        self.view_primary_key(&mut view)?;
        if self.eat_kw("with") {
            loop {
                self.view_property(&mut view)?;
                if !self.eat_kw("and") {
                    break;
                }
            }
        }
        view.has_bind_markers = self.binds_seen() > binds_before;
        Ok(Statement::CreateView(Box::new(view)))
    }

    /// `'(' ( '(' k, ... ')' | k ) (',' c)* ')'`.
    fn view_primary_key(&mut self, view: &mut CreateView) -> Result<()> {
        self.expect_punct("(")?;
        if self.is_punct("(") {
            view.partition_key = self.paren_idents()?;
        } else {
            view.partition_key = vec![self.ident()?];
        }
        while self.eat_punct(",") {
            view.clustering_key.push(self.ident()?);
        }
        self.expect_punct(")")
    }

    /// `CLUSTERING ORDER BY (...)` or `name = value`.
    fn view_property(&mut self, view: &mut CreateView) -> Result<()> {
        if self.is_kw("compact") && self.is_kw_at(1, "storage") {
            return Err(
                self.invalid("COMPACT STORAGE tables are not allowed starting with version 4.0")
            );
        }
        if self.eat_kws(&["clustering", "order", "by"]) {
            let order = self.clustering_order_list()?;
            view.clustering_order.extend(order);
            return Ok(());
        }
        view.properties.push(self.property()?);
        Ok(())
    }

    /// After `ALTER MATERIALIZED VIEW`: `[IF EXISTS] v WITH properties`.
    pub(crate) fn alter_view(&mut self) -> Result<Statement> {
        let if_exists = self.if_exists()?;
        let name = self.qualified_name()?;
        self.expect_kw("with")?;
        let properties = self.properties()?;
        Ok(Statement::AlterView {
            name,
            if_exists,
            properties,
        })
    }

    /// After `DROP MATERIALIZED VIEW`: `[IF EXISTS] v`.
    pub(crate) fn drop_view(&mut self) -> Result<Statement> {
        let if_exists = self.if_exists()?;
        let name = self.qualified_name()?;
        Ok(Statement::DropView { name, if_exists })
    }
}

#[cfg(test)]
mod tests {
    use crate::statement::ast::Statement;
    use crate::statement::parse_statement;

    #[test]
    fn create_view_parses_and_prints_back() {
        let text = "CREATE MATERIALIZED VIEW IF NOT EXISTS ks.mv AS SELECT a, b FROM ks.t \
                    WHERE a IS NOT NULL AND b > 1 PRIMARY KEY ((a), b) \
                    WITH CLUSTERING ORDER BY (b DESC) AND comment = 'x'";
        let Statement::CreateView(view) = parse_statement(text).unwrap() else {
            panic!("not a view");
        };
        assert!(view.if_not_exists);
        assert_eq!(view.partition_key.len(), 1);
        assert_eq!(view.clustering_key.len(), 1);
        assert_eq!(view.where_clause.len(), 2);
        assert!(!view.has_bind_markers);
        let again = parse_statement(&view.to_string()).unwrap();
        assert_eq!(again, Statement::CreateView(view));
    }

    #[test]
    fn alter_and_drop_view_parse() {
        let alter = parse_statement("ALTER MATERIALIZED VIEW mv WITH comment = 'c'").unwrap();
        assert!(matches!(alter, Statement::AlterView { .. }));
        let drop = parse_statement("DROP MATERIALIZED VIEW IF EXISTS ks.mv").unwrap();
        assert!(matches!(
            drop,
            Statement::DropView {
                if_exists: true,
                ..
            }
        ));
        let bound = "CREATE MATERIALIZED VIEW mv AS SELECT * FROM t WHERE p = ? PRIMARY KEY (p)";
        let Statement::CreateView(view) = parse_statement(bound).unwrap() else {
            panic!("not a view");
        };
        assert!(view.has_bind_markers);
    }
}
