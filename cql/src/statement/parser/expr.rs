//! Terms (`term` in `Parser.g`: literals, bind markers, collections, UDT and tuple literals,
//! function calls, type casts, arithmetic), types (`comparatorType`) and `WITH` properties.

use super::{Parser, Result};
use crate::statement::ast::{
    ArithOp, CqlType, Ident, Literal, Property, PropertyValue, QualifiedName, Term,
};
use crate::statement::is_reserved_keyword;
use crate::statement::lexer::TokenKind;
use crate::types::ColumnType;

/// `Parser.reservedTypeNames`: names a user type may not take.
const RESERVED_TYPE_NAMES: [&str; 7] = [
    "byte",
    "complex",
    "enum",
    "date",
    "interval",
    "macaddr",
    "bitstring",
];

impl Parser<'_> {
    /// `term`: `termAddition`.
    pub(crate) fn term(&mut self) -> Result<Term> {
        self.nested(|p| {
            let mut left = p.term_mul()?;
            while let Some(op) = p.additive_op() {
                p.advance();
                let right = p.term_mul()?;
                left = Term::Arith(op, Box::new(left), Box::new(right));
            }
            Ok(left)
        })
    }

    /// `+`/`-` continuing an arithmetic term. Stops before `+ c` where `c` is a bare column
    /// name, so that `SET l = [1] + l` is a prepend.
    fn additive_op(&self) -> Option<ArithOp> {
        let op = self.peek_add_op()?;
        (!self.is_bare_column_at(1)).then_some(op)
    }

    /// The `+`/`-` operator at the cursor, not consumed.
    pub(crate) fn peek_add_op(&self) -> Option<ArithOp> {
        if self.is_punct("+") {
            Some(ArithOp::Add)
        } else if self.is_punct("-") {
            Some(ArithOp::Sub)
        } else {
            None
        }
    }

    /// The `*`/`/`/`%` operator at the cursor, not consumed.
    pub(crate) fn peek_mul_op(&self) -> Option<ArithOp> {
        if self.is_punct("*") {
            Some(ArithOp::Mul)
        } else if self.is_punct("/") {
            Some(ArithOp::Div)
        } else if self.is_punct("%") {
            Some(ArithOp::Mod)
        } else {
            None
        }
    }

    /// Whether the token at `offset` is a column name used as such (not a function call).
    pub(crate) fn is_bare_column_at(&self, offset: usize) -> bool {
        let word = match self.peek_at(offset) {
            TokenKind::Ident(w) => !is_literal_word(w) && !is_reserved_keyword(w),
            TokenKind::QuotedName(_) | TokenKind::EmptyQuotedName => true,
            _ => false,
        };
        word && !self.is_punct_at(offset + 1, "(") && !self.is_punct_at(offset + 1, ".")
    }

    fn term_mul(&mut self) -> Result<Term> {
        let mut left = self.term_group()?;
        while let Some(op) = self.peek_mul_op() {
            self.advance();
            let right = self.term_group()?;
            left = Term::Arith(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// `termGroup`: `-` applied to a numeric or duration literal folds into the literal.
    fn term_group(&mut self) -> Result<Term> {
        if !self.eat_punct("-") {
            return self.simple_term();
        }
        if let Some(lit) = self.negative_literal() {
            return Ok(Term::Literal(lit));
        }
        self.nested(|p| Ok(Term::Negate(Box::new(p.term_group()?))))
    }

    /// After a consumed `-`: the negated literal if a numeric/duration literal follows.
    pub(crate) fn negative_literal(&mut self) -> Option<Literal> {
        let lit = match self.peek() {
            TokenKind::Integer(n) => Literal::Integer(format!("-{n}")),
            TokenKind::Float(n) => Literal::Float(format!("-{n}")),
            TokenKind::Duration(d) => Literal::Duration(format!("-{d}")),
            TokenKind::Ident(w) if w.eq_ignore_ascii_case("nan") => Literal::Float("NaN".into()),
            TokenKind::Ident(w) if w.eq_ignore_ascii_case("infinity") => {
                Literal::Float("-Infinity".into())
            }
            _ => return None,
        };
        self.advance();
        Some(lit)
    }

    /// `simpleTerm`: value, function call, or `(type) term`.
    fn simple_term(&mut self) -> Result<Term> {
        if let Some(lit) = self.constant() {
            return Ok(Term::Literal(lit));
        }
        if let Some(marker) = self.bind_marker()? {
            return Ok(Term::Bind(marker));
        }
        if self.eat_kw("null") {
            return Ok(Term::Literal(Literal::Null));
        }
        if self.is_punct("[") {
            return self.nested(|p| p.list_literal());
        }
        if self.is_punct("{") {
            return self.nested(|p| p.brace_literal());
        }
        if self.is_punct("(") {
            return self.nested(|p| p.either(|p| p.type_cast(), |p| p.tuple_literal()));
        }
        if self.keyword_text().as_deref() == Some("cast") && self.is_punct_at(1, "(") {
            return self.nested(|p| p.cast_term());
        }
        if self.is_function_start() {
            let name = self.function_name()?;
            let args = self.function_args()?;
            return Ok(Term::Function { name, args });
        }
        Err(self.no_viable())
    }

    /// `CAST '(' term AS type ')'`.
    fn cast_term(&mut self) -> Result<Term> {
        self.advance();
        self.expect_punct("(")?;
        let term = self.term()?;
        self.expect_kw("as")?;
        let ty = self.cql_type()?;
        self.expect_punct(")")?;
        Ok(Term::Cast(Box::new(term), ty))
    }

    fn type_cast(&mut self) -> Result<Term> {
        self.expect_punct("(")?;
        let ty = self.cql_type()?;
        self.expect_punct(")")?;
        let term = self.nested(|p| p.simple_term())?;
        Ok(Term::TypeCast(ty, Box::new(term)))
    }

    /// `'(' term (',' term)* ')'`.
    pub(crate) fn tuple_literal(&mut self) -> Result<Term> {
        self.expect_punct("(")?;
        let mut items = vec![self.term()?];
        while self.eat_punct(",") {
            items.push(self.term()?);
        }
        self.expect_punct(")")?;
        Ok(Term::Tuple(items))
    }

    fn list_literal(&mut self) -> Result<Term> {
        self.expect_punct("[")?;
        let mut items = Vec::new();
        if !self.is_punct("]") {
            items.push(self.term()?);
            while self.eat_punct(",") {
                items.push(self.term()?);
            }
        }
        self.expect_punct("]")?;
        Ok(Term::List(items))
    }

    /// `{}` (an empty map), `{k: v, ...}`, `{a, b}` or a UDT literal `{field: v, ...}`
    /// (recognised by an identifier key: a bare identifier is never a term).
    fn brace_literal(&mut self) -> Result<Term> {
        self.expect_punct("{")?;
        if self.eat_punct("}") {
            return Ok(Term::Map(Vec::new()));
        }
        if self.is_field_key_at(0) && self.is_punct_at(1, ":") {
            let mut fields = Vec::new();
            loop {
                let name = self.ident()?;
                self.expect_punct(":")?;
                fields.push((name, self.term()?));
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct("}")?;
            return Ok(Term::Udt(fields));
        }
        let first = self.term()?;
        if self.eat_punct(":") {
            let mut entries = vec![(first, self.term()?)];
            while self.eat_punct(",") {
                let key = self.term()?;
                self.expect_punct(":")?;
                entries.push((key, self.term()?));
            }
            self.expect_punct("}")?;
            return Ok(Term::Map(entries));
        }
        let mut items = vec![first];
        while self.eat_punct(",") {
            items.push(self.term()?);
        }
        self.expect_punct("}")?;
        Ok(Term::Set(items))
    }

    fn is_field_key_at(&self, offset: usize) -> bool {
        match self.peek_at(offset) {
            TokenKind::Ident(w) => !is_reserved_keyword(w) && !is_literal_word(w),
            TokenKind::QuotedName(_) => true,
            _ => false,
        }
    }

    /// `constant` (unsigned; the sign is folded by `term_group`), consumed if present.
    pub(crate) fn constant(&mut self) -> Option<Literal> {
        let lit = match self.peek() {
            TokenKind::String(s) => Literal::String(s.clone()),
            TokenKind::Integer(n) => Literal::Integer(n.clone()),
            TokenKind::Float(n) => Literal::Float(n.clone()),
            TokenKind::Boolean(b) => Literal::Boolean(*b),
            TokenKind::Duration(d) => Literal::Duration(d.clone()),
            TokenKind::Uuid(u) => Literal::Uuid(*u),
            TokenKind::Hex(b) => Literal::Blob(b.clone()),
            TokenKind::Ident(w) if w.eq_ignore_ascii_case("nan") => Literal::Float("NaN".into()),
            TokenKind::Ident(w) if w.eq_ignore_ascii_case("infinity") => {
                Literal::Float("Infinity".into())
            }
            _ => return None,
        };
        self.advance();
        Some(lit)
    }

    /// A constant with an optional leading `-`.
    pub(crate) fn signed_constant(&mut self) -> Result<Literal> {
        if self.eat_punct("-") {
            return self.negative_literal().ok_or_else(|| self.no_viable());
        }
        self.constant().ok_or_else(|| self.no_viable())
    }

    /// Whether a function call starts here: `name(` or `ks.name(`.
    pub(crate) fn is_function_start(&self) -> bool {
        let name_at = |o: usize| match self.peek_at(o) {
            TokenKind::Ident(w) => !is_reserved_keyword(w) || w.eq_ignore_ascii_case("token"),
            TokenKind::QuotedName(_) => true,
            _ => false,
        };
        (name_at(0) && self.is_punct_at(1, "("))
            || (self.is_ident_at(0)
                && self.is_punct_at(1, ".")
                && name_at(2)
                && self.is_punct_at(3, "("))
    }

    /// `functionName`: `(ks '.')? allowedFunctionName` (`token` is allowed although reserved).
    pub(crate) fn function_name(&mut self) -> Result<QualifiedName> {
        let keyspace = if self.is_punct_at(1, ".") {
            let ks = self.ident()?;
            self.advance();
            Some(ks)
        } else {
            None
        };
        let name = if self.is_kw("token") {
            self.advance();
            Ident {
                name: "token".into(),
                quoted: false,
            }
        } else {
            self.ident()?
        };
        Ok(QualifiedName { keyspace, name })
    }

    fn function_args(&mut self) -> Result<Vec<Term>> {
        self.expect_punct("(")?;
        let mut args = Vec::new();
        if !self.is_punct(")") {
            args.push(self.term()?);
            while self.eat_punct(",") {
                args.push(self.term()?);
            }
        }
        self.expect_punct(")")?;
        Ok(args)
    }

    /// `intValue`: an integer literal (optionally negative) or a bind marker.
    pub(crate) fn int_value(&mut self) -> Result<Term> {
        if let Some(marker) = self.bind_marker()? {
            return Ok(Term::Bind(marker));
        }
        let negative = self.eat_punct("-");
        match self.peek().clone() {
            TokenKind::Integer(n) => {
                self.advance();
                let text = if negative { format!("-{n}") } else { n };
                Ok(Term::Literal(Literal::Integer(text)))
            }
            _ => Err(self.expected("INTEGER")),
        }
    }

    // ---------- types ----------

    /// `comparatorType`.
    pub(crate) fn cql_type(&mut self) -> Result<CqlType> {
        self.nested(|p| p.cql_type_inner())
    }

    fn cql_type_inner(&mut self) -> Result<CqlType> {
        if let TokenKind::String(class) = self.peek() {
            let class = class.clone();
            self.advance();
            return Ok(CqlType::Custom(class));
        }
        let word = self.keyword_text().unwrap_or_default();
        if self.is_punct_at(1, "<") {
            let parametrised = matches!(
                word.as_str(),
                "list" | "set" | "map" | "tuple" | "frozen" | "vector"
            );
            if parametrised {
                self.advance();
                self.advance();
                let ty = self.type_params(&word)?;
                self.expect_punct(">")?;
                return Ok(ty);
            }
        }
        if let Some(native) = ColumnType::native_from_name(&word) {
            if !self.is_punct_at(1, ".") {
                self.advance();
                return Ok(CqlType::Native(native));
            }
        }
        let name = self.qualified_name()?;
        if !name.name.quoted && RESERVED_TYPE_NAMES.contains(&name.name.name.as_str()) {
            return Err(self.invalid(&format!(
                "Invalid (reserved) user type name {}",
                name.name.name
            )));
        }
        Ok(CqlType::Udt(name))
    }

    /// The parameters of `word<...>`, after the `<`.
    fn type_params(&mut self, word: &str) -> Result<CqlType> {
        let first = self.cql_type()?;
        let ty = match word {
            "list" => CqlType::List(Box::new(first)),
            "set" => CqlType::Set(Box::new(first)),
            "frozen" => CqlType::Frozen(Box::new(first)),
            "map" => {
                self.expect_punct(",")?;
                CqlType::Map(Box::new(first), Box::new(self.cql_type()?))
            }
            "vector" => {
                self.expect_punct(",")?;
                // Cassandra's INTEGER token may be negative; `Integer.parseInt` refuses what
                // does not fit an int, and the resolver refuses dimensions below 1.
                let negative = self.eat_punct("-");
                let text = match self.peek() {
                    TokenKind::Integer(n) => n.clone(),
                    _ => return Err(self.expected("INTEGER")),
                };
                let signed = if negative { format!("-{text}") } else { text };
                let dims = signed.parse::<i32>().map_err(|_| {
                    self.error(format!(
                        "NumberFormatException For input string: \"{signed}\""
                    ))
                })?;
                self.advance();
                CqlType::Vector(Box::new(first), dims)
            }
            _ => {
                let mut items = vec![first];
                while self.eat_punct(",") {
                    items.push(self.cql_type()?);
                }
                CqlType::Tuple(items)
            }
        };
        Ok(ty)
    }

    // ---------- properties ----------

    /// `properties`: `property (AND property)*`.
    pub(crate) fn properties(&mut self) -> Result<Vec<Property>> {
        let mut out = vec![self.property()?];
        while self.eat_kw("and") {
            let property = self.property()?;
            if out.iter().any(|p: &Property| p.name == property.name) {
                return Err(self.recognition(format!(
                    "Multiple definition for property '{}'",
                    property.name
                )));
            }
            out.push(property);
        }
        Ok(out)
    }

    /// `property`: `name = constant | keyword | {map}`.
    pub(crate) fn property(&mut self) -> Result<Property> {
        let name = self.ident()?.name;
        self.expect_punct("=")?;
        let value = if self.is_punct("{") {
            PropertyValue::Map(self.property_map()?)
        } else if let TokenKind::Ident(w) = self.peek() {
            if is_literal_word(w) {
                PropertyValue::Constant(self.signed_constant()?)
            } else if is_reserved_keyword(w) {
                return Err(self.no_viable());
            } else {
                let w = w.clone();
                self.advance();
                PropertyValue::Identifier(w)
            }
        } else {
            PropertyValue::Constant(self.signed_constant()?)
        };
        Ok(Property { name, value })
    }

    /// `fullMapLiteral` of constants: keys keep their raw text.
    fn property_map(&mut self) -> Result<Vec<(String, Literal)>> {
        self.expect_punct("{")?;
        let mut entries = Vec::new();
        if !self.is_punct("}") {
            loop {
                let key = self.signed_constant().map_err(|_| {
                    self.invalid(&format!("Invalid property name: {}", self.found()))
                })?;
                self.expect_punct(":")?;
                let value = self.signed_constant()?;
                let key = raw_text(&key);
                if entries.iter().any(|(k, _)| *k == key) {
                    return Err(self.recognition(format!("Multiple definition for property {key}")));
                }
                entries.push((key, value));
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        self.expect_punct("}")?;
        Ok(entries)
    }
}

/// `NaN` and `Infinity`: words that are literals, never identifiers.
pub(crate) fn is_literal_word(w: &str) -> bool {
    w.eq_ignore_ascii_case("nan") || w.eq_ignore_ascii_case("infinity")
}

/// Cassandra's `Constants.Literal.getRawText` for a property key.
pub(crate) fn raw_text(lit: &Literal) -> String {
    match lit {
        Literal::String(s) => s.clone(),
        Literal::Integer(s) | Literal::Float(s) | Literal::Duration(s) => s.clone(),
        Literal::Boolean(b) => b.to_string(),
        Literal::Blob(b) => {
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            format!("0x{hex}")
        }
        Literal::Uuid(u) => u.to_string(),
        Literal::Null => "null".into(),
    }
}
