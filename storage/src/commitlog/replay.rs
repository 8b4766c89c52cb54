//! Recovery: applies the commit log records that redb's durable state does not hold yet.

use redb::{Database, Durability, ReadableDatabase, TableError};
use tracing::{debug, info};

use crate::commitlog::record::decode_group;
use crate::commitlog::Record;
use crate::error::StorageError;
use crate::fast_hash::TableIds;
use crate::mutation::{apply, ApplyError};
use crate::tables::write_position;
use crate::tables::{COMMITLOG_POSITION_KEY, META};

/// The sequence number of the last record the committed state holds (0: none).
///
/// # Errors
/// redb errors, or `Corrupt` for a malformed value.
pub(crate) fn stored_position(db: &Database) -> Result<u64, StorageError> {
    let read = db.begin_read()?;
    let meta = match read.open_table(META) {
        Ok(meta) => meta,
        Err(TableError::TableDoesNotExist(_)) => return Ok(0),
        Err(e) => return Err(e.into()),
    };
    let Some(value) = meta.get(COMMITLOG_POSITION_KEY)? else {
        return Ok(0);
    };
    let bytes: [u8; 8] = value
        .value()
        .try_into()
        .map_err(|_| StorageError::corrupt("commit log position is not 8 bytes"))?;
    Ok(u64::from_be_bytes(bytes))
}

/// Applies `records` in order, each in its own non-durable transaction that also records its
/// position, exactly as the writer applied them: a request that failed then (its table was
/// dropped, say) fails again and is skipped; the caller checkpoints afterwards.
///
/// # Errors
/// redb errors, or `Corrupt` for a record that does not decode.
pub(crate) fn replay(
    db: &Database,
    live_tables: &mut TableIds,
    records: Vec<Record>,
) -> Result<(), StorageError> {
    let count = records.len();
    let mut requests = 0usize;
    for record in records {
        let batches = decode_group(&record.payload)?;
        let mut txn = db.begin_write()?;
        txn.set_durability(Durability::None)?;
        for batch in &batches {
            match apply(&txn, live_tables, batch) {
                // The feed's readers rebuild after a replay (`IndexFeed::reset_all`).
                Ok(_) => requests += 1,
                Err(ApplyError::Request(e)) => {
                    debug!(seq = record.seq, cause = %e, "replayed request fails again; skipped");
                }
                Err(ApplyError::Group(e)) => return Err(e),
            }
        }
        write_position(&txn, record.seq)?;
        txn.commit()?;
    }
    if count > 0 {
        info!(records = count, requests, "commit log replayed");
    }
    Ok(())
}
