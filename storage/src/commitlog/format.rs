//! The bytes of a segment: its header and its records (`DESIGN.md`, "The commit log").
//!
//! A version 2 record has two checksums: one over its length and sequence number, one over
//! its body. A damaged body is skipped by its (checked) length and the records after it are
//! still found; a damaged length is skipped by searching for the next record whose two
//! checksums hold. Version 1 segments (one checksum over the body, which also covered the
//! length only implicitly) are still read, up to their first bad record.

use std::io;

/// The first seven bytes of every segment; the eighth is its version as an ASCII digit.
pub(super) const MAGIC_PREFIX: &[u8; 7] = b"CQLCLOG";
/// The segment and record layout this build writes.
pub(crate) const VERSION: u8 = 2;
/// A version 2 segment header: magic, version digit, segment id (u64), CRC32 of those 16.
pub(super) const SEGMENT_HEADER: usize = 20;
/// A version 2 record header: payload length (u32), sequence number (u64), CRC32 of those
/// 12 bytes, CRC32 of the sequence number and the payload.
pub(super) const RECORD_HEADER: usize = 20;
/// The largest record payload a reader accepts; a larger length is a torn or foreign record.
pub(super) const MAX_RECORD: usize = 1 << 30;

/// Version 1: the eight-byte magic alone, then records of `V1_RECORD_HEADER`.
const V1_SEGMENT_HEADER: usize = 8;
/// A version 1 record header: payload length (u32), CRC32 of the sequence number and the
/// payload, sequence number (u64).
const V1_RECORD_HEADER: usize = 16;

/// The header of segment `id`.
pub(super) fn segment_header(id: u64) -> [u8; SEGMENT_HEADER] {
    let mut header = [0u8; SEGMENT_HEADER];
    header[..7].copy_from_slice(MAGIC_PREFIX);
    header[7] = b'0' + VERSION;
    header[8..16].copy_from_slice(&id.to_be_bytes());
    let crc = crc32fast::hash(&header[..16]);
    header[16..].copy_from_slice(&crc.to_be_bytes());
    header
}

/// A record's header and its payload's request count, for a payload of `payload_len`
/// bytes (the count included) made of the count and `requests`.
pub(super) fn record_header(
    seq: u64,
    payload_len: usize,
    requests: &[&[u8]],
) -> [u8; RECORD_HEADER + 4] {
    let count = (requests.len() as u32).to_be_bytes();
    let mut header = [0u8; RECORD_HEADER + 4];
    header[..4].copy_from_slice(&(payload_len as u32).to_be_bytes());
    header[4..12].copy_from_slice(&seq.to_be_bytes());
    let head_crc = crc32fast::hash(&header[..12]);
    header[12..16].copy_from_slice(&head_crc.to_be_bytes());
    let mut body = crc32fast::Hasher::new();
    body.update(&seq.to_be_bytes());
    body.update(&count);
    for request in requests {
        body.update(request);
    }
    header[16..20].copy_from_slice(&body.finalize().to_be_bytes());
    header[20..].copy_from_slice(&count);
    header
}

/// The bytes a walk reads: a segment in memory, or a file read a window at a time
/// (`super::segment_file`), so that replaying a large log takes little memory.
pub(super) trait Source {
    /// The `n` bytes at `at`, or `None` when they run past the end.
    ///
    /// # Errors
    /// I/O errors reading a file.
    fn get(&mut self, at: usize, n: usize) -> io::Result<Option<&[u8]>>;
    /// The length in bytes.
    fn len(&self) -> usize;
}

impl Source for &[u8] {
    fn get(&mut self, at: usize, n: usize) -> io::Result<Option<&[u8]>> {
        Ok(at.checked_add(n).and_then(|end| self[..].get(at..end)))
    }

    fn len(&self) -> usize {
        <[u8]>::len(self)
    }
}

/// What a segment's first bytes say.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Head {
    /// Version 1; records start at the offset.
    V1(usize),
    /// Version 2; records start at the offset.
    V2(usize),
    /// A version this build does not know.
    Newer(u8),
    /// Shorter than its header and a prefix of it, or only zeros: the segment was being
    /// created when the process or the machine stopped, and holds no record.
    Unwritten,
    /// Not a segment header, or one whose checksum or id does not hold.
    Damaged(&'static str),
}

/// Reads the header of segment `id`.
///
/// # Errors
/// I/O errors reading a file.
pub(super) fn read_head(source: &mut impl Source, id: u64) -> io::Result<Head> {
    let len = source.len();
    let prefix = source
        .get(0, len.min(SEGMENT_HEADER))?
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    let cut_short = len < SEGMENT_HEADER && segment_header(id).starts_with(&prefix);
    if cut_short || all_zeros(source)? {
        return Ok(Head::Unwritten);
    }
    if prefix.len() < V1_SEGMENT_HEADER || !prefix.starts_with(MAGIC_PREFIX) {
        return Ok(Head::Damaged("no commit log header"));
    }
    Ok(match prefix[7] {
        b'1' => Head::V1(V1_SEGMENT_HEADER),
        b'2' => match prefix.get(..SEGMENT_HEADER) {
            None => Head::Damaged("a header cut short"),
            Some(head) if crc32fast::hash(&head[..16]).to_be_bytes() != head[16..] => {
                Head::Damaged("a header that fails its checksum")
            }
            Some(head) if head[8..16] != id.to_be_bytes() => {
                Head::Damaged("a header naming another segment id")
            }
            Some(_) => Head::V2(SEGMENT_HEADER),
        },
        digit @ b'3'..=b'9' => Head::Newer(digit - b'0'),
        _ => Head::Damaged("an unknown version mark"),
    })
}

/// Whether every byte of the source is zero (read a megabyte at a time).
fn all_zeros(source: &mut impl Source) -> io::Result<bool> {
    const STEP: usize = 1 << 20;
    let len = source.len();
    let mut at = 0;
    while at < len {
        let n = STEP.min(len - at);
        match source.get(at, n)? {
            Some(bytes) if bytes.iter().all(|&b| b == 0) => at += n,
            _ => return Ok(false),
        }
    }
    Ok(true)
}

/// One thing found while walking a segment's records.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Item<'a> {
    /// A record whose checksums hold.
    Record {
        offset: usize,
        seq: u64,
        payload: &'a [u8],
    },
    /// A record whose header holds and whose body fails its checksum: skipped by its length.
    BadBody { offset: usize, seq: u64 },
    /// A header that fails its checksum; the walk goes on at the next record found whole,
    /// if any.
    BadHeader { offset: usize },
    /// The bytes end inside a record: a write cut short.
    Torn { offset: usize },
}

/// Hands `each` every record and every damaged or torn place of a segment's records, in
/// file order.
///
/// # Errors
/// I/O errors reading the source, and whatever `each` returns.
pub(super) fn walk<S: Source, E: From<io::Error>>(
    head: &Head,
    source: &mut S,
    each: &mut dyn FnMut(Item<'_>) -> Result<(), E>,
) -> Result<(), E> {
    match *head {
        Head::V1(start) => walk_v1(source, start, each),
        Head::V2(start) => walk_v2(source, start, each),
        _ => Ok(()),
    }
}

fn walk_v2<S: Source, E: From<io::Error>>(
    source: &mut S,
    start: usize,
    each: &mut dyn FnMut(Item<'_>) -> Result<(), E>,
) -> Result<(), E> {
    let mut at = start;
    while at < source.len() {
        match read_v2(source, at)? {
            V2::Whole { seq, len } => {
                let payload = source
                    .get(at + RECORD_HEADER, len)?
                    .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
                each(Item::Record {
                    offset: at,
                    seq,
                    payload,
                })?;
                at += RECORD_HEADER + len;
            }
            V2::BadBody { seq, len } => {
                each(Item::BadBody { offset: at, seq })?;
                at += RECORD_HEADER + len;
            }
            V2::Short => return each(Item::Torn { offset: at }),
            V2::BadHeader => {
                each(Item::BadHeader { offset: at })?;
                match next_whole_record(source, at + 1)? {
                    Some(next) => at = next,
                    None => return Ok(()),
                }
            }
        }
    }
    Ok(())
}

/// A version 2 record read at some offset.
enum V2 {
    Whole {
        seq: u64,
        len: usize,
    },
    BadBody {
        seq: u64,
        len: usize,
    },
    BadHeader,
    /// The header or the payload runs past the end of the bytes.
    Short,
}

fn read_v2(source: &mut impl Source, at: usize) -> io::Result<V2> {
    let Some(bytes) = source.get(at, RECORD_HEADER)? else {
        return Ok(V2::Short);
    };
    let mut header = [0u8; RECORD_HEADER];
    header.copy_from_slice(bytes);
    if crc32fast::hash(&header[..12]).to_be_bytes() != header[12..16] {
        return Ok(V2::BadHeader);
    }
    let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
    let mut seq_bytes = [0u8; 8];
    seq_bytes.copy_from_slice(&header[4..12]);
    let seq = u64::from_be_bytes(seq_bytes);
    if len > MAX_RECORD {
        return Ok(V2::BadHeader);
    }
    let Some(payload) = source.get(at + RECORD_HEADER, len)? else {
        return Ok(V2::Short);
    };
    let mut body = crc32fast::Hasher::new();
    body.update(&seq_bytes);
    body.update(payload);
    Ok(if body.finalize().to_be_bytes() == header[16..20] {
        V2::Whole { seq, len }
    } else {
        V2::BadBody { seq, len }
    })
}

/// The offset of the first record at or after `from` whose header and body checksums both
/// hold (a damaged length hides where the next record starts).
fn next_whole_record(source: &mut impl Source, from: usize) -> io::Result<Option<usize>> {
    for at in from..source.len().saturating_sub(RECORD_HEADER - 1) {
        if matches!(read_v2(source, at)?, V2::Whole { .. }) {
            return Ok(Some(at));
        }
    }
    Ok(None)
}

/// Version 1 records, up to the first that is cut short or fails its checksum: that layout
/// cannot tell a damaged length from a torn one, so nothing after it can be found.
fn walk_v1<S: Source, E: From<io::Error>>(
    source: &mut S,
    start: usize,
    each: &mut dyn FnMut(Item<'_>) -> Result<(), E>,
) -> Result<(), E> {
    let mut at = start;
    while at < source.len() {
        let Some(bytes) = source.get(at, V1_RECORD_HEADER)? else {
            return each(Item::Torn { offset: at });
        };
        let mut header = [0u8; V1_RECORD_HEADER];
        header.copy_from_slice(bytes);
        let len = u32::from_be_bytes([header[0], header[1], header[2], header[3]]) as usize;
        let mut seq_bytes = [0u8; 8];
        seq_bytes.copy_from_slice(&header[8..16]);
        let payload = match source.get(at + V1_RECORD_HEADER, len)? {
            Some(payload) if len <= MAX_RECORD => payload,
            _ => return each(Item::Torn { offset: at }),
        };
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&seq_bytes);
        hasher.update(payload);
        if hasher.finalize().to_be_bytes() != header[4..8] {
            return each(Item::BadHeader { offset: at });
        }
        each(Item::Record {
            offset: at,
            seq: u64::from_be_bytes(seq_bytes),
            payload,
        })?;
        at += V1_RECORD_HEADER + len;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version 2 segment `id` holding records `seqs`, each with a payload of its own.
    fn segment(id: u64, seqs: &[u64]) -> Vec<u8> {
        let mut bytes = segment_header(id).to_vec();
        for &seq in seqs {
            let request = vec![seq as u8; 10 + seq as usize];
            let header = record_header(seq, 4 + request.len(), &[&request]);
            bytes.extend_from_slice(&header);
            bytes.extend_from_slice(&request);
        }
        bytes
    }

    fn head(bytes: &[u8], id: u64) -> Head {
        read_head(&mut &bytes[..], id).unwrap()
    }

    /// What a walk of `bytes` as segment 7 finds: a label, an offset and (for a record) the
    /// payload of each item.
    fn walked(bytes: &[u8]) -> Vec<(String, usize, Vec<u8>)> {
        let mut found = Vec::new();
        let head = head(bytes, 7);
        walk::<_, io::Error>(&head, &mut &bytes[..], &mut |item| {
            found.push(match item {
                Item::Record {
                    offset,
                    seq,
                    payload,
                } => (seq.to_string(), offset, payload.to_vec()),
                Item::BadBody { offset, seq } => (format!("body{seq}"), offset, Vec::new()),
                Item::BadHeader { offset } => ("header".into(), offset, Vec::new()),
                Item::Torn { offset } => ("torn".into(), offset, Vec::new()),
            });
            Ok(())
        })
        .unwrap();
        found
    }

    fn labels(bytes: &[u8]) -> Vec<String> {
        walked(bytes)
            .into_iter()
            .map(|(label, _, _)| label)
            .collect()
    }

    fn offsets(bytes: &[u8]) -> Vec<usize> {
        walked(bytes)
            .into_iter()
            .map(|(_, offset, _)| offset)
            .collect()
    }

    #[test]
    fn a_whole_segment_reads_back() {
        let bytes = segment(7, &[1, 2, 3]);
        assert_eq!(head(&bytes, 7), Head::V2(SEGMENT_HEADER));
        assert_eq!(labels(&bytes), ["1", "2", "3"]);
        let payload = &walked(&bytes)[1].2;
        assert_eq!(&payload[..4], &1u32.to_be_bytes());
        assert_eq!(&payload[4..], &[2u8; 12]);
    }

    #[test]
    fn a_damaged_body_is_skipped_and_the_records_after_it_found() {
        let mut bytes = segment(7, &[1, 2, 3]);
        let second = offsets(&bytes)[1];
        bytes[second + RECORD_HEADER + 6] ^= 0x40;
        assert_eq!(labels(&bytes), ["1", "body2", "3"]);
    }

    #[test]
    fn a_damaged_length_is_stepped_over_to_the_next_whole_record() {
        let mut bytes = segment(7, &[1, 2, 3, 4]);
        let second = offsets(&bytes)[1];
        bytes[second + 1] ^= 0x01;
        assert_eq!(labels(&bytes), ["1", "header", "3", "4"]);
    }

    #[test]
    fn a_cut_short_tail_is_torn() {
        let bytes = segment(7, &[1, 2, 3]);
        for cut in [bytes.len() - 1, bytes.len() - 20, offsets(&bytes)[2] + 3] {
            assert_eq!(labels(&bytes[..cut]), ["1", "2", "torn"], "cut at {cut}");
        }
    }

    #[test]
    fn zeros_after_the_records_are_a_damaged_tail_with_nothing_after_it() {
        let mut bytes = segment(7, &[1, 2]);
        bytes.extend_from_slice(&[0u8; 100]);
        assert_eq!(labels(&bytes), ["1", "2", "header"]);
    }

    #[test]
    fn headers_are_recognised_by_version() {
        let bytes = segment(7, &[1]);
        assert_eq!(
            head(&bytes, 8),
            Head::Damaged("a header naming another segment id")
        );
        assert_eq!(head(&bytes[..5], 7), Head::Unwritten);
        assert_eq!(head(&[], 7), Head::Unwritten);
        assert_eq!(head(&[0u8; 64], 7), Head::Unwritten);
        let mut newer = bytes.clone();
        newer[7] = b'3';
        assert_eq!(head(&newer, 7), Head::Newer(3));
        let mut damaged = bytes.clone();
        damaged[10] ^= 1;
        assert_eq!(
            head(&damaged, 7),
            Head::Damaged("a header that fails its checksum")
        );
        assert_eq!(head(b"CQLCLOG1", 7), Head::V1(8));
        assert!(matches!(head(b"garbage!garbage!", 7), Head::Damaged(_)));
    }

    /// A segment as the previous release wrote it: version 1 records.
    fn v1_segment(seqs: &[u64]) -> Vec<u8> {
        let mut bytes = b"CQLCLOG1".to_vec();
        for &seq in seqs {
            let payload = [0u8, 0, 0, 1, seq as u8];
            let mut hasher = crc32fast::Hasher::new();
            hasher.update(&seq.to_be_bytes());
            hasher.update(&payload);
            bytes.extend_from_slice(&(payload.len() as u32).to_be_bytes());
            bytes.extend_from_slice(&hasher.finalize().to_be_bytes());
            bytes.extend_from_slice(&seq.to_be_bytes());
            bytes.extend_from_slice(&payload);
        }
        bytes
    }

    #[test]
    fn version_1_segments_read_up_to_their_first_bad_record() {
        let bytes = v1_segment(&[1, 2, 3]);
        assert_eq!(head(&bytes, 7), Head::V1(8));
        assert_eq!(labels(&bytes), ["1", "2", "3"]);
        let mut damaged = bytes.clone();
        damaged[8 + 21 + 18] ^= 1;
        assert_eq!(labels(&damaged), ["1", "header"]);
        assert_eq!(labels(&bytes[..bytes.len() - 2]), ["1", "2", "torn"]);
    }
}
