//! Types named by their Java class, as a custom type is written in CQL
//! (`'org.apache.cassandra.db.marshal.CompositeType(AsciiType, Int32Type)'`) and as Cassandra
//! 5.0's `TypeParser` reads it: a class name (the `org.apache.cassandra.db.marshal.` package
//! when it names none), then its parameters in parentheses.
//!
//! A class of a CQL type is that type (`Int32Type` is `int`, `ListType(UTF8Type)` is
//! `list<text>`, `FrozenType(...)` freezes, `ReversedType(t)` is `t`), as
//! `AbstractType.asCQL3Type` shows it; `CompositeType` and `DynamicCompositeType` stay custom
//! types, named by their full class as `AbstractType.toString` spells it (see
//! [`Composite`]); any other class is refused as Cassandra refuses a class it cannot load.

use std::fmt;

use super::ColumnType;

/// The package of Cassandra's types, which a class name without a dot is in.
pub const PACKAGE: &str = "org.apache.cassandra.db.marshal.";

const COMPOSITE: &str = "CompositeType";
const REVERSED: &str = "ReversedType";
const DYNAMIC_COMPOSITE: &str = "DynamicCompositeType";

/// Why a class name is refused, with Cassandra's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarshalError {
    /// No such type class (`ConfigurationException`).
    UnknownClass(String),
    /// A parameter list that does not parse, or the wrong number of parameters
    /// (`SyntaxException` and `ConfigurationException` of `TypeParser` and the types).
    Syntax(String),
    /// A class whose parameters the type refuses (`ConfigurationException`).
    Invalid(String),
}

impl fmt::Display for MarshalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MarshalError::UnknownClass(class) => {
                write!(f, "Unable to find abstract-type class '{class}'")
            }
            MarshalError::Syntax(message) | MarshalError::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for MarshalError {}

/// A type as a Java class names it: a CQL type, which `ReversedType(...)` (or a parameter
/// `reversed=true`) sorts in descending order. Only where order matters (a clustering column,
/// a composite's component) does the reversal mean anything; elsewhere the class is its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassType {
    /// The type.
    pub ty: ColumnType,
    /// Whether values sort in the type's reverse order.
    pub reversed: bool,
}

impl ClassType {
    /// The full class name, as `AbstractType.toString` spells it.
    pub fn class(&self) -> String {
        let class = self.ty.marshal_class();
        if self.reversed {
            format!("{PACKAGE}{REVERSED}({class})")
        } else {
            class
        }
    }

    /// `getClass().getSimpleName()` and `getClass().getName()` of the type's class (of its
    /// base type under a reversal), which order a dynamic composite's components of different
    /// types.
    pub fn class_names(&self) -> (String, String) {
        let class = self.ty.marshal_class();
        let name = class.split('(').next().unwrap_or_default().to_string();
        let simple = name.rsplit('.').next().unwrap_or_default().to_string();
        (simple, name)
    }
}

impl From<ColumnType> for ClassType {
    fn from(ty: ColumnType) -> ClassType {
        ClassType {
            ty,
            reversed: false,
        }
    }
}

/// The components of a composite custom type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Composite {
    /// `CompositeType(t1, t2, ...)`: one component per type, in order.
    Static(Vec<ClassType>),
    /// `DynamicCompositeType(a => t1, ...)`: each component names its own type, by a
    /// one-byte alias or by class name; the aliases in Cassandra's order (see
    /// [`alias_order`]).
    Dynamic(Vec<(u8, ClassType)>),
}

impl Composite {
    /// The composite type a custom type's class names, if it names one.
    pub fn of(ty: &ColumnType) -> Option<Composite> {
        let ColumnType::Custom(class) = ty else {
            return None;
        };
        let mut parser = Parser::new(class);
        let name = parser.identifier();
        let simple = name.strip_prefix(PACKAGE).unwrap_or(name);
        match simple {
            COMPOSITE => parser.class_parameters().ok().map(Composite::Static),
            DYNAMIC_COMPOSITE => parser.alias_parameters().ok().map(Composite::Dynamic),
            _ => None,
        }
    }

    /// The full class name, as `AbstractType.toString` spells it.
    pub fn class(&self) -> String {
        match self {
            Composite::Static(types) => {
                let types: Vec<String> = types.iter().map(ClassType::class).collect();
                format!("{PACKAGE}{COMPOSITE}({})", types.join(","))
            }
            Composite::Dynamic(aliases) => {
                let aliases: Vec<String> = aliases
                    .iter()
                    .map(|(alias, ty)| format!("{}=>{}", char::from(*alias), ty.class()))
                    .collect();
                format!("{PACKAGE}{DYNAMIC_COMPOSITE}({})", aliases.join(","))
            }
        }
    }
}

/// Reads a type named by its Java class, as `TypeParser.parse` does (blanks skipped, what
/// follows the type ignored; no name at all is `BytesType`, a `blob`).
///
/// # Errors
/// A class Cassandra has not, a malformed parameter list, parameters the type refuses.
pub fn parse_class(text: &str) -> Result<ColumnType, MarshalError> {
    let mut parser = Parser::new(text);
    parser.skip_blank();
    if parser.peek_identifier().is_empty() {
        return Ok(ColumnType::Blob);
    }
    parser.parse()
}

/// Reads a type named by its Java class as [`parse_class`] does, keeping whether it is
/// reversed (`ReversedType(...)`, or a parameter `reversed` or `reversed=true`).
///
/// # Errors
/// As [`parse_class`].
pub fn parse_class_type(text: &str) -> Result<ClassType, MarshalError> {
    let mut parser = Parser::new(text);
    parser.skip_blank();
    if parser.peek_identifier().is_empty() {
        return Ok(ColumnType::Blob.into());
    }
    parser.class_type()
}

/// The order Cassandra lists a `DynamicCompositeType`'s aliases in: a Java `HashMap` keyed
/// by the alias byte, iterated bucket by bucket (the byte modulo its capacity, 16 doubled
/// while the aliases fill more than three quarters), each bucket in insertion order; a
/// repeated alias keeps its first place and its last type.
pub fn alias_order(aliases: Vec<(u8, ClassType)>) -> Vec<(u8, ClassType)> {
    let mut unique: Vec<(u8, ClassType)> = Vec::with_capacity(aliases.len());
    for (alias, ty) in aliases {
        match unique.iter_mut().find(|(a, _)| *a == alias) {
            Some(entry) => entry.1 = ty,
            None => unique.push((alias, ty)),
        }
    }
    let mut capacity = 16usize;
    while unique.len() * 4 > capacity * 3 {
        capacity *= 2;
    }
    unique.sort_by_key(|(alias, _)| usize::from(*alias) & (capacity - 1));
    unique
}

/// `TypeParser` over one class string.
struct Parser<'a> {
    text: &'a str,
    idx: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser { text, idx: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.idx).copied()
    }

    fn skip_blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n')) {
            self.idx += 1;
        }
    }

    /// Skips blanks and at most one comma; whether anything is left.
    fn skip_blank_and_comma(&mut self) -> bool {
        let mut comma = false;
        while let Some(c) = self.peek() {
            match c {
                b',' if comma => return true,
                b',' => comma = true,
                b' ' | b'\t' | b'\n' => {}
                _ => return true,
            }
            self.idx += 1;
        }
        false
    }

    fn is_identifier_char(c: u8) -> bool {
        c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.' | b'_' | b'&')
    }

    fn peek_identifier(&self) -> &'a str {
        let rest = &self.text[self.idx..];
        let end = rest
            .bytes()
            .position(|c| !Self::is_identifier_char(c))
            .unwrap_or(rest.len());
        &rest[..end]
    }

    fn identifier(&mut self) -> &'a str {
        let name = self.peek_identifier();
        self.idx += name.len();
        name
    }

    fn syntax(&self, message: &str) -> MarshalError {
        MarshalError::Syntax(format!(
            "Syntax error parsing '{}' at char {}: {message}",
            self.text, self.idx
        ))
    }

    fn unexpected_end(&self) -> MarshalError {
        self.syntax("unexpected end of string")
    }

    /// One type at the current position.
    fn parse(&mut self) -> Result<ColumnType, MarshalError> {
        Ok(self.class_type()?.ty)
    }

    /// One type at the current position, and whether it is reversed.
    fn class_type(&mut self) -> Result<ClassType, MarshalError> {
        self.skip_blank();
        let name = self.identifier();
        self.skip_blank();
        let simple = match name.strip_prefix(PACKAGE) {
            Some(simple) => simple,
            None if !name.contains('.') => name,
            None => return Err(MarshalError::UnknownClass(name.to_string())),
        };
        let class = || format!("{PACKAGE}{simple}");
        if let Some(native) = native(simple) {
            // `AbstractType.parseDefaultParameters`: key-value parameters, of which only
            // `reversed` means anything.
            let mut reversed = false;
            if self.peek() == Some(b'(') {
                for (key, value) in self.key_value_parameters()? {
                    if key == "reversed" {
                        reversed = value.is_empty() || value == "true";
                    }
                }
            }
            return Ok(ClassType {
                ty: native,
                reversed,
            });
        }
        if simple == REVERSED {
            let mut inner = self.class_parameters()?;
            let (Some(base), None) = (inner.pop(), inner.pop()) else {
                return Err(MarshalError::Invalid(format!(
                    "{REVERSED} takes exactly 1 type parameter"
                )));
            };
            return Ok(ClassType {
                ty: base.ty,
                reversed: !base.reversed,
            });
        }
        let parameters = |this: &mut Self, count: usize, what: &str| {
            let types = this.type_parameters()?;
            if types.len() == count {
                Ok(types)
            } else {
                Err(MarshalError::Invalid(format!(
                    "{simple} takes exactly {count} type parameter{what}"
                )))
            }
        };
        let one = |this: &mut Self| {
            parameters(this, 1, "")
                .map(|mut types| Box::new(types.pop().unwrap_or(ColumnType::Blob)))
        };
        Ok(match simple {
            "ListType" => ColumnType::List {
                element: one(self)?,
                frozen: false,
            },
            "SetType" => ColumnType::Set {
                element: one(self)?,
                frozen: false,
            },
            "MapType" => {
                let mut types = parameters(self, 2, "s")?.into_iter();
                let (Some(key), Some(value)) = (types.next(), types.next()) else {
                    return Err(self.unexpected_end());
                };
                ColumnType::Map {
                    key: Box::new(key),
                    value: Box::new(value),
                    frozen: false,
                }
            }
            "FrozenType" => one(self)?.frozen(),
            "TupleType" => ColumnType::Tuple(
                self.type_parameters()?
                    .into_iter()
                    .map(ColumnType::frozen)
                    .collect(),
            ),
            "VectorType" => self.vector()?,
            COMPOSITE => ColumnType::Custom(Composite::Static(self.class_parameters()?).class()),
            DYNAMIC_COMPOSITE => {
                ColumnType::Custom(Composite::Dynamic(self.alias_parameters()?).class())
            }
            "EmptyType" | "LexicalUUIDType" => ColumnType::Custom(class()),
            _ => return Err(MarshalError::UnknownClass(class())),
        }
        .into())
    }

    /// `(type, type, ...)` of a composite, each keeping its reversal.
    fn class_parameters(&mut self) -> Result<Vec<ClassType>, MarshalError> {
        self.parameters(|parser| {
            let start = parser.idx;
            let ty = parser.class_type()?;
            if parser.idx == start {
                return Err(parser.unexpected_character());
            }
            Ok(ty)
        })
    }

    fn unexpected_character(&self) -> MarshalError {
        self.syntax(&format!(
            "unexpected character '{}'",
            char::from(self.peek().unwrap_or(b' '))
        ))
    }

    /// `(key, key=value, ...)` (`TypeParser.getKeyValueParameters`).
    fn key_value_parameters(&mut self) -> Result<Vec<(&'a str, &'a str)>, MarshalError> {
        self.parameters(|parser| {
            let key = parser.identifier();
            parser.skip_blank();
            match parser.peek() {
                Some(b'=') => {
                    parser.idx += 1;
                    parser.skip_blank();
                    Ok((key, parser.identifier()))
                }
                Some(b',' | b')') => Ok((key, "")),
                Some(_) => Err(parser.unexpected_character()),
                None => Err(parser.unexpected_end()),
            }
        })
    }

    /// `(type, type, ...)`, or nothing at the end of the string.
    fn type_parameters(&mut self) -> Result<Vec<ColumnType>, MarshalError> {
        Ok(self
            .class_parameters()?
            .into_iter()
            .map(|class| class.ty)
            .collect())
    }

    /// `(a => type, ...)` of a `DynamicCompositeType`, in Cassandra's order.
    fn alias_parameters(&mut self) -> Result<Vec<(u8, ClassType)>, MarshalError> {
        let aliases = self.parameters(|parser| {
            let alias = parser.identifier();
            let [alias] = alias.as_bytes() else {
                return Err(parser.syntax("An alias should be a single character"));
            };
            let alias = *alias;
            parser.skip_blank();
            if !parser.text[parser.idx..].starts_with("=>") {
                return Err(parser.syntax("expecting '=>' token"));
            }
            parser.idx += 2;
            parser.skip_blank();
            Ok((alias, parser.class_type()?))
        })?;
        Ok(alias_order(aliases))
    }

    /// A parenthesised, comma-separated list of what `item` reads, or nothing at the end of
    /// the string (`TypeParser.getTypeParameters` and `getAliasParameters` alike).
    fn parameters<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<T, MarshalError>,
    ) -> Result<Vec<T>, MarshalError> {
        let mut items = Vec::new();
        if self.peek().is_none() {
            return Ok(items);
        }
        if self.peek() != Some(b'(') {
            return Err(self.syntax("expecting '('"));
        }
        self.idx += 1;
        while self.skip_blank_and_comma() {
            if self.peek() == Some(b')') {
                self.idx += 1;
                return Ok(items);
            }
            items.push(item(self)?);
        }
        Err(self.unexpected_end())
    }

    /// `(element type, dimension)` of a `VectorType`.
    fn vector(&mut self) -> Result<ColumnType, MarshalError> {
        if self.peek() != Some(b'(') {
            return Err(MarshalError::Invalid(
                "VectorType takes exactly 2 parameters".to_string(),
            ));
        }
        self.idx += 1;
        let element = self.parse()?;
        self.skip_blank_and_comma();
        self.skip_blank();
        let dimension = self.identifier();
        let dimension = dimension
            .parse::<u32>()
            .ok()
            .filter(|d| *d > 0)
            .ok_or_else(|| self.syntax(&format!("invalid vector dimension {dimension}")))?;
        self.skip_blank();
        if self.peek() != Some(b')') {
            return Err(self.unexpected_end());
        }
        self.idx += 1;
        Ok(ColumnType::Vector {
            element: Box::new(element.frozen()),
            dimension,
        })
    }
}

/// The CQL type of a parameterless type class (`AbstractType.asCQL3Type`).
fn native(simple: &str) -> Option<ColumnType> {
    Some(match simple {
        "AsciiType" => ColumnType::Ascii,
        "LongType" => ColumnType::Bigint,
        "BytesType" => ColumnType::Blob,
        "BooleanType" => ColumnType::Boolean,
        "CounterColumnType" => ColumnType::Counter,
        "DecimalType" => ColumnType::Decimal,
        "DoubleType" => ColumnType::Double,
        "FloatType" => ColumnType::Float,
        "Int32Type" => ColumnType::Int,
        "TimestampType" | "DateType" => ColumnType::Timestamp,
        "UUIDType" => ColumnType::Uuid,
        "UTF8Type" => ColumnType::Text,
        "IntegerType" => ColumnType::Varint,
        "TimeUUIDType" => ColumnType::Timeuuid,
        "InetAddressType" => ColumnType::Inet,
        "SimpleDateType" => ColumnType::Date,
        "TimeType" => ColumnType::Time,
        "ShortType" => ColumnType::Smallint,
        "ByteType" => ColumnType::Tinyint,
        "DurationType" => ColumnType::Duration,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(text: &str) -> String {
        match parse_class(text).expect(text) {
            ColumnType::Custom(class) => class,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn classes_of_cql_types_are_those_types() {
        assert_eq!(parse_class("Int32Type"), Ok(ColumnType::Int));
        assert_eq!(
            parse_class("org.apache.cassandra.db.marshal.UTF8Type"),
            Ok(ColumnType::Text)
        );
        assert_eq!(
            parse_class(" ListType( Int32Type )").map(|t| t.to_string()),
            Ok("list<int>".to_string())
        );
        assert_eq!(
            parse_class("MapType(UTF8Type,FrozenType(SetType(LongType)))").map(|t| t.to_string()),
            Ok("map<text, frozen<set<bigint>>>".to_string())
        );
        assert_eq!(
            parse_class("ReversedType(DateType)"),
            Ok(ColumnType::Timestamp)
        );
        assert_eq!(parse_class(""), Ok(ColumnType::Blob));
        assert_eq!(
            parse_class("VectorType(FloatType, 3)").map(|t| t.to_string()),
            Ok("vector<float, 3>".to_string())
        );
    }

    #[test]
    fn composites_keep_their_full_class_names() {
        assert_eq!(
            class("org.apache.cassandra.db.marshal.CompositeType(AsciiType, Int32Type)"),
            "org.apache.cassandra.db.marshal.CompositeType(\
             org.apache.cassandra.db.marshal.AsciiType,org.apache.cassandra.db.marshal.Int32Type)"
        );
        assert_eq!(
            class("DynamicCompositeType(i => Int32Type, s => UTF8Type)"),
            "org.apache.cassandra.db.marshal.DynamicCompositeType(\
             s=>org.apache.cassandra.db.marshal.UTF8Type,i=>org.apache.cassandra.db.marshal.Int32Type)"
        );
        let ty = parse_class("CompositeType(UTF8Type, ListType(Int32Type))").expect("parses");
        assert_eq!(
            Composite::of(&ty),
            Some(Composite::Static(vec![
                ColumnType::Text.into(),
                ColumnType::List {
                    element: Box::new(ColumnType::Int),
                    frozen: false
                }
                .into()
            ]))
        );
        // The stored class parses back to itself.
        let ColumnType::Custom(stored) = &ty else {
            panic!("{ty:?}");
        };
        assert_eq!(class(stored), *stored);
    }

    #[test]
    fn reversals_are_kept_where_order_matters() {
        let reversed = |text: &str| parse_class_type(text).map(|c| (c.ty, c.reversed));
        assert_eq!(
            reversed("ReversedType(Int32Type)"),
            Ok((ColumnType::Int, true))
        );
        assert_eq!(
            reversed("org.apache.cassandra.db.marshal.LongType(reversed=true)"),
            Ok((ColumnType::Bigint, true))
        );
        assert_eq!(
            reversed("LongType(reversed)"),
            Ok((ColumnType::Bigint, true))
        );
        assert_eq!(
            reversed("LongType(reversed=false)"),
            Ok((ColumnType::Bigint, false))
        );
        // Unknown keys are read and ignored, as `parseDefaultParameters` does.
        assert_eq!(
            reversed("UTF8Type(foo, bar=1)"),
            Ok((ColumnType::Text, false))
        );
        assert_eq!(
            reversed("ReversedType(ReversedType(Int32Type))"),
            Ok((ColumnType::Int, false))
        );
        assert_eq!(
            parse_class("ReversedType(Int32Type, UTF8Type)")
                .expect_err("two")
                .to_string(),
            "ReversedType takes exactly 1 type parameter"
        );
        assert_eq!(
            parse_class("Int32Type(reversed=")
                .expect_err("cut")
                .to_string(),
            "Syntax error parsing 'Int32Type(reversed=' at char 19: unexpected end of string"
        );
        // Composite components keep theirs, and print it back.
        assert_eq!(
            class("CompositeType(ReversedType(Int32Type), UTF8Type)"),
            "org.apache.cassandra.db.marshal.CompositeType(\
             org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.Int32Type),\
             org.apache.cassandra.db.marshal.UTF8Type)"
        );
        assert_eq!(
            class("DynamicCompositeType(B => ReversedType(BytesType))"),
            "org.apache.cassandra.db.marshal.DynamicCompositeType(\
             B=>org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.BytesType))"
        );
        let reversed_int = ClassType {
            ty: ColumnType::Int,
            reversed: true,
        };
        assert_eq!(
            reversed_int.class_names(),
            (
                "Int32Type".to_string(),
                "org.apache.cassandra.db.marshal.Int32Type".to_string()
            )
        );
    }

    #[test]
    fn aliases_come_out_in_hash_map_order() {
        let order = |aliases: &[u8]| -> Vec<u8> {
            alias_order(
                aliases
                    .iter()
                    .map(|&a| (a, ColumnType::Int.into()))
                    .collect(),
            )
            .into_iter()
            .map(|(a, _)| a)
            .collect()
        };
        // 's' is bucket 3 and 'i' bucket 9 of 16.
        assert_eq!(order(b"is"), b"si".to_vec());
        // 'a' (97) and 'q' (113) share bucket 1: insertion order.
        assert_eq!(order(b"qa"), b"qa".to_vec());
        assert_eq!(order(b"aa"), b"a".to_vec());
        // Thirteen aliases fill more than 12 of 16: 32 buckets, where 'a' (1) precedes 'B' (2).
        let many = b"Babcdefghijkl";
        assert_eq!(order(many)[..2], *b"aB");
    }

    #[test]
    fn unknown_classes_and_bad_parameters_are_refused() {
        assert_eq!(
            parse_class("org.apache.cassandra.db.marshal.NoSuchType")
                .expect_err("unknown")
                .to_string(),
            "Unable to find abstract-type class 'org.apache.cassandra.db.marshal.NoSuchType'"
        );
        assert_eq!(
            parse_class("com.example.MyType")
                .expect_err("unknown")
                .to_string(),
            "Unable to find abstract-type class 'com.example.MyType'"
        );
        assert_eq!(
            parse_class("ListType(Int32Type, UTF8Type)")
                .expect_err("two")
                .to_string(),
            "ListType takes exactly 1 type parameter"
        );
        assert_eq!(
            parse_class("CompositeType(Int32Type")
                .expect_err("open")
                .to_string(),
            "Syntax error parsing 'CompositeType(Int32Type' at char 23: unexpected end of string"
        );
        assert_eq!(
            parse_class("DynamicCompositeType(ab => Int32Type)")
                .expect_err("alias")
                .to_string(),
            "Syntax error parsing 'DynamicCompositeType(ab => Int32Type)' at char 23: \
             An alias should be a single character"
        );
    }
}
