//! The `decimal` key body: numeric order, as `DecimalType` compares (`BigDecimal.compareTo`,
//! so `1.0`, `1.00` and `1E+0` are one key).
//!
//! ```text
//! body     = 0x01 !(exponent digits end)   negative (every byte inverted)
//!          | 0x02                          zero
//!          | 0x03 exponent digits end      positive
//! exponent = adjusted exponent (position of the leading digit: 1.5 → 0, 150 → 2) as an i64,
//!            big-endian with the sign bit flipped
//! digits   = the significant digits without trailing zeros, two per byte as 1 + 10a + b
//!            (a lone last digit is paired with 0)
//! end      = 0x00
//! ```
//!
//! At equal exponent the digit strings compare left to right and a prefix is smaller (0.12 <
//! 0.123); the terminator sorts below every digit pair. Negatives invert the whole tail, so a
//! larger magnitude sorts first.
//!
//! The key keeps the value, not the representation: it decodes to the canonical form of the
//! value (trailing zeros stripped; a negative scale of at most [`EXPAND_LIMIT`] written out
//! as scale 0, so `1230` stays `1230`; zero is `0`).

use super::digits::from_digits;
use super::digits::to_digits;
use super::reader::Reader;
use crate::error::StorageError;

const NEGATIVE: u8 = 0x01;
const ZERO: u8 = 0x02;
const POSITIVE: u8 = 0x03;
const END: u8 = 0x00;

/// A negative scale of at most this many digits decodes as an integer (scale 0).
const EXPAND_LIMIT: i64 = 64;
/// Sanity bound on the zeros a decoded key may ask for (corrupt input otherwise).
const MAX_PADDING: i64 = 1 << 24;

/// Appends the body of a serialized `decimal`; the error says why the value cannot be keyed.
pub(super) fn encode(value: &[u8], out: &mut Vec<u8>) -> Result<(), &'static str> {
    let (scale, unscaled) = value
        .split_first_chunk::<4>()
        .ok_or("expected at least 4 bytes")?;
    if unscaled.is_empty() {
        return Err("no unscaled value");
    }
    let (negative, mut digits) = to_digits(unscaled);
    let Some(last) = digits.iter().rposition(|d| *d != 0) else {
        out.push(ZERO);
        return Ok(());
    };
    let stripped = digits.len() - 1 - last;
    digits.truncate(last + 1);
    let scale = i64::from(i32::from_be_bytes(*scale)) - stripped as i64;
    let exponent = digits.len() as i64 - 1 - scale;
    out.push(if negative { NEGATIVE } else { POSITIVE });
    let start = out.len();
    out.extend_from_slice(&((exponent as u64) ^ (1 << 63)).to_be_bytes());
    for pair in digits.chunks(2) {
        let low = pair.get(1).copied().unwrap_or(0);
        out.push(1 + 10 * pair[0] + low);
    }
    out.push(END);
    if negative {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    Ok(())
}

/// Decodes a body written by [`encode`] into the serialized canonical decimal.
pub(super) fn decode(r: &mut Reader<'_>) -> Result<Vec<u8>, StorageError> {
    let corrupt = |what: &str| StorageError::corrupt(format!("row key: decimal {what}"));
    let negative = match r.byte()? {
        ZERO => return Ok(vec![0, 0, 0, 0, 0]),
        NEGATIVE => true,
        POSITIVE => false,
        _ => return Err(corrupt("sign")),
    };
    let flip = |b: u8| if negative { !b } else { b };
    let mut exponent = [0u8; 8];
    for slot in &mut exponent {
        *slot = flip(r.byte()?);
    }
    let exponent = (u64::from_be_bytes(exponent) ^ (1 << 63)) as i64;
    let mut digits = Vec::new();
    loop {
        match flip(r.byte()?) {
            END => break,
            pair @ 1..=100 => digits.extend_from_slice(&[(pair - 1) / 10, (pair - 1) % 10]),
            _ => return Err(corrupt("digit pair")),
        }
    }
    while digits.last() == Some(&0) {
        digits.pop();
    }
    if digits.first().is_none_or(|d| *d == 0) {
        return Err(corrupt("digits"));
    }
    let scale = (digits.len() as i64 - 1)
        .checked_sub(exponent)
        .ok_or_else(|| corrupt("exponent"))?;
    let padding = if (-EXPAND_LIMIT..0).contains(&scale) {
        -scale
    } else {
        (i64::from(i32::MIN) - scale).max(0)
    };
    if padding > MAX_PADDING {
        return Err(corrupt("exponent"));
    }
    let scale = i32::try_from(scale + padding).map_err(|_| corrupt("scale"))?;
    digits.resize(digits.len() + padding as usize, 0);
    let mut out = scale.to_be_bytes().to_vec();
    out.extend_from_slice(&from_digits(negative, &digits));
    Ok(out)
}
