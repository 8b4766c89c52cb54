//! `selectStatement`, its selectors, and the `whereClause` relations shared with UPDATE and
//! DELETE.

use super::{Parser, Result};
use crate::statement::ast::{
    Ident, InValues, Operator, Order, Relation, Select, SelectExpr, Selector, Statement, Term,
};
use crate::statement::lexer::TokenKind;

/// A SELECT's `ORDER BY` orderings, split as [`Select`] keeps them.
#[derive(Default)]
struct Orderings {
    /// `c [ASC|DESC]`, in order.
    order_by: Vec<(Ident, Order)>,
    /// `c ANN OF term [ASC|DESC]`, in order.
    ann: Vec<(Ident, Term, Order)>,
}

impl Parser<'_> {
    /// `SELECT [JSON] [DISTINCT] selectors FROM t [WHERE ...] [GROUP BY ...] [ORDER BY ...]
    /// [PER PARTITION LIMIT n] [LIMIT n] [ALLOW FILTERING]`.
    pub(crate) fn select_statement(&mut self) -> Result<Statement> {
        self.expect_kw("select")?;
        let (json, distinct, selectors) = self.json_and_select_clause()?;
        self.expect_kw("from")?;
        let table = self.qualified_name()?;
        let where_clause = if self.eat_kw("where") {
            self.where_clause()?
        } else {
            Vec::new()
        };
        let group_by = self.group_by()?;
        let Orderings { order_by, ann } = self.order_by()?;
        let per_partition_limit = if self.eat_kws(&["per", "partition", "limit"]) {
            Some(self.int_value()?)
        } else {
            None
        };
        let limit = if self.eat_kw("limit") {
            Some(self.int_value()?)
        } else {
            None
        };
        let allow_filtering = self.eat_kws(&["allow", "filtering"]);
        Ok(Statement::Select(Box::new(Select {
            json,
            distinct,
            selectors,
            table,
            where_clause,
            group_by,
            order_by,
            ann,
            per_partition_limit,
            limit,
            allow_filtering,
        })))
    }

    /// `[JSON] selectClause`, as `(json, distinct, selectors)`. `json` and `distinct` are also
    /// valid column names: the keyword reading is tried first.
    fn json_and_select_clause(&mut self) -> Result<(bool, bool, Vec<Selector>)> {
        if !self.is_kw("json") {
            let (d, s) = self.select_clause()?;
            return Ok((false, d, s));
        }
        self.either(
            |p| {
                p.advance();
                let (d, s) = p.select_clause()?;
                Ok((true, d, s))
            },
            |p| {
                let (d, s) = p.select_clause()?;
                Ok((false, d, s))
            },
        )
    }

    /// `[GROUP BY c (',' c)*]`.
    fn group_by(&mut self) -> Result<Vec<Ident>> {
        let mut group_by = Vec::new();
        if self.eat_kws(&["group", "by"]) {
            group_by.push(self.cident()?);
            while self.eat_punct(",") {
                group_by.push(self.cident()?);
            }
        }
        Ok(group_by)
    }

    /// `[ORDER BY ordering (',' ordering)*]`, each `c [ASC|DESC]` or `c ANN OF term [ASC|DESC]`.
    fn order_by(&mut self) -> Result<Orderings> {
        let mut orderings = Orderings::default();
        if !self.eat_kws(&["order", "by"]) {
            return Ok(orderings);
        }
        loop {
            let column = self.cident()?;
            if self.eat_kws(&["ann", "of"]) {
                let vector = self.term()?;
                orderings.ann.push((column, vector, self.order()));
            } else {
                orderings.order_by.push((column, self.order()));
            }
            if !self.eat_punct(",") {
                return Ok(orderings);
            }
        }
    }

    /// `[ASC | DESC]`, ascending by default.
    pub(crate) fn order(&mut self) -> Order {
        if self.eat_kw("desc") {
            Order::Desc
        } else {
            self.eat_kw("asc");
            Order::Asc
        }
    }

    /// `selectClause`: `[DISTINCT] selectors`, then `FROM` must follow.
    fn select_clause(&mut self) -> Result<(bool, Vec<Selector>)> {
        let plain = |p: &mut Self| {
            let s = p.selectors()?;
            p.check_kw("from")?;
            Ok((false, s))
        };
        if self.is_kw("distinct") {
            self.either(
                |p| {
                    p.advance();
                    let s = p.selectors()?;
                    p.check_kw("from")?;
                    Ok((true, s))
                },
                plain,
            )
        } else {
            plain(self)
        }
    }

    fn check_kw(&self, kw: &str) -> Result<()> {
        if self.is_kw(kw) {
            Ok(())
        } else {
            Err(self.expected(&format!("K_{}", kw.to_ascii_uppercase())))
        }
    }

    /// `'*'` (an empty list) or `selector (',' selector)*`.
    pub(crate) fn selectors(&mut self) -> Result<Vec<Selector>> {
        if self.eat_punct("*") {
            return Ok(Vec::new());
        }
        let mut out = vec![self.selector()?];
        while self.eat_punct(",") {
            out.push(self.selector()?);
        }
        Ok(out)
    }

    fn selector(&mut self) -> Result<Selector> {
        let expr = self.select_expr()?;
        let alias = if self.eat_kw("as") {
            Some(self.ident()?)
        } else {
            None
        };
        Ok(Selector { expr, alias })
    }

    /// `unaliasedSelector`: `selectionAddition`.
    pub(crate) fn select_expr(&mut self) -> Result<SelectExpr> {
        self.nested(|p| {
            let mut left = p.select_mul()?;
            while let Some(op) = p.peek_add_op() {
                p.advance();
                let right = p.select_mul()?;
                left = SelectExpr::Arith(op, Box::new(left), Box::new(right));
            }
            Ok(left)
        })
    }

    fn select_mul(&mut self) -> Result<SelectExpr> {
        let mut left = self.select_group()?;
        while let Some(op) = self.peek_mul_op() {
            self.advance();
            let right = self.select_group()?;
            left = SelectExpr::Arith(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// `selectionGroup`: `-` group, or a selector followed by `.field` / `[k]` / `[a..b]`.
    fn select_group(&mut self) -> Result<SelectExpr> {
        if self.eat_punct("-") {
            if let Some(lit) = self.negative_literal() {
                return Ok(SelectExpr::Term(Term::Literal(lit)));
            }
            return self.nested(|p| Ok(SelectExpr::Negate(Box::new(p.select_group()?))));
        }
        let base = self.select_atom()?;
        self.select_modifiers(base)
    }

    fn select_modifiers(&mut self, mut expr: SelectExpr) -> Result<SelectExpr> {
        loop {
            if self.eat_punct(".") {
                let field = self.ident()?;
                expr = SelectExpr::Field(Box::new(expr), field);
            } else if self.eat_punct("[") {
                expr = self.sub_selection(expr)?;
                self.expect_punct("]")?;
            } else {
                return Ok(expr);
            }
        }
    }

    /// `collectionSubSelection`: `t`, `t..`, `..t`, `a..b` after `[`.
    fn sub_selection(&mut self, receiver: SelectExpr) -> Result<SelectExpr> {
        let receiver = Box::new(receiver);
        if matches!(self.peek(), TokenKind::Range) {
            self.advance();
            let to = self.term()?;
            return Ok(SelectExpr::Slice(receiver, None, Some(Box::new(to))));
        }
        let from = self.term()?;
        if !matches!(self.peek(), TokenKind::Range) {
            return Ok(SelectExpr::Element(receiver, Box::new(from)));
        }
        self.advance();
        let to = if self.is_punct("]") {
            None
        } else {
            Some(Box::new(self.term()?))
        };
        Ok(SelectExpr::Slice(receiver, Some(Box::new(from)), to))
    }

    /// `selectionGroupWithoutField`: column, literal, marker, function, `(selector)`, or a
    /// collection/tuple literal.
    fn select_atom(&mut self) -> Result<SelectExpr> {
        if self.type_hint_follows() {
            // `(int) ?`, `(float) NaN`: a type hint on a term; `(int)(a + b)` on a selector.
            return self.either(
                |p| Ok(SelectExpr::Term(p.term()?)),
                |p| p.either(|p| p.hinted_selector(), |p| p.parenthesised_selector()),
            );
        }
        if self.is_punct("(") {
            return self.nested(|p| {
                p.either(
                    |p| {
                        p.advance();
                        let inner = p.select_expr()?;
                        p.expect_punct(")")?;
                        Ok(inner)
                    },
                    |p| Ok(SelectExpr::Term(p.term()?)),
                )
            });
        }
        if self.is_punct("[") || self.is_punct("{") {
            return Ok(SelectExpr::Term(self.term()?));
        }
        if let Some(lit) = self.constant() {
            return Ok(SelectExpr::Term(Term::Literal(lit)));
        }
        if let Some(marker) = self.bind_marker()? {
            return Ok(SelectExpr::Term(Term::Bind(marker)));
        }
        if self.eat_kw("null") {
            return Ok(SelectExpr::Term(Term::Literal(
                crate::statement::ast::Literal::Null,
            )));
        }
        if self.is_function_start() {
            return self.selection_function();
        }
        Ok(SelectExpr::Column(self.cident()?))
    }

    /// `'(' nativeType ')'` ahead: the start of a type hint rather than a parenthesised
    /// selector.
    fn type_hint_follows(&self) -> bool {
        let native = matches!(self.peek_at(1), TokenKind::Ident(w)
            if crate::types::ColumnType::native_from_name(w).is_some());
        self.is_punct("(") && native && self.is_punct_at(2, ")")
    }

    /// `'(' nativeType ')' selectionGroup`.
    fn hinted_selector(&mut self) -> Result<SelectExpr> {
        self.nested(|p| {
            p.expect_punct("(")?;
            let ty = p.cql_type()?;
            p.expect_punct(")")?;
            let inner = p.select_group()?;
            Ok(SelectExpr::TypeHint(ty, Box::new(inner)))
        })
    }

    /// `'(' selector ')'`.
    fn parenthesised_selector(&mut self) -> Result<SelectExpr> {
        self.nested(|p| {
            p.expect_punct("(")?;
            let inner = p.select_expr()?;
            p.expect_punct(")")?;
            Ok(inner)
        })
    }

    /// `selectionFunction`: `count(*)`, `writetime(c)`, `ttl(c)`, `CAST(s AS t)`, `f(args)`.
    fn selection_function(&mut self) -> Result<SelectExpr> {
        let simple = !self.is_punct_at(1, ".");
        let word = self.keyword_text().unwrap_or_default();
        if simple && word == "count" && self.count_all_follows() {
            for _ in 0..4 {
                self.advance();
            }
            return Ok(SelectExpr::CountAll);
        }
        if simple && word == "cast" {
            self.advance();
            self.expect_punct("(")?;
            let inner = self.select_expr()?;
            self.expect_kw("as")?;
            let ty = self.cql_type()?;
            self.expect_punct(")")?;
            return Ok(SelectExpr::Cast(Box::new(inner), ty));
        }
        let name = self.function_name()?;
        self.expect_punct("(")?;
        let mut args = Vec::new();
        if !self.is_punct(")") {
            args.push(self.select_expr()?);
            while self.eat_punct(",") {
                args.push(self.select_expr()?);
            }
        }
        self.expect_punct(")")?;
        if name.keyspace.is_none() && !name.name.quoted {
            if let [SelectExpr::Column(c)] = args.as_slice() {
                match name.name.name.as_str() {
                    "writetime" => return Ok(SelectExpr::WriteTime(c.clone())),
                    "ttl" => return Ok(SelectExpr::Ttl(c.clone())),
                    _ => {}
                }
            }
        }
        Ok(SelectExpr::Function { name, args })
    }

    /// After `count`: `( * )` or `( 1 )`.
    fn count_all_follows(&self) -> bool {
        let star = self.is_punct_at(2, "*");
        let one = matches!(self.peek_at(2), TokenKind::Integer(n) if n == "1");
        self.is_punct_at(1, "(") && (star || one) && self.is_punct_at(3, ")")
    }

    // ---------- WHERE ----------

    /// `whereClause`: `relation (AND relation)*`.
    pub(crate) fn where_clause(&mut self) -> Result<Vec<Relation>> {
        let mut out = vec![self.relation()?];
        while self.eat_kw("and") {
            out.push(self.relation()?);
        }
        Ok(out)
    }

    fn relation(&mut self) -> Result<Relation> {
        if self.is_kw("token") && self.is_punct_at(1, "(") {
            self.advance();
            let columns = self.paren_idents()?;
            let op = self.relation_type()?;
            let value = self.term()?;
            return Ok(Relation::Token { columns, op, value });
        }
        if self.is_punct("(") {
            let tuple_of_idents = matches!(
                self.peek_at(1),
                TokenKind::Ident(_) | TokenKind::QuotedName(_) | TokenKind::EmptyQuotedName
            ) && (self.is_punct_at(2, ",") || self.is_punct_at(2, ")"));
            if tuple_of_idents {
                return self.multi_column_relation();
            }
            return self.nested(|p| {
                p.advance();
                let inner = p.relation()?;
                p.expect_punct(")")?;
                Ok(inner)
            });
        }
        let column = self.cident()?;
        if self.eat_punct("[") {
            let key = self.term()?;
            self.expect_punct("]")?;
            let op = self.relation_type()?;
            let value = self.term()?;
            return Ok(Relation::Element {
                column,
                key,
                op,
                value,
            });
        }
        self.single_column_relation(column)
    }

    fn single_column_relation(&mut self, column: Ident) -> Result<Relation> {
        let single = |column, op, value| Ok(Relation::Single { column, op, value });
        if self.eat_kw("in") {
            let values = self.in_values()?;
            return Ok(Relation::In {
                column,
                values,
                negated: false,
            });
        }
        if self.eat_kws(&["not", "in"]) {
            let values = self.in_values()?;
            return Ok(Relation::In {
                column,
                values,
                negated: true,
            });
        }
        if self.eat_kw("contains") {
            let op = if self.eat_kw("key") {
                Operator::ContainsKey
            } else {
                Operator::Contains
            };
            return single(column, op, self.term()?);
        }
        if self.eat_kw("like") {
            return single(column, Operator::Like, self.term()?);
        }
        if self.eat_kw("is") {
            self.expect_kw("not")?;
            self.expect_kw("null")?;
            let null = Term::Literal(crate::statement::ast::Literal::Null);
            return single(column, Operator::IsNot, null);
        }
        let op = self.relation_type()?;
        single(column, op, self.term()?)
    }

    fn multi_column_relation(&mut self) -> Result<Relation> {
        let columns = self.paren_idents()?;
        if self.eat_kw("in") {
            let values = if let Some(marker) = self.bind_marker()? {
                InValues::Bind(marker)
            } else {
                InValues::List(self.multi_in_list()?)
            };
            return Ok(Relation::MultiIn { columns, values });
        }
        let op = self.relation_type()?;
        let value = match self.bind_marker()? {
            Some(marker) => Term::Bind(marker),
            None => self.nested(|p| p.tuple_literal())?,
        };
        Ok(Relation::Multi { columns, op, value })
    }

    /// `'(' ')'`, or a parenthesised list of tuple literals or markers.
    fn multi_in_list(&mut self) -> Result<Vec<Term>> {
        self.expect_punct("(")?;
        let mut out = Vec::new();
        if self.eat_punct(")") {
            return Ok(out);
        }
        loop {
            match self.bind_marker()? {
                Some(marker) => out.push(Term::Bind(marker)),
                None => out.push(self.nested(|p| p.tuple_literal())?),
            }
            if !self.eat_punct(",") {
                break;
            }
        }
        self.expect_punct(")")?;
        Ok(out)
    }

    /// `singleColumnInValues`: `'(' terms? ')'` or a marker.
    pub(crate) fn in_values(&mut self) -> Result<InValues> {
        if let Some(marker) = self.bind_marker()? {
            return Ok(InValues::Bind(marker));
        }
        self.expect_punct("(")?;
        let mut out = Vec::new();
        if !self.is_punct(")") {
            out.push(self.term()?);
            while self.eat_punct(",") {
                out.push(self.term()?);
            }
        }
        self.expect_punct(")")?;
        Ok(InValues::List(out))
    }

    /// `relationType`: `= < <= > >= !=`.
    pub(crate) fn relation_type(&mut self) -> Result<Operator> {
        let op = match self.peek() {
            TokenKind::Punct("=") => Operator::Eq,
            TokenKind::Punct("<") => Operator::Lt,
            TokenKind::Punct("<=") => Operator::Lte,
            TokenKind::Punct(">") => Operator::Gt,
            TokenKind::Punct(">=") => Operator::Gte,
            TokenKind::Punct("!=") => Operator::Neq,
            _ => return Err(self.no_viable()),
        };
        self.advance();
        Ok(op)
    }
}
