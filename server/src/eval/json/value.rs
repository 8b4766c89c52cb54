//! A small JSON reader that keeps what CQL needs and general-purpose parsers drop: numbers as
//! their source text (so `varint`, `decimal` and `bigint` keep every digit, and an integer is
//! told apart from `1.0`), and object members in order with duplicates kept.

use std::fmt;

/// A parsed JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// The number's text exactly as written (`-1.5e3`).
    Number(String),
    String(String),
    Array(Vec<Json>),
    /// Members in source order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Jackson's class name for the value, used in Cassandra's "but got a X" messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "Boolean",
            Json::Number(n) if is_integer(n) => "Integer",
            Json::Number(_) => "Double",
            Json::String(_) => "String",
            Json::Array(_) => "ArrayList",
            Json::Object(_) => "LinkedHashMap",
        }
    }
}

/// Whether a JSON number's text is an integer (no fraction, no exponent).
pub(crate) fn is_integer(number: &str) -> bool {
    !number.contains(['.', 'e', 'E'])
}

impl fmt::Display for Json {
    /// Compact JSON text (numbers as written).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => write!(f, "{b}"),
            Json::Number(n) => f.write_str(n),
            Json::String(s) => f.write_str(&super::render::quote(s)),
            Json::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Json::Object(members) => {
                f.write_str("{")?;
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}:{v}", super::render::quote(k))?;
                }
                f.write_str("}")
            }
        }
    }
}

/// A syntax error with the byte offset where reading stopped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message} at character {offset}")]
pub(crate) struct JsonSyntaxError {
    pub message: &'static str,
    pub offset: usize,
}

/// Nesting deeper than this is rejected rather than risking the stack.
const MAX_DEPTH: usize = 128;

/// Parses one JSON document (surrounding whitespace allowed).
pub(crate) fn parse(text: &str) -> Result<Json, JsonSyntaxError> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        pos: 0,
    };
    let value = reader.value(0)?;
    reader.skip_ws();
    if reader.pos != reader.bytes.len() {
        return Err(reader.error("Unexpected trailing content"));
    }
    Ok(value)
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn error(&self, message: &'static str) -> JsonSyntaxError {
        JsonSyntaxError {
            message,
            offset: self.pos,
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn keyword(&mut self, word: &str, value: Json) -> Result<Json, JsonSyntaxError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("Unrecognized token"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, JsonSyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("Nesting too deep"));
        }
        self.skip_ws();
        match self.peek() {
            None => Err(self.error("Unexpected end of input")),
            Some(b'n') => self.keyword("null", Json::Null),
            Some(b't') => self.keyword("true", Json::Bool(true)),
            Some(b'f') => self.keyword("false", Json::Bool(false)),
            Some(b'"') => self.string().map(Json::String),
            Some(b'[') => self.array(depth),
            Some(b'{') => self.object(depth),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("Unexpected character")),
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Json, JsonSyntaxError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if self.digits() == 0 {
            return Err(self.error("Expected a digit"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("Expected a digit after the decimal point"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("Expected a digit in the exponent"));
            }
        }
        // The slice holds ASCII digits and signs only, so it is valid UTF-8.
        let text = String::from_utf8_lossy(&self.bytes[start..self.pos]).into_owned();
        Ok(Json::Number(text))
    }

    fn hex4(&mut self) -> Result<u32, JsonSyntaxError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("Truncated unicode escape"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.error("Invalid unicode escape"))?;
        let value =
            u32::from_str_radix(text, 16).map_err(|_| self.error("Invalid unicode escape"))?;
        self.pos += 4;
        Ok(value)
    }

    fn escape(&mut self, out: &mut String) -> Result<(), JsonSyntaxError> {
        let c = self
            .peek()
            .ok_or_else(|| self.error("Unexpected end of input"))?;
        self.pos += 1;
        let ch = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = self.hex4()?;
                let code = if (0xD800..0xDC00).contains(&first)
                    && self.bytes[self.pos..].starts_with(b"\\u")
                {
                    self.pos += 2;
                    let second = self.hex4()?;
                    0x10000 + ((first - 0xD800) << 10) + (second.wrapping_sub(0xDC00) & 0x3FF)
                } else {
                    first
                };
                char::from_u32(code).unwrap_or('\u{FFFD}')
            }
            _ => return Err(self.error("Unrecognized character escape")),
        };
        out.push(ch);
        Ok(())
    }

    fn string(&mut self) -> Result<String, JsonSyntaxError> {
        self.pos += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            // `start..pos` ends before an ASCII byte or at the end, so it is whole characters.
            out.push_str(&String::from_utf8_lossy(&self.bytes[start..self.pos]));
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return Err(self.error("Illegal unquoted character in string")),
                None => return Err(self.error("Unexpected end of input in a string")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, JsonSyntaxError> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("Expected ',' or ']' in an array")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, JsonSyntaxError> {
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("Expected a quoted field name"));
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.error("Expected ':' after a field name"));
            }
            self.pos += 1;
            let value = self.value(depth + 1)?;
            members.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(self.error("Expected ',' or '}' in an object")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_their_text() {
        assert_eq!(
            parse("123456789012345678901234567890").unwrap(),
            Json::Number("123456789012345678901234567890".into())
        );
        assert_eq!(parse(" -1.5E-3 ").unwrap(), Json::Number("-1.5E-3".into()));
        assert!(is_integer("-12") && !is_integer("1.0") && !is_integer("1e3"));
    }

    #[test]
    fn objects_keep_order_and_nesting() {
        let v = parse(r#"{"b": [1, null, true], "a": {"x": "y\"\u00e9\ud83d\ude00"}}"#).unwrap();
        assert_eq!(
            v,
            Json::Object(vec![
                (
                    "b".into(),
                    Json::Array(vec![Json::Number("1".into()), Json::Null, Json::Bool(true)])
                ),
                (
                    "a".into(),
                    Json::Object(vec![("x".into(), Json::String("y\"é😀".into()))])
                ),
            ])
        );
    }

    #[test]
    fn syntax_errors_are_reported() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "tru",
            "01x",
            "\"abc",
            "1 2",
            "-",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should not parse");
        }
        let deep = "[".repeat(1000);
        assert!(parse(&deep).is_err());
    }
}
