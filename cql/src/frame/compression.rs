//! Frame body compression (native_protocol_v4.spec section 5).
//!
//! Only bodies are compressed, never headers. The v4 lz4 body is a 4-byte **big-endian**
//! uncompressed length followed by a raw lz4 block (the Python driver swaps the byte order
//! around its lz4 library's little-endian prefix); the snappy body is a raw snappy block.
//! Decompression refuses a declared size above the caller's limit before allocating it.
//! Negotiation (the STARTUP `COMPRESSION` option, what SUPPORTED lists) is the server's job.

use super::FrameError;

/// The largest expansion an lz4 block can encode: each 255-valued length byte adds 255 bytes.
const LZ4_MAX_RATIO: u64 = 255;

/// A body compression algorithm a client can choose in STARTUP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    /// `lz4`: big-endian length prefix plus an lz4 block.
    Lz4,
    /// `snappy`: a raw snappy block.
    Snappy,
}

impl Compression {
    /// Looks up an algorithm by its STARTUP name (`lz4` or `snappy`, as the drivers send it).
    pub fn from_name(name: &str) -> Option<Compression> {
        match name {
            "lz4" => Some(Compression::Lz4),
            "snappy" => Some(Compression::Snappy),
            _ => None,
        }
    }

    /// The STARTUP / SUPPORTED name of the algorithm.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Lz4 => "lz4",
            Compression::Snappy => "snappy",
        }
    }

    /// Compresses a frame body.
    pub fn compress(self, body: &[u8]) -> Vec<u8> {
        match self {
            Compression::Lz4 => {
                let block = lz4_flex::block::compress(body);
                let len = u32::try_from(body.len()).unwrap_or(u32::MAX);
                let mut out = Vec::with_capacity(4 + block.len());
                out.extend_from_slice(&len.to_be_bytes());
                out.extend_from_slice(&block);
                out
            }
            Compression::Snappy => snap::raw::Encoder::new()
                .compress_vec(body)
                // Only fails for inputs over ~4 GB, far above any frame; send it stored then.
                .unwrap_or_else(|_| stored_snappy(body)),
        }
    }

    /// Decompresses a frame body of at most `max_len` uncompressed bytes.
    ///
    /// # Errors
    ///
    /// [`FrameError::DecompressedTooLarge`] when the body declares more than `max_len` bytes
    /// (checked before allocating), [`FrameError::Decompression`] when it is malformed.
    pub fn decompress(self, body: &[u8], max_len: usize) -> Result<Vec<u8>, FrameError> {
        match self {
            Compression::Lz4 => decompress_lz4(body, max_len),
            Compression::Snappy => decompress_snappy(body, max_len),
        }
    }
}

fn decompress_lz4(body: &[u8], max_len: usize) -> Result<Vec<u8>, FrameError> {
    let malformed = |reason: String| FrameError::Decompression {
        algorithm: "lz4",
        reason,
    };
    let (prefix, block) = body
        .split_first_chunk::<4>()
        .ok_or_else(|| malformed("missing the 4-byte uncompressed length".into()))?;
    let declared = u32::from_be_bytes(*prefix);
    let declared_len = usize::try_from(declared).unwrap_or(usize::MAX);
    if declared_len > max_len {
        return Err(FrameError::DecompressedTooLarge {
            declared: u64::from(declared),
            max: max_len,
        });
    }
    // A block cannot expand more than this, so a larger claim is a lie; refuse it before
    // allocating the claimed size.
    if u64::from(declared) > (block.len() as u64).saturating_mul(LZ4_MAX_RATIO) + 16 {
        return Err(malformed(format!(
            "declared length {declared} is impossible for a {}-byte block",
            block.len()
        )));
    }
    let out = lz4_flex::block::decompress(block, declared_len)
        .map_err(|err| malformed(err.to_string()))?;
    if out.len() != declared_len {
        return Err(malformed(format!(
            "declared length {declared} but the block holds {} bytes",
            out.len()
        )));
    }
    Ok(out)
}

fn decompress_snappy(body: &[u8], max_len: usize) -> Result<Vec<u8>, FrameError> {
    let malformed = |err: snap::Error| FrameError::Decompression {
        algorithm: "snappy",
        reason: err.to_string(),
    };
    let declared = snap::raw::decompress_len(body).map_err(malformed)?;
    if declared > max_len {
        return Err(FrameError::DecompressedTooLarge {
            declared: declared as u64,
            max: max_len,
        });
    }
    snap::raw::Decoder::new()
        .decompress_vec(body)
        .map_err(malformed)
}

/// A snappy block holding `body` as literals, used only if the encoder refuses the input.
fn stored_snappy(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 16);
    // Uncompressed length as a little-endian base-128 varint.
    let mut len = body.len() as u64;
    loop {
        let byte = (len & 0x7F) as u8;
        len >>= 7;
        if len == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    }
    for chunk in body.chunks(1 << 16) {
        // Literal tag with a 2-byte length (`60 + 2 - 1 = 61` in the top six bits).
        let len = (chunk.len() - 1) as u16;
        out.push(61 << 2);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: usize = 1 << 20;

    fn sample() -> Vec<u8> {
        (0..5000u32).flat_map(|i| (i % 251).to_be_bytes()).collect()
    }

    #[test]
    fn names_round_trip() {
        for c in [Compression::Lz4, Compression::Snappy] {
            assert_eq!(Compression::from_name(c.name()), Some(c));
        }
        assert_eq!(Compression::from_name("zstd"), None);
    }

    #[test]
    fn both_algorithms_round_trip() {
        for c in [Compression::Lz4, Compression::Snappy] {
            for body in [Vec::new(), b"x".to_vec(), sample()] {
                let packed = c.compress(&body);
                assert_eq!(c.decompress(&packed, MAX).unwrap(), body, "{c:?}");
            }
        }
    }

    #[test]
    fn lz4_prefix_is_big_endian() {
        let packed = Compression::Lz4.compress(&[7u8; 300]);
        assert_eq!(&packed[..4], &[0, 0, 1, 44]);
    }

    #[test]
    fn oversized_declared_lengths_are_refused() {
        let mut lie = vec![0x7F, 0xFF, 0xFF, 0xFF];
        lie.extend_from_slice(&[0x10, b'a']);
        assert!(matches!(
            Compression::Lz4.decompress(&lie, MAX),
            Err(FrameError::DecompressedTooLarge {
                declared: 0x7FFF_FFFF,
                ..
            })
        ));
        assert!(matches!(
            Compression::Lz4.decompress(&[0, 0x0F, 0, 0, 0x10, b'a'], MAX),
            Err(FrameError::Decompression { .. })
        ));
        let snappy = Compression::Snappy.compress(&sample());
        assert!(matches!(
            Compression::Snappy.decompress(&snappy, 100),
            Err(FrameError::DecompressedTooLarge {
                declared: 20000,
                max: 100
            })
        ));
        // Snappy header claiming ~2 GB.
        assert!(Compression::Snappy
            .decompress(&[0xFF, 0xFF, 0xFF, 0xFF, 0x07], MAX)
            .is_err());
    }

    #[test]
    fn malformed_bodies_are_errors() {
        assert!(Compression::Lz4.decompress(&[0, 0], MAX).is_err());
        assert!(Compression::Lz4
            .decompress(&[0, 0, 0, 5, 0xF0], MAX)
            .is_err());
        assert!(Compression::Snappy
            .decompress(&[5, 0xFF, 0xFF], MAX)
            .is_err());
    }

    #[test]
    fn stored_snappy_is_valid() {
        let body = sample();
        let stored = stored_snappy(&body);
        assert_eq!(Compression::Snappy.decompress(&stored, MAX).unwrap(), body);
    }
}
