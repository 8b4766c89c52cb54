//! Cassandra's variable-length integers (`utils/vint/VIntCoding`), used by `duration`: the
//! number of leading one bits of the first byte is the number of extra bytes; signed values
//! are zig-zag encoded first.

/// Writes a signed vint (zig-zag, then Cassandra's `VIntCoding` unsigned form: the count of
/// leading one bits of the first byte is the number of extra bytes).
pub(crate) fn write_vint(out: &mut Vec<u8>, value: i64) {
    let zigzag = ((value << 1) ^ (value >> 63)) as u64;
    crate::types::vector::write_unsigned_vint(out, zigzag);
}

/// Reads a signed vint written by [`write_vint`].
pub(crate) fn read_vint(buf: &mut &[u8]) -> Option<i64> {
    let value = crate::types::vector::read_unsigned_vint(buf)?;
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
