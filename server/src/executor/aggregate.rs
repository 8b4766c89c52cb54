//! Aggregate accumulators with Cassandra's arithmetic: `count`, `min`/`max` in the type's
//! order, integer `sum` wrapping at the type's width, integer `avg` truncated, floating-point
//! sums with Kahan compensation, `decimal` at the largest scale seen.

use std::cmp::Ordering;

use bytes::Bytes;
use cql::types::{ordering, ColumnType};

use crate::error::{CqlError, CqlResult};
use crate::functions::numeric::{decode_varint, encode_varint};
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
    Integer(i128),
    /// Kahan summation, plus the naive sum to recover infinities.
    Float {
        sum: f64,
        compensation: f64,
        simple: f64,
    },
    /// `unscaled * 10^-scale`; for `avg`, the running mean.
    Decimal {
        unscaled: i128,
        scale: i32,
    },
}

fn overflow() -> CqlError {
    CqlError::invalid("Aggregate overflow: the value does not fit in 128 bits")
}

impl Accumulator {
    /// A fresh accumulator for `aggregate` over a column of type `ty`.
    pub(crate) fn new(aggregate: &Aggregate, ty: Option<&ColumnType>) -> Accumulator {
        let ty = ty.cloned().unwrap_or(ColumnType::Bigint);
        let sum = |ty: ColumnType| NumericSum {
            state: match ty {
                ColumnType::Float | ColumnType::Double => SumState::Float {
                    sum: 0.0,
                    compensation: 0.0,
                    simple: 0.0,
                },
                ColumnType::Decimal => SumState::Decimal {
                    unscaled: 0,
                    scale: 0,
                },
                _ => SumState::Integer(0),
            },
            ty,
            count: 0,
        };
        match aggregate.function {
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
                // Every integer type is big-endian two's complement, varint of any length.
                let n = decode_varint(value).ok_or_else(overflow)?;
                *total = total.checked_add(n).ok_or_else(overflow)?;
            }
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
            SumState::Decimal { unscaled, scale } => {
                let (v, s) = decode_decimal(value).ok_or_else(overflow)?;
                let target = (*scale).max(s);
                let current = rescale(*unscaled, *scale, target)?;
                let v = rescale(v, s, target)?;
                *scale = target;
                *unscaled = if mean {
                    // BigDecimal's running mean: avg += (v - avg) / count, HALF_EVEN.
                    let delta = v.checked_sub(current).ok_or_else(overflow)?;
                    current
                        .checked_add(divide_half_even(delta, i128::from(self.count)))
                        .ok_or_else(overflow)?
                } else {
                    current.checked_add(v).ok_or_else(overflow)?
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
            SumState::Integer(n) => encode_integer(&self.ty, *n),
            SumState::Float { .. } => Ok(encode_float(&self.ty, self.float_total())),
            SumState::Decimal { unscaled, scale } => Ok(encode_decimal(*unscaled, *scale)),
        }
    }

    fn mean(&self) -> CqlResult<Bytes> {
        if self.count == 0 {
            return match &self.state {
                SumState::Decimal { .. } => Ok(encode_decimal(0, 0)),
                SumState::Float { .. } => Ok(encode_float(&self.ty, 0.0)),
                SumState::Integer(_) => encode_integer(&self.ty, 0),
            };
        }
        match &self.state {
            // Java's integer division truncates toward zero, as Rust's does.
            SumState::Integer(n) => encode_integer(&self.ty, n / i128::from(self.count)),
            SumState::Float { .. } => Ok(encode_float(
                &self.ty,
                self.float_total() / self.count as f64,
            )),
            SumState::Decimal { unscaled, scale } => Ok(encode_decimal(*unscaled, *scale)),
        }
    }
}

/// The sum at the type's width, wrapping as Java's fixed-width arithmetic does.
fn encode_integer(ty: &ColumnType, n: i128) -> CqlResult<Bytes> {
    Ok(match ty {
        ColumnType::Tinyint => Bytes::copy_from_slice(&(n as i8).to_be_bytes()),
        ColumnType::Smallint => Bytes::copy_from_slice(&(n as i16).to_be_bytes()),
        ColumnType::Int => Bytes::copy_from_slice(&(n as i32).to_be_bytes()),
        ColumnType::Varint => Bytes::from(encode_varint(n)),
        _ => Bytes::copy_from_slice(&(n as i64).to_be_bytes()),
    })
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

/// `[scale: int][unscaled: varint]`.
fn decode_decimal(value: &[u8]) -> Option<(i128, i32)> {
    if value.len() < 5 {
        return None;
    }
    let scale = i32::from_be_bytes([value[0], value[1], value[2], value[3]]);
    Some((decode_varint(&value[4..])?, scale))
}

fn encode_decimal(unscaled: i128, scale: i32) -> Bytes {
    let mut out = scale.to_be_bytes().to_vec();
    out.extend_from_slice(&encode_varint(unscaled));
    Bytes::from(out)
}

/// `unscaled * 10^(to - from)` for `to >= from`.
fn rescale(unscaled: i128, from: i32, to: i32) -> CqlResult<i128> {
    let shift = u32::try_from(to - from).map_err(|_| overflow())?;
    10i128
        .checked_pow(shift)
        .and_then(|factor| unscaled.checked_mul(factor))
        .ok_or_else(overflow)
}

/// `n / d` rounded half to even (`d > 0`).
fn divide_half_even(n: i128, d: i128) -> i128 {
    let q = n / d;
    let r = n % d;
    let twice = r.abs() * 2;
    let away = match twice.cmp(&d) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => q % 2 != 0,
    };
    if away {
        q + n.signum()
    } else {
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(function: AggregateFunction, ty: ColumnType, values: &[&[u8]]) -> Option<Bytes> {
        let aggregate = Aggregate {
            function,
            input: Some((crate::planner::selector::Scalar::Column(0), ty.clone())),
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

    #[test]
    fn decimal_sum_and_mean_keep_the_largest_scale() {
        let a = encode_decimal(15, 1); // 1.5
        let b = encode_decimal(2, 0); // 2
        let sum = run(AggregateFunction::Sum, ColumnType::Decimal, &[&a, &b]);
        assert_eq!(sum, Some(encode_decimal(35, 1)));
        let avg = run(AggregateFunction::Avg, ColumnType::Decimal, &[&a, &b]);
        // 1.5, then 1.5 + (2.0 - 1.5) / 2 where 0.5 / 2 = 0.25 rounds half-even to 0.2.
        assert_eq!(avg, Some(encode_decimal(17, 1)));
    }

    #[test]
    fn varint_encoding_is_minimal() {
        for n in [0i128, 1, -1, 127, 128, -128, -129, 1 << 40, -(1 << 70)] {
            let bytes = encode_varint(n);
            assert_eq!(decode_varint(&bytes), Some(n));
        }
        assert_eq!(encode_varint(128), vec![0x00, 0x80]);
        assert_eq!(encode_varint(-128), vec![0x80]);
    }
}
