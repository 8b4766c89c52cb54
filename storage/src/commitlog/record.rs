//! The bytes of one logged write request ([`encode_batch`]) and of a record's payload, the
//! requests of one group in order ([`decode_group`]). Layouts are in `DESIGN.md`.
//!
//! Only data writes are logged: row writes, range tombstones and counter changes. A request
//! with catalog changes is never logged; its group commits durably instead.

use uuid::Uuid;

use crate::catalog::ColumnId;
use crate::encoding::input::Input;
use crate::encoding::range_tombstone;
use crate::encoding::row;
use crate::error::StorageError;
use crate::writer::counter::CounterChange;
use crate::writer::counter::CounterWrite;
use crate::writer::mutation::RangeTombstoneWrite;
use crate::writer::mutation::RowWrite;
use crate::writer::mutation::WriteBatch;

const COUNTER_ADD: u8 = 0;
const COUNTER_DELETE: u8 = 1;

/// Appends `batch` (its data writes; `catalog` must be empty) to `out` as one request:
/// `len:u32` then the body.
pub(crate) fn encode_batch(batch: &WriteBatch, out: &mut Vec<u8>) {
    let rows: usize = batch
        .rows
        .iter()
        .map(|w| 24 + w.key.len() + row::encoded_len(&w.update))
        .sum();
    out.reserve(16 + rows);
    length_prefixed(out, |out| {
        put_u32(out, batch.rows.len());
        for write in &batch.rows {
            out.extend_from_slice(write.table_id.as_bytes());
            put_bytes(out, &write.key);
            length_prefixed(out, |out| row::encode_into(&write.update, out));
        }
        put_u32(out, batch.range_tombstones.len());
        for write in &batch.range_tombstones {
            out.extend_from_slice(write.table_id.as_bytes());
            put_bytes(out, &write.partition);
            put_bytes(
                out,
                &range_tombstone::encode(std::slice::from_ref(&write.tombstone)),
            );
        }
        put_u32(out, batch.counters.len());
        for write in &batch.counters {
            encode_counter(write, out);
        }
    });
}

/// Where each row's value lies in `request` (one request as [`encode_batch`] wrote it), in
/// the order of the batch's rows: byte ranges of `request` holding `row::encode_into` of each
/// update, which the memtable takes as they are instead of encoding the rows again. Ends
/// early on bytes `encode_batch` did not write.
pub(crate) fn row_values(request: &[u8]) -> RowValues<'_> {
    let mut input = Input::new(request, "commit log request");
    let rows = match (input.u32(), input.u32()) {
        (Ok(_), Ok(rows)) => rows,
        _ => 0,
    };
    RowValues {
        input,
        whole: request.len(),
        rows,
    }
}

/// The iterator [`row_values`] returns.
pub(crate) struct RowValues<'a> {
    input: Input<'a>,
    /// The request's length, to turn what is left of `input` into offsets.
    whole: usize,
    rows: u32,
}

impl Iterator for RowValues<'_> {
    type Item = std::ops::Range<usize>;

    fn next(&mut self) -> Option<std::ops::Range<usize>> {
        self.rows = self.rows.checked_sub(1)?;
        let value = (|| {
            self.input.take(16)?;
            self.input.prefixed()?;
            self.input.prefixed()
        })();
        let Ok(value) = value else {
            self.rows = 0;
            return None;
        };
        let end = self.whole - self.input.bytes.len();
        Some(end - value.len()..end)
    }
}

/// Appends what `write` writes after a `u32` of its length (as [`put_bytes`] lays bytes out),
/// writing it in place instead of into a buffer of its own.
fn length_prefixed(out: &mut Vec<u8>, write: impl FnOnce(&mut Vec<u8>)) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    write(out);
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_be_bytes());
}

fn encode_counter(write: &CounterWrite, out: &mut Vec<u8>) {
    out.extend_from_slice(write.table_id.as_bytes());
    put_bytes(out, &write.key);
    put_u32(out, write.partition_len);
    out.push(u8::from(write.is_static));
    out.extend_from_slice(&write.column.0.to_be_bytes());
    out.extend_from_slice(&write.timestamp.to_be_bytes());
    let (kind, value) = match write.change {
        CounterChange::Add(delta) => (COUNTER_ADD, delta),
        CounterChange::Delete {
            local_deletion_seconds,
        } => (COUNTER_DELETE, local_deletion_seconds),
    };
    out.push(kind);
    out.extend_from_slice(&value.to_be_bytes());
}

/// Decodes a record payload: `count:u32` requests, each as [`encode_batch`] wrote it.
///
/// # Errors
/// [`StorageError::Corrupt`] for bytes that do not decode (the record passed its checksum,
/// so this means a bug or a log of another format).
pub(crate) fn decode_group(payload: &[u8]) -> Result<Vec<WriteBatch>, StorageError> {
    let mut input = Input::new(payload, "commit log record");
    let count = input.u32()? as usize;
    let mut batches = Vec::with_capacity(count.min(input.bytes.len() / 16));
    for _ in 0..count {
        let mut body = Input::new(input.prefixed()?, "commit log record");
        batches.push(decode_batch(&mut body)?);
        if !body.bytes.is_empty() {
            return Err(body.corrupt("trailing bytes after a request"));
        }
    }
    if !input.bytes.is_empty() {
        return Err(input.corrupt("trailing bytes after the last request"));
    }
    Ok(batches)
}

fn decode_batch(input: &mut Input<'_>) -> Result<WriteBatch, StorageError> {
    let mut batch = WriteBatch::default();
    for _ in 0..input.u32()? {
        let table_id = Uuid::from_bytes(input.array()?);
        let key = input.prefixed()?.to_vec();
        let update = row::decode(input.prefixed()?)?;
        batch.rows.push(RowWrite {
            table_id,
            key,
            update,
        });
    }
    for _ in 0..input.u32()? {
        let table_id = Uuid::from_bytes(input.array()?);
        let partition = input.prefixed()?.to_vec();
        let mut list = range_tombstone::decode(input.prefixed()?)?;
        let tombstone = list
            .pop()
            .filter(|_| list.is_empty())
            .ok_or_else(|| input.corrupt("a range tombstone write holds one tombstone"))?;
        batch.range_tombstones.push(RangeTombstoneWrite {
            table_id,
            partition,
            tombstone,
        });
    }
    for _ in 0..input.u32()? {
        batch.counters.push(decode_counter(input)?);
    }
    Ok(batch)
}

fn decode_counter(input: &mut Input<'_>) -> Result<CounterWrite, StorageError> {
    let table_id = Uuid::from_bytes(input.array()?);
    let key = input.prefixed()?.to_vec();
    let partition_len = input.u32()? as usize;
    let is_static = input.u8()? != 0;
    let column = ColumnId(input.u32()?);
    let timestamp = input.i64()?;
    let kind = input.u8()?;
    let value = input.i64()?;
    let change = match kind {
        COUNTER_ADD => CounterChange::Add(value),
        COUNTER_DELETE => CounterChange::Delete {
            local_deletion_seconds: value,
        },
        other => return Err(input.corrupt(format!("unknown counter change {other}"))),
    };
    Ok(CounterWrite {
        table_id,
        key,
        partition_len,
        is_static,
        column,
        timestamp,
        change,
    })
}

fn put_u32(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u32).to_be_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_u32(out, bytes.len());
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use std::ops::Bound;

    use proptest::prelude::*;

    use super::*;
    use crate::encoding::range_tombstone::RangeTombstone;
    use crate::encoding::row::Cell;
    use crate::encoding::row::DeletionTime;
    use crate::encoding::row::StoredRow;

    fn sample() -> WriteBatch {
        let mut update = StoredRow::default();
        update
            .cells
            .push((ColumnId(3), Cell::live(17, &b"value"[..])));
        WriteBatch {
            rows: vec![RowWrite {
                table_id: Uuid::from_u128(7),
                key: vec![1, 2, 3],
                update,
            }],
            catalog: Vec::new(),
            range_tombstones: vec![RangeTombstoneWrite {
                table_id: Uuid::from_u128(7),
                partition: vec![1, 2],
                tombstone: RangeTombstone {
                    start: Bound::Included(vec![5]),
                    end: Bound::Unbounded,
                    deletion: DeletionTime {
                        timestamp: 9,
                        local_deletion_seconds: 10,
                    },
                },
            }],
            counters: vec![CounterWrite {
                table_id: Uuid::from_u128(8),
                key: vec![4, 5, 6],
                partition_len: 2,
                is_static: false,
                column: ColumnId(2),
                timestamp: 11,
                change: CounterChange::Add(-3),
            }],
        }
    }

    fn group(batches: &[WriteBatch]) -> Vec<u8> {
        let mut out = (batches.len() as u32).to_be_bytes().to_vec();
        for batch in batches {
            encode_batch(batch, &mut out);
        }
        out
    }

    #[test]
    fn a_group_round_trips() {
        let batches = vec![sample(), WriteBatch::default(), sample()];
        let decoded = decode_group(&group(&batches)).unwrap();
        assert_eq!(format!("{decoded:?}"), format!("{batches:?}"));
    }

    #[test]
    fn row_values_are_each_rows_encoding_in_the_request() {
        let mut batch = sample();
        let mut second = batch.rows[0].clone();
        second.key = vec![9; 40];
        second.update.liveness = Some(crate::encoding::row::Liveness {
            timestamp: 5,
            ttl: None,
        });
        batch.rows.push(second);
        let mut request = Vec::new();
        encode_batch(&batch, &mut request);
        let values: Vec<_> = row_values(&request).collect();
        assert_eq!(values.len(), 2);
        for (range, write) in values.into_iter().zip(&batch.rows) {
            assert_eq!(request[range].to_vec(), row::encode(&write.update));
        }
        // A request cut short yields the rows it still holds whole, then ends.
        let first_end = row_values(&request).next().unwrap().end;
        assert_eq!(row_values(&request[..first_end]).count(), 1);
        assert_eq!(row_values(&request[..first_end - 1]).count(), 0);
        assert_eq!(row_values(&[]).count(), 0);
    }

    #[test]
    fn truncated_payloads_are_corrupt_not_panics() {
        let bytes = group(&[sample()]);
        for len in 0..bytes.len() {
            assert!(
                decode_group(&bytes[..len]).is_err(),
                "prefix of {len} bytes"
            );
        }
    }

    proptest! {
        #[test]
        fn rows_round_trip(row in crate::encoding::row::row_strategy(),
                           key in proptest::collection::vec(any::<u8>(), 0..40)) {
            let batch = WriteBatch {
                rows: vec![RowWrite { table_id: Uuid::from_u128(1), key, update: row }],
                ..WriteBatch::default()
            };
            let decoded = decode_group(&group(std::slice::from_ref(&batch))).unwrap();
            prop_assert_eq!(format!("{decoded:?}"), format!("{:?}", vec![batch]));
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_group(&bytes);
        }
    }
}
