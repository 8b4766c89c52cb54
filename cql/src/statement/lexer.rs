//! The CQL lexer: text to tokens with line/column positions, following Cassandra's `Lexer.g`.
//!
//! Rules are matched longest-first with `Lexer.g`'s tie-break order (a DURATION wins over an
//! IDENT of the same length, so `P1D` is a duration). Signs are *not* part of numeric tokens:
//! `-5`, `-NaN`, `-Infinity` and `-1h` are a `-` followed by a literal, and the parser folds
//! them into negative literals; this keeps `c-1` and `frozen<list<int>>` unambiguous.
//! Whitespace and comments are kept as hidden tokens because Cassandra's error snippet
//! (`ErrorCollector`) counts them. Keywords are not distinguished here: every word is an
//! [`TokenKind::Ident`] and the parser compares it case-insensitively.

use nom::branch::alt;
use nom::bytes::complete::{tag, tag_no_case, take_until, take_while, take_while1, take_while_m_n};
use nom::character::complete::{char, digit1, one_of, satisfy};
use nom::combinator::{opt, recognize};
use nom::multi::many1;
use nom::{IResult, Parser};

use super::error::{ParseError, ParseErrorKind};
pub(crate) use super::token::{Token, TokenKind};

const PUNCTS: [&str; 24] = [
    "..", "<=", ">=", "!=", "+=", "-=", "(", ")", "[", "]", "{", "}", ",", ";", ".", ":", "=", "<",
    ">", "+", "-", "*", "/", "%",
];

/// Splits `src` into tokens (hidden ones included), ending with one [`TokenKind::Eof`].
pub(crate) fn tokenize(src: &str) -> Result<Vec<Token>, ParseError> {
    let mut tokens = Vec::new();
    let (mut line, mut column, mut offset) = (1usize, 0usize, 0usize);
    while offset < src.len() {
        let rest = &src[offset..];
        let (len, kind, text_len) = next_token(rest).map_err(|kind| ParseError {
            line,
            column,
            at_end: false,
            kind,
        })?;
        let text = &rest[..len];
        let chars = text.chars().count();
        tokens.push(Token {
            kind,
            line,
            column,
            start: offset,
            end: offset + len,
            text_len: text_len.unwrap_or(chars),
        });
        for c in text.chars() {
            if c == '\n' {
                line += 1;
                column = 0;
            } else {
                column += 1;
            }
        }
        offset += len;
    }
    tokens.push(Token {
        kind: TokenKind::Eof,
        line,
        column,
        start: src.len(),
        end: src.len(),
        text_len: 0,
    });
    Ok(tokens)
}

type Lexed = (usize, TokenKind, Option<usize>);

/// Lexes one token at the start of `rest` (non-empty): its byte length, kind, and ANTLR text
/// length when it differs from the source length.
fn next_token(rest: &str) -> Result<Lexed, ParseErrorKind> {
    let first = rest.chars().next().unwrap_or(' ');
    if let Ok((r, _)) = whitespace(rest) {
        return Ok((rest.len() - r.len(), TokenKind::Whitespace, None));
    }
    if let Ok((r, _)) = alt((line_comment, block_comment)).parse(rest) {
        return Ok((rest.len() - r.len(), TokenKind::Comment, None));
    }
    if rest.starts_with("/*") {
        return Err(lex_error("mismatched character '<EOF>' expecting '*'"));
    }
    match first {
        '\'' => return quoted(rest, '\'').map(|(n, s, l)| (n, TokenKind::String(s), Some(l))),
        '"' => return quoted_name(rest),
        '$' if rest.starts_with("$$") => return dollar_string(rest),
        '?' => return Ok((1, TokenKind::QMark, None)),
        _ => {}
    }
    if first.is_ascii_alphanumeric() {
        return word(rest);
    }
    if let Some(duration) = negative_duration(rest) {
        return Ok(duration);
    }
    if let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) {
        let kind = if *p == ".." {
            TokenKind::Range
        } else {
            TokenKind::Punct(p)
        };
        return Ok((p.len(), kind, None));
    }
    Err(lex_error(&format!(
        "no viable alternative at character '{}'",
        first.escape_default()
    )))
}

/// `-` glued to a duration (`-2mo`): one DURATION token, as Cassandra's lexer has it, so
/// `1y-2mo` is two literals (a syntax error), never a subtraction.
fn negative_duration(rest: &str) -> Option<Lexed> {
    let unsigned = rest.strip_prefix('-')?;
    if !unsigned.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    match word(unsigned) {
        Ok((len, TokenKind::Duration(text), _)) => {
            Some((len + 1, TokenKind::Duration(format!("-{text}")), None))
        }
        _ => None,
    }
}

fn lex_error(message: &str) -> ParseErrorKind {
    ParseErrorKind::Lexer(message.to_string())
}

fn whitespace(i: &str) -> IResult<&str, &str> {
    take_while1(|c| matches!(c, ' ' | '\t' | '\n' | '\r')).parse(i)
}

fn line_comment(i: &str) -> IResult<&str, &str> {
    recognize((
        alt((tag("--"), tag("//"))),
        take_while(|c| c != '\n' && c != '\r'),
        opt(one_of("\n\r")),
    ))
    .parse(i)
}

fn block_comment(i: &str) -> IResult<&str, &str> {
    recognize((tag("/*"), take_until("*/"), tag("*/"))).parse(i)
}

/// `'...'` (or `"..."`) with the quote doubled as its escape: (byte length, content, content chars).
fn quoted(rest: &str, quote: char) -> Result<(usize, String, usize), ParseErrorKind> {
    let mut out = String::new();
    let mut chars = rest.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        if c == quote {
            if chars.peek().is_some_and(|(_, n)| *n == quote) {
                chars.next();
            } else {
                let len = out.chars().count();
                return Ok((i + 1, out, len));
            }
        }
        out.push(c);
    }
    Err(lex_error(&format!(
        "mismatched character '<EOF>' expecting '{quote}'"
    )))
}

fn quoted_name(rest: &str) -> Result<Lexed, ParseErrorKind> {
    if rest.starts_with("\"\"") && !rest.starts_with("\"\"\"") {
        return Ok((2, TokenKind::EmptyQuotedName, None));
    }
    quoted(rest, '"').map(|(n, s, l)| (n, TokenKind::QuotedName(s), Some(l)))
}

fn dollar_string(rest: &str) -> Result<Lexed, ParseErrorKind> {
    let body = &rest[2..];
    match body.find("$$") {
        Some(end) => {
            let text = body[..end].to_string();
            let len = text.chars().count();
            Ok((end + 4, TokenKind::String(text), Some(len)))
        }
        None => Err(lex_error("mismatched character '<EOF>' expecting '$'")),
    }
}

/// A token starting with a letter or digit: the longest of UUID, hex number, duration, number,
/// boolean and identifier, ties going to the rule listed first in `Lexer.g`
/// (FLOAT, BOOLEAN, DURATION, IDENT, HEXNUMBER, UUID).
fn word(rest: &str) -> Result<Lexed, ParseErrorKind> {
    let len_of = |r: IResult<&str, &str>| r.map(|(_, m)| m.len()).unwrap_or(0);
    let number_len = len_of(number(rest));
    let duration_len = len_of(alt((unit_duration, iso_duration)).parse(rest));
    let ident_len = len_of(ident(rest));
    let hex_len = len_of(hex_number(rest));
    let uuid_len = len_of(uuid_text(rest));
    let best = number_len
        .max(duration_len)
        .max(ident_len)
        .max(hex_len)
        .max(uuid_len);
    let text = &rest[..best];
    if best == number_len {
        let kind = if text.bytes().all(|b| b.is_ascii_digit()) {
            TokenKind::Integer(text.to_string())
        } else {
            TokenKind::Float(text.to_string())
        };
        Ok((best, kind, None))
    } else if best == duration_len {
        Ok((best, TokenKind::Duration(text.to_string()), None))
    } else if best == ident_len {
        let kind = if text.eq_ignore_ascii_case("true") {
            TokenKind::Boolean(true)
        } else if text.eq_ignore_ascii_case("false") {
            TokenKind::Boolean(false)
        } else {
            TokenKind::Ident(text.to_string())
        };
        Ok((best, kind, None))
    } else if best == hex_len {
        hex_bytes(&text[2..])
            .map(|b| (best, TokenKind::Hex(b), None))
            .ok_or_else(|| lex_error(&format!("Invalid hex literal '{text}' (odd length)")))
    } else {
        uuid::Uuid::parse_str(text)
            .map(|u| (best, TokenKind::Uuid(u), None))
            .map_err(|_| lex_error(&format!("Invalid UUID literal '{text}'")))
    }
}

fn hex_bytes(digits: &str) -> Option<Vec<u8>> {
    digits
        .as_bytes()
        .chunks(2)
        .map(|pair| match pair {
            [hi, lo] => Some(hex_value(*hi)? << 4 | hex_value(*lo)?),
            _ => None,
        })
        .collect()
}

fn hex_value(digit: u8) -> Option<u8> {
    (digit as char)
        .to_digit(16)
        .and_then(|d| u8::try_from(d).ok())
}

fn ident(i: &str) -> IResult<&str, &str> {
    recognize((
        satisfy(|c| c.is_ascii_alphabetic()),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
    ))
    .parse(i)
}

fn is_hex(c: char) -> bool {
    c.is_ascii_hexdigit()
}

fn hex_number(i: &str) -> IResult<&str, &str> {
    recognize((char('0'), one_of("xX"), take_while(is_hex))).parse(i)
}

fn uuid_text(i: &str) -> IResult<&str, &str> {
    let hex = |n| take_while_m_n(n, n, is_hex);
    recognize((
        hex(8),
        char('-'),
        hex(4),
        char('-'),
        hex(4),
        char('-'),
        hex(4),
        char('-'),
        hex(12),
    ))
    .parse(i)
}

/// `INTEGER`, or `FLOAT`: `DIGIT+ ('.' DIGIT*)? EXPONENT?`, except that `1..` is an integer
/// followed by a range and `1...` the float `1.` followed by one (Cassandra's lexer
/// predicates on `FLOAT`).
fn number(i: &str) -> IResult<&str, &str> {
    let (after_digits, digits) = digit1(i)?;
    if after_digits.starts_with("...") {
        let len = digits.len() + 1;
        return Ok((&i[len..], &i[..len]));
    }
    if after_digits.starts_with("..") {
        return Ok((after_digits, digits));
    }
    recognize((
        digit1,
        opt((char('.'), take_while(|c: char| c.is_ascii_digit()))),
        opt((one_of("eE"), opt(one_of("+-")), digit1)),
    ))
    .parse(i)
}

fn duration_unit(i: &str) -> IResult<&str, &str> {
    alt((
        tag_no_case("mo"),
        tag_no_case("ms"),
        tag_no_case("us"),
        tag("µs"),
        tag("µS"),
        tag_no_case("ns"),
        recognize(one_of("yYwWdDhHmMsS")),
    ))
    .parse(i)
}

/// `DIGIT+ DURATION_UNIT (DIGIT+ DURATION_UNIT)*`, e.g. `1h30m`.
fn unit_duration(i: &str) -> IResult<&str, &str> {
    recognize(many1((digit1, duration_unit))).parse(i)
}

/// ISO 8601 forms: `P1Y2M3DT4H5M6S`, `P2W`, `PT1H`, `P0001-02-03T04:05:06`.
fn iso_duration(i: &str) -> IResult<&str, &str> {
    recognize((
        char('P'),
        alt((
            recognize(iso_alternative),
            recognize((digit1, char('W'))),
            iso_time,
            recognize((iso_period, opt(iso_time))),
        )),
    ))
    .parse(i)
}

fn iso_alternative(i: &str) -> IResult<&str, &str> {
    let digits = |n| take_while_m_n(n, n, |c: char| c.is_ascii_digit());
    recognize((
        digits(4),
        char('-'),
        digits(2),
        char('-'),
        digits(2),
        char('T'),
        digits(2),
        char(':'),
        digits(2),
        char(':'),
        digits(2),
    ))
    .parse(i)
}

fn iso_period(i: &str) -> IResult<&str, &str> {
    alt((
        recognize((
            digit1,
            char('Y'),
            opt((digit1, char('M'))),
            opt((digit1, char('D'))),
        )),
        recognize((digit1, char('M'), opt((digit1, char('D'))))),
        recognize((digit1, char('D'))),
    ))
    .parse(i)
}

fn iso_time(i: &str) -> IResult<&str, &str> {
    recognize((
        char('T'),
        alt((
            recognize((
                digit1,
                char('H'),
                opt((digit1, char('M'))),
                opt((digit1, char('S'))),
            )),
            recognize((digit1, char('M'), opt((digit1, char('S'))))),
            recognize((digit1, char('S'))),
        )),
    ))
    .parse(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        tokenize(src)
            .unwrap()
            .into_iter()
            .filter(|t| !t.is_hidden() && t.kind != TokenKind::Eof)
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn lexes_cql_literals() {
        let uuid = "123e4567-e89b-12d3-a456-426655440000";
        assert_eq!(
            kinds(&format!("{uuid} 1h30m // c\n")),
            vec![
                TokenKind::Uuid(uuid::Uuid::parse_str(uuid).unwrap()),
                TokenKind::Duration("1h30m".into()),
            ]
        );
        assert_eq!(
            kinds("1y2mo3w4d5h6m7s8ms9us10ns 3µs P1DT2H PT5M P2W P0001-02-03T04:05:06"),
            [
                "1y2mo3w4d5h6m7s8ms9us10ns",
                "3µs",
                "P1DT2H",
                "PT5M",
                "P2W",
                "P0001-02-03T04:05:06"
            ]
            .iter()
            .map(|d| TokenKind::Duration(d.to_string()))
            .collect::<Vec<_>>()
        );
        assert_eq!(
            kinds("0xCAFE 0x 1.5 1e10 1. 1..2 0...3. $$a'b$$ 'it''s' \"Q\"\"x\" \"\" TRUE"),
            vec![
                TokenKind::Hex(vec![0xca, 0xfe]),
                TokenKind::Hex(vec![]),
                TokenKind::Float("1.5".into()),
                TokenKind::Float("1e10".into()),
                TokenKind::Float("1.".into()),
                TokenKind::Integer("1".into()),
                TokenKind::Range,
                TokenKind::Integer("2".into()),
                TokenKind::Float("0.".into()),
                TokenKind::Range,
                TokenKind::Float("3.".into()),
                TokenKind::String("a'b".into()),
                TokenKind::String("it's".into()),
                TokenKind::QuotedName("Q\"x".into()),
                TokenKind::EmptyQuotedName,
                TokenKind::Boolean(true),
            ]
        );
    }

    #[test]
    fn splits_closing_angles_and_keeps_positions() {
        let toks = tokenize("a\n  frozen<list<int>>").unwrap();
        let gts = toks
            .iter()
            .filter(|t| t.kind == TokenKind::Punct(">"))
            .count();
        assert_eq!(gts, 2);
        let frozen = toks
            .iter()
            .find(|t| t.kind == TokenKind::Ident("frozen".into()))
            .unwrap();
        assert_eq!((frozen.line, frozen.column), (2, 2));
    }

    #[test]
    fn reports_lexer_errors() {
        assert!(tokenize("'abc").is_err());
        assert!(tokenize("a # b").is_err());
        assert!(tokenize("0xABC").is_err());
        assert!(tokenize("/* open").is_err());
    }
}
