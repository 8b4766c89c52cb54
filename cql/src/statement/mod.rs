//! The CQL statement grammar: a lexer (tokens with line/column positions), a
//! recursive-descent parser following Cassandra's `Parser.g`, the [`ast`] it produces, and
//! `Display` impls printing canonical CQL that parses back to an equal AST.
//!
//! Entry points: [`parse_statement`] (one statement, as QUERY and PREPARE carry),
//! [`parse`] (the same plus its bind markers), [`parse_statements`] (scripts) and
//! [`parse_type`] (types stored as text in the catalog). Errors are [`ParseError`]s printed
//! like Cassandra's syntax errors. Why the lexer is our own and not sqlparser's:
//! `docs/parser-decision.md`.

pub mod ast;
mod display;
pub use display::comma;
mod error;
mod lexer;
mod parser;
#[cfg(test)]
mod tests;
mod token;

pub use crate::ident::is_reserved_keyword;
pub use ast::{Ident, Statement};
pub use error::{ParseError, ParseErrorKind};

use parser::Parser;

/// A parsed statement with its bind markers.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedStatement {
    /// The statement.
    pub statement: Statement,
    /// Number of bind markers (`?` and `:name`), i.e. of values an EXECUTE must bind.
    pub bind_count: usize,
    /// One entry per bind marker in order of appearance: `None` for `?`, the name for `:name`.
    pub bind_names: Vec<Option<Ident>>,
}

/// Parses one statement, optionally followed by `;`s, whitespace and comments.
///
/// # Errors
/// A [`ParseError`] (CQL `SYNTAX_ERROR`) when the text does not lex or parse.
pub fn parse(text: &str) -> Result<ParsedStatement, ParseError> {
    let parsed = Parser::new(text)?.parse_single()?;
    Ok(ParsedStatement {
        statement: parsed.statement,
        bind_count: parsed.bind_names.len(),
        bind_names: parsed.bind_names,
    })
}

/// Parses one statement (see [`parse`]), dropping the bind-marker list.
///
/// # Errors
/// A [`ParseError`] when the text does not lex or parse.
pub fn parse_statement(text: &str) -> Result<Statement, ParseError> {
    parse(text).map(|p| p.statement)
}

/// Parses a script of statements separated by `;` (bind markers are numbered per statement).
///
/// # Errors
/// The first [`ParseError`] in the script.
pub fn parse_statements(text: &str) -> Result<Vec<Statement>, ParseError> {
    let parsed = Parser::new(text)?.parse_script()?;
    Ok(parsed.into_iter().map(|(_, p)| p.statement).collect())
}

/// Parses a script as [`parse_statements`] does, with the 1-based line each statement starts
/// on (for messages naming where a script failed).
///
/// # Errors
/// A [`ParseError`] (with its line) when the text does not lex or parse.
pub fn parse_script(text: &str) -> Result<Vec<(usize, Statement)>, ParseError> {
    let parsed = Parser::new(text)?.parse_script()?;
    Ok(parsed
        .into_iter()
        .map(|(line, p)| (line, p.statement))
        .collect())
}

/// Parses a CQL type, e.g. `frozen<map<text, int>>` (as stored in `system_schema.columns.type`).
///
/// # Errors
/// A [`ParseError`] when the text is not exactly one type.
pub fn parse_type(text: &str) -> Result<ast::CqlType, ParseError> {
    Parser::new(text)?.parse_all(|p| p.cql_type())
}
