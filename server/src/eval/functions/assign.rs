//! Assignment testing (Cassandra's `AssignmentTestable`): whether an argument as written — a
//! typed selector, a literal, a bind marker — can be passed where a type is expected, exactly
//! or only weakly. Function resolution ranks candidate signatures with it.
//!
//! This file sits below function resolution (`registry`) and terms (`term`) and imports
//! neither. Their recursion (a call's argument may itself be a call, whose fit depends on
//! how it resolves for the receiver, which tests arguments here again) goes through the
//! [`CallFit`] each [`Provided::Call`] carries: `term` passes its resolver in when it
//! describes a call, so the step back up is a parameter, not an import.

use std::fmt;

use cql::statement::ast::{Literal, Term};
use cql::types::ColumnType;

/// How well a provided argument fits a receiver type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Fit {
    /// Cannot be assigned.
    Not,
    /// Assignable, but other types would accept it too.
    Weak,
    /// Of exactly the receiver's type.
    Exact,
}

/// How well a call written in a term fits a receiver type, by resolving it for that receiver
/// (`term::call_fit`, Cassandra's `FunctionCall.Raw.testAssignment`).
pub(crate) type CallFit = fn(&Term, &ColumnType) -> Fit;

/// An argument of a function call, as far as resolution needs to know it.
#[derive(Debug, Clone)]
pub(crate) enum Provided {
    /// A value of a known type (a column, a function result, a cast); `text` is how it prints.
    Typed { ty: ColumnType, text: String },
    /// A literal constant.
    Literal(Literal),
    /// A bind marker (`?` or `:name`), which can take any type.
    Marker(String),
    /// A function call or operation in a term, whose signature (and so its type) depends
    /// on the receiver it is tested against; `fit` tests it against one.
    Call { term: Term, fit: CallFit },
    /// Something whose type is not known before a receiver is given (a collection literal, a
    /// call that does not resolve on its own): weakly assignable to anything.
    Opaque(String),
}

impl Provided {
    /// Cassandra's `testAssignment` of this argument against `receiver`.
    pub(crate) fn fit(&self, receiver: &ColumnType) -> Fit {
        match self {
            Provided::Typed { ty, .. } => type_fit(ty, receiver),
            Provided::Literal(lit) => literal_fit(lit, receiver),
            Provided::Call { term, fit } => fit(term, receiver),
            Provided::Marker(_) | Provided::Opaque(_) => Fit::Weak,
        }
    }

    /// Whether this is a bind marker.
    pub(crate) fn is_marker(&self) -> bool {
        matches!(self, Provided::Marker(_))
    }
}

impl fmt::Display for Provided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provided::Typed { text, .. } | Provided::Marker(text) | Provided::Opaque(text) => {
                f.write_str(text)
            }
            Provided::Literal(lit) => write!(f, "{}", literal_text(lit)),
            Provided::Call { term, .. } => write!(f, "{term}"),
        }
    }
}

/// A literal as Cassandra prints it in messages (`getText`): strings quoted, the rest raw.
pub(crate) fn literal_text(lit: &Literal) -> String {
    match lit {
        Literal::String(s) => format!("'{s}'"),
        Literal::Integer(s) | Literal::Float(s) | Literal::Duration(s) => s.clone(),
        Literal::Boolean(b) => b.to_string(),
        Literal::Blob(b) => format!("0x{}", crate::error::hex(b)),
        Literal::Uuid(u) => u.to_string(),
        Literal::Null => "NULL".into(),
    }
}

/// `AbstractType.testAssignment`: exact when equal (frozenness aside), weak when the receiver
/// can read the value's bytes (`isValueCompatibleWith`), otherwise not.
pub(crate) fn type_fit(value: &ColumnType, receiver: &ColumnType) -> Fit {
    if value.clone().frozen() == receiver.clone().frozen() {
        Fit::Exact
    } else if value_compatible(receiver, value) {
        Fit::Weak
    } else {
        Fit::Not
    }
}

/// Whether values of `value` are valid values of `receiver` byte for byte (Cassandra's
/// `isValueCompatibleWith`).
pub(crate) fn value_compatible(receiver: &ColumnType, value: &ColumnType) -> bool {
    use ColumnType as T;
    if receiver.clone().frozen() == value.clone().frozen() {
        return true;
    }
    matches!(
        (receiver, value),
        (T::Blob, _)
            | (T::Text, T::Ascii)
            | (T::Varint, T::Int | T::Bigint | T::Timestamp)
            | (T::Bigint, T::Timestamp)
            | (T::Timestamp, T::Bigint)
            | (T::Uuid, T::Timeuuid)
    )
}

/// The type a literal prefers (Cassandra's `Constants.Type.getPreferedTypeFor`): an exact
/// match when the receiver has it.
pub(crate) fn preferred_type(lit: &Literal) -> Option<ColumnType> {
    Some(match lit {
        Literal::String(s) if s.is_ascii() => ColumnType::Ascii,
        Literal::String(_) => ColumnType::Text,
        Literal::Integer(text) => match text.parse::<i128>() {
            Ok(n) if i32::try_from(n).is_ok() => ColumnType::Int,
            Ok(n) if i64::try_from(n).is_ok() => ColumnType::Bigint,
            _ => ColumnType::Varint,
        },
        Literal::Uuid(u) if u.get_version_num() == 1 => ColumnType::Timeuuid,
        Literal::Uuid(_) => ColumnType::Uuid,
        Literal::Float(text) => float_preference(text),
        Literal::Boolean(_) => ColumnType::Boolean,
        // Cassandra's own choice for hex literals, kept for identical resolution.
        Literal::Blob(_) => ColumnType::Tinyint,
        Literal::Duration(_) => ColumnType::Duration,
        Literal::Null => return None,
    })
}

/// `double` when the literal survives a round trip through a double, else `decimal`.
fn float_preference(text: &str) -> ColumnType {
    if matches!(text, "NaN" | "-NaN" | "Infinity" | "-Infinity") {
        return ColumnType::Double;
    }
    use crate::eval::functions::decimal;
    match (text.parse::<f64>(), decimal::parse(text)) {
        (Ok(d), Some(exact)) => match decimal::from_f64(d) {
            Some(back) if decimal::compare(&back, &exact) == std::cmp::Ordering::Equal => {
                ColumnType::Double
            }
            _ => ColumnType::Decimal,
        },
        _ => ColumnType::Double,
    }
}

/// `Constants.Literal.testAssignment`.
fn literal_fit(lit: &Literal, receiver: &ColumnType) -> Fit {
    use ColumnType as T;
    if receiver.is_collection() || matches!(receiver, T::Udt { .. } | T::Tuple(_)) {
        return Fit::Not;
    }
    if let T::Custom(_) = receiver {
        return Fit::Weak;
    }
    if let Literal::Null = lit {
        return if receiver.is_counter() {
            Fit::Not
        } else {
            Fit::Weak
        };
    }
    if preferred_type(lit).as_ref() == Some(receiver) {
        return Fit::Exact;
    }
    let weak = match lit {
        Literal::String(_) => matches!(
            receiver,
            T::Ascii | T::Text | T::Inet | T::Date | T::Time | T::Timestamp
        ),
        Literal::Integer(_) => matches!(
            receiver,
            T::Bigint
                | T::Counter
                | T::Date
                | T::Decimal
                | T::Double
                | T::Duration
                | T::Float
                | T::Int
                | T::Smallint
                | T::Time
                | T::Timestamp
                | T::Tinyint
                | T::Varint
        ),
        Literal::Uuid(_) => matches!(receiver, T::Uuid | T::Timeuuid),
        Literal::Float(_) => matches!(receiver, T::Decimal | T::Double | T::Float),
        Literal::Boolean(_) => matches!(receiver, T::Boolean),
        Literal::Blob(_) => matches!(receiver, T::Blob),
        Literal::Duration(_) => matches!(receiver, T::Duration),
        Literal::Null => true,
    };
    if weak {
        Fit::Weak
    } else {
        Fit::Not
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(text: &str) -> Provided {
        Provided::Literal(Literal::Integer(text.into()))
    }

    #[test]
    fn integer_literals_prefer_the_smallest_fitting_type() {
        assert_eq!(lit("1").fit(&ColumnType::Int), Fit::Exact);
        assert_eq!(lit("1").fit(&ColumnType::Tinyint), Fit::Weak);
        assert_eq!(lit("5000000000").fit(&ColumnType::Bigint), Fit::Exact);
        assert_eq!(lit("1").fit(&ColumnType::Text), Fit::Not);
    }

    #[test]
    fn strings_are_exact_for_ascii_and_weak_for_dates() {
        let s = Provided::Literal(Literal::String("2015-05-21".into()));
        assert_eq!(s.fit(&ColumnType::Ascii), Fit::Exact);
        assert_eq!(s.fit(&ColumnType::Date), Fit::Weak);
        assert_eq!(s.fit(&ColumnType::Timeuuid), Fit::Not);
        assert_eq!(s.to_string(), "'2015-05-21'");
    }

    #[test]
    fn floats_prefer_double_unless_digits_would_be_lost() {
        let f = |t: &str| Provided::Literal(Literal::Float(t.into()));
        assert_eq!(f("1.5").fit(&ColumnType::Double), Fit::Exact);
        assert_eq!(
            f("1.00000000000000000000001").fit(&ColumnType::Decimal),
            Fit::Exact
        );
    }

    #[test]
    fn typed_values_follow_value_compatibility() {
        let typed = |ty| Provided::Typed {
            ty,
            text: "c".into(),
        };
        assert_eq!(typed(ColumnType::Int).fit(&ColumnType::Int), Fit::Exact);
        assert_eq!(typed(ColumnType::Int).fit(&ColumnType::Blob), Fit::Weak);
        assert_eq!(
            typed(ColumnType::Bigint).fit(&ColumnType::Timestamp),
            Fit::Weak
        );
        assert_eq!(typed(ColumnType::Int).fit(&ColumnType::Timestamp), Fit::Not);
        assert_eq!(typed(ColumnType::Ascii).fit(&ColumnType::Text), Fit::Weak);
        assert_eq!(
            Provided::Marker("?".into()).fit(&ColumnType::Int),
            Fit::Weak
        );
    }
}
