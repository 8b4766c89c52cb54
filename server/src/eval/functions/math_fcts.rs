//! Cassandra 5.0's math functions (`MathFcts`): `abs`, `exp`, `log`, `log10` and `round`, one
//! signature per numeric type, each returning its argument's type computed as that type's
//! `NumberType` does in Java: integers through `Math` on `double` and a narrowing cast (a
//! `tinyint` or `smallint` through `int` first), floats through `double`, `round` of a float
//! or double Java's `Math.round` (ties towards positive infinity).
//!
//! `exp`, `log` and `log10` of `varint` and `decimal` are not here: Cassandra computes them
//! with `BigDecimalMath` to a precision of the argument's digits, which no crate here
//! reproduces digit for digit.

use bigdecimal::RoundingMode;
use bytes::Bytes;
use cql::types::ColumnType;

use super::numeric::Number;
use super::{decimal, first, Body, NativeFunction};
use crate::error::{CqlResult, ValueError};

/// Which math function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MathFn {
    Abs,
    Exp,
    Log,
    Log10,
    Round,
}

impl MathFn {
    const ALL: [(MathFn, &'static str); 5] = [
        (MathFn::Abs, "abs"),
        (MathFn::Exp, "exp"),
        (MathFn::Log, "log"),
        (MathFn::Log10, "log10"),
        (MathFn::Round, "round"),
    ];

    /// `Math.exp`, `Math.log` or `Math.log10` of `x` (`None` for `abs` and `round`).
    fn transcendental(self, x: f64) -> Option<f64> {
        match self {
            MathFn::Exp => Some(x.exp()),
            MathFn::Log => Some(x.ln()),
            MathFn::Log10 => Some(x.log10()),
            MathFn::Abs | MathFn::Round => None,
        }
    }
}

/// Every math function signature, in Cassandra's order of types.
pub(super) fn all() -> Vec<NativeFunction> {
    use ColumnType as T;
    let types = [
        T::Tinyint,
        T::Smallint,
        T::Int,
        T::Float,
        T::Bigint,
        T::Double,
        T::Varint,
        T::Decimal,
        T::Counter,
    ];
    let mut out = Vec::new();
    for ty in types {
        for (kind, name) in MathFn::ALL {
            let arbitrary = matches!(ty, T::Varint | T::Decimal);
            if arbitrary && !matches!(kind, MathFn::Abs | MathFn::Round) {
                continue;
            }
            out.push(NativeFunction::new(
                name,
                vec![ty.clone()],
                ty.clone(),
                Body::Math(kind),
            ));
        }
    }
    out
}

/// Runs math function `kind` declared as `function`; a null or empty argument gives null.
pub(super) fn execute(
    function: &NativeFunction,
    kind: MathFn,
    args: &[Option<Bytes>],
) -> CqlResult<Option<Bytes>> {
    let Some(arg) = first(args) else {
        return Ok(None);
    };
    let ty = &function.ret;
    let Some(number) = Number::decode(ty, arg)? else {
        return Ok(None);
    };
    let bytes = match (ty, number) {
        (ColumnType::Tinyint, n) => be(&(integer(kind, n.to_i32().into()) as i8).to_be_bytes()),
        (ColumnType::Smallint, n) => be(&(integer(kind, n.to_i32().into()) as i16).to_be_bytes()),
        (ColumnType::Int, n) => be(&(integer(kind, n.to_i32().into()) as i32).to_be_bytes()),
        (ColumnType::Float, n) => be(&float(kind, n.to_f32()).to_be_bytes()),
        (ColumnType::Double, n) => be(&double(kind, n.to_f64()).to_be_bytes()),
        (ColumnType::Varint, Number::Varint(n)) => {
            let n = if kind == MathFn::Abs {
                n.magnitude().clone().into()
            } else {
                n
            };
            Bytes::from(n.to_signed_bytes_be())
        }
        (ColumnType::Decimal, Number::Decimal(d)) => {
            let d = match kind {
                MathFn::Abs => d.abs(),
                _ => d.with_scale_round(0, RoundingMode::HalfUp),
            };
            decimal::encode(&d).map_err(|reason| ValueError::DecimalScale { reason })?
        }
        (_, n) => be(&long(kind, n.to_i64()).to_be_bytes()),
    };
    Ok(Some(bytes))
}

fn be(bytes: &[u8]) -> Bytes {
    Bytes::copy_from_slice(bytes)
}

/// An `int`-sized result: `Math.abs(int)` (wrapping at the minimum), or `(int)` of the
/// double result (saturating, NaN as 0); the caller narrows it to its type.
fn integer(kind: MathFn, x: i64) -> i64 {
    let x = x as i32;
    match kind {
        MathFn::Abs => i64::from(x.wrapping_abs()),
        MathFn::Round => i64::from(x),
        _ => i64::from(kind.transcendental(f64::from(x)).unwrap_or_default() as i32),
    }
}

/// A `bigint` or `counter` result.
fn long(kind: MathFn, x: i64) -> i64 {
    match kind {
        MathFn::Abs => x.wrapping_abs(),
        MathFn::Round => x,
        _ => kind.transcendental(x as f64).unwrap_or_default() as i64,
    }
}

fn float(kind: MathFn, x: f32) -> f32 {
    match kind {
        MathFn::Abs => x.abs(),
        MathFn::Round => (java_round(f64::from(x)) as i32) as f32,
        _ => kind.transcendental(f64::from(x)).unwrap_or_default() as f32,
    }
}

fn double(kind: MathFn, x: f64) -> f64 {
    match kind {
        MathFn::Abs => x.abs(),
        MathFn::Round => (java_round(x) as i64) as f64,
        _ => kind.transcendental(x).unwrap_or_default(),
    }
}

/// Java's `Math.round` before its narrowing: the nearest integer, ties towards positive
/// infinity, NaN as 0.
fn java_round(x: f64) -> f64 {
    if x.is_nan() {
        return 0.0;
    }
    let floor = x.floor();
    if x - floor >= 0.5 {
        floor + 1.0
    } else {
        floor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, ty: ColumnType, arg: &[u8]) -> Option<Bytes> {
        let function = all()
            .into_iter()
            .find(|f| f.name == name && f.args == [ty.clone()])
            .expect("signature");
        let Body::Math(kind) = function.body else {
            panic!("not a math function");
        };
        execute(&function, kind, &[Some(Bytes::copy_from_slice(arg))]).expect("runs")
    }

    #[test]
    fn integers_narrow_as_java_casts_do() {
        use ColumnType as T;
        assert_eq!(
            call("abs", T::Tinyint, &[0x80]).as_deref(),
            Some(&[0x80][..])
        );
        assert_eq!(
            call("abs", T::Int, &(-7i32).to_be_bytes()).as_deref(),
            Some(&7i32.to_be_bytes()[..])
        );
        // (byte) Math.exp(10) = (byte) 22026 = 10.
        assert_eq!(call("exp", T::Tinyint, &[10]).as_deref(), Some(&[10][..]));
        // (int) Math.log(0) is Integer.MIN_VALUE; (long) Math.log(-1) is 0 (NaN).
        assert_eq!(
            call("log", T::Int, &0i32.to_be_bytes()).as_deref(),
            Some(&i32::MIN.to_be_bytes()[..])
        );
        assert_eq!(
            call("log", T::Bigint, &(-1i64).to_be_bytes()).as_deref(),
            Some(&0i64.to_be_bytes()[..])
        );
        assert_eq!(
            call("log10", T::Counter, &1000i64.to_be_bytes()).as_deref(),
            Some(&3i64.to_be_bytes()[..])
        );
        assert_eq!(
            call("round", T::Smallint, &[0, 5]).as_deref(),
            Some(&[0, 5][..])
        );
        assert_eq!(call("abs", T::Int, &[]), None);
    }

    #[test]
    fn floats_round_half_up_as_java() {
        use ColumnType as T;
        let d = |x: f64| {
            call("round", T::Double, &x.to_be_bytes())
                .map(|b| f64::from_be_bytes(b[..].try_into().expect("8 bytes")))
        };
        assert_eq!(d(-2.5), Some(-2.0));
        assert_eq!(d(2.5), Some(3.0));
        assert_eq!(d(0.49999999999999994), Some(0.0));
        assert_eq!(d(f64::NAN), Some(0.0));
        let f = |x: f32| {
            call("round", T::Float, &x.to_be_bytes())
                .map(|b| f32::from_be_bytes(b[..].try_into().expect("4 bytes")))
        };
        assert_eq!(f(-0.5), Some(0.0));
        assert_eq!(f(1e20), Some(i32::MAX as f32));
        let e = call("exp", T::Double, &1f64.to_be_bytes()).expect("value");
        assert_eq!(
            f64::from_be_bytes(e[..].try_into().expect("8 bytes")),
            std::f64::consts::E
        );
    }

    #[test]
    fn decimals_and_varints_keep_their_precision() {
        use ColumnType as T;
        let dec =
            |text: &str| decimal::encode(&decimal::parse(text).expect("decimal")).expect("encodes");
        assert_eq!(call("round", T::Decimal, &dec("2.5")), Some(dec("3")));
        assert_eq!(call("round", T::Decimal, &dec("-2.5")), Some(dec("-3")));
        assert_eq!(call("abs", T::Decimal, &dec("-1.50")), Some(dec("1.50")));
        let big = bigdecimal::num_bigint::BigInt::from(-1) << 100u32;
        assert_eq!(
            call("abs", T::Varint, &big.to_signed_bytes_be()),
            Some(Bytes::from((-big).to_signed_bytes_be()))
        );
        assert!(all()
            .iter()
            .all(|f| !(f.name == "exp" && f.args == [T::Decimal])));
    }
}
