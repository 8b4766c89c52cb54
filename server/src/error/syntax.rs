//! `SyntaxError`: statement text that does not parse, or that the grammar's own checks refuse
//! (code 0x2000).
//!
//! The parser's failures are carried as its typed [`ParseError`] and print through it; the
//! other variants are checks Cassandra makes while reading the statement's properties and
//! conditions, and print its message word for word. The CQL code is chosen in
//! `super::CqlError::error_body`.

use cql::statement::ast::Operator;
use cql::statement::ParseError;

/// Statement text that does not parse.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SyntaxError {
    /// The parser's own failure (mismatched input, lexer error, nesting too deep, ...).
    /// Origin: ours — carries the cql crate ParseError, which reproduces ANTLR's messages (cql3/ErrorCollector.java)
    #[error("{0}")]
    Parse(ParseError),
    /// A `WITH` property this statement does not have.
    /// Origin: cql3/statements/PropertyDefinitions.java validate
    #[error("Unknown property '{property}'")]
    UnknownProperty { property: String },
    /// A `WITH` property that must be a map, given something else.
    /// Origin: cql3/statements/PropertyDefinitions.java getMap
    #[error("Invalid value for property '{property}'. It should be a map.")]
    PropertyNotAMap { property: String },
    /// A `WITH` property that must be a string, given a map.
    /// Origin: cql3/statements/PropertyDefinitions.java getString
    #[error("Invalid value for property '{property}'. It should be a string")]
    PropertyNotAString { property: String },
    /// `TableAttributes.getInt`: a value `Integer.parseInt` refuses, as written.
    /// Origin: cql3/statements/schema/TableAttributes.java getInt
    #[error("Invalid integer value {value} for '{property}'")]
    PropertyNotAnInteger { value: String, property: String },
    /// `TableAttributes.getDouble`: a value `Double.parseDouble` refuses, as written.
    /// Origin: cql3/statements/schema/TableAttributes.java getDouble
    #[error("Invalid double value {value} for '{property}'")]
    PropertyNotADouble { value: String, property: String },
    /// `PropertyDefinitions.parseBoolean`: none of 1/true/yes or 0/false/no, as written.
    /// Origin: cql3/statements/PropertyDefinitions.java parseBoolean
    #[error("Invalid boolean value {value} for '{property}'. Positive values can be '1', 'true' or 'yes'. Negative values can be '0', 'false' or 'no'.")]
    PropertyNotABoolean { value: String, property: String },
    /// A custom type's class name whose parameters do not parse (`TypeParser`'s
    /// `SyntaxException`).
    /// Origin: db/marshal/TypeParser.java throwSyntaxError
    #[error("{0}")]
    TypeClass(String),
    /// An `IF` condition with an operator conditions do not take (`NOT IN`, `LIKE`, `IS NOT`).
    /// Origin: ours — defensive: the parser refuses NOT IN, LIKE and IS NOT in an IF with ANTLR's message first
    #[error("Unsupported operator {operator} in a condition")]
    ConditionOperator { operator: Operator },
}
