//! A run's blocks: a few kilobytes of consecutive entries, each one redb value, sized so that
//! redb lays one block per 4 KiB leaf page with little left over.
//!
//! ```text
//! block   := codec:u8 (0 raw, 1 lz4) crc32:u32 raw_len:u32 payload
//!            (crc32 over codec, raw_len and payload)
//! raw     := count:u32 offset:u32*count entry*     (offsets from the first entry)
//! entry   := key_len:u32 key kind:u8 (1 row, 0 deleted) [value_len:u32 value]
//! ```
//!
//! Big-endian. `payload` is `raw`, or its lz4 block compression (`lz4_flex`) when that saves
//! an eighth or more.

use bytes::Bytes;

use crate::error::StorageError;

/// The largest stored block (codec header included) that still fits, with its key and redb's
/// leaf header, in one 4 KiB page.
pub(crate) const BLOCK_CAP: usize = 3968;

/// Bytes before the payload.
const HEADER: usize = 9;

const CODEC_RAW: u8 = 0;
const CODEC_LZ4: u8 = 1;

/// Entries of one block being built, in key order.
#[derive(Default)]
pub(crate) struct BlockBuilder {
    /// Each entry's offset in `entries`.
    offsets: Vec<u32>,
    entries: Vec<u8>,
}

impl BlockBuilder {
    /// The bytes [`BlockBuilder::add`] appends for an entry: the key's length, the key,
    /// whether a value follows, and the value with its length.
    pub(crate) fn entry_len(key: &[u8], value: Option<&[u8]>) -> usize {
        4 + key.len() + 1 + value.map_or(0, |v| 4 + v.len())
    }

    /// Appends an entry; `None` records a deletion.
    pub(crate) fn add(&mut self, key: &[u8], value: Option<&[u8]>) {
        self.offsets.push(self.entries.len() as u32);
        self.entries
            .extend_from_slice(&(key.len() as u32).to_be_bytes());
        self.entries.extend_from_slice(key);
        match value {
            Some(value) => {
                self.entries.push(1);
                self.entries
                    .extend_from_slice(&(value.len() as u32).to_be_bytes());
                self.entries.extend_from_slice(value);
            }
            None => self.entries.push(0),
        }
    }

    /// Entries added.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Whether none was added.
    pub(crate) fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// The raw form's size.
    pub(crate) fn raw_len(&self) -> usize {
        4 + 4 * self.offsets.len() + self.entries.len()
    }

    /// The key of entry `i`.
    fn key(&self, i: usize) -> &[u8] {
        let at = self.offsets[i] as usize;
        let len = read_u32(&self.entries, at).unwrap_or_default() as usize;
        &self.entries[at + 4..at + 4 + len]
    }

    /// The stored form of the first `n` entries (compressed if `try_lz4` and that pays), and
    /// the entries after them as a new builder.
    fn split(&self, n: usize, try_lz4: bool) -> (Vec<u8>, BlockBuilder) {
        let end = self.end(n);
        let mut raw = Vec::with_capacity(4 + 4 * n + end);
        raw.extend_from_slice(&(n as u32).to_be_bytes());
        for offset in &self.offsets[..n] {
            raw.extend_from_slice(&offset.to_be_bytes());
        }
        raw.extend_from_slice(&self.entries[..end]);
        let rest = BlockBuilder {
            offsets: self.offsets[n..].iter().map(|o| o - end as u32).collect(),
            entries: self.entries[end..].to_vec(),
        };
        let alone = n == 1 && raw.len() > BLOCK_CAP;
        (seal(&raw, try_lz4 && !alone), rest)
    }

    /// Where entry `n` begins in `entries` (their end if `n` is the count).
    fn end(&self, n: usize) -> usize {
        self.offsets
            .get(n)
            .map_or(self.entries.len(), |&o| o as usize)
    }

    /// Whether a raw block of `raw_len` bytes (its [`BlockBuilder::raw_len`]) fits
    /// [`BLOCK_CAP`] once stored.
    pub(crate) fn fits_raw(raw_len: usize) -> bool {
        HEADER + raw_len <= BLOCK_CAP
    }

    /// The most entries (at least one) whose block fits [`BLOCK_CAP`] stored raw.
    fn raw_fit(&self) -> usize {
        let fits = |n: usize| BlockBuilder::fits_raw(4 + 4 * n + self.end(n));
        let (mut low, mut high) = (1, self.len());
        while low < high {
            let mid = (low + high).div_ceil(2);
            if fits(mid) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        low
    }

    /// Cuts the longest prefix (at least one entry) whose stored form fits [`BLOCK_CAP`]:
    /// its last key, its stored bytes, and the entries left over. With `try_lz4` the block is
    /// compressed where that pays; once it does not, the prefix is sized for the raw form
    /// without compressing again.
    pub(crate) fn cut(self, try_lz4: bool) -> (Vec<u8>, Vec<u8>, BlockBuilder) {
        let mut n = self.len();
        let mut try_lz4 = try_lz4;
        loop {
            if !try_lz4 {
                n = n.min(self.raw_fit());
            }
            let (block, rest) = self.split(n, try_lz4);
            if block.len() <= BLOCK_CAP || n == 1 {
                let last = self.key(n - 1).to_vec();
                return (last, block, rest);
            }
            if !is_compressed(&block) {
                try_lz4 = false;
                continue;
            }
            // Shrink in proportion to the overshoot, by at least one entry.
            let scaled = n * BLOCK_CAP / block.len();
            n = scaled.clamp(1, n - 1);
        }
    }
}

#[cfg(test)]
thread_local! {
    /// lz4 compressions this thread ran (tests count the attempts per block).
    pub(crate) static COMPRESSIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Whether a stored block's payload is compressed.
pub(crate) fn is_compressed(stored: &[u8]) -> bool {
    stored.first() == Some(&CODEC_LZ4)
}

/// The stored form of a raw block: compressed when `try_lz4` and that pays. A block of one
/// row larger than a block is never compressed (its caller passes `false`): compressing a row
/// of megabytes costs the flusher (a low-priority thread) and every read of it far more than
/// the pages it saves.
fn seal(raw: &[u8], try_lz4: bool) -> Vec<u8> {
    let compressed = if try_lz4 {
        #[cfg(test)]
        COMPRESSIONS.with(|c| c.set(c.get() + 1));
        lz4_flex::block::compress(raw)
    } else {
        Vec::new()
    };
    let (codec, payload) =
        if !compressed.is_empty() && compressed.len() + raw.len() / 8 <= raw.len() {
            (CODEC_LZ4, compressed.as_slice())
        } else {
            (CODEC_RAW, raw)
        };
    let raw_len = (raw.len() as u32).to_be_bytes();
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.push(codec);
    out.extend_from_slice(&checksum(codec, raw_len, payload).to_be_bytes());
    out.extend_from_slice(&raw_len);
    out.extend_from_slice(payload);
    out
}

/// The CRC32 of a block: over its codec, its raw length and its payload, so that no damaged
/// header byte is trusted (a raw length is an allocation size).
fn checksum(codec: u8, raw_len: [u8; 4], payload: &[u8]) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    crc.update(&[codec]);
    crc.update(&raw_len);
    crc.update(payload);
    crc.finalize()
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let word = bytes.get(at..at + 4)?;
    Some(u32::from_be_bytes(word.try_into().ok()?))
}

fn corrupt(why: &str) -> StorageError {
    StorageError::corrupt(format!("run block: {why}"))
}

/// A block read back: its raw form, shared by the values it hands out.
#[derive(Clone)]
pub(crate) struct Block {
    raw: Bytes,
    count: usize,
}

/// One entry of a block: its key and value (`None`: a deletion).
pub(crate) type Entry<'a> = (&'a [u8], Option<Bytes>);

/// A raw block's entries, read where they lie: in a decoded [`Block`], or in a stored raw
/// block that a point read searches in place.
#[derive(Clone, Copy)]
struct Entries<'a> {
    raw: &'a [u8],
    count: usize,
}

/// Where entry `i`'s value lies in the raw block (`None`: a deletion).
type ValueAt = Option<std::ops::Range<usize>>;

impl<'a> Entries<'a> {
    /// The entries of a raw block, its count and length checked.
    fn new(raw: &'a [u8]) -> Result<Entries<'a>, StorageError> {
        let count = read_u32(raw, 0).ok_or_else(|| corrupt("count"))? as usize;
        if 4 + 4 * count > raw.len() || count == 0 {
            return Err(corrupt("length"));
        }
        Ok(Entries { raw, count })
    }

    /// The start of entry `i` in `raw`.
    fn start(self, i: usize) -> Result<usize, StorageError> {
        let offset = read_u32(self.raw, 4 + 4 * i).ok_or_else(|| corrupt("offset"))?;
        Ok(4 + 4 * self.count + offset as usize)
    }

    /// The key of entry `i`.
    fn key(self, i: usize) -> Result<&'a [u8], StorageError> {
        let at = self.start(i)?;
        let len = read_u32(self.raw, at).ok_or_else(|| corrupt("key"))? as usize;
        self.raw
            .get(at + 4..at + 4 + len)
            .ok_or_else(|| corrupt("key"))
    }

    /// Entry `i`: its key, and where its value lies.
    fn entry(self, i: usize) -> Result<(&'a [u8], ValueAt), StorageError> {
        let key = self.key(i)?;
        let at = self.start(i)? + 4 + key.len();
        match self.raw.get(at) {
            Some(0) => Ok((key, None)),
            Some(1) => {
                let len = read_u32(self.raw, at + 1).ok_or_else(|| corrupt("value"))? as usize;
                let start = at + 5;
                if start + len > self.raw.len() {
                    return Err(corrupt("value"));
                }
                Ok((key, Some(start..start + len)))
            }
            _ => Err(corrupt("entry kind")),
        }
    }

    /// The index of `key`, or where it would go.
    fn search(self, key: &[u8]) -> Result<Result<usize, usize>, StorageError> {
        let (mut low, mut high) = (0, self.count);
        while low < high {
            let mid = low + (high - low) / 2;
            match self.key(mid)?.cmp(key) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Ok(Ok(mid)),
            }
        }
        Ok(Err(low))
    }

    /// Where the value under `key` lies: `None` when the block has no entry for it,
    /// `Some(None)` for a deletion.
    fn find(self, key: &[u8]) -> Result<Option<ValueAt>, StorageError> {
        match self.search(key)? {
            Ok(i) => Ok(Some(self.entry(i)?.1)),
            Err(_) => Ok(None),
        }
    }
}

/// A stored block's header checked against its payload: its codec, raw length and payload.
fn checked(stored: &[u8]) -> Result<(u8, usize, &[u8]), StorageError> {
    let (header, payload) = stored
        .split_at_checked(HEADER)
        .ok_or_else(|| corrupt("short"))?;
    let crc = read_u32(header, 1).unwrap_or_default();
    let raw_len_bytes: [u8; 4] = header[5..9].try_into().unwrap_or_default();
    if checksum(header[0], raw_len_bytes, payload) != crc {
        return Err(corrupt("checksum mismatch"));
    }
    Ok((
        header[0],
        u32::from_be_bytes(raw_len_bytes) as usize,
        payload,
    ))
}

/// The entry under `key` in a stored block, as [`Block::get`] answers, without decoding a
/// raw block: it is checked and searched where it lies and only the value is copied (a point
/// read of a block not read before then costs no copy of the block). A compressed block is
/// decoded.
///
/// # Errors
/// [`StorageError::Corrupt`] for a damaged or malformed block.
pub(crate) fn get_stored(stored: &[u8], key: &[u8]) -> Result<Option<Option<Bytes>>, StorageError> {
    let (codec, raw_len, payload) = checked(stored)?;
    if codec != CODEC_RAW {
        return Block::from_checked(codec, raw_len, payload)?.get(key);
    }
    if payload.len() != raw_len {
        return Err(corrupt("length"));
    }
    let found = Entries::new(payload)?.find(key)?;
    Ok(found.map(|value| value.map(|at| Bytes::copy_from_slice(&payload[at]))))
}

impl Block {
    /// Checks and decodes a stored block.
    ///
    /// # Errors
    /// [`StorageError::Corrupt`] for a checksum that does not match or a malformed block.
    pub(crate) fn decode(stored: &[u8]) -> Result<Block, StorageError> {
        let (codec, raw_len, payload) = checked(stored)?;
        Block::from_checked(codec, raw_len, payload)
    }

    /// Decodes a block whose header [`checked`] already vouched for.
    fn from_checked(codec: u8, raw_len: usize, payload: &[u8]) -> Result<Block, StorageError> {
        let raw = match codec {
            CODEC_RAW => Bytes::copy_from_slice(payload),
            CODEC_LZ4 => lz4_flex::block::decompress(payload, raw_len)
                .map_err(|_| corrupt("lz4"))?
                .into(),
            _ => return Err(corrupt("unknown codec")),
        };
        if raw.len() != raw_len {
            return Err(corrupt("length"));
        }
        // Entries are checked as they are read (`entry`): the CRC already vouches for the bytes.
        let count = Entries::new(&raw)?.count;
        Ok(Block { raw, count })
    }

    fn entries(&self) -> Entries<'_> {
        Entries {
            raw: &self.raw,
            count: self.count,
        }
    }

    /// Entries in the block.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// The last entry's key: the block's key in its run.
    ///
    /// # Errors
    /// [`StorageError::Corrupt`] for a malformed entry.
    pub(crate) fn last_key(&self) -> Result<&[u8], StorageError> {
        self.entries().key(self.count - 1)
    }

    /// Bytes of memory the decoded block holds.
    pub(crate) fn memory(&self) -> usize {
        self.raw.len() + std::mem::size_of::<Block>()
    }

    /// Entry `i`: its key and value.
    ///
    /// # Errors
    /// [`StorageError::Corrupt`] for a malformed entry.
    pub(crate) fn entry(&self, i: usize) -> Result<Entry<'_>, StorageError> {
        let (key, value) = self.entries().entry(i)?;
        Ok((key, value.map(|at| self.raw.slice(at))))
    }

    /// The index of `key`, or where it would go.
    ///
    /// # Errors
    /// [`StorageError::Corrupt`] for a malformed entry.
    #[cfg(test)]
    pub(crate) fn search(&self, key: &[u8]) -> Result<Result<usize, usize>, StorageError> {
        self.entries().search(key)
    }

    /// The entry under `key`: `None` when the block has none, `Some(None)` for a deletion.
    ///
    /// # Errors
    /// [`StorageError::Corrupt`] for a malformed entry.
    pub(crate) fn get(&self, key: &[u8]) -> Result<Option<Option<Bytes>>, StorageError> {
        let found = self.entries().find(key)?;
        Ok(found.map(|value| value.map(|at| self.raw.slice(at))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u32) -> Vec<u8> {
        let mut k = b"key-".to_vec();
        k.extend_from_slice(&i.to_be_bytes());
        k
    }

    /// Builds blocks from `n` entries (every seventh a deletion) the way a run does.
    fn blocks(n: u32, value: impl Fn(u32) -> Vec<u8>) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut out = Vec::new();
        let mut builder = BlockBuilder::default();
        for i in 0..n {
            let v = value(i);
            builder.add(&key(i), (!i.is_multiple_of(7)).then_some(v.as_slice()));
            while builder.raw_len() >= 2 * BLOCK_CAP {
                let (last, block, rest) = builder.cut(true);
                out.push((last, block));
                builder = rest;
            }
        }
        while !builder.is_empty() {
            let (last, block, rest) = builder.cut(true);
            out.push((last, block));
            builder = rest;
        }
        out
    }

    fn check(blocks: &[(Vec<u8>, Vec<u8>)], n: u32, value: impl Fn(u32) -> Vec<u8>) {
        let mut i = 0u32;
        for (last, stored) in blocks {
            let block = Block::decode(stored).unwrap();
            for j in 0..block.len() {
                let (k, v) = block.entry(j).unwrap();
                assert_eq!(k, key(i).as_slice());
                assert_eq!(
                    v.as_deref(),
                    (!i.is_multiple_of(7)).then(|| value(i)).as_deref()
                );
                assert_eq!(
                    block.get(&key(i)).unwrap().map(|v| v.is_some()),
                    Some(!i.is_multiple_of(7))
                );
                assert_eq!(
                    get_stored(stored, &key(i)).unwrap(),
                    block.get(&key(i)).unwrap()
                );
                i += 1;
            }
            assert_eq!(last.as_slice(), key(i - 1).as_slice());
        }
        assert_eq!(i, n);
    }

    #[test]
    fn compressible_entries_are_compressed() {
        let value = |i: u32| vec![(i % 3) as u8; 200];
        let built = blocks(5000, value);
        check(&built, 5000, value);
        assert!(built
            .iter()
            .all(|(_, b)| b.len() <= BLOCK_CAP && b[0] == CODEC_LZ4));
    }

    #[test]
    fn incompressible_entries_stay_raw() {
        let value = |i: u32| (0..64).map(|j| (fmix(i * 64 + j) & 0xff) as u8).collect();
        let built = blocks(2000, value);
        check(&built, 2000, value);
        assert!(built
            .iter()
            .all(|(_, b)| b[0] == CODEC_RAW && b.len() <= BLOCK_CAP));
    }

    /// Without compression a cut takes the most entries whose raw block fits, so a block of
    /// small rows is not left a row short; compressible rows stay raw when not tried.
    #[test]
    fn a_raw_cut_fills_its_block() {
        for size in [1, 30, 200, 3000] {
            let mut builder = BlockBuilder::default();
            for i in 0..400 {
                builder.add(&key(i), Some(&vec![7; size]));
            }
            let (_, stored, rest) = builder.cut(false);
            assert!(!is_compressed(&stored));
            assert!(stored.len() <= BLOCK_CAP, "rows of {size} bytes");
            let one_more = stored.len() + 4 + 4 + key(0).len() + 1 + 4 + size;
            assert!(
                one_more > BLOCK_CAP,
                "rows of {size} bytes: room for one more"
            );
            assert_eq!(rest.len() + Block::decode(&stored).unwrap().len(), 400);
        }
    }

    #[test]
    fn an_entry_larger_than_a_block_has_one_of_its_own_stored_raw() {
        let value = |i: u32| vec![i as u8; if i == 3 { 20_000 } else { 10 }];
        let built = blocks(10, value);
        check(&built, 10, value);
        let mut alone = BlockBuilder::default();
        alone.add(b"k", Some(&[0; 20_000]));
        let (_, stored, _) = alone.cut(true);
        assert_eq!(stored[0], CODEC_RAW, "a large row is not compressed");
    }

    #[test]
    fn keys_between_entries_are_not_found() {
        let built = blocks(100, |_| b"v".to_vec());
        let block = Block::decode(&built[0].1).unwrap();
        assert_eq!(block.get(b"key-").unwrap(), None);
        assert_eq!(block.get(b"kez").unwrap(), None);
        assert_eq!(get_stored(&built[0].1, b"kez").unwrap(), None);
        assert_eq!(get_stored(&built[0].1, b"a").unwrap(), None);
        assert_eq!(block.search(b"a").unwrap(), Err(0));
    }

    #[test]
    fn a_damaged_header_is_refused() {
        let built = blocks(50, |i| vec![i as u8; 30]);
        for at in [0, 1, 5, 8] {
            let mut stored = built[0].1.clone();
            stored[at] ^= 0x40;
            assert!(
                matches!(Block::decode(&stored), Err(StorageError::Corrupt { .. })),
                "byte {at}"
            );
        }
    }

    #[test]
    fn a_damaged_block_is_refused() {
        let built = blocks(50, |i| vec![i as u8; 30]);
        let mut stored = built[0].1.clone();
        let last = stored.len() - 1;
        stored[last] ^= 1;
        assert!(matches!(
            Block::decode(&stored),
            Err(StorageError::Corrupt { .. })
        ));
        assert!(matches!(
            get_stored(&stored, &key(0)),
            Err(StorageError::Corrupt { .. })
        ));
        assert!(Block::decode(&stored[..5]).is_err());
    }

    fn fmix(x: u32) -> u32 {
        crate::hash::fast::fmix64(u64::from(x)) as u32
    }
}
