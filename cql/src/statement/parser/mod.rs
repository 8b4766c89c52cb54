//! The recursive-descent CQL parser: tokens from [`super::lexer`] to [`super::ast`] nodes.
//!
//! One `Parser` per text. This module holds the token cursor, identifier and keyword helpers,
//! error construction and statement dispatch; the grammar lives in `select` (SELECT and WHERE),
//! `modify` (INSERT/UPDATE/DELETE), `batch`, `ddl` and `describe` (schema statements) and `expr`
//! (terms, literals, types, properties). Rule names follow Cassandra's `Parser.g`.

mod batch;
mod ddl;
mod describe;
mod disabled;
mod explain;
mod expr;
mod modify;
mod permission;
mod role;
mod select;
mod view;

use super::ast::{BindMarker, Ident, QualifiedName, Statement};
use super::error::{token_display, ParseError, ParseErrorKind};
use super::is_reserved_keyword;
use super::lexer::{tokenize, Token, TokenKind};

/// How deeply terms, selectors, types and relations may nest before parsing stops with
/// [`ParseErrorKind::TooDeep`]; keeps hostile input from overflowing the stack.
pub(crate) const MAX_DEPTH: usize = 100;

/// A statement and the bind markers it declares, in order of appearance.
pub(crate) struct Parsed {
    pub(crate) statement: Statement,
    pub(crate) bind_names: Vec<Option<Ident>>,
}

/// Parser state over one statement text.
pub(crate) struct Parser<'a> {
    src: &'a str,
    /// Every token, hidden ones included (error snippets count them).
    tokens: Vec<Token>,
    /// Indices into `tokens` of the visible tokens; the last one is EOF.
    visible: Vec<usize>,
    /// Cursor into `visible`.
    pos: usize,
    /// Current nesting depth, bounded by [`MAX_DEPTH`].
    depth: usize,
    /// One entry per bind marker seen so far: `None` for `?`, the name for `:name`.
    binds: Vec<Option<Ident>>,
}

/// A saved parser position for backtracking (binds seen after it are forgotten on restore).
#[derive(Clone, Copy)]
pub(crate) struct Checkpoint {
    pos: usize,
    binds: usize,
}

type Result<T> = std::result::Result<T, ParseError>;

impl<'a> Parser<'a> {
    /// Lexes `src`.
    pub(crate) fn new(src: &'a str) -> Result<Parser<'a>> {
        let tokens = tokenize(src)?;
        let visible = (0..tokens.len())
            .filter(|&i| tokens.get(i).is_some_and(|t| !t.is_hidden()))
            .collect();
        Ok(Parser {
            src,
            tokens,
            visible,
            pos: 0,
            depth: 0,
            binds: Vec::new(),
        })
    }

    /// `cqlStatement ';'* EOF`.
    pub(crate) fn parse_single(mut self) -> Result<Parsed> {
        let statement = self.statement()?;
        while self.eat_punct(";") {}
        if !self.at_eof() {
            return Err(self.error(format!("missing EOF at {}", self.found())));
        }
        Ok(Parsed {
            statement,
            bind_names: self.binds,
        })
    }

    /// Statements separated by `;` (a script), each with the 1-based line it starts on; bind
    /// markers are numbered per statement.
    pub(crate) fn parse_script(mut self) -> Result<Vec<(usize, Parsed)>> {
        let mut out = Vec::new();
        loop {
            while self.eat_punct(";") {}
            if self.at_eof() {
                return Ok(out);
            }
            let line = self
                .visible
                .get(self.pos)
                .and_then(|&i| self.tokens.get(i))
                .map_or(1, |token| token.line);
            let statement = self.statement()?;
            let parsed = Parsed {
                statement,
                bind_names: std::mem::take(&mut self.binds),
            };
            out.push((line, parsed));
            if !self.at_eof() && !self.is_punct(";") {
                return Err(self.error(format!("missing EOF at {}", self.found())));
            }
        }
    }

    /// Parses exactly one thing with `f`, then requires the end of input.
    pub(crate) fn parse_all<T>(mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let out = f(&mut self)?;
        if !self.at_eof() {
            return Err(self.error(format!("missing EOF at {}", self.found())));
        }
        Ok(out)
    }

    /// `cqlStatement`: dispatch on the first keyword.
    pub(crate) fn statement(&mut self) -> Result<Statement> {
        let kw = self.keyword_text().unwrap_or_default();
        match kw.as_str() {
            "select" => self.select_statement(),
            "insert" => self.insert_statement(),
            "update" => self.update_statement(),
            "delete" => self.delete_statement(),
            "begin" => self.batch_statement(),
            "use" => self.use_statement(),
            "truncate" => self.truncate_statement(),
            "create" => self.create_statement(),
            "alter" => self.alter_statement(),
            "drop" => self.drop_statement(),
            "describe" | "desc" => self.describe_statement(),
            "list" => self.list_statement(),
            "grant" => self.grant_statement(),
            "revoke" => self.revoke_statement(),
            "explain" => self.explain_statement(),
            _ => Err(self.no_viable()),
        }
    }

    /// How many bind markers were seen so far.
    pub(crate) fn binds_seen(&self) -> usize {
        self.binds.len()
    }

    // ---------- cursor ----------

    fn token_index(&self, offset: usize) -> usize {
        let last = self.visible.len().saturating_sub(1);
        self.visible
            .get((self.pos + offset).min(last))
            .copied()
            .unwrap_or(0)
    }

    /// The token `offset` visible tokens ahead (EOF past the end).
    pub(crate) fn peek_at(&self, offset: usize) -> &TokenKind {
        self.tokens
            .get(self.token_index(offset))
            .map_or(&TokenKind::Eof, |t| &t.kind)
    }

    pub(crate) fn peek(&self) -> &TokenKind {
        self.peek_at(0)
    }

    /// Consumes and returns the current token.
    pub(crate) fn advance(&mut self) -> TokenKind {
        let kind = self.peek().clone();
        if self.pos + 1 < self.visible.len() {
            self.pos += 1;
        }
        kind
    }

    pub(crate) fn at_eof(&self) -> bool {
        matches!(self.peek(), TokenKind::Eof)
    }

    pub(crate) fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            pos: self.pos,
            binds: self.binds.len(),
        }
    }

    pub(crate) fn restore(&mut self, cp: Checkpoint) {
        self.pos = cp.pos;
        self.binds.truncate(cp.binds);
    }

    /// Runs `f` one nesting level deeper, failing past [`MAX_DEPTH`].
    pub(crate) fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth >= MAX_DEPTH {
            return Err(ParseError::at(
                &self.tokens,
                self.token_index(0),
                ParseErrorKind::TooDeep { limit: MAX_DEPTH },
            ));
        }
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    /// Tries `first`; on failure backtracks and tries `second`, reporting whichever error got
    /// further if both fail.
    pub(crate) fn either<T>(
        &mut self,
        first: impl FnOnce(&mut Self) -> Result<T>,
        second: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let cp = self.checkpoint();
        match first(self) {
            Ok(v) => Ok(v),
            Err(e1) => {
                self.restore(cp);
                second(self).map_err(|e2| {
                    let key = |e: &ParseError| (e.at_end, e.line, e.column);
                    if key(&e1) > key(&e2) {
                        e1
                    } else {
                        e2
                    }
                })
            }
        }
    }

    // ---------- keywords and punctuation ----------

    /// The current token lower-cased if it is an unquoted word.
    pub(crate) fn keyword_text(&self) -> Option<String> {
        match self.peek() {
            TokenKind::Ident(w) => Some(w.to_ascii_lowercase()),
            _ => None,
        }
    }

    pub(crate) fn is_kw_at(&self, offset: usize, kw: &str) -> bool {
        matches!(self.peek_at(offset), TokenKind::Ident(w) if w.eq_ignore_ascii_case(kw))
    }

    pub(crate) fn is_kw(&self, kw: &str) -> bool {
        self.is_kw_at(0, kw)
    }

    pub(crate) fn eat_kw(&mut self, kw: &str) -> bool {
        let hit = self.is_kw(kw);
        if hit {
            self.advance();
        }
        hit
    }

    pub(crate) fn expect_kw(&mut self, kw: &str) -> Result<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.expected(&format!("K_{}", kw.to_ascii_uppercase())))
        }
    }

    /// Consumes a run of keywords (`IF NOT EXISTS`) if all are present; nothing otherwise.
    pub(crate) fn eat_kws(&mut self, kws: &[&str]) -> bool {
        let hit = kws.iter().enumerate().all(|(i, k)| self.is_kw_at(i, k));
        if hit {
            for _ in kws {
                self.advance();
            }
        }
        hit
    }

    /// `IF NOT EXISTS`, requiring all three once `IF` is seen.
    pub(crate) fn if_not_exists(&mut self) -> Result<bool> {
        if !self.eat_kw("if") {
            return Ok(false);
        }
        self.expect_kw("not")?;
        self.expect_kw("exists")?;
        Ok(true)
    }

    /// `IF EXISTS`, requiring both once `IF` is seen.
    pub(crate) fn if_exists(&mut self) -> Result<bool> {
        if !self.eat_kw("if") {
            return Ok(false);
        }
        self.expect_kw("exists")?;
        Ok(true)
    }

    /// `K_COLUMNFAMILY`: `TABLE` or `COLUMNFAMILY`.
    pub(crate) fn eat_table_kw(&mut self) -> bool {
        self.eat_kw("table") || self.eat_kw("columnfamily")
    }

    /// `K_KEYSPACE`: `KEYSPACE` or `SCHEMA`.
    pub(crate) fn eat_keyspace_kw(&mut self) -> bool {
        self.eat_kw("keyspace") || self.eat_kw("schema")
    }

    pub(crate) fn is_punct_at(&self, offset: usize, p: &str) -> bool {
        matches!(self.peek_at(offset), TokenKind::Punct(q) if *q == p)
    }

    pub(crate) fn is_punct(&self, p: &str) -> bool {
        self.is_punct_at(0, p)
    }

    pub(crate) fn eat_punct(&mut self, p: &str) -> bool {
        let hit = self.is_punct(p);
        if hit {
            self.advance();
        }
        hit
    }

    pub(crate) fn expect_punct(&mut self, p: &str) -> Result<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{p}'")))
        }
    }

    // ---------- identifiers ----------

    /// Whether the token `offset` ahead can be an identifier (`ident` in `Parser.g`).
    pub(crate) fn is_ident_at(&self, offset: usize) -> bool {
        match self.peek_at(offset) {
            TokenKind::Ident(w) => !is_reserved_keyword(w),
            TokenKind::QuotedName(_) => true,
            _ => false,
        }
    }

    /// `ident`: an unquoted non-reserved word (lower-cased) or a quoted name.
    pub(crate) fn ident(&mut self) -> Result<Ident> {
        let ident = match self.peek() {
            TokenKind::Ident(w) if !is_reserved_keyword(w) => Ident {
                name: w.to_ascii_lowercase(),
                quoted: false,
            },
            TokenKind::QuotedName(n) => Ident {
                name: n.clone(),
                quoted: true,
            },
            TokenKind::QMark => {
                return Err(self.invalid("Bind variables cannot be used for identifiers"))
            }
            _ => return Err(self.no_viable()),
        };
        self.advance();
        Ok(ident)
    }

    /// `cident`: an `ident`, or `""` (the legacy empty column name).
    pub(crate) fn cident(&mut self) -> Result<Ident> {
        if matches!(self.peek(), TokenKind::EmptyQuotedName) {
            self.advance();
            return Ok(Ident {
                name: String::new(),
                quoted: true,
            });
        }
        self.ident()
    }

    /// `ksName`: an `ident`, where a bind marker is Cassandra's syntax error for keyspaces.
    pub(crate) fn keyspace_name(&mut self) -> Result<Ident> {
        self.name_not_bound("keyspace names")
    }

    /// An `ident` in a name rule of Cassandra's grammar (`ksName`, `cfName`...), whose `?`
    /// alternative reports "Bind variables cannot be used for <what>" as a syntax error.
    fn name_not_bound(&mut self, what: &str) -> Result<Ident> {
        if matches!(self.peek(), TokenKind::QMark) {
            return Err(self.recognition(format!("Bind variables cannot be used for {what}")));
        }
        self.ident()
    }

    /// `(ks '.')? name`.
    pub(crate) fn qualified_name(&mut self) -> Result<QualifiedName> {
        let dotted = self.is_punct_at(1, ".");
        let first = if dotted {
            self.keyspace_name()?
        } else {
            self.name_not_bound("table names")?
        };
        if self.eat_punct(".") {
            let name = self.name_not_bound("table names")?;
            Ok(QualifiedName {
                keyspace: Some(first),
                name,
            })
        } else {
            Ok(QualifiedName {
                keyspace: None,
                name: first,
            })
        }
    }

    /// `ident (',' ident)*` inside parentheses.
    pub(crate) fn paren_idents(&mut self) -> Result<Vec<Ident>> {
        self.expect_punct("(")?;
        let mut out = vec![self.cident()?];
        while self.eat_punct(",") {
            out.push(self.cident()?);
        }
        self.expect_punct(")")?;
        Ok(out)
    }

    /// `?` or `:name`, numbered in order of appearance; `None` (nothing consumed) otherwise.
    pub(crate) fn bind_marker(&mut self) -> Result<Option<BindMarker>> {
        if matches!(self.peek(), TokenKind::QMark) {
            self.advance();
            self.binds.push(None);
            return Ok(Some(BindMarker::Anonymous(self.binds.len() - 1)));
        }
        if self.is_punct(":") && self.is_ident_at(1) {
            self.advance();
            let name = self.ident()?;
            self.binds.push(Some(name.clone()));
            return Ok(Some(BindMarker::Named(name, self.binds.len() - 1)));
        }
        Ok(None)
    }

    // ---------- errors ----------

    /// The current token as ANTLR displays it (`'with'`, `'<EOF>'`).
    pub(crate) fn found(&self) -> String {
        self.tokens
            .get(self.token_index(0))
            .map_or_else(|| "'<EOF>'".to_string(), |t| token_display(self.src, t))
    }

    /// A syntax error at the current token with Cassandra's snippet.
    pub(crate) fn error(&self, message: String) -> ParseError {
        ParseError::syntax(self.src, &self.tokens, self.token_index(0), message)
    }

    /// `mismatched input 'x' expecting what`.
    pub(crate) fn expected(&self, what: &str) -> ParseError {
        self.error(format!(
            "mismatched input {} expecting {what}",
            self.found()
        ))
    }

    /// `no viable alternative at input 'x'`.
    pub(crate) fn no_viable(&self) -> ParseError {
        self.error(format!("no viable alternative at input {}", self.found()))
    }

    /// A syntax error a grammar action reports (`addRecognitionError`), printed without
    /// position.
    pub(crate) fn recognition(&self, message: String) -> ParseError {
        ParseError::at(
            &self.tokens,
            self.token_index(0),
            ParseErrorKind::Recognition(message),
        )
    }

    /// A grammar-action error (`addRecognitionError`), printed without position.
    pub(crate) fn invalid(&self, message: &str) -> ParseError {
        ParseError::at(
            &self.tokens,
            self.token_index(0),
            ParseErrorKind::Invalid(message.to_string()),
        )
    }
}
