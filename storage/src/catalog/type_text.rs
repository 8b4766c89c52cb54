//! Parses a column type's CQL text (as `ColumnType`'s `Display` writes it, and as
//! `system_schema.columns.type` shows it) back into a [`ColumnType`].
//!
//! Handles native names, `list<..>`, `set<..>`, `map<.., ..>`, `tuple<..>`, `frozen<..>` and
//! quoted custom class names. User-defined type names (plain or double-quoted) resolve through
//! a caller-given lookup ([`parse_type_with`]); [`parse_type`] rejects them.

use cql::types::ColumnType;
use thiserror::Error;

/// A type text that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("cannot parse type {text:?}: {reason}")]
pub struct TypeTextError {
    /// The whole text being parsed.
    pub text: String,
    /// What went wrong.
    pub reason: String,
}

/// Parses `text` into a [`ColumnType`].
///
/// # Errors
/// [`TypeTextError`] on malformed text, unknown names (including UDT names) and trailing input.
pub fn parse_type(text: &str) -> Result<ColumnType, TypeTextError> {
    parse_type_with(text, &|_| None)
}

/// Parses `text` into a [`ColumnType`], resolving user-defined type names with `udt` (which
/// returns the non-frozen type).
///
/// # Errors
/// [`TypeTextError`] on malformed text, unknown names and trailing input.
pub fn parse_type_with(
    text: &str,
    udt: &dyn Fn(&str) -> Option<ColumnType>,
) -> Result<ColumnType, TypeTextError> {
    let mut parser = Parser { text, pos: 0, udt };
    let ty = parser.ty()?;
    parser.skip_ws();
    if parser.pos != text.len() {
        return Err(parser.error("trailing input"));
    }
    Ok(ty)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    udt: &'a dyn Fn(&str) -> Option<ColumnType>,
}

impl Parser<'_> {
    fn error(&self, reason: impl Into<String>) -> TypeTextError {
        TypeTextError {
            text: self.text.to_string(),
            reason: format!("{} at offset {}", reason.into(), self.pos),
        }
    }

    fn rest(&self) -> &str {
        self.text.get(self.pos..).unwrap_or("")
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.rest().starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), TypeTextError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(format!("expected '{c}'")))
        }
    }

    fn ident(&mut self) -> &str {
        self.skip_ws();
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let start = self.pos;
        self.pos += len;
        &self.text[start..start + len]
    }

    fn quoted(&mut self, quote: char) -> Result<String, TypeTextError> {
        // The opening quote has been consumed.
        let mut out = String::new();
        let mut chars = self.rest().char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c == quote {
                if chars.peek().map(|&(_, n)| n) == Some(quote) {
                    chars.next();
                    out.push(quote);
                } else {
                    self.pos += i + 1;
                    return Ok(out);
                }
            } else {
                out.push(c);
            }
        }
        Err(self.error("unterminated quoted name"))
    }

    fn ty(&mut self) -> Result<ColumnType, TypeTextError> {
        if self.eat('\'') {
            return Ok(ColumnType::Custom(self.quoted('\'')?));
        }
        if self.eat('"') {
            let name = self.quoted('"')?;
            return (self.udt)(&name).ok_or_else(|| self.error(format!("unknown type {name:?}")));
        }
        let name = self.ident().to_ascii_lowercase();
        if name.is_empty() {
            return Err(self.error("expected a type name"));
        }
        match name.as_str() {
            "frozen" => {
                self.expect('<')?;
                let inner = self.ty()?;
                self.expect('>')?;
                Ok(inner.frozen())
            }
            "list" | "set" => {
                let mut args = self.args(1)?.into_iter();
                let element = Box::new(args.next().ok_or_else(|| self.error("missing type"))?);
                Ok(if name == "list" {
                    ColumnType::List {
                        element,
                        frozen: false,
                    }
                } else {
                    ColumnType::Set {
                        element,
                        frozen: false,
                    }
                })
            }
            "map" => {
                let mut args = self.args(2)?.into_iter();
                let (Some(key), Some(value)) = (args.next(), args.next()) else {
                    return Err(self.error("map needs two types"));
                };
                Ok(ColumnType::Map {
                    key: Box::new(key),
                    value: Box::new(value),
                    frozen: false,
                })
            }
            "vector" => {
                self.expect('<')?;
                let element = self.ty()?.frozen();
                self.expect(',')?;
                let digits = self.ident().to_string();
                let dimension = digits
                    .parse::<u32>()
                    .map_err(|_| self.error("expected a vector dimension"))?;
                self.expect('>')?;
                Ok(ColumnType::Vector {
                    element: Box::new(element),
                    dimension,
                })
            }
            "tuple" => {
                self.expect('<')?;
                let items = self.list()?;
                Ok(ColumnType::Tuple(items))
            }
            other => ColumnType::native_from_name(other)
                .or_else(|| (self.udt)(other))
                .ok_or_else(|| self.error(format!("unknown type {other:?}"))),
        }
    }

    /// `<t1, t2, ...>` with exactly `count` types.
    fn args(&mut self, count: usize) -> Result<Vec<ColumnType>, TypeTextError> {
        self.expect('<')?;
        let items = self.list()?;
        if items.len() != count {
            return Err(self.error(format!("expected {count} type argument(s)")));
        }
        Ok(items)
    }

    /// `t1, t2, ... >` after the opening `<`.
    fn list(&mut self) -> Result<Vec<ColumnType>, TypeTextError> {
        let mut items = vec![self.ty()?];
        while self.eat(',') {
            items.push(self.ty()?);
        }
        self.expect('>')?;
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) {
        let ty = parse_type(text).unwrap();
        assert_eq!(ty.to_string(), text);
    }

    #[test]
    fn parses_what_display_writes() {
        for text in [
            "int",
            "text",
            "timeuuid",
            "list<int>",
            "frozen<set<text>>",
            "map<text, frozen<list<int>>>",
            "frozen<map<int, frozen<set<uuid>>>>",
            "frozen<tuple<int, text, frozen<list<blob>>>>",
            "'org.example.My''Type'",
        ] {
            round_trip(text);
        }
    }

    #[test]
    fn accepts_aliases_and_spacing() {
        assert_eq!(parse_type("VARCHAR").unwrap(), ColumnType::Text);
        assert_eq!(
            parse_type(" tuple< int ,text > ").unwrap().to_string(),
            "frozen<tuple<int, text>>"
        );
    }

    #[test]
    fn resolves_user_types_by_name() {
        let address = ColumnType::Udt {
            keyspace: "ks".into(),
            name: "Address".into(),
            fields: vec![("zip".into(), ColumnType::Int)],
            frozen: false,
        };
        let lookup = |name: &str| (name == "Address").then(|| address.clone());
        let ty = parse_type_with("map<int, frozen<\"Address\">>", &lookup).unwrap();
        assert_eq!(ty.to_string(), "map<int, frozen<\"Address\">>");
        assert!(parse_type_with("address", &lookup).is_err());
    }

    #[test]
    fn rejects_bad_text() {
        for text in [
            "",
            "list<",
            "map<int>",
            "int>",
            "my_udt",
            "frozen<int",
            "'abc",
        ] {
            assert!(parse_type(text).is_err(), "{text}");
        }
    }
}
