//! Recovery: applies the commit log records that redb's durable state does not hold yet.

use std::time::{Duration, Instant};

use redb::Database;
use redb::Durability;
use redb::ReadableDatabase;
use redb::TableError;
use tracing::{debug, info};

use crate::commitlog::record::decode_group;
use crate::commitlog::Pending;
use crate::error::StorageError;
use crate::hash::fast::TableIds;
use crate::store::tables::write_position;
use crate::store::tables::COMMITLOG_POSITION_KEY;
use crate::store::tables::META;
use crate::writer::mutation::apply;
use crate::writer::mutation::ApplyError;

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

/// How often replay logs its progress.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Applies the records of `pending` in order, each in its own non-durable transaction that
/// also records its position, exactly as the writer applied them: a request that failed then
/// (its table was dropped, say) fails again and is skipped; the caller checkpoints
/// afterwards. Records are read from the segments one at a time, and progress is logged
/// every few seconds, so a log of any size replays in bounded memory, visibly.
///
/// # Errors
/// redb errors, or `Corrupt` for a record that does not decode.
pub(crate) fn replay(
    db: &Database,
    live_tables: &mut TableIds,
    pending: &Pending,
) -> Result<(), StorageError> {
    if pending.count == 0 {
        return Ok(());
    }
    info!(
        records = pending.count,
        bytes = pending.bytes,
        "replaying the commit log"
    );
    let mut requests = 0usize;
    let (mut records, mut bytes) = (0u64, 0u64);
    let mut last_report = Instant::now();
    pending.for_each(|seq, payload| {
        let batches = decode_group(payload)?;
        let mut txn = db.begin_write()?;
        txn.set_durability(Durability::None)?;
        for batch in &batches {
            match apply(&txn, live_tables, batch) {
                // The feed's readers rebuild after a replay (`IndexFeed::reset_all`).
                Ok(_) => requests += 1,
                Err(ApplyError::Request(e)) => {
                    debug!(seq, cause = %e, "replayed request fails again; skipped");
                }
                Err(ApplyError::Group(e)) => return Err(e),
            }
        }
        write_position(&txn, seq)?;
        txn.commit()?;
        records += 1;
        bytes += payload.len() as u64;
        if last_report.elapsed() >= PROGRESS_EVERY {
            last_report = Instant::now();
            info!(
                records,
                of = pending.count,
                bytes,
                of_bytes = pending.bytes,
                "replaying the commit log"
            );
        }
        Ok(())
    })?;
    info!(records, requests, "commit log replayed");
    Ok(())
}
