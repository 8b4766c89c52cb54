//! Run filters: each run's Bloom filter in `run_filters`, read once per process, and the
//! stand-in a merge's output has while it is written.
//!
//! ```text
//! filter   := Bloom::to_bytes                       (a finished run)
//! stand-in := 0xffffffffffffffff:u64le count:u64le input_id:16*count
//! ```
//!
//! A merge lists its output before its keys are all known (`compact.rs`). Every key the
//! output holds came from one of the merge's inputs, so it may hold a key only if one of their
//! filters may: the stand-in names the inputs, whose filters stay stored until the merge is
//! done. A stand-in whose input filter is gone (a crash midway, then a later merge of that
//! input) rules out no key.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use redb::ReadableTable;
use uuid::Uuid;

use super::RUN_FILTERS;
use crate::error::StorageError;
use crate::hash::bloom::Bloom;

/// What rules keys out of a run's lookups.
#[derive(Clone)]
pub(crate) enum RunFilter {
    /// A finished run's filter.
    Bloom(Arc<Bloom>),
    /// A merge's output while it is written: its inputs' filters (`None`: one is gone).
    Inputs(Option<Vec<Arc<Bloom>>>),
}

impl RunFilter {
    /// Whether a key of this hash may be in the run (never `false` for one that is).
    pub(crate) fn may_hold(&self, hash: u64) -> bool {
        match self {
            RunFilter::Bloom(bloom) => bloom.may_hold(hash),
            RunFilter::Inputs(Some(inputs)) => inputs.iter().any(|b| b.may_hold(hash)),
            RunFilter::Inputs(None) => true,
        }
    }
}

/// The first eight bytes of a stand-in: no filter has that capacity.
const STAND_IN: [u8; 8] = [0xff; 8];

/// The stored stand-in of a merge's output whose inputs are `inputs`.
pub(crate) fn stand_in(inputs: &[Uuid]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + 16 * inputs.len());
    out.extend_from_slice(&STAND_IN);
    out.extend_from_slice(&(inputs.len() as u64).to_le_bytes());
    for id in inputs {
        out.extend_from_slice(id.as_bytes());
    }
    out
}

/// The inputs a stored stand-in names; `None` for a finished run's filter.
///
/// # Errors
/// [`StorageError::Corrupt`] for a stand-in of the wrong length.
pub(crate) fn stand_in_inputs(bytes: &[u8]) -> Result<Option<Vec<Uuid>>, StorageError> {
    let Some(rest) = bytes.strip_prefix(STAND_IN.as_slice()) else {
        return Ok(None);
    };
    let corrupt = || StorageError::corrupt("run filter stand-in");
    let (count, ids) = rest.split_at_checked(8).ok_or_else(corrupt)?;
    let count = u64::from_le_bytes(count.try_into().map_err(|_| corrupt())?);
    if ids.len() as u64 != count.saturating_mul(16) {
        return Err(corrupt());
    }
    Ok(Some(
        ids.chunks_exact(16)
            .map(|id| Uuid::from_slice(id).map_err(|_| corrupt()))
            .collect::<Result<_, _>>()?,
    ))
}

/// Every finished run's filter read so far, by run id. Runs never change and their ids are
/// random UUIDs, so one cache serves every store of the process.
fn cache() -> MutexGuard<'static, HashMap<Uuid, Arc<Bloom>>> {
    static FILTERS: OnceLock<Mutex<HashMap<Uuid, Arc<Bloom>>>> = OnceLock::new();
    FILTERS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Keeps the filter of a run just written.
pub(crate) fn remember(id: Uuid, filter: Bloom) {
    cache().insert(id, Arc::new(filter));
}

/// Forgets the filters of runs that were deleted.
pub(crate) fn forget(ids: impl IntoIterator<Item = Uuid>) {
    let mut cache = cache();
    for id in ids {
        cache.remove(&id);
    }
}

/// The filter of run `id`, from `table` (`run_filters`); a finished run's is read once.
///
/// # Errors
/// redb errors; a missing or corrupt filter.
pub(crate) fn of_run(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    id: Uuid,
) -> Result<RunFilter, StorageError> {
    if let Some(bloom) = cache().get(&id) {
        return Ok(RunFilter::Bloom(bloom.clone()));
    }
    let bytes = stored(table, id)?
        .ok_or_else(|| StorageError::corrupt(format!("no filter for run {id}")))?;
    let Some(inputs) = stand_in_inputs(&bytes)? else {
        let bloom = Arc::new(Bloom::from_bytes(&bytes)?);
        cache().insert(id, bloom.clone());
        return Ok(RunFilter::Bloom(bloom));
    };
    let mut blooms = Vec::with_capacity(inputs.len());
    for input in inputs {
        match of_run(table, input) {
            Ok(RunFilter::Bloom(bloom)) => blooms.push(bloom),
            // An input that was itself a merge's output when a stop cut that merge short.
            Ok(RunFilter::Inputs(Some(inner))) => blooms.extend(inner),
            Ok(RunFilter::Inputs(None)) | Err(StorageError::Corrupt { .. }) => {
                return Ok(RunFilter::Inputs(None))
            }
            Err(e) => return Err(e),
        }
    }
    Ok(RunFilter::Inputs(Some(blooms)))
}

/// The stored filter (or stand-in) of run `id` in a `run_filters` table.
///
/// # Errors
/// redb errors.
pub(crate) fn stored(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    id: Uuid,
) -> Result<Option<Vec<u8>>, StorageError> {
    Ok(table
        .get(id.as_bytes().as_slice())?
        .map(|v| v.value().to_vec()))
}

/// Run `id`'s filter as a read transaction sees it.
///
/// # Errors
/// redb errors; a missing or corrupt filter.
pub(crate) fn in_read(txn: &redb::ReadTransaction, id: Uuid) -> Result<RunFilter, StorageError> {
    if let Some(bloom) = cache().get(&id) {
        return Ok(RunFilter::Bloom(bloom.clone()));
    }
    of_run(&txn.open_table(RUN_FILTERS)?, id)
}

/// Run `id`'s filter as a write transaction sees it.
///
/// # Errors
/// redb errors; a missing or corrupt filter.
pub(crate) fn in_write(txn: &redb::WriteTransaction, id: Uuid) -> Result<RunFilter, StorageError> {
    if let Some(bloom) = cache().get(&id) {
        return Ok(RunFilter::Bloom(bloom.clone()));
    }
    of_run(&txn.open_table(RUN_FILTERS)?, id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::bloom::stored_key_hash;

    #[test]
    fn a_stand_in_survives_its_stored_form_and_is_no_filter() {
        let ids = [Uuid::from_u128(1), Uuid::from_u128(2)];
        let bytes = stand_in(&ids);
        assert_eq!(stand_in_inputs(&bytes).unwrap(), Some(ids.to_vec()));
        assert!(stand_in_inputs(&bytes[..bytes.len() - 1]).is_err());
        assert_eq!(stand_in_inputs(&Bloom::new(10).to_bytes()).unwrap(), None);
        assert!(Bloom::from_bytes(&bytes).is_err());
    }

    /// A stand-in may hold what any of its inputs may hold, and nothing else (but their
    /// false positives); with an input's filter gone, anything.
    #[test]
    fn a_stand_in_holds_what_its_inputs_hold() {
        let dir = tempfile::tempdir().unwrap();
        let db = redb::Database::create(dir.path().join("db.redb")).unwrap();
        let (a, b, out, orphan) = (
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
        );
        let txn = db.begin_write().unwrap();
        {
            let mut table = txn.open_table(RUN_FILTERS).unwrap();
            for (id, keys) in [(a, 0u32..100), (b, 100..200)] {
                let mut bloom = Bloom::new(100);
                keys.for_each(|k| bloom.add(stored_key_hash(&k.to_be_bytes())));
                table
                    .insert(id.as_bytes().as_slice(), bloom.to_bytes().as_slice())
                    .unwrap();
            }
            table
                .insert(out.as_bytes().as_slice(), stand_in(&[a, b]).as_slice())
                .unwrap();
            table
                .insert(
                    orphan.as_bytes().as_slice(),
                    stand_in(&[a, Uuid::new_v4()]).as_slice(),
                )
                .unwrap();
        }
        let filter = in_write(&txn, out).unwrap();
        assert!((0u32..200).all(|k| filter.may_hold(stored_key_hash(&k.to_be_bytes()))));
        let others = (1000u32..3000)
            .filter(|k| filter.may_hold(stored_key_hash(&k.to_be_bytes())))
            .count();
        assert!(others < 200, "{others} false positives");
        let unknown = in_write(&txn, orphan).unwrap();
        assert!((1000u32..1100).all(|k| unknown.may_hold(stored_key_hash(&k.to_be_bytes()))));
        forget([a, b]);
    }
}
