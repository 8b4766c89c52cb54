//! The arithmetic operators (Cassandra's `OperationFcts`): `+ - * / %` between any two numeric
//! types and unary `-`, as functions `_add`, `_substract`, `_multiply`, `_divide`, `_modulo`
//! and `_negate`. The result type is the wider operand type, floating point if either operand
//! is; fixed-width integers wrap as Java's do, and a failure (division by zero) is Cassandra's
//! `FUNCTION_FAILURE` naming the operation.

use bytes::Bytes;
use cql::statement::ast::ArithOp;
use cql::types::ColumnType;

use bigdecimal::num_bigint::BigInt;
use num_traits::Zero;

use super::numeric::Number;
use super::{decimal, Body, NativeFunction};
use crate::error::{CqlError, CqlResult, FunctionFailure};

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
    FunctionFailure::Operation {
        function: function.name.clone(),
        arg_types: function.args.iter().map(ToString::to_string).collect(),
        symbol: kind.symbol(),
        cause: cause.to_string(),
    }
    .into()
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
            let a = left.to_decimal_operand().map_err(|e| e.to_string())?;
            let b = right.to_decimal_operand().map_err(|e| e.to_string())?;
            Number::Decimal(decimal_op(kind, &a, &b)?)
        }
        ColumnType::Varint => Number::Varint(varint_op(
            kind,
            &left.to_big_integer(),
            &right.to_big_integer(),
        )?),
        // Fixed-width integers: exact in 128 bits, then wrapped to the width on encoding.
        _ => {
            let (a, b) = (i128::from(left.to_i64()), i128::from(right.to_i64()));
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

/// `DecimalType`'s arithmetic: `+ - *` kept to 10,000 digits, Cassandra's division scale,
/// `BigDecimal.remainder`.
fn decimal_op(
    kind: ArithKind,
    a: &bigdecimal::BigDecimal,
    b: &bigdecimal::BigDecimal,
) -> Result<bigdecimal::BigDecimal, String> {
    Ok(match kind {
        ArithKind::Add => decimal::add(a, b),
        ArithKind::Sub => decimal::subtract(a, b),
        ArithKind::Mul => decimal::multiply(a, b),
        ArithKind::Div => decimal::divide(a, b)?,
        ArithKind::Mod => decimal::remainder(a, b)?,
    })
}

/// `IntegerType`'s arithmetic on `BigInteger`s: exact, division truncating toward zero and
/// the remainder taking the dividend's sign, as Java's.
fn varint_op(kind: ArithKind, a: &BigInt, b: &BigInt) -> Result<BigInt, String> {
    if matches!(kind, ArithKind::Div | ArithKind::Mod) && b.is_zero() {
        return Err("BigInteger divide by zero".into());
    }
    Ok(match kind {
        ArithKind::Add => a + b,
        ArithKind::Sub => a - b,
        ArithKind::Mul => a * b,
        ArithKind::Div => a / b,
        ArithKind::Mod => a % b,
    })
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
        Number::Integer(i) => Number::Integer(i.wrapping_neg()),
        Number::Float(f) => Number::Float(-f),
        Number::Double(d) => Number::Double(-d),
        Number::Varint(n) => Number::Varint(-n),
        Number::Decimal(d) => Number::Decimal(-d),
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

    fn varint(n: &BigInt) -> Vec<u8> {
        n.to_signed_bytes_be()
    }

    fn decimal_bytes(text: &str) -> Vec<u8> {
        decimal::encode(&decimal::parse(text).expect("decimal"))
            .expect("fits")
            .to_vec()
    }

    #[test]
    fn varints_compute_beyond_128_bits() {
        let big: BigInt = BigInt::from(1) << 200u32;
        let product = run(
            ArithKind::Mul,
            (ColumnType::Varint, &varint(&big)),
            (ColumnType::Int, &3i32.to_be_bytes()),
        )
        .expect("multiplies");
        assert_eq!(
            product.as_deref(),
            Some(&varint(&(&big * BigInt::from(3)))[..])
        );
        let q = run(
            ArithKind::Div,
            (ColumnType::Varint, &varint(&-&big)),
            (ColumnType::Varint, &varint(&(&big - BigInt::from(1)))),
        )
        .expect("divides");
        assert_eq!(q.as_deref(), Some(&[0xff][..]));
    }

    #[test]
    fn decimals_compute_beyond_128_bits() {
        let sum = run(
            ArithKind::Add,
            (ColumnType::Decimal, &decimal_bytes("1e40")),
            (
                ColumnType::Decimal,
                &decimal_bytes("0.000000000000000000001"),
            ),
        )
        .expect("adds")
        .expect("value");
        assert_eq!(
            decimal::java_string(&decimal::decode(&sum).expect("decimal")),
            format!("1{}.000000000000000000001", "0".repeat(40))
        );
        let q = run(
            ArithKind::Div,
            (ColumnType::Int, &1i32.to_be_bytes()),
            (ColumnType::Decimal, &decimal_bytes("3")),
        )
        .expect("divides")
        .expect("value");
        assert_eq!(
            decimal::java_string(&decimal::decode(&q).expect("decimal")),
            format!("0.{}", "3".repeat(32))
        );
        let err = run(
            ArithKind::Mod,
            (ColumnType::Decimal, &decimal_bytes("1")),
            (ColumnType::Decimal, &decimal_bytes("0")),
        )
        .expect_err("by zero");
        assert_eq!(
            err.to_string(),
            "the operation 'decimal % decimal' failed: Division by zero"
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
