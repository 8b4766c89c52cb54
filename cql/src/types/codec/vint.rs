//! Cassandra's variable-length integers (`utils/vint/VIntCoding`), used by `duration`: the
//! number of leading one bits of the first byte is the number of extra bytes; signed values
//! are zig-zag encoded first.

/// Writes a signed vint (zig-zag, then Cassandra's `VIntCoding` unsigned form: the count of
/// leading one bits of the first byte is the number of extra bytes).
pub(crate) fn write_vint(out: &mut Vec<u8>, value: i64) {
    let zigzag = ((value << 1) ^ (value >> 63)) as u64;
    let magnitude = (zigzag | 1).leading_zeros() as usize;
    let size = (639 - magnitude * 9) >> 6;
    let bytes = zigzag.to_be_bytes();
    if size >= 9 {
        out.push(0xFF);
        out.extend_from_slice(&bytes);
        return;
    }
    let extra = size - 1;
    let tail = bytes.get(8 - size..).unwrap_or_default();
    if let Some((first, rest)) = tail.split_first() {
        out.push(first | !(0xFFu8 >> extra));
        out.extend_from_slice(rest);
    }
}

/// Reads a signed vint written by [`write_vint`].
pub(crate) fn read_vint(buf: &mut &[u8]) -> Option<i64> {
    let (&first, rest) = buf.split_first()?;
    let extra = first.leading_ones() as usize;
    let more = rest.get(..extra)?;
    let mut value = if extra >= 8 {
        0
    } else {
        u64::from(first & (0xFF >> extra))
    };
    for byte in more {
        value = (value << 8) | u64::from(*byte);
    }
    *buf = rest.get(extra..)?;
    Some(((value >> 1) as i64) ^ -((value & 1) as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vints_round_trip_at_every_width() {
        for value in [
            0,
            1,
            -1,
            63,
            -64,
            64,
            1 << 20,
            i64::MAX,
            i64::MIN,
            (1 << 55) - 1,
            1 << 55,
        ] {
            let mut out = Vec::new();
            write_vint(&mut out, value);
            let mut buf = &out[..];
            assert_eq!(read_vint(&mut buf), Some(value), "{value}");
            assert!(buf.is_empty());
        }
        let mut out = Vec::new();
        write_vint(&mut out, 64);
        assert_eq!(out, [0x80, 0x80]);
        assert_eq!(read_vint(&mut &[0xFF, 0][..]), None);
    }
}
