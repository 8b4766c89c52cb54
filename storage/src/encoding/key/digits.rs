//! Conversions between big-endian two's-complement integers (the wire form of `varint` and of
//! a `decimal`'s unscaled value) and their base-10 digits, for the decimal key body.
//!
//! Schoolbook arithmetic on 32-bit limbs: quadratic in the length, which key sizes (Cassandra
//! caps a key component at 64 KiB) keep bounded.

/// Largest power of ten in a `u32` limb, and its number of digits.
const CHUNK: u32 = 1_000_000_000;
const CHUNK_DIGITS: usize = 9;

/// The sign and the decimal digits (most significant first, each `0..=9`, no leading zeros;
/// empty for zero) of a big-endian two's-complement integer.
pub(super) fn to_digits(twos_complement: &[u8]) -> (bool, Vec<u8>) {
    let negative = twos_complement.first().is_some_and(|b| b & 0x80 != 0);
    let mut limbs = magnitude_limbs(twos_complement, negative);
    let mut chunks = Vec::new();
    while !limbs.is_empty() {
        let mut rem = 0u64;
        for limb in limbs.iter_mut().rev() {
            let cur = (rem << 32) | u64::from(*limb);
            // cur < CHUNK * 2^32, so the quotient fits a limb.
            *limb = (cur / u64::from(CHUNK)) as u32;
            rem = cur % u64::from(CHUNK);
        }
        chunks.push(rem as u32);
        trim(&mut limbs);
    }
    let mut digits = Vec::with_capacity(chunks.len() * CHUNK_DIGITS);
    for chunk in chunks.iter().rev() {
        let mut buf = [0u8; CHUNK_DIGITS];
        let mut c = *chunk;
        for slot in buf.iter_mut().rev() {
            *slot = (c % 10) as u8;
            c /= 10;
        }
        digits.extend_from_slice(&buf);
    }
    let leading = digits.iter().take_while(|d| **d == 0).count();
    digits.drain(..leading);
    (negative, digits)
}

/// The minimal big-endian two's-complement form of `±digits` (digits `0..=9`, most
/// significant first; empty is zero).
pub(super) fn from_digits(negative: bool, digits: &[u8]) -> Vec<u8> {
    let mut limbs: Vec<u32> = Vec::new();
    let head = digits.len() % CHUNK_DIGITS;
    let groups = std::iter::once(&digits[..head]).chain(digits[head..].chunks(CHUNK_DIGITS));
    for group in groups.filter(|g| !g.is_empty()) {
        let value = group.iter().fold(0u32, |acc, d| acc * 10 + u32::from(*d));
        let scale = 10u64.pow(group.len() as u32);
        let mut carry = u64::from(value);
        for limb in &mut limbs {
            let cur = u64::from(*limb) * scale + carry;
            *limb = cur as u32;
            carry = cur >> 32;
        }
        if carry != 0 {
            limbs.push(carry as u32);
        }
    }
    trim(&mut limbs);
    twos_complement(&limbs, negative)
}

fn trim(limbs: &mut Vec<u32>) {
    while limbs.last() == Some(&0) {
        limbs.pop();
    }
}

/// The absolute value as little-endian 32-bit limbs, without leading zero limbs.
fn magnitude_limbs(twos_complement: &[u8], negative: bool) -> Vec<u32> {
    let mut le: Vec<u8> = twos_complement
        .iter()
        .rev()
        .map(|b| if negative { !b } else { *b })
        .collect();
    if negative {
        // -x = !x + 1 (the +1 can carry into a new top byte: -128 is 0x80).
        let mut carry = true;
        for b in &mut le {
            let (sum, overflow) = b.overflowing_add(1);
            *b = sum;
            if !overflow {
                carry = false;
                break;
            }
        }
        if carry {
            le.push(1);
        }
    }
    let mut limbs: Vec<u32> = le
        .chunks(4)
        .map(|chunk| {
            let mut word = [0u8; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            u32::from_le_bytes(word)
        })
        .collect();
    trim(&mut limbs);
    limbs
}

/// Minimal two's complement of `±limbs`.
fn twos_complement(limbs: &[u32], negative: bool) -> Vec<u8> {
    let mut le: Vec<u8> = limbs.iter().flat_map(|l| l.to_le_bytes()).collect();
    while le.last() == Some(&0) {
        le.pop();
    }
    // A spare byte for the sign bit.
    le.push(0);
    if negative {
        let mut carry = true;
        for b in &mut le {
            let (sum, overflow) = (!*b).overflowing_add(u8::from(carry));
            *b = sum;
            carry = overflow;
        }
    }
    le.reverse();
    let mut start = 0;
    while let [first, second, ..] = &le[start..] {
        let redundant =
            (*first == 0x00 && second & 0x80 == 0) || (*first == 0xFF && second & 0x80 != 0);
        if !redundant {
            break;
        }
        start += 1;
    }
    le.split_off(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digits(text: &str) -> Vec<u8> {
        text.bytes().map(|b| b - b'0').collect()
    }

    #[test]
    fn small_values_match_i128() {
        for x in [
            0i128,
            1,
            -1,
            127,
            128,
            -128,
            -129,
            255,
            256,
            1_000_000_000,
            -1_000_000_007,
        ] {
            let bytes = x.to_be_bytes();
            let (negative, ds) = to_digits(&bytes);
            assert_eq!(negative, x < 0, "{x}");
            let text: String = ds.iter().map(|d| char::from(b'0' + d)).collect();
            let expected = if x == 0 {
                String::new()
            } else {
                x.unsigned_abs().to_string()
            };
            assert_eq!(text, expected, "{x}");
            let back = from_digits(negative, &ds);
            let mut padded = if negative { [0xFF; 16] } else { [0; 16] };
            padded[16 - back.len()..].copy_from_slice(&back);
            assert_eq!(i128::from_be_bytes(padded), x);
        }
        assert_eq!(from_digits(false, &[]), vec![0]);
        assert_eq!(from_digits(false, &digits("128")), vec![0x00, 0x80]);
        assert_eq!(from_digits(true, &digits("128")), vec![0x80]);
        assert_eq!(from_digits(true, &digits("129")), vec![0xFF, 0x7F]);
    }

    #[test]
    fn long_values_round_trip() {
        let text = "31415926535897932384626433832795028841971693993751058209749445923";
        for negative in [false, true] {
            let bytes = from_digits(negative, &digits(text));
            assert_eq!(to_digits(&bytes), (negative, digits(text)));
        }
        // Redundant sign bytes are accepted.
        assert_eq!(to_digits(&[0x00, 0x00, 0x05]), (false, vec![5]));
        assert_eq!(to_digits(&[0xFF, 0xFF]), (true, vec![1]));
    }
}
