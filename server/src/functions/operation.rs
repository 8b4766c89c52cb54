//! The arithmetic operators (Cassandra's `OperationFcts`): `+ - * / %` between any two numeric
//! types and unary `-`, as functions `_add`, `_substract`, `_multiply`, `_divide`, `_modulo`
//! and `_negate`. The result type is the wider operand type, floating point if either operand
//! is; fixed-width integers wrap as Java's do, and a failure (division by zero) is Cassandra's
//! `FUNCTION_FAILURE` naming the operation.

use bytes::Bytes;
use cql::statement::ast::ArithOp;
use cql::types::ColumnType;

use super::numeric::{overflow, Decimal, Number};
use super::{Body, NativeFunction};
use crate::error::{CqlError, CqlResult};

/// A binary arithmetic operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArithKind {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl ArithKind {
    /// The operator of an AST operation.
    pub(crate) fn of(op: ArithOp) -> ArithKind {
        match op {
            ArithOp::Add => ArithKind::Add,
            ArithOp::Sub => ArithKind::Sub,
            ArithOp::Mul => ArithKind::Mul,
            ArithOp::Div => ArithKind::Div,
            ArithOp::Mod => ArithKind::Mod,
        }
    }

    /// The operator symbol.
    pub(crate) fn symbol(self) -> char {
        match self {
            ArithKind::Add => '+',
            ArithKind::Sub => '-',
            ArithKind::Mul => '*',
            ArithKind::Div => '/',
            ArithKind::Mod => '%',
        }
    }

    /// The name of the function behind the operator (Cassandra's spelling).
    pub(crate) fn function_name(self) -> &'static str {
        match self {
            ArithKind::Add => "_add",
            ArithKind::Sub => "_substract",
            ArithKind::Mul => "_multiply",
            ArithKind::Div => "_divide",
            ArithKind::Mod => "_modulo",
        }
    }

    /// The operator whose function is `name`, if any.
    pub(crate) fn from_function_name(name: &str) -> Option<ArithKind> {
        [
            ArithKind::Add,
            ArithKind::Sub,
            ArithKind::Mul,
            ArithKind::Div,
            ArithKind::Mod,
        ]
        .into_iter()
        .find(|k| k.function_name() == name)
    }
}

/// The name of the negation function.
pub(crate) const NEGATION: &str = "_negate";

/// The numeric types, in Cassandra's declaration order (`NumberType`s as `OperationFcts` and
/// the `sum`/`avg` aggregates list them; CAST lists counter before varint).
pub(crate) const NUMERIC: [ColumnType; 9] = [
    ColumnType::Tinyint,
    ColumnType::Smallint,
    ColumnType::Int,
    ColumnType::Bigint,
    ColumnType::Float,
    ColumnType::Double,
    ColumnType::Decimal,
    ColumnType::Varint,
    ColumnType::Counter,
];

/// Bytes of a fixed-width type; `None` for varint and decimal.
fn size(ty: &ColumnType) -> Option<u8> {
    match ty {
        ColumnType::Tinyint => Some(1),
        ColumnType::Smallint => Some(2),
        ColumnType::Int | ColumnType::Float => Some(4),
        ColumnType::Bigint | ColumnType::Double | ColumnType::Counter => Some(8),
        _ => None,
    }
}

/// Cassandra's result type of an operation between `left` and `right`.
fn return_type(left: &ColumnType, right: &ColumnType) -> ColumnType {
    let floating = |t: &ColumnType| {
        matches!(
            t,
            ColumnType::Float | ColumnType::Double | ColumnType::Decimal
        )
    };
    let width = match (size(left), size(right)) {
        (Some(a), Some(b)) => Some(a.max(b)),
        _ => None,
    };
    match (floating(left) || floating(right), width) {
        (true, Some(4)) => ColumnType::Float,
        (true, Some(8)) => ColumnType::Double,
        (true, _) => ColumnType::Decimal,
        (false, Some(1)) => ColumnType::Tinyint,
        (false, Some(2)) => ColumnType::Smallint,
        (false, Some(4)) => ColumnType::Int,
        (false, Some(8)) => ColumnType::Bigint,
        (false, _) => ColumnType::Varint,
    }
}

/// Every operator signature.
pub(super) fn all() -> Vec<NativeFunction> {
    let mut out = Vec::new();
    for left in NUMERIC {
        for right in NUMERIC {
            let ret = return_type(&left, &right);
            for kind in [
                ArithKind::Add,
                ArithKind::Sub,
                ArithKind::Mul,
                ArithKind::Div,
                ArithKind::Mod,
            ] {
                out.push(NativeFunction::new(
                    kind.function_name(),
                    vec![left.clone(), right.clone()],
                    ret.clone(),
                    Body::Operation(kind),
                ));
            }
        }
        out.push(NativeFunction::new(
            NEGATION,
            vec![left.clone()],
            left,
            Body::Negation,
        ));
    }
    // String concatenation: ascii only when both sides are.
    for (left, right, ret) in [
        (ColumnType::Ascii, ColumnType::Ascii, ColumnType::Ascii),
        (ColumnType::Ascii, ColumnType::Text, ColumnType::Text),
        (ColumnType::Text, ColumnType::Ascii, ColumnType::Text),
        (ColumnType::Text, ColumnType::Text, ColumnType::Text),
    ] {
        out.push(NativeFunction::new(
            ArithKind::Add.function_name(),
            vec![left, right],
            ret,
            Body::Concat,
        ));
    }
    out
}

/// `text + text`: the two strings joined; a null or empty operand gives null, as for every
/// operator.
pub(super) fn concat(args: &[Option<Bytes>]) -> Option<Bytes> {
    match (args.first(), args.get(1)) {
        (Some(Some(l)), Some(Some(r))) if !l.is_empty() && !r.is_empty() => {
            let mut out = l.to_vec();
            out.extend_from_slice(r);
            Some(Bytes::from(out))
        }
        _ => None,
    }
}

/// Cassandra's `OperationExecutionException`: `the operation 'int / int' failed: / by zero`.
pub(super) fn failure(function: &NativeFunction, kind: ArithKind, cause: &str) -> CqlError {
    let types: Vec<String> = function.args.iter().map(ToString::to_string).collect();
    CqlError::FunctionFailure {
        message: format!(
            "the operation '{} {} {}' failed: {cause}",
            types.first().map_or("", String::as_str),
            kind.symbol(),
            types.get(1).map_or("", String::as_str)
        ),
        keyspace: "system".into(),
        function: function.name.clone(),
        arg_types: types,
    }
}

/// Runs operator `kind` declared as `function`; a null or empty operand gives null.
pub(super) fn execute(
    function: &NativeFunction,
    kind: ArithKind,
    args: &[Option<Bytes>],
) -> CqlResult<Option<Bytes>> {
    let (Some(Some(l)), Some(Some(r)), [lt, rt]) = (args.first(), args.get(1), &function.args[..])
    else {
        return Ok(None);
    };
    let (Some(left), Some(right)) = (Number::decode(lt, l)?, Number::decode(rt, r)?) else {
        return Ok(None);
    };
    let result = compute(&function.ret, kind, &left, &right)
        .map_err(|cause| failure(function, kind, &cause))?;
    result.encode_as(&function.ret).map(Some)
}

/// The operation in the result type's arithmetic; `Err` carries Java's exception message.
fn compute(
    ret: &ColumnType,
    kind: ArithKind,
    left: &Number,
    right: &Number,
) -> Result<Number, String> {
    Ok(match ret {
        ColumnType::Float => {
            let (a, b) = (left.to_f32(), right.to_f32());
            Number::Float(match kind {
                ArithKind::Add => a + b,
                ArithKind::Sub => a - b,
                ArithKind::Mul => a * b,
                ArithKind::Div => a / b,
                ArithKind::Mod => a % b,
            })
        }
        ColumnType::Double => {
            let (a, b) = (left.to_f64(), right.to_f64());
            Number::Double(match kind {
                ArithKind::Add => a + b,
                ArithKind::Sub => a - b,
                ArithKind::Mul => a * b,
                ArithKind::Div => a / b,
                ArithKind::Mod => a % b,
            })
        }
        ColumnType::Decimal => {
            let a = left.to_decimal().map_err(|e| e.to_string())?;
            let b = right.to_decimal().map_err(|e| e.to_string())?;
            Number::Decimal(decimal(kind, a, b)?)
        }
        ColumnType::Varint => {
            let (a, b) = (left.to_i128(), right.to_i128());
            let zero = || "BigInteger divide by zero".to_string();
            let n = match kind {
                ArithKind::Add => a.checked_add(b),
                ArithKind::Sub => a.checked_sub(b),
                ArithKind::Mul => a.checked_mul(b),
                ArithKind::Div if b == 0 => return Err(zero()),
                ArithKind::Div => a.checked_div(b),
                ArithKind::Mod if b == 0 => return Err(zero()),
                ArithKind::Mod => a.checked_rem(b),
            };
            Number::Integer(n.ok_or_else(|| overflow().to_string())?)
        }
        // Fixed-width integers: exact in 128 bits, then wrapped to the width on encoding.
        _ => {
            let (a, b) = (left.to_i128(), right.to_i128());
            let zero = || "/ by zero".to_string();
            Number::Integer(match kind {
                ArithKind::Add => a.wrapping_add(b),
                ArithKind::Sub => a.wrapping_sub(b),
                ArithKind::Mul => a.wrapping_mul(b),
                ArithKind::Div if b == 0 => return Err(zero()),
                ArithKind::Div => a.wrapping_div(b),
                ArithKind::Mod if b == 0 => return Err(zero()),
                ArithKind::Mod => a.wrapping_rem(b),
            })
        }
    })
}

/// `BigDecimal` arithmetic; division rounds to 34 digits (`MathContext.DECIMAL128`).
fn decimal(kind: ArithKind, a: Decimal, b: Decimal) -> Result<Decimal, String> {
    let too_big = || overflow().to_string();
    match kind {
        ArithKind::Add | ArithKind::Sub | ArithKind::Mod => {
            let (x, y) = a.align(b).map_err(|_| too_big())?;
            let unscaled = match kind {
                ArithKind::Add => x.unscaled.checked_add(y.unscaled),
                ArithKind::Sub => x.unscaled.checked_sub(y.unscaled),
                _ if y.unscaled == 0 => return Err(zero_division(x.unscaled)),
                _ => x.unscaled.checked_rem(y.unscaled),
            };
            Ok(Decimal {
                unscaled: unscaled.ok_or_else(too_big)?,
                scale: x.scale,
            })
        }
        ArithKind::Mul => Ok(Decimal {
            unscaled: a.unscaled.checked_mul(b.unscaled).ok_or_else(too_big)?,
            scale: a.scale.checked_add(b.scale).ok_or_else(too_big)?,
        }),
        ArithKind::Div => divide(a, b),
    }
}

fn zero_division(dividend: i128) -> String {
    if dividend == 0 {
        "Division undefined".into()
    } else {
        "Division by zero".into()
    }
}

/// The smallest scale of a decimal quotient (Cassandra's `DecimalType.MIN_SCALE`), which is
/// also the number of significant digits it aims for.
const MIN_SCALE: i32 = 32;

/// The largest scale of a decimal quotient (`DecimalType.MAX_SCALE`).
const MAX_SCALE: i32 = 1000;

fn digit_count(n: u128) -> i32 {
    n.checked_ilog10().map_or(1, |l| l as i32 + 1)
}

/// Cassandra's `DecimalType.divide`: the quotient at a scale giving about 32 significant
/// digits (at least 32, at least either operand's scale), rounded half up, trailing zeros
/// stripped.
fn divide(a: Decimal, b: Decimal) -> Result<Decimal, String> {
    if b.unscaled == 0 {
        return Err(if a.unscaled == 0 {
            "/ by zero".into()
        } else {
            "BigInteger divide by zero".into()
        });
    }
    let too_big = || overflow().to_string();
    let (num, den) = (a.unscaled.unsigned_abs(), b.unscaled.unsigned_abs());
    let first_digit = (digit_count(num) - a.scale) - (digit_count(den) - b.scale);
    let scale = (MIN_SCALE - first_digit)
        .max(a.scale)
        .max(b.scale)
        .clamp(MIN_SCALE, MAX_SCALE);
    // |a / b| at `scale` is num * 10^shift / den.
    let shift = scale - a.scale + b.scale;
    let den = match u32::try_from(-shift) {
        Ok(up) if up > 0 => 10u128
            .checked_pow(up)
            .and_then(|p| den.checked_mul(p))
            .ok_or_else(too_big)?,
        _ => den,
    };
    let mut digits: Vec<u8> = (num / den).to_string().into_bytes();
    let mut remainder = num % den;
    for _ in 0..shift.max(0) {
        remainder = remainder.checked_mul(10).ok_or_else(too_big)?;
        digits.push(b'0' + (remainder / den) as u8);
        remainder %= den;
    }
    if remainder.checked_mul(2).ok_or_else(too_big)? >= den {
        round_up(&mut digits);
    }
    let mut scale = scale;
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
        scale -= 1;
    }
    let text = std::str::from_utf8(&digits).map_err(|e| e.to_string())?;
    let magnitude: i128 = text.parse().map_err(|_| too_big())?;
    if magnitude == 0 {
        return Ok(Decimal {
            unscaled: 0,
            scale: 0,
        });
    }
    let negative = (a.unscaled < 0) != (b.unscaled < 0);
    Ok(Decimal {
        unscaled: if negative { -magnitude } else { magnitude },
        scale,
    })
}

/// Adds one unit in the last place of a decimal digit string.
fn round_up(digits: &mut Vec<u8>) {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return;
        }
    }
    digits.insert(0, b'1');
}

/// Unary minus; a null or empty operand gives null.
pub(super) fn negate(
    function: &NativeFunction,
    args: &[Option<Bytes>],
) -> CqlResult<Option<Bytes>> {
    let Some(Some(value)) = args.first() else {
        return Ok(None);
    };
    let Some(n) = Number::decode(&function.ret, value)? else {
        return Ok(None);
    };
    let negated = match n {
        Number::Integer(i) if function.ret == ColumnType::Varint => {
            Number::Integer(i.checked_neg().ok_or_else(overflow)?)
        }
        Number::Integer(i) => Number::Integer(i.wrapping_neg()),
        Number::Float(f) => Number::Float(-f),
        Number::Double(d) => Number::Double(-d),
        Number::Decimal(d) => Number::Decimal(Decimal {
            unscaled: d.unscaled.checked_neg().ok_or_else(overflow)?,
            scale: d.scale,
        }),
    };
    negated.encode_as(&function.ret).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(kind: ArithKind, l: ColumnType, r: ColumnType) -> NativeFunction {
        all()
            .into_iter()
            .find(|f| f.name == kind.function_name() && f.args == [l.clone(), r.clone()])
            .expect("declared")
    }

    fn run(
        kind: ArithKind,
        l: (ColumnType, &[u8]),
        r: (ColumnType, &[u8]),
    ) -> CqlResult<Option<Bytes>> {
        let f = find(kind, l.0, r.0);
        execute(
            &f,
            kind,
            &[
                Some(Bytes::copy_from_slice(l.1)),
                Some(Bytes::copy_from_slice(r.1)),
            ],
        )
    }

    #[test]
    fn result_types_follow_cassandra() {
        use ColumnType as T;
        assert_eq!(return_type(&T::Tinyint, &T::Tinyint), T::Tinyint);
        assert_eq!(return_type(&T::Int, &T::Float), T::Float);
        assert_eq!(return_type(&T::Bigint, &T::Float), T::Double);
        assert_eq!(return_type(&T::Varint, &T::Float), T::Decimal);
        assert_eq!(return_type(&T::Counter, &T::Int), T::Bigint);
        assert_eq!(return_type(&T::Int, &T::Varint), T::Varint);
        assert_eq!(all().len(), 9 * 9 * 5 + 9 + 4);
    }

    #[test]
    fn integers_wrap_at_the_result_width() {
        let max = i32::MAX.to_be_bytes();
        let one = 1i32.to_be_bytes();
        let sum = run(
            ArithKind::Add,
            (ColumnType::Int, &max),
            (ColumnType::Int, &one),
        );
        assert_eq!(
            sum.expect("adds").as_deref(),
            Some(&i32::MIN.to_be_bytes()[..])
        );
        let q = run(
            ArithKind::Div,
            (ColumnType::Int, &7i32.to_be_bytes()),
            (ColumnType::Tinyint, &[2]),
        );
        assert_eq!(
            q.expect("divides").as_deref(),
            Some(&3i32.to_be_bytes()[..])
        );
    }

    #[test]
    fn division_by_zero_fails_with_cassandras_message() {
        let err = run(
            ArithKind::Div,
            (ColumnType::Smallint, &2i16.to_be_bytes()),
            (ColumnType::Tinyint, &[0]),
        )
        .expect_err("division by zero");
        assert_eq!(
            err.to_string(),
            "the operation 'smallint / tinyint' failed: / by zero"
        );
        let err = run(
            ArithKind::Mod,
            (ColumnType::Varint, &[7]),
            (ColumnType::Varint, &[0]),
        )
        .expect_err("remainder by zero");
        assert_eq!(
            err.to_string(),
            "the operation 'varint % varint' failed: BigInteger divide by zero"
        );
        // Floating point division by zero is infinite, not an error.
        let inf = run(
            ArithKind::Div,
            (ColumnType::Double, &1f64.to_be_bytes()),
            (ColumnType::Int, &0i32.to_be_bytes()),
        );
        assert_eq!(
            inf.expect("infinite").as_deref(),
            Some(&f64::INFINITY.to_be_bytes()[..])
        );
    }

    #[test]
    fn decimal_division_follows_cassandras_scale_rule() {
        let d = |s: &str| Decimal::parse(s).expect("decimal");
        let q = |a: &str, b: &str| divide(d(a), d(b)).expect("divides").to_string();
        assert_eq!(q("8.5", "2"), "4.25");
        assert_eq!(q("6", "3"), "2");
        assert_eq!(q("100", "1"), "1E+2");
        assert_eq!(q("8.5", "3"), "2.83333333333333333333333333333333");
        assert_eq!(q("2", "3"), "0.66666666666666666666666666666667");
        assert_eq!(q("-1", "3"), "-0.33333333333333333333333333333333");
        assert_eq!(
            divide(d("1"), d("0")).expect_err("by zero"),
            "BigInteger divide by zero"
        );
    }

    #[test]
    fn negation_wraps_fixed_widths() {
        let f = all()
            .into_iter()
            .find(|f| f.name == NEGATION && f.args == [ColumnType::Tinyint])
            .expect("declared");
        let out = negate(&f, &[Some(Bytes::from_static(&[0x80]))]).expect("negates");
        assert_eq!(out.as_deref(), Some(&[0x80u8][..]));
    }
}
