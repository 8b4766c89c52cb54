//! [`ParseError`]: lexer and parser failures, printed the way Cassandra's `ErrorCollector`
//! prints ANTLR errors, e.g.
//! `line 1:16 no viable alternative at input 'with' (create keyspace [with]...)`.
//!
//! The snippet follows `ErrorCollector.appendSnippet`: from 10 tokens before the offending one to
//! 2 after it, counting hidden whitespace/comment tokens, `...` where text was cut, and no snippet
//! at all when the window reaches the end of input (Cassandra's EOF token has no position).
//! Errors at the end of input are reported at `line 0:-1`, as Cassandra does.

use std::fmt;

use super::token::{Token, TokenKind};

/// A statement that does not lex or parse. Maps to CQL's `SYNTAX_ERROR` (0x2000).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// 1-based line of the offending token.
    pub line: usize,
    /// 0-based character offset of the offending token in its line.
    pub column: usize,
    /// The offending token is the end of input (printed as Cassandra's `line 0:-1`).
    pub at_end: bool,
    /// What went wrong.
    pub kind: ParseErrorKind,
}

/// The kinds of [`ParseError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// An ANTLR-style parser message (`mismatched input 'x' expecting y`, `no viable
    /// alternative at input 'x'`, `missing EOF at 'x'`) and Cassandra's query snippet, if any.
    Syntax {
        message: String,
        snippet: Option<String>,
    },
    /// A lexer message (`no viable alternative at character '#'`); the lexer adds no snippet.
    Lexer(String),
    /// A check Cassandra's grammar makes in its actions (`addRecognitionError`), printed without
    /// position, e.g. `Only expressions of the form X = <value> + X are supported.`
    Invalid(String),
    /// A syntax error Cassandra's grammar actions report (`addRecognitionError`): a
    /// `SyntaxException` whose message is printed without position, e.g. `Multiple
    /// definition for property dc1`.
    Recognition(String),
    /// Nesting deeper than the parser's recursion limit.
    TooDeep { limit: usize },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let ParseErrorKind::Invalid(message) | ParseErrorKind::Recognition(message) = &self.kind
        {
            return f.write_str(message);
        }
        if self.at_end {
            f.write_str("line 0:-1 ")?;
        } else {
            write!(f, "line {}:{} ", self.line, self.column)?;
        }
        match &self.kind {
            ParseErrorKind::Syntax { message, snippet } => {
                f.write_str(message)?;
                match snippet {
                    Some(s) => write!(f, " ({s})"),
                    None => Ok(()),
                }
            }
            ParseErrorKind::Lexer(message)
            | ParseErrorKind::Invalid(message)
            | ParseErrorKind::Recognition(message) => f.write_str(message),
            ParseErrorKind::TooDeep { limit } => {
                write!(f, "statement nested too deeply (more than {limit} levels)")
            }
        }
    }
}

impl ParseError {
    /// An error positioned at `tokens[index]`.
    pub(crate) fn at(tokens: &[Token], index: usize, kind: ParseErrorKind) -> ParseError {
        let (line, column, at_end) = match tokens.get(index) {
            Some(t) => (t.line, t.column, t.kind == TokenKind::Eof),
            None => (0, 0, true),
        };
        ParseError {
            line,
            column,
            at_end,
            kind,
        }
    }

    /// A syntax error at `tokens[index]` with Cassandra's snippet of `src`.
    pub(crate) fn syntax(src: &str, tokens: &[Token], index: usize, message: String) -> ParseError {
        let snippet = snippet(src, tokens, index);
        ParseError::at(tokens, index, ParseErrorKind::Syntax { message, snippet })
    }
}

/// How ANTLR displays a token in messages: its text in single quotes, `'<EOF>'` at the end.
pub(crate) fn token_display(src: &str, token: &Token) -> String {
    let text = match &token.kind {
        TokenKind::Eof => "<EOF>".to_string(),
        TokenKind::String(s) | TokenKind::QuotedName(s) => s.clone(),
        _ => src.get(token.start..token.end).unwrap_or("").to_string(),
    };
    let escaped = text
        .replace('\n', "\\n")
        .replace('\r', "\\r")
        .replace('\t', "\\t");
    format!("'{escaped}'")
}

const FIRST_TOKEN_OFFSET: usize = 10;
const LAST_TOKEN_OFFSET: usize = 2;

/// `ErrorCollector.appendQuerySnippet`, without the surrounding parentheses.
fn snippet(src: &str, tokens: &[Token], index: usize) -> Option<String> {
    let size = tokens.len();
    let last = size.checked_sub(1)?;
    let from = tokens.get(index.saturating_sub(FIRST_TOKEN_OFFSET))?;
    let to = tokens.get(last.min(index + LAST_TOKEN_OFFSET))?;
    let offending = tokens.get(index.min(last))?;
    if [from, to, offending]
        .iter()
        .any(|t| t.kind == TokenKind::Eof)
    {
        return None;
    }
    // Java's `split("\n")` drops trailing empty strings.
    let mut lines: Vec<Vec<char>> = src.split('\n').map(|l| l.chars().collect()).collect();
    while lines.len() > 1 && lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let end_of = |t: &Token| t.column + t.text_len;
    let line_count = lines.len();
    let include_start = from.line == 1 && from.column == 0;
    let include_end = to.line == line_count && lines.last().is_some_and(|l| end_of(to) == l.len());
    let to_line = lines.get_mut(to.line.checked_sub(1)?)?;
    to_line.truncate(end_of(to));
    let off_line = lines.get_mut(offending.line.checked_sub(1)?)?;
    let close = end_of(offending).min(off_line.len());
    off_line.insert(close, ']');
    off_line.insert(offending.column.min(off_line.len()), '[');
    let from_line = lines.get_mut(from.line.checked_sub(1)?)?;
    let start = from.column.min(from_line.len());
    from_line.drain(..start);
    let mut out = String::new();
    if !include_start {
        out.push_str("...");
    }
    for l in lines.get(from.line - 1..to.line)? {
        out.extend(l.iter());
    }
    if !include_end {
        out.push_str("...");
    }
    Some(out)
}
