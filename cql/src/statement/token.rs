//! Tokens: what the lexer makes of statement text and the parser and its error messages read.

/// What a token is. Text-carrying kinds hold the unescaped text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TokenKind {
    /// An unquoted word (identifier or keyword), as written.
    Ident(String),
    /// A `"quoted"` identifier, unescaped.
    QuotedName(String),
    /// `""`, the legacy empty column name.
    EmptyQuotedName,
    /// `'...'` or `$$...$$`, unescaped.
    String(String),
    Integer(String),
    Float(String),
    Boolean(bool),
    Duration(String),
    Uuid(uuid::Uuid),
    Hex(Vec<u8>),
    /// `?`
    QMark,
    /// `..`
    Range,
    /// Operators and punctuation: `( ) [ ] { } , ; . : = < > <= >= != + - * / % += -=`.
    Punct(&'static str),
    /// Hidden: whitespace.
    Whitespace,
    /// Hidden: `--`, `//` or `/* */` comment.
    Comment,
    Eof,
}

/// A token and where it sits in the statement text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    pub(crate) kind: TokenKind,
    /// 1-based line.
    pub(crate) line: usize,
    /// 0-based character offset in the line.
    pub(crate) column: usize,
    /// Byte range in the source.
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// Length in characters of ANTLR's token text (the unescaped content for strings and quoted
    /// names), which Cassandra's error snippet uses to place brackets.
    pub(crate) text_len: usize,
}

impl Token {
    /// Whether the parser skips this token.
    pub(crate) fn is_hidden(&self) -> bool {
        matches!(self.kind, TokenKind::Whitespace | TokenKind::Comment)
    }
}
