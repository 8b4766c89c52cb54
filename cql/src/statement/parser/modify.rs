//! `insertStatement`, `updateStatement` and `deleteStatement`, with their `USING` clauses and
//! `IF` conditions.

use super::{Parser, Result};
use crate::statement::ast::{
    ArithOp, Assignment, ColumnCondition, Condition, Delete, DeleteTarget, Ident, InValues, Insert,
    InsertValues, Literal, Operator, Statement, Term, Update, UsingClause,
};
use crate::statement::lexer::TokenKind;

impl Parser<'_> {
    /// `INSERT INTO t (cols) VALUES (terms) | JSON value [DEFAULT NULL|UNSET]`, then
    /// `[IF NOT EXISTS] [USING ...]`.
    pub(crate) fn insert_statement(&mut self) -> Result<Statement> {
        self.expect_kw("insert")?;
        self.expect_kw("into")?;
        let table = self.qualified_name()?;
        let values = if self.eat_kw("json") {
            let json = match self.bind_marker()? {
                Some(marker) => Term::Bind(marker),
                None => match self.peek().clone() {
                    TokenKind::String(s) => {
                        self.advance();
                        Term::Literal(Literal::String(s))
                    }
                    _ => return Err(self.no_viable()),
                },
            };
            let mut default_unset = false;
            if self.eat_kw("default") {
                if self.eat_kw("unset") {
                    default_unset = true;
                } else {
                    self.expect_kw("null")?;
                }
            }
            InsertValues::Json {
                json,
                default_unset,
            }
        } else {
            let columns = self.paren_idents()?;
            self.expect_kw("values")?;
            self.expect_punct("(")?;
            let mut values = vec![self.term()?];
            while self.eat_punct(",") {
                values.push(self.term()?);
            }
            self.expect_punct(")")?;
            InsertValues::Columns { columns, values }
        };
        let if_not_exists = self.if_not_exists()?;
        let using = self.using_clause()?;
        Ok(Statement::Insert(Box::new(Insert {
            table,
            values,
            if_not_exists,
            using,
        })))
    }

    /// `USING (TTL v | TIMESTAMP v | TIMEOUT v) (AND ...)*`, empty when absent.
    pub(crate) fn using_clause(&mut self) -> Result<UsingClause> {
        let mut using = UsingClause::default();
        if !self.eat_kw("using") {
            return Ok(using);
        }
        loop {
            if self.eat_kw("ttl") {
                using.ttl = Some(self.int_value()?);
            } else if self.eat_kw("timestamp") {
                using.timestamp = Some(self.int_value()?);
            } else if self.eat_kw("timeout") {
                using.timeout = Some(self.timeout_value()?);
            } else {
                return Err(self.no_viable());
            }
            if !self.eat_kw("and") {
                return Ok(using);
            }
        }
    }

    /// A timeout: a duration literal, an integer, or a marker.
    fn timeout_value(&mut self) -> Result<Term> {
        if let TokenKind::Duration(d) = self.peek().clone() {
            self.advance();
            return Ok(Term::Literal(Literal::Duration(d)));
        }
        self.int_value()
    }

    /// `UPDATE t [USING ...] SET ops WHERE ... [IF EXISTS | IF conditions]`.
    pub(crate) fn update_statement(&mut self) -> Result<Statement> {
        self.expect_kw("update")?;
        let table = self.qualified_name()?;
        let using = self.using_clause()?;
        self.expect_kw("set")?;
        let mut assignments = vec![self.assignment()?];
        while self.eat_punct(",") {
            assignments.push(self.assignment()?);
        }
        self.expect_kw("where")?;
        let where_clause = self.where_clause()?;
        let condition = self.condition()?;
        Ok(Statement::Update(Box::new(Update {
            table,
            using,
            assignments,
            where_clause,
            condition,
        })))
    }

    /// `columnOperation`.
    fn assignment(&mut self) -> Result<Assignment> {
        let column = self.cident()?;
        if self.eat_punct("+=") {
            let value = self.term()?;
            return Ok(modify(column, ArithOp::Add, value));
        }
        if self.eat_punct("-=") {
            let value = self.term()?;
            return Ok(modify(column, ArithOp::Sub, value));
        }
        if self.eat_punct("[") {
            let key = self.term()?;
            self.expect_punct("]")?;
            self.expect_punct("=")?;
            let value = self.term()?;
            return Ok(Assignment::Element { column, key, value });
        }
        if self.eat_punct(".") {
            let field = self.ident()?;
            self.expect_punct("=")?;
            let value = self.term()?;
            return Ok(Assignment::Field {
                column,
                field,
                value,
            });
        }
        self.expect_punct("=")?;
        if self.is_bare_column_at(0) {
            return self.self_referencing_assignment(column);
        }
        let value = self.term()?;
        if self.is_punct("+") && self.is_bare_column_at(1) {
            self.advance();
            let other = self.cident()?;
            if other != column {
                return Err(self.recognition(
                    "Only expressions of the form X = <value> + X are supported.".into(),
                ));
            }
            return Ok(Assignment::Prepend { column, value });
        }
        Ok(Assignment::Set { column, value })
    }

    /// `c = c + v` / `c = c - v`, after the `=`.
    fn self_referencing_assignment(&mut self, column: Ident) -> Result<Assignment> {
        let other = self.cident()?;
        let Some(op) = self.peek_add_op() else {
            return Err(self.no_viable());
        };
        self.advance();
        if other != column {
            let sign = if op == ArithOp::Add { "+" } else { "-" };
            return Err(self.recognition(format!(
                "Only expressions of the form X = X {sign}<value> are supported."
            )));
        }
        let value = self.term()?;
        Ok(modify(column, op, value))
    }

    /// `[IF EXISTS | IF columnCondition (AND columnCondition)*]`.
    pub(crate) fn condition(&mut self) -> Result<Option<Condition>> {
        if !self.eat_kw("if") {
            return Ok(None);
        }
        if self.eat_kw("exists") {
            return Ok(Some(Condition::Exists));
        }
        let mut out = vec![self.column_condition()?];
        while self.eat_kw("and") {
            out.push(self.column_condition()?);
        }
        Ok(Some(Condition::Columns(out)))
    }

    fn column_condition(&mut self) -> Result<ColumnCondition> {
        let column = self.cident()?;
        let (mut element, mut field) = (None, None);
        if self.eat_punct("[") {
            element = Some(self.term()?);
            self.expect_punct("]")?;
        } else if self.eat_punct(".") {
            field = Some(self.ident()?);
        }
        let (op, value) = if self.eat_kw("in") {
            let value = match self.in_values()? {
                InValues::List(items) => Term::Tuple(items),
                InValues::Bind(marker) => Term::Bind(marker),
            };
            (Operator::In, value)
        } else if element.is_none() && field.is_none() && self.eat_kw("contains") {
            let op = if self.eat_kw("key") {
                Operator::ContainsKey
            } else {
                Operator::Contains
            };
            (op, self.term()?)
        } else {
            let op = self.relation_type()?;
            (op, self.term()?)
        };
        Ok(ColumnCondition {
            column,
            element,
            field,
            op,
            value,
        })
    }

    /// `DELETE [targets] FROM t [USING TIMESTAMP v] WHERE ... [IF ...]`.
    pub(crate) fn delete_statement(&mut self) -> Result<Statement> {
        self.expect_kw("delete")?;
        let mut columns = Vec::new();
        if !self.is_kw("from") {
            columns.push(self.delete_target()?);
            while self.eat_punct(",") {
                columns.push(self.delete_target()?);
            }
        }
        self.expect_kw("from")?;
        let table = self.qualified_name()?;
        let mut using = UsingClause::default();
        if self.eat_kw("using") {
            self.expect_kw("timestamp")?;
            using.timestamp = Some(self.int_value()?);
        }
        self.expect_kw("where")?;
        let where_clause = self.where_clause()?;
        let condition = self.condition()?;
        Ok(Statement::Delete(Box::new(Delete {
            columns,
            table,
            using,
            where_clause,
            condition,
        })))
    }

    /// `deleteOp`: `c`, `c[term]` or `c.field`.
    fn delete_target(&mut self) -> Result<DeleteTarget> {
        let column = self.cident()?;
        if self.eat_punct("[") {
            let key = self.term()?;
            self.expect_punct("]")?;
            return Ok(DeleteTarget::Element(column, key));
        }
        if self.eat_punct(".") {
            return Ok(DeleteTarget::Field(column, self.ident()?));
        }
        Ok(DeleteTarget::Column(column))
    }
}

fn modify(column: Ident, op: ArithOp, value: Term) -> Assignment {
    Assignment::Modify { column, op, value }
}
