//! Where the writer puts the rows it encodes (or copies, already encoded, from their
//! commit-log requests) for the memtable, and each connection thread the commit-log requests
//! of its writes: small ones side by side in shared chunks, each a [`Bytes`] slice of its
//! chunk.
//!
//! One allocation per row cost more than the row: `encode` reserves an upper bound (a
//! `standard1` row of 269 bytes got a 448-byte block), and the first clone of a `Bytes` made
//! from a `Vec` allocates its reference count apart from the data (32 bytes more, on another
//! cache line). In a chunk, a row takes its own bytes; the chunk's one count is shared by its
//! few hundred rows, so a point read's clone finds it in cache instead of missing on it; and a
//! write allocates nothing for its row.
//!
//! A chunk lives until its last slice is dropped. Rows stay until their memtable layer goes
//! (every version of a layer is kept until it is flushed), so a chunk of the writer's holds
//! rows of one layer or, at a layer's end, of two: the memory pinned beyond the rows is at most
//! one chunk. Requests live until their group is applied; the memtable copies their rows and
//! keeps no slice of them, so a chunk of requests never pins bytes the memtable does not count
//! (a slice of a request kept the whole request, and every other request of its chunk, alive).

use bytes::{Bytes, BytesMut};

use crate::encoding::row;
use crate::encoding::row::StoredRow;

/// Bytes of a chunk: a jemalloc size class of its own (a multiple of the page).
const CHUNK: usize = 32 * 1024;

/// Rows that may be longer than this (by `row::encoded_len`'s bound) get an allocation of
/// their own: a chunk is never mostly one row, and a large row does not pin a chunk of small
/// ones.
const LARGE_ROW: usize = CHUNK / 8;

/// The writer's current chunk and the buffer rows are encoded in first.
#[derive(Default)]
pub(crate) struct RowArena {
    /// Room for the next rows; the rows already written in it were split off.
    chunk: BytesMut,
    /// Each small row is encoded here, then copied to its place (its exact length is known
    /// then); it never holds much more than [`LARGE_ROW`] bytes (at most twice, as a `Vec`
    /// grows).
    scratch: Vec<u8>,
}

impl RowArena {
    /// `row`'s encoding (`row::encode`), in the current chunk when it is small.
    pub(crate) fn encode(&mut self, row: &StoredRow) -> Bytes {
        if row::encoded_len(row) > LARGE_ROW {
            // Straight into a buffer of its own: the scratch buffer never grows past a small
            // row's bound, so one large row does not stay with the writer.
            return Bytes::from(row::encode(row));
        }
        self.scratch.clear();
        row::encode_into(row, &mut self.scratch);
        place(&mut self.chunk, &self.scratch)
    }

    /// A copy of `bytes` (a row encoded already), in the current chunk when it is small.
    pub(crate) fn copy(&mut self, bytes: &[u8]) -> Bytes {
        if bytes.len() > LARGE_ROW {
            return Bytes::copy_from_slice(bytes);
        }
        place(&mut self.chunk, bytes)
    }

    /// What `encode` appends to an empty buffer, in the current chunk when it is small (else
    /// in a buffer of its own, which the scratch buffer gives up, so it stays small).
    pub(crate) fn put(&mut self, encode: impl FnOnce(&mut Vec<u8>)) -> Bytes {
        self.scratch.clear();
        encode(&mut self.scratch);
        if self.scratch.len() > LARGE_ROW {
            return Bytes::from(std::mem::take(&mut self.scratch));
        }
        place(&mut self.chunk, &self.scratch)
    }
}

/// `bytes` (at most [`LARGE_ROW`]) copied to the end of `chunk`, or of a new chunk when they
/// do not fit.
fn place(chunk: &mut BytesMut, bytes: &[u8]) -> Bytes {
    if chunk.capacity() - chunk.len() < bytes.len() {
        // The old chunk's rest is left unused: less than a large row.
        *chunk = BytesMut::with_capacity(CHUNK);
    }
    chunk.extend_from_slice(bytes);
    chunk.split().freeze()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ColumnId;
    use crate::encoding::row::Cell;
    use crate::encoding::row::CellValue;

    fn row_with(value_len: usize) -> StoredRow {
        let mut row = StoredRow::default();
        row.cells.push((
            ColumnId(3),
            Cell {
                timestamp: 7,
                path: None,
                expiry: None,
                value: CellValue::Live(Bytes::from(vec![0xab; value_len])),
            },
        ));
        row
    }

    #[test]
    fn rows_decode_as_encoded_and_small_ones_share_a_chunk() {
        let mut arena = RowArena::default();
        let rows: Vec<StoredRow> = (0..200).map(|i| row_with(i * 3)).collect();
        let encoded: Vec<Bytes> = rows.iter().map(|r| arena.encode(r)).collect();
        for (row, bytes) in rows.iter().zip(&encoded) {
            assert_eq!(bytes.as_ref(), row::encode(row).as_slice());
            assert_eq!(&row::decode(bytes).expect("decodes"), row);
        }
        // Consecutive rows of one chunk lie end to end.
        let adjacent = encoded
            .windows(2)
            .filter(|w| w[0].as_ptr() as usize + w[0].len() == w[1].as_ptr() as usize)
            .count();
        let chunks = encoded.iter().map(Bytes::len).sum::<usize>() / CHUNK + 1;
        assert!(
            adjacent >= encoded.len() - 1 - chunks,
            "{adjacent} adjacent"
        );
    }

    #[test]
    fn put_shares_a_chunk_for_small_records_and_gives_large_ones_their_own() {
        let mut arena = RowArena::default();
        let first = arena.put(|out| out.extend_from_slice(b"abc"));
        let second = arena.put(|out| out.extend_from_slice(b"defg"));
        assert_eq!(
            (first.as_ref(), second.as_ref()),
            (&b"abc"[..], &b"defg"[..])
        );
        assert_eq!(first.as_ptr() as usize + 3, second.as_ptr() as usize);
        let large = arena.put(|out| out.resize(LARGE_ROW + 1, 7));
        assert_eq!(large.len(), LARGE_ROW + 1);
        assert!(large.iter().all(|&b| b == 7));
        assert!(arena.scratch.capacity() <= 2 * LARGE_ROW);
        let next = arena.put(|out| out.push(9));
        assert_eq!(second.as_ptr() as usize + 4, next.as_ptr() as usize);
    }

    #[test]
    fn copies_of_encoded_rows_share_the_chunk_with_encoded_ones() {
        let mut arena = RowArena::default();
        let encoded = row::encode(&row_with(20));
        let first = arena.encode(&row_with(10));
        let copied = arena.copy(&encoded);
        assert_eq!(copied.as_ref(), encoded.as_slice());
        assert_eq!(
            first.as_ptr() as usize + first.len(),
            copied.as_ptr() as usize
        );
        let large = row::encode(&row_with(LARGE_ROW));
        assert_eq!(arena.copy(&large).as_ref(), large.as_slice());
        let next = arena.copy(&encoded);
        assert_eq!(
            copied.as_ptr() as usize + copied.len(),
            next.as_ptr() as usize
        );
    }

    #[test]
    fn a_large_row_gets_its_own_buffer_and_leaves_the_scratch_small() {
        let mut arena = RowArena::default();
        let small = arena.encode(&row_with(10));
        let large = arena.encode(&row_with(LARGE_ROW));
        let next = arena.encode(&row_with(10));
        assert_eq!(large.as_ref(), row::encode(&row_with(LARGE_ROW)).as_slice());
        assert_eq!(
            small.as_ptr() as usize + small.len(),
            next.as_ptr() as usize
        );
        assert!(arena.scratch.capacity() <= 2 * LARGE_ROW);
    }
}
