//! Aggregate accumulators with Cassandra's arithmetic: `count`, `min`/`max` in the type's
//! order, integer `sum` wrapping at the type's width, integer `avg` truncated, floating-point
//! sums with Kahan compensation, `varint` and `decimal` exact at any size (`BigInteger` and
//! `BigDecimal`, as `AggregateFcts`).

use std::cmp::Ordering;

use bytes::Bytes;
use cql::types::number_text::{NumberTextError, MAX_DIGITS};
use cql::types::{ordering, ColumnType};

use bigdecimal::num_bigint::BigInt;
use bigdecimal::BigDecimal;
use num_traits::Zero;

use crate::error::{CqlResult, SelectError};
use crate::eval::functions::decimal;
use crate::eval::functions::decimal::Rounding;
use crate::planner::select::{Aggregate, AggregateFunction};

/// The running state of one aggregate.
#[derive(Debug, Clone)]
pub(crate) enum Accumulator {
    Count(i64),
    Extreme {
        ty: ColumnType,
        max: bool,
        best: Option<Bytes>,
    },
    Sum(NumericSum),
    Avg(NumericSum),
}

/// A running sum of one numeric type.
#[derive(Debug, Clone)]
pub(crate) struct NumericSum {
    ty: ColumnType,
    count: i64,
    state: SumState,
}

#[derive(Debug, Clone)]
enum SumState {
    /// tinyint to bigint and counter: exact, wrapped to the width at the end.
    Integer(i128),
    /// `BigInteger`.
    Varint(BigInt),
    /// Kahan summation, plus the naive sum to recover infinities.
    Float {
        sum: f64,
        compensation: f64,
        simple: f64,
    },
    /// `BigDecimal`; for `avg`, the running mean.
    Decimal(BigDecimal),
}

fn invalid_value(ty: &ColumnType) -> SelectError {
    SelectError::InvalidAggregateValue { ty: ty.to_string() }
}

impl Accumulator {
    /// A fresh accumulator for `aggregate` over a column of type `ty`.
    pub(crate) fn new(aggregate: &Aggregate, ty: Option<&ColumnType>) -> Accumulator {
        let ty = ty.cloned().unwrap_or(ColumnType::Bigint);
        Accumulator::for_function(aggregate.function, &ty)
    }

    /// A fresh accumulator of `function` over values of type `ty` (rows of a column, or the
    /// elements of a collection for the collection functions).
    pub(crate) fn for_function(function: AggregateFunction, ty: &ColumnType) -> Accumulator {
        let ty = ty.clone();
        let sum = |ty: ColumnType| NumericSum {
            state: match ty {
                ColumnType::Float | ColumnType::Double => SumState::Float {
                    sum: 0.0,
                    compensation: 0.0,
                    simple: 0.0,
                },
                ColumnType::Decimal => SumState::Decimal(BigDecimal::zero()),
                ColumnType::Varint => SumState::Varint(BigInt::zero()),
                _ => SumState::Integer(0),
            },
            ty,
            count: 0,
        };
        match function {
            AggregateFunction::CountRows | AggregateFunction::Count => Accumulator::Count(0),
            AggregateFunction::Min => Accumulator::Extreme {
                ty,
                max: false,
                best: None,
            },
            AggregateFunction::Max => Accumulator::Extreme {
                ty,
                max: true,
                best: None,
            },
            AggregateFunction::Sum => Accumulator::Sum(sum(ty)),
            AggregateFunction::Avg => Accumulator::Avg(sum(ty)),
        }
    }

    /// Adds one row's value (`None` for a null; `count(*)` passes a dummy value).
    pub(crate) fn add(&mut self, value: Option<&Bytes>) -> CqlResult<()> {
        let Some(value) = value else { return Ok(()) };
        match self {
            Accumulator::Count(n) => *n += 1,
            Accumulator::Extreme { ty, max, best } => {
                let better = match best {
                    None => true,
                    Some(b) => {
                        let cmp = ordering::compare(ty, value, b);
                        if *max {
                            cmp == Ordering::Greater
                        } else {
                            cmp == Ordering::Less
                        }
                    }
                };
                if better {
                    *best = Some(value.clone());
                }
            }
            Accumulator::Sum(sum) => sum.add(value, false)?,
            Accumulator::Avg(sum) => sum.add(value, true)?,
        }
        Ok(())
    }

    /// The aggregate's value.
    pub(crate) fn result(&self) -> CqlResult<Option<Bytes>> {
        Ok(match self {
            Accumulator::Count(n) => Some(Bytes::copy_from_slice(&n.to_be_bytes())),
            Accumulator::Extreme { best, .. } => best.clone(),
            Accumulator::Sum(sum) => Some(sum.total()?),
            Accumulator::Avg(sum) => Some(sum.mean()?),
        })
    }
}

impl NumericSum {
    fn add(&mut self, value: &[u8], mean: bool) -> CqlResult<()> {
        self.count += 1;
        match &mut self.state {
            SumState::Integer(total) => {
                let n = decode_fixed(value).ok_or_else(|| invalid_value(&self.ty))?;
                // The result keeps at most 64 bits, which wrapping leaves exact.
                *total = total.wrapping_add(n);
            }
            SumState::Varint(total) => *total += BigInt::from_signed_bytes_be(value),
            SumState::Float {
                sum,
                compensation,
                simple,
            } => {
                let d = decode_float(&self.ty, value);
                *simple += d;
                let adjusted = d - *compensation;
                let rounded = *sum + adjusted;
                *compensation = (rounded - *sum) - adjusted;
                *sum = rounded;
            }
            SumState::Decimal(state) => {
                let v = decimal::decode(value).ok_or_else(|| invalid_value(&self.ty))?;
                *state = if mean {
                    running_mean(state, &v, self.count)?
                } else {
                    exact_sum(state, &v)?
                };
            }
        }
        Ok(())
    }

    fn float_total(&self) -> f64 {
        match self.state {
            SumState::Float {
                sum,
                compensation,
                simple,
            } => {
                let total = sum + compensation;
                if total.is_nan() && simple.is_infinite() {
                    simple
                } else {
                    total
                }
            }
            _ => 0.0,
        }
    }

    fn total(&self) -> CqlResult<Bytes> {
        match &self.state {
            SumState::Integer(n) => Ok(encode_integer(&self.ty, *n)),
            SumState::Float { .. } => Ok(encode_float(&self.ty, self.float_total())),
            SumState::Varint(n) => Ok(Bytes::from(n.to_signed_bytes_be())),
            SumState::Decimal(d) => encode_decimal(d),
        }
    }

    fn mean(&self) -> CqlResult<Bytes> {
        if self.count == 0 {
            return match &self.state {
                SumState::Decimal(_) => encode_decimal(&BigDecimal::zero()),
                SumState::Varint(_) => Ok(Bytes::from_static(&[0])),
                SumState::Float { .. } => Ok(encode_float(&self.ty, 0.0)),
                SumState::Integer(_) => Ok(encode_integer(&self.ty, 0)),
            };
        }
        match &self.state {
            // Java's integer division truncates toward zero, as Rust's does.
            SumState::Integer(n) => Ok(encode_integer(&self.ty, n / i128::from(self.count))),
            SumState::Float { .. } => Ok(encode_float(
                &self.ty,
                self.float_total() / self.count as f64,
            )),
            SumState::Varint(n) => Ok(Bytes::from(
                (n / BigInt::from(self.count)).to_signed_bytes_be(),
            )),
            SumState::Decimal(d) => encode_decimal(d),
        }
    }
}

/// `sum.add(v)`, exact; a sum that would need more digits than a value may have is refused
/// (Java would spend minutes on it).
fn exact_sum(sum: &BigDecimal, v: &BigDecimal) -> CqlResult<BigDecimal> {
    check_alignment(sum, v)?;
    Ok(sum + v)
}

/// `AggregateFcts.avgFunctionForDecimal`'s step: `avg + (v - avg) / count`, the quotient at
/// the difference's scale, rounded HALF_EVEN.
fn running_mean(avg: &BigDecimal, v: &BigDecimal, count: i64) -> CqlResult<BigDecimal> {
    check_alignment(avg, v)?;
    let delta = v - avg;
    let (unscaled, scale) = delta.as_bigint_and_scale();
    let step = decimal::div_round(&unscaled, &BigInt::from(count), Rounding::HalfEven);
    Ok(avg + BigDecimal::new(step, scale))
}

/// Refuses adding decimals whose exact sum has more digits than
/// [`cql::types::number_text::MAX_DIGITS`].
fn check_alignment(a: &BigDecimal, b: &BigDecimal) -> CqlResult<()> {
    if a.is_zero() || b.is_zero() {
        return Ok(());
    }
    let spread = decimal::scale(a).abs_diff(decimal::scale(b));
    let digits = i64::try_from(spread)
        .unwrap_or(i64::MAX)
        .saturating_add(decimal::precision(a).max(decimal::precision(b)));
    if digits > MAX_DIGITS as i64 {
        return Err(SelectError::TooManyDigits(NumberTextError::TooManyDigits {
            digits: usize::try_from(digits).unwrap_or(usize::MAX),
            max: MAX_DIGITS,
        })
        .into());
    }
    Ok(())
}

/// The sum at the type's width, wrapping as Java's fixed-width arithmetic does.
fn encode_integer(ty: &ColumnType, n: i128) -> Bytes {
    match ty {
        ColumnType::Tinyint => Bytes::copy_from_slice(&(n as i8).to_be_bytes()),
        ColumnType::Smallint => Bytes::copy_from_slice(&(n as i16).to_be_bytes()),
        ColumnType::Int => Bytes::copy_from_slice(&(n as i32).to_be_bytes()),
        _ => Bytes::copy_from_slice(&(n as i64).to_be_bytes()),
    }
}

fn decode_float(ty: &ColumnType, value: &[u8]) -> f64 {
    match (ty, value.len()) {
        (ColumnType::Float, 4) => {
            f64::from(f32::from_be_bytes([value[0], value[1], value[2], value[3]]))
        }
        (_, 8) => {
            let mut raw = [0u8; 8];
            raw.copy_from_slice(value);
            f64::from_be_bytes(raw)
        }
        _ => 0.0,
    }
}

fn encode_float(ty: &ColumnType, d: f64) -> Bytes {
    match ty {
        ColumnType::Float => Bytes::copy_from_slice(&(d as f32).to_be_bytes()),
        _ => Bytes::copy_from_slice(&d.to_be_bytes()),
    }
}

/// A big-endian two's complement integer of 1 to 16 bytes.
fn decode_fixed(bytes: &[u8]) -> Option<i128> {
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let negative = bytes[0] & 0x80 != 0;
    let mut raw = if negative { [0xFFu8; 16] } else { [0u8; 16] };
    raw[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(raw))
}

/// The wire form of a decimal result: like `decimal::encode`, a scale beyond an `int` is an
/// underflow when positive (a value too small), else an overflow.
fn encode_decimal(d: &BigDecimal) -> CqlResult<Bytes> {
    decimal::encode(d).map_err(|_| {
        if decimal::scale(d) > 0 {
            SelectError::DecimalUnderflow.into()
        } else {
            SelectError::DecimalOverflow.into()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(function: AggregateFunction, ty: ColumnType, values: &[&[u8]]) -> Option<Bytes> {
        let aggregate = Aggregate {
            function,
            input: Some((
                crate::planner::select::selector::Scalar::Column(0),
                ty.clone(),
            )),
            then: None,
        };
        let mut acc = Accumulator::new(&aggregate, Some(&ty));
        for v in values {
            acc.add(Some(&Bytes::copy_from_slice(v))).expect("add");
        }
        acc.result().expect("result")
    }

    #[test]
    fn int_sum_wraps_like_java_and_avg_truncates() {
        let max = i32::MAX.to_be_bytes();
        let one = 1i32.to_be_bytes();
        let sum = run(AggregateFunction::Sum, ColumnType::Int, &[&max, &one]);
        assert_eq!(sum.as_deref(), Some(&i32::MIN.to_be_bytes()[..]));
        let avg = run(AggregateFunction::Avg, ColumnType::Int, &[&max, &one]);
        assert_eq!(avg.as_deref(), Some(&(1i32 << 30).to_be_bytes()[..]));
        let neg = (-3i32).to_be_bytes();
        let two = 2i32.to_be_bytes();
        let avg = run(AggregateFunction::Avg, ColumnType::Int, &[&neg, &two]);
        assert_eq!(avg.as_deref(), Some(&0i32.to_be_bytes()[..]));
    }

    #[test]
    fn empty_aggregates_match_cassandra() {
        assert_eq!(run(AggregateFunction::Max, ColumnType::Int, &[]), None);
        let zero = run(AggregateFunction::Sum, ColumnType::Int, &[]);
        assert_eq!(zero.as_deref(), Some(&[0u8, 0, 0, 0][..]));
        let avg = run(AggregateFunction::Avg, ColumnType::Double, &[]);
        assert_eq!(avg.as_deref(), Some(&0f64.to_be_bytes()[..]));
        let count = run(AggregateFunction::Count, ColumnType::Int, &[]);
        assert_eq!(count.as_deref(), Some(&0i64.to_be_bytes()[..]));
    }

    #[test]
    fn min_and_max_use_the_type_order() {
        let values: [&[u8]; 3] = [&[0x01], &[0xFF], &[0x00, 0x80]];
        let max = run(AggregateFunction::Max, ColumnType::Varint, &values);
        assert_eq!(max.as_deref(), Some(&[0x00, 0x80][..]));
        let min = run(AggregateFunction::Min, ColumnType::Varint, &values);
        assert_eq!(min.as_deref(), Some(&[0xFF][..]));
    }

    #[test]
    fn double_sum_is_compensated() {
        let values: Vec<[u8; 8]> = [0.1f64; 10].iter().map(|d| d.to_be_bytes()).collect();
        let refs: Vec<&[u8]> = values.iter().map(|v| &v[..]).collect();
        let sum = run(AggregateFunction::Sum, ColumnType::Double, &refs).expect("sum");
        assert_eq!(
            f64::from_be_bytes(sum[..].try_into().expect("8 bytes")),
            1.0
        );
    }

    fn dec(text: &str) -> Bytes {
        encode_decimal(&decimal::parse(text).expect("decimal")).expect("fits")
    }

    fn text(value: Option<Bytes>) -> String {
        decimal::java_string(&decimal::decode(&value.expect("value")).expect("decimal"))
    }

    #[test]
    fn decimal_sum_and_mean_keep_the_largest_scale() {
        let (a, b) = (dec("1.5"), dec("2"));
        let sum = run(AggregateFunction::Sum, ColumnType::Decimal, &[&a, &b]);
        assert_eq!(text(sum), "3.5");
        let avg = run(AggregateFunction::Avg, ColumnType::Decimal, &[&a, &b]);
        // 1.5, then 1.5 + (2.0 - 1.5) / 2 where 0.5 / 2 = 0.25 rounds half-even to 0.2.
        assert_eq!(text(avg), "1.7");
        let empty = run(AggregateFunction::Avg, ColumnType::Decimal, &[]);
        assert_eq!(text(empty), "0");
    }

    #[test]
    fn decimals_and_varints_aggregate_beyond_128_bits() {
        let big = format!("1{}", "0".repeat(50));
        let (a, b) = (dec(&format!("{big}.25")), dec(&format!("{big}.75")));
        let sum = run(AggregateFunction::Sum, ColumnType::Decimal, &[&a, &b]);
        assert_eq!(text(sum), format!("2{}1.00", "0".repeat(49)));
        let avg = run(AggregateFunction::Avg, ColumnType::Decimal, &[&a, &b]);
        assert_eq!(text(avg), format!("{big}.50"));
        let n: BigInt = BigInt::from(1) << 300u32;
        let values = [
            n.to_signed_bytes_be(),
            (BigInt::from(3) - &n).to_signed_bytes_be(),
            n.to_signed_bytes_be(),
        ];
        let refs: Vec<&[u8]> = values.iter().map(|v| &v[..]).collect();
        let sum = run(AggregateFunction::Sum, ColumnType::Varint, &refs);
        assert_eq!(
            sum.as_deref(),
            Some(&(&n + BigInt::from(3)).to_signed_bytes_be()[..])
        );
        let avg = run(AggregateFunction::Avg, ColumnType::Varint, &refs);
        assert_eq!(
            avg.as_deref(),
            Some(&((&n + BigInt::from(3)) / BigInt::from(3)).to_signed_bytes_be()[..])
        );
        let empty = run(AggregateFunction::Avg, ColumnType::Varint, &[]);
        assert_eq!(empty.as_deref(), Some(&[0u8][..]));
    }

    #[test]
    fn far_apart_decimals_are_refused_not_expanded() {
        let aggregate = Aggregate {
            function: AggregateFunction::Sum,
            input: Some((
                crate::planner::select::selector::Scalar::Column(0),
                ColumnType::Decimal,
            )),
            then: None,
        };
        let mut acc = Accumulator::new(&aggregate, Some(&ColumnType::Decimal));
        acc.add(Some(&dec("1e500000000"))).expect("first");
        let err = acc.add(Some(&dec("1"))).expect_err("too many digits");
        assert!(err.to_string().contains("exceeds the maximum"), "{err}");
    }
}
