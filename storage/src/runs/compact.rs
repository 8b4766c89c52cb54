//! Background compaction: merges a table's runs so that reads probe few and the file holds
//! each row about once.
//!
//! Tiered, like Cassandra's `SizeTieredCompactionStrategy`: runs fall in size tiers (a
//! factor of [`TIER_RATIO`] apart, from [`TIER_BASE`]), and four or more adjacent runs of one
//! tier are merged into one run of the next; a table with more than [`MAX_RUNS`] runs has its
//! newest runs merged whatever their sizes. A merge is written in chunks, each its own short
//! write transaction (so flushes and writer transactions wait for at most one chunk), into a
//! new run that no manifest names yet; a last transaction puts it in place of its inputs and
//! deletes them. Deletions are dropped when no run older than the inputs remains. A crash at
//! any step leaves the manifest naming either the inputs or the output, never both; a run
//! table no manifest names is deleted when the store opens ([`remove_orphans`]).

use std::ops::Bound;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use redb::{Database, Durability, ReadableDatabase, ReadableTable, TableHandle};
use tracing::{debug, warn};
use uuid::Uuid;

use super::build::RunBuilder;
use super::manifest::{self, RunMeta};
use super::merge::{Merge, Source};
use super::progress::{MergeTracker, Running};
use super::read::RunIter;
use super::{run_id_of, run_table_name, RUNS};
use crate::error::StorageError;
use crate::locking::lock;
use crate::read_view::ViewCache;
use crate::slot::{self, DbSlot};
use crate::tables::data_table;

/// Runs in one tier before they are merged.
const MIN_MERGE: usize = 4;

/// Runs a table may have before its newest are merged whatever their sizes.
const MAX_RUNS: usize = 12;

/// The size of the smallest tier's runs.
const TIER_BASE: u64 = 8 << 20;

/// Each tier's runs are this many times the size of the tier below's.
const TIER_RATIO: u64 = 4;

/// Bytes of blocks written per chunk transaction.
const CHUNK_BYTES: u64 = 1 << 20;

/// How often the thread looks for work when nothing wakes it.
const IDLE_CHECK: Duration = Duration::from_secs(1);

/// The tier of a run of `bytes`.
fn tier(bytes: u64) -> u32 {
    let mut tier = 0;
    let mut limit = TIER_BASE;
    while bytes > limit {
        tier += 1;
        limit = limit.saturating_mul(TIER_RATIO);
    }
    tier
}

/// Which runs (a range of indices into the manifest, newest first) to merge, if any.
pub(crate) fn pick(runs: &[RunMeta]) -> Option<std::ops::Range<usize>> {
    let mut start = 0;
    while start < runs.len() {
        let t = tier(runs[start].bytes);
        let end = start
            + runs[start..]
                .iter()
                .take_while(|r| tier(r.bytes) == t)
                .count();
        if end - start >= MIN_MERGE {
            return Some(start..end);
        }
        start = end;
    }
    (runs.len() > MAX_RUNS).then(|| 0..runs.len() - MAX_RUNS / 2)
}

/// Bytes of the runs [`pick`] would merge next, once the merge under way of `merging` (ids
/// of adjacent runs, if any) is done: those count as one run of their total size.
pub(crate) fn pending_bytes(runs: &[RunMeta], merging: Option<&[Uuid]>) -> u64 {
    let at = merging.and_then(|ids| {
        let first = ids.first()?;
        let at = runs.iter().position(|r| r.id == *first)?;
        let slice = runs.get(at..at + ids.len())?;
        slice
            .iter()
            .zip(ids)
            .all(|(r, id)| r.id == *id)
            .then_some(at..at + ids.len())
    });
    let after;
    let runs = match at {
        Some(merged) => {
            let mut rest = runs.to_vec();
            let output = RunMeta {
                bytes: rest[merged.clone()].iter().map(|r| r.bytes).sum(),
                ..RunMeta::empty(Uuid::nil())
            };
            rest.splice(merged, [output]);
            after = rest;
            after.as_slice()
        }
        None => runs,
    };
    pick(runs).map_or(0, |range| runs[range].iter().map(|r| r.bytes).sum())
}

/// What wakes and stops the thread.
#[derive(Default)]
struct Signal {
    state: Mutex<(bool, bool)>,
    wake: Condvar,
}

/// The compaction thread.
pub(crate) struct Compactor {
    signal: Arc<Signal>,
    thread: Option<JoinHandle<()>>,
}

/// What the thread needs.
pub(crate) struct CompactorParts {
    /// The database (reopened after failures).
    pub(crate) db: DbSlot,
    /// Readers' shared views, renewed after each swap.
    pub(crate) views: Arc<ViewCache>,
    /// Bytes per second written at most (0: no limit).
    pub(crate) throughput: u64,
    /// The merge under way, for operators.
    pub(crate) merges: Arc<MergeTracker>,
}

impl Compactor {
    /// Starts the thread.
    ///
    /// # Errors
    /// [`StorageError::WriterStart`] if it cannot start.
    pub(crate) fn start(parts: CompactorParts) -> Result<Compactor, StorageError> {
        let signal = Arc::new(Signal::default());
        let thread_signal = signal.clone();
        let thread = std::thread::Builder::new()
            .name("storage-compactor".into())
            .spawn(move || run(&parts, &thread_signal))
            .map_err(StorageError::WriterStart)?;
        Ok(Compactor {
            signal,
            thread: Some(thread),
        })
    }
}

impl Drop for Compactor {
    fn drop(&mut self) {
        lock(&self.signal.state).1 = true;
        self.signal.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn stopping(signal: &Signal) -> bool {
    lock(&signal.state).1
}

/// The compactor's loop. It runs at the request threads' priority, as the flusher does: its
/// write transactions hold redb's page-cache locks that reads take, so a lowered priority
/// (nice 10, until 2026-11-29) made reads wait behind a compaction the machine starved.
fn run(parts: &CompactorParts, signal: &Signal) {
    loop {
        {
            let mut state = lock(&signal.state);
            if !state.0 && !state.1 {
                state = signal
                    .wake
                    .wait_timeout(state, IDLE_CHECK)
                    .map(|(s, _)| s)
                    .unwrap_or_else(|poisoned| poisoned.into_inner().0);
            }
            if state.1 {
                return;
            }
            state.0 = false;
        }
        // Work until nothing is left to merge.
        let mut merged = false;
        loop {
            match compact_once(parts, signal) {
                Ok(true) => merged = true,
                Ok(false) => {
                    if merged {
                        if let Err(e) = settle(&parts.db) {
                            warn!(error = %e, "durable commit after compaction failed");
                        }
                    }
                    break;
                }
                Err(e) => {
                    warn!(error = %e, "compaction failed; retrying later");
                    break;
                }
            }
            if stopping(signal) {
                return;
            }
        }
    }
}

/// Merges on the calling thread, without pacing, until no table has runs to merge; how many
/// merges it made.
///
/// # Errors
/// redb errors; a corrupt run.
pub(crate) fn compact_pending(
    db: &DbSlot,
    views: &Arc<ViewCache>,
    merges: &Arc<MergeTracker>,
) -> Result<usize, StorageError> {
    let parts = CompactorParts {
        db: db.clone(),
        views: views.clone(),
        throughput: 0,
        merges: merges.clone(),
    };
    let signal = Signal::default();
    let mut merges = 0;
    while compact_once(&parts, &signal)? {
        merges += 1;
    }
    if merges > 0 {
        settle(db)?;
    }
    Ok(merges)
}

/// Merges one set of runs, if any table has one to merge; whether it did. One merge runs at a
/// time in the process (`Store::compact` and the background thread would otherwise pick the
/// same inputs, and one of them would find them gone).
fn compact_once(parts: &CompactorParts, signal: &Signal) -> Result<bool, StorageError> {
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _merging = lock(&ONE_AT_A_TIME);
    let db = slot::current(&parts.db)?;
    let Some((table_id, inputs, older)) = find_work(&db)? else {
        return Ok(false);
    };
    drop(db);
    let started = Instant::now();
    let running = parts.merges.begin(table_id, &inputs);
    let Some(output) = merge(parts, signal, &running, &inputs, older)? else {
        return Ok(true);
    };
    let db = slot::current(&parts.db)?;
    let swapped = swap(&db, table_id, &inputs, output)?;
    parts.views.invalidate();
    debug!(
        %table_id,
        inputs = inputs.len(),
        swapped,
        ms = started.elapsed().as_millis() as u64,
        "runs compacted"
    );
    Ok(true)
}

/// The table and runs to merge next, and whether runs older than them remain.
fn find_work(db: &Database) -> Result<Option<(Uuid, Vec<RunMeta>, bool)>, StorageError> {
    let txn = db.begin_read()?;
    let table = match txn.open_table(RUNS) {
        Ok(table) => table,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    for entry in table.iter()? {
        let (key, value) = entry?;
        let runs = manifest::decode(value.value())?;
        if let Some(range) = pick(&runs) {
            let table_id = Uuid::from_slice(key.value())
                .map_err(|_| StorageError::corrupt("runs record key"))?;
            let older = range.end < runs.len();
            return Ok(Some((table_id, runs[range].to_vec(), older)));
        }
    }
    Ok(None)
}

/// Writes the merge of `inputs` as a new run, chunk by chunk; `None` when stopped midway
/// (the partial run is an orphan, deleted at the next open).
fn merge(
    parts: &CompactorParts,
    signal: &Signal,
    running: &Running<'_>,
    inputs: &[RunMeta],
    older: bool,
) -> Result<Option<RunBuilder>, StorageError> {
    let capacity = inputs.iter().map(|r| r.rows).sum::<u64>();
    let mut output = RunBuilder::new(usize::try_from(capacity).unwrap_or(usize::MAX));
    let mut resume: Option<Vec<u8>> = None;
    let started = Instant::now();
    let mut written = 0u64;
    loop {
        // Taken again for every chunk, so that a reopen after an I/O error waits for one
        // chunk at most.
        let db = slot::current(&parts.db)?;
        let Some(done) = merge_chunk(&db, inputs, older, &mut output, &mut resume)? else {
            // An input is gone (TRUNCATE or DROP): so is the table's need for this merge.
            abandon(&db, output.id())?;
            return Ok(None);
        };
        let mut txn = db.begin_write()?;
        txn.set_durability(Durability::None)?;
        written += output.ready_bytes();
        output.store_ready(&txn)?;
        txn.commit()?;
        if done {
            running.finished();
            return Ok(Some(output));
        }
        if let Some(key) = &resume {
            running.reached(key);
        }
        if stopping(signal) {
            return Ok(None);
        }
        drop(db);
        pace(parts.throughput, written, started);
    }
}

/// Adds the next chunk of the merge to `output`, from after `resume` (moved to its last key)
/// until about [`CHUNK_BYTES`] of blocks are ready; whether the merge is complete, or `None`
/// when an input no longer exists.
fn merge_chunk(
    db: &Database,
    inputs: &[RunMeta],
    older: bool,
    output: &mut RunBuilder,
    resume: &mut Option<Vec<u8>>,
) -> Result<Option<bool>, StorageError> {
    let txn = db.begin_read()?;
    let mut tables = Vec::with_capacity(inputs.len());
    for run in inputs {
        match txn.open_table(data_table(&run_table_name(run.id))) {
            Ok(table) => tables.push(table),
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        }
    }
    let start = resume.as_deref().map_or(Bound::Unbounded, Bound::Excluded);
    let mut sources: Vec<Source<'_>> = Vec::with_capacity(tables.len());
    for table in &tables {
        sources.push(Box::new(RunIter::new(
            table,
            start,
            Bound::Unbounded,
            false,
        )?));
    }
    for entry in Merge::new(sources, false, older) {
        let (key, value) = entry?;
        output.add(&key, value.as_deref());
        if output.ready_bytes() >= CHUNK_BYTES {
            *resume = Some(key);
            return Ok(Some(false));
        }
    }
    Ok(Some(true))
}

/// Deletes what a merge wrote so far.
fn abandon(db: &Database, output: Uuid) -> Result<(), StorageError> {
    let mut txn = db.begin_write()?;
    txn.set_durability(Durability::None)?;
    super::stored::delete_runs(&txn, &[RunMeta::empty(output)])?;
    txn.commit()?;
    Ok(())
}

/// Sleeps as long as keeps the rate of `written` bytes since `started` under `throughput`.
fn pace(throughput: u64, written: u64, started: Instant) {
    if throughput == 0 {
        return;
    }
    let due = Duration::from_secs_f64(written as f64 / throughput as f64);
    if let Some(wait) = due.checked_sub(started.elapsed()) {
        std::thread::sleep(wait.min(Duration::from_secs(1)));
    }
}

/// Stores the rest of the merged run and its filter (non-durable, like the chunks before),
/// then puts it in place of `inputs` in one small durable transaction, then deletes the
/// inputs one transaction each, so no transaction holds the writer's lock for long; `false`
/// when the inputs are gone (the table was truncated or dropped meanwhile) and the output is
/// dropped instead.
fn swap(
    db: &Database,
    table_id: Uuid,
    inputs: &[RunMeta],
    output: RunBuilder,
) -> Result<bool, StorageError> {
    let output_id = output.id();
    let mut txn = db.begin_write()?;
    txn.set_durability(Durability::None)?;
    let meta = output.finish(&txn)?;
    txn.commit()?;
    let mut txn = db.begin_write()?;
    txn.set_durability(Durability::Immediate)?;
    let mut runs = manifest::read_in(&txn, table_id)?;
    let at = runs.iter().position(|r| r.id == inputs[0].id);
    let in_place = at.is_some_and(|at| {
        runs.get(at..at + inputs.len())
            .is_some_and(|slice| slice.iter().zip(inputs).all(|(a, b)| a.id == b.id))
    });
    let gone = match at.filter(|_| in_place) {
        Some(at) => {
            runs.splice(at..at + inputs.len(), meta);
            manifest::write(&txn, table_id, &runs)?;
            inputs.to_vec()
        }
        None => vec![RunMeta::empty(output_id)],
    };
    txn.commit()?;
    for run in &gone {
        let mut txn = db.begin_write()?;
        txn.set_durability(Durability::None)?;
        super::stored::delete_runs(&txn, std::slice::from_ref(run))?;
        txn.commit()?;
    }
    Ok(in_place)
}

/// A durable commit of nothing, once the merges are done. Until a durable commit, redb keeps
/// the pages of non-durable commits (every merge's) in its write buffer, every read that misses
/// its cache first walks the buffer's 131 stripes, and the pages the merges freed are not
/// reused. After a load the merges' commits were the last ones: uniform reads at 10 M rows ran
/// at 42-43 k/s, against 54-59 k/s once a durable commit had come (2026-11-29). Once per
/// stretch of merges rather than per merge: a durable commit writes the whole buffer out while
/// holding its stripes, which readers wait for.
fn settle(db: &DbSlot) -> Result<(), StorageError> {
    let db = slot::current(db)?;
    let mut txn = db.begin_write()?;
    txn.set_durability(Durability::Immediate)?;
    txn.commit()?;
    Ok(())
}

/// Deletes every run table no manifest names (a merge a crash interrupted), in one durable
/// transaction; how many.
///
/// # Errors
/// redb errors.
pub(crate) fn remove_orphans(db: &Database) -> Result<usize, StorageError> {
    let txn = db.begin_write()?;
    let mut named = std::collections::HashSet::new();
    {
        let table = txn.open_table(RUNS)?;
        for entry in table.iter()? {
            let (_, value) = entry?;
            named.extend(manifest::decode(value.value())?.into_iter().map(|r| r.id));
        }
    }
    let mut orphans: Vec<Uuid> = txn
        .list_tables()?
        .filter_map(|handle| run_id_of(handle.name()))
        .filter(|id| !named.contains(id))
        .collect();
    {
        // A filter whose run was deleted by a transaction that never became durable.
        let filters = txn.open_table(super::RUN_FILTERS)?;
        for entry in filters.iter()? {
            let id = Uuid::from_slice(entry?.0.value()).ok();
            if let Some(id) = id.filter(|id| !named.contains(id) && !orphans.contains(id)) {
                orphans.push(id);
            }
        }
    }
    let gone: Vec<RunMeta> = orphans.iter().map(|&id| RunMeta::empty(id)).collect();
    super::stored::delete_runs(&txn, &gone)?;
    if orphans.is_empty() {
        txn.abort()?;
    } else {
        txn.commit()?;
    }
    Ok(orphans.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(bytes: u64) -> RunMeta {
        RunMeta {
            bytes,
            ..RunMeta::empty(Uuid::new_v4())
        }
    }

    #[test]
    fn four_runs_of_one_tier_are_merged() {
        let mb = 1 << 20;
        let runs: Vec<_> = [4, 4, 4, 200, 800].iter().map(|&m| run(m * mb)).collect();
        assert_eq!(pick(&runs), None);
        let runs: Vec<_> = [4, 4, 4, 5, 200, 800]
            .iter()
            .map(|&m| run(m * mb))
            .collect();
        assert_eq!(pick(&runs), Some(0..4));
        let runs: Vec<_> = [4, 40, 40, 40, 40, 800]
            .iter()
            .map(|&m| run(m * mb))
            .collect();
        assert_eq!(pick(&runs), Some(1..5));
    }

    #[test]
    fn pending_bytes_are_the_next_merge_after_the_one_under_way() {
        let mb = 1 << 20;
        let runs: Vec<_> = [4, 4, 4, 5, 20, 20, 20, 800]
            .iter()
            .map(|&m| run(m * mb))
            .collect();
        assert_eq!(pending_bytes(&runs, None), 17 * mb);
        // Merging the four small ones makes a run of the next tier: four of them then.
        let merging: Vec<Uuid> = runs[..4].iter().map(|r| r.id).collect();
        assert_eq!(pending_bytes(&runs, Some(&merging)), 77 * mb);
        // Inputs no longer in the manifest (swapped meanwhile) change nothing.
        assert_eq!(pending_bytes(&runs[4..], Some(&merging)), 0);
        assert_eq!(pending_bytes(&[], None), 0);
    }

    #[test]
    fn too_many_runs_are_merged_whatever_their_sizes() {
        let runs: Vec<_> = (0..13).map(|i| run((1 << 20) << (2 * (i % 4)))).collect();
        assert_eq!(pick(&runs), Some(0..7));
    }
}
