//! The conversions behind `CAST(x AS type)` (Cassandra's `CastFcts`): between numeric types
//! with Java's conversions, from numbers, booleans, inets, uuids and temporal types to
//! `ascii`/`text`, and between the temporal types. Each is a function named `castAs<Type>`.

use bytes::Bytes;
use cql::types::ColumnType;

use super::numeric::Number;
use super::time::TimeFn;
use super::{first, Body, CallContext, NativeFunction};
use crate::error::CqlResult;

/// How a cast converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cast {
    /// Between numeric types.
    Numeric,
    /// To `ascii` or `text`, as the input type prints its values.
    ToText,
    /// `ascii` to `text`: the same bytes.
    Identity,
    /// Between temporal types, as the time function does.
    Time(TimeFn),
}

/// The numeric input types, in Cassandra's declaration order.
const NUMERIC: [ColumnType; 9] = [
    ColumnType::Tinyint,
    ColumnType::Smallint,
    ColumnType::Int,
    ColumnType::Bigint,
    ColumnType::Float,
    ColumnType::Double,
    ColumnType::Decimal,
    ColumnType::Counter,
    ColumnType::Varint,
];

/// The numeric output types.
const NUMERIC_OUTPUT: [ColumnType; 8] = [
    ColumnType::Tinyint,
    ColumnType::Smallint,
    ColumnType::Int,
    ColumnType::Bigint,
    ColumnType::Float,
    ColumnType::Double,
    ColumnType::Decimal,
    ColumnType::Varint,
];

/// The name of the function casting to `ty`: `castAs` and the capitalised type name.
pub(crate) fn function_name(ty: &ColumnType) -> String {
    let name = ty.to_string();
    let mut chars = name.chars();
    match chars.next() {
        Some(c) => format!("castAs{}{}", c.to_ascii_uppercase(), chars.as_str()),
        None => "castAs".into(),
    }
}

fn cast(input: ColumnType, output: ColumnType, how: Cast) -> NativeFunction {
    NativeFunction::new(function_name(&output), vec![input], output, Body::Cast(how))
}

/// Every cast signature.
pub(super) fn all() -> Vec<NativeFunction> {
    use ColumnType as T;
    let mut out = Vec::new();
    for input in NUMERIC {
        for output in NUMERIC_OUTPUT {
            if input != output {
                out.push(cast(input.clone(), output, Cast::Numeric));
            }
        }
        out.push(cast(input.clone(), T::Ascii, Cast::ToText));
        out.push(cast(input, T::Text, Cast::ToText));
    }
    out.push(cast(T::Ascii, T::Text, Cast::Identity));
    for input in [T::Inet, T::Boolean] {
        out.push(cast(input.clone(), T::Ascii, Cast::ToText));
        out.push(cast(input, T::Text, Cast::ToText));
    }
    out.push(cast(T::Timeuuid, T::Date, Cast::Time(TimeFn::ToDate)));
    out.push(cast(
        T::Timeuuid,
        T::Timestamp,
        Cast::Time(TimeFn::ToTimestamp),
    ));
    out.push(cast(T::Timestamp, T::Date, Cast::Time(TimeFn::ToDate)));
    out.push(cast(T::Date, T::Timestamp, Cast::Time(TimeFn::ToTimestamp)));
    for input in [T::Timeuuid, T::Timestamp, T::Date, T::Time, T::Uuid] {
        out.push(cast(input.clone(), T::Ascii, Cast::ToText));
        out.push(cast(input, T::Text, Cast::ToText));
    }
    out
}

impl Cast {
    /// Converts the single argument of `function`; null and empty values give null.
    pub(super) fn execute(
        self,
        function: &NativeFunction,
        args: &[Option<Bytes>],
    ) -> CqlResult<Option<Bytes>> {
        let Some(value) = first(args).filter(|b| !b.is_empty()) else {
            return Ok(None);
        };
        let input = function.args.first().unwrap_or(&ColumnType::Blob);
        Ok(match self {
            Cast::Identity => Some(value.clone()),
            Cast::ToText => Some(Bytes::from(super::text::cast_text(input, value)?)),
            Cast::Numeric => match Number::decode(input, value)? {
                Some(n) => Some(n.encode_as(&function.ret)?),
                None => None,
            },
            Cast::Time(kind) => {
                let ctx = CallContext { now_micros: 0 };
                return super::time::execute(function, kind, args, &ctx);
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cql::types::number_text::varint_from_text;

    fn run(input: ColumnType, output: ColumnType, value: &[u8]) -> Option<Bytes> {
        let function = all()
            .into_iter()
            .find(|f| f.args == [input.clone()] && f.ret == output)
            .expect("declared");
        function
            .execute(
                &[Some(Bytes::copy_from_slice(value))],
                &CallContext { now_micros: 0 },
            )
            .expect("casts")
    }

    #[test]
    fn names_are_capitalised_type_names() {
        assert_eq!(function_name(&ColumnType::Int), "castAsInt");
        assert_eq!(function_name(&ColumnType::Text), "castAsText");
    }

    #[test]
    fn numeric_casts_convert_as_java_does() {
        let float = 5.2f32.to_be_bytes();
        assert_eq!(
            run(ColumnType::Float, ColumnType::Int, &float).as_deref(),
            Some(&5i32.to_be_bytes()[..])
        );
        assert_eq!(
            run(ColumnType::Float, ColumnType::Double, &float).as_deref(),
            Some(&f64::from(5.2f32).to_be_bytes()[..])
        );
        assert_eq!(
            run(ColumnType::Int, ColumnType::Tinyint, &300i32.to_be_bytes()).as_deref(),
            Some(&[44u8][..])
        );
        let text = run(ColumnType::Double, ColumnType::Text, &6.3f64.to_be_bytes());
        assert_eq!(text.as_deref(), Some(&b"6.3"[..]));
    }

    #[test]
    fn varints_beyond_128_bits_cast_like_big_integers() {
        let mut big = vec![0x7f];
        big.extend_from_slice(&[0xff; 20]);
        assert_eq!(
            run(ColumnType::Varint, ColumnType::Int, &big).as_deref(),
            Some(&(-1i32).to_be_bytes()[..])
        );
        assert_eq!(
            run(ColumnType::Varint, ColumnType::Float, &big).as_deref(),
            Some(&f32::INFINITY.to_be_bytes()[..])
        );
        let text = run(ColumnType::Varint, ColumnType::Text, &big).expect("text");
        assert_eq!(text.len(), 51);
        let decimal = run(ColumnType::Varint, ColumnType::Decimal, &big).expect("decimal");
        assert_eq!(&decimal[..4], &[0, 0, 0, 0]);
        assert_eq!(&decimal[4..], &big[..]);
    }

    #[test]
    fn long_varints_cast_to_floats_by_value() {
        let power = varint_from_text(&format!("1{}", "0".repeat(300))).expect("10^300");
        assert_eq!(
            run(ColumnType::Varint, ColumnType::Double, &power).as_deref(),
            Some(&1e300f64.to_be_bytes()[..])
        );
        let mut huge = vec![0x80];
        huge.extend_from_slice(&[0; 200_000]);
        assert_eq!(
            run(ColumnType::Varint, ColumnType::Double, &huge).as_deref(),
            Some(&f64::NEG_INFINITY.to_be_bytes()[..])
        );
        let text = run(ColumnType::Varint, ColumnType::Text, &huge).expect("text");
        assert_eq!(text.len(), 481_652);
        assert!(text.starts_with(b"-1"));
    }

    #[test]
    fn temporal_casts_convert_between_days_and_instants() {
        let day = ((1u32 << 31) + 1).to_be_bytes();
        assert_eq!(
            run(ColumnType::Date, ColumnType::Timestamp, &day).as_deref(),
            Some(&86_400_000i64.to_be_bytes()[..])
        );
        let text = run(ColumnType::Date, ColumnType::Text, &day);
        assert_eq!(text.as_deref(), Some(&b"1970-01-02"[..]));
    }
}
