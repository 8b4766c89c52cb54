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

use redb::Database;
use redb::Durability;
use redb::ReadableDatabase;
use redb::ReadableTable;
use redb::TableHandle;
use redb::WriteTransaction;
use tracing::{debug, warn};
use uuid::Uuid;

use super::build::RunBuilder;
use super::manifest;
use super::manifest::RunMeta;
use super::merge::Merge;
use super::merge::Source;
use super::progress::MergeTracker;
use super::progress::Running;
use super::read::RunIter;
use super::run_id_of;
use super::run_table_name;
use super::RUNS;
use crate::error::StorageError;
use crate::read::view::ViewCache;
use crate::store::locking::lock;
use crate::store::slot;
use crate::store::slot::DbSlot;
use crate::store::tables::data_table;

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
            .spawn(move || {
                crate::store::turns::take_turns();
                run(&parts, &thread_signal)
            })
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
/// (nice 10, as it once ran) made reads wait behind a compaction the machine starved.
fn run(parts: &CompactorParts, signal: &Signal) {
    match replace_stand_ins(&parts.db) {
        Ok(0) => {}
        Ok(runs) => {
            parts.views.invalidate();
            debug!(runs, "filters of merges a crash cut short rebuilt");
        }
        Err(e) => warn!(error = %e, "rebuilding the filters of unfinished merges failed"),
    }
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
                    match empty_trash(&parts.db) {
                        Ok(emptied) => merged |= emptied > 0,
                        Err(e) => warn!(error = %e, "deleting discarded tables failed"),
                    }
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
    if merges + empty_trash(db)? > 0 {
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
    let outcome = merge(parts, signal, &running, table_id, &inputs, older)?;
    debug!(
        %table_id,
        inputs = inputs.len(),
        ?outcome,
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

/// How a merge ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Its output stands in the manifest in place of its inputs.
    Done,
    /// Stopped between two chunks: the manifest lists the output so far (with the filter of
    /// its keys) and what remains of the inputs, which a later merge takes up like any runs.
    Stopped,
    /// Its table was truncated or dropped meanwhile: the output was deleted.
    Abandoned,
}

/// Merges `inputs` into a new run, chunk by chunk, each chunk one write transaction that
/// stores the chunk's blocks, takes the blocks the merge has passed out of the inputs and
/// lists, in the inputs' place, the output so far and what remains of each input (clipped
/// to the keys after the chunk's last: [`RunMeta::clipped_after`]). So the file holds each
/// row about once while a merge runs, rather than its inputs and its output whole. Chunks
/// are non-durable, except one every [`DURABLE_EVERY`] (redb reuses the pages of the blocks
/// taken out only after a durable commit) and the last.
fn merge(
    parts: &CompactorParts,
    signal: &Signal,
    running: &Running<'_>,
    table_id: Uuid,
    inputs: &[RunMeta],
    older: bool,
) -> Result<Outcome, StorageError> {
    let capacity = inputs.iter().map(|r| r.rows).sum::<u64>();
    let mut group = Group {
        table_id,
        output: RunBuilder::new(usize::try_from(capacity).unwrap_or(usize::MAX)),
        listed: false,
        inputs: inputs.to_vec(),
        began_with: inputs.to_vec(),
    };
    let mut resume: Option<Vec<u8>> = None;
    let started = Instant::now();
    let mut written = 0u64;
    let mut last_durable = Instant::now();
    loop {
        // Taken again for every chunk, so that a reopen after an I/O error waits for one
        // chunk at most.
        let db = slot::current(&parts.db)?;
        let Some(done) = merge_chunk(&db, &group.inputs, older, &mut group.output, &mut resume)?
        else {
            // An input is gone (TRUNCATE or DROP): so is the table's need for this merge.
            abandon(&db, &group.output)?;
            return Ok(Outcome::Abandoned);
        };
        written += group.output.ready_bytes();
        let durable = done || last_durable.elapsed() >= DURABLE_EVERY;
        let mut txn = db.begin_write()?;
        if !durable {
            txn.set_durability(Durability::None)?;
        }
        let reached = if done { None } else { resume.as_deref() };
        if !group.commit_chunk(&txn, reached)? {
            txn.abort()?;
            abandon(&db, &group.output)?;
            return Ok(Outcome::Abandoned);
        }
        txn.commit()?;
        parts.views.invalidate();
        if durable {
            last_durable = Instant::now();
        }
        if done {
            running.finished();
            return Ok(Outcome::Done);
        }
        if let Some(key) = &resume {
            running.reached(key);
        }
        running.regroup(group.ids());
        if stopping(signal) {
            let txn = db.begin_write()?;
            group.output.store_filter_so_far(&txn)?;
            txn.commit()?;
            return Ok(Outcome::Stopped);
        }
        drop(db);
        pace(parts.throughput, written, started);
    }
}

/// Time between two durable chunks of a merge. A durable commit writes redb's whole write
/// buffer out holding its stripes, which reads that miss the cache wait for: one every 32 MiB
/// made point reads wait seconds during merges of 15 MB rows (the limits test).
const DURABLE_EVERY: Duration = Duration::from_secs(2);

/// What a merge under way stands for in its table's manifest: its output so far (once a
/// chunk listed it) and what remains of its inputs, adjacent and in that order.
struct Group {
    table_id: Uuid,
    output: RunBuilder,
    /// Whether the manifest lists the output.
    listed: bool,
    /// What remains of the inputs, as the manifest lists them.
    inputs: Vec<RunMeta>,
    /// The inputs as the merge began: the output's stand-in filter names them, so their
    /// filters stay until it is done, even once their blocks are all taken out.
    began_with: Vec<RunMeta>,
}

impl Group {
    /// The ids of the runs the manifest lists for the merge.
    fn ids(&self) -> Vec<Uuid> {
        let output = self.listed.then(|| self.output.id());
        output
            .into_iter()
            .chain(self.inputs.iter().map(|r| r.id))
            .collect()
    }

    /// Stores the chunk just merged in `txn` and lists the group as it now stands: with
    /// `reached` (the chunk's last key), the output up to it and the inputs after it; without
    /// (the merge is done), the output alone, its inputs deleted. `false` when the manifest no
    /// longer lists the group (its table was truncated or dropped).
    fn commit_chunk(
        &mut self,
        txn: &WriteTransaction,
        reached: Option<&[u8]>,
    ) -> Result<bool, StorageError> {
        let mut runs = manifest::read_in(txn, self.table_id)?;
        let ids = self.ids();
        let Some(at) = position_of(&runs, &ids) else {
            return Ok(false);
        };
        let listed = match reached {
            None => {
                let output = std::mem::replace(&mut self.output, RunBuilder::new(1));
                super::stored::delete_runs(txn, &self.began_with)?;
                self.inputs.clear();
                output.finish(txn)?.into_iter().collect()
            }
            Some(reached) => {
                self.output.seal_block();
                self.output.store_ready(txn)?;
                if !self.listed {
                    let inputs: Vec<Uuid> = self.began_with.iter().map(|r| r.id).collect();
                    self.output.store_stand_in_filter(txn, &inputs)?;
                    self.listed = true;
                }
                let mut left = Vec::with_capacity(self.inputs.len());
                for run in &self.inputs {
                    let (bytes, blocks) = take_blocks_through(txn, run.id, reached)?;
                    match run.clipped_after(reached, bytes, blocks) {
                        Some(rest) => left.push(rest),
                        None => {
                            super::pins::delete_run_table(txn, run.id)?;
                        }
                    }
                }
                self.inputs.clone_from(&left);
                let mut listed = vec![self.output.meta().clone()];
                listed.extend(left);
                listed
            }
        };
        runs.splice(at..at + ids.len(), listed);
        manifest::write(txn, self.table_id, &runs)?;
        Ok(true)
    }
}

/// Where `ids` stand in `runs`, adjacent and in order, if they do.
fn position_of(runs: &[RunMeta], ids: &[Uuid]) -> Option<usize> {
    let at = runs.iter().position(|r| Some(&r.id) == ids.first())?;
    let slice = runs.get(at..at + ids.len())?;
    slice
        .iter()
        .zip(ids)
        .all(|(r, id)| r.id == *id)
        .then_some(at)
}

/// Removes from run `id` the blocks whose last key is at or before `reached` (a merge has
/// written every key up to it); the bytes and the number of blocks removed. A run a snapshot
/// pins keeps its blocks (the manifest clips it all the same).
fn take_blocks_through(
    txn: &WriteTransaction,
    id: Uuid,
    reached: &[u8],
) -> Result<(u64, u64), StorageError> {
    if super::pins::is_pinned(txn, id)? {
        return Ok((0, 0));
    }
    let mut table = txn.open_table(data_table(&run_table_name(id)))?;
    let (mut bytes, mut blocks) = (0u64, 0u64);
    table.retain_in::<&[u8], _>(..=reached, |_, block| {
        bytes += block.len() as u64;
        blocks += 1;
        false
    })?;
    Ok((bytes, blocks))
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
    for (run, table) in inputs.iter().zip(&tables) {
        if !run.overlaps(start, Bound::Unbounded) {
            continue;
        }
        let (start, end) = run.clip(start, Bound::Unbounded);
        sources.push(Box::new(RunIter::new(table, start, end, false)?));
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

/// Deletes what a merge wrote so far; a snapshot taken meanwhile may pin it, and then it
/// keeps it, with the filter of its keys in place of the stand-in.
fn abandon(db: &Database, output: &RunBuilder) -> Result<(), StorageError> {
    let mut txn = db.begin_write()?;
    txn.set_durability(Durability::None)?;
    if super::pins::is_pinned(&txn, output.id())? {
        output.store_filter_so_far(&txn)?;
    } else {
        super::stored::delete_runs(&txn, &[RunMeta::empty(output.id())])?;
    }
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

/// Gives every listed run whose filter is still a merge's stand-in (a crash cut the merge
/// short) the filter of its keys, read from its blocks: once the inputs the stand-in names are
/// merged away, it would rule out no key. How many it rebuilt.
fn replace_stand_ins(slot: &DbSlot) -> Result<usize, StorageError> {
    let db = slot::current(slot)?;
    let mut unfinished = Vec::new();
    {
        let txn = db.begin_read()?;
        let (runs, filters) = match (txn.open_table(RUNS), txn.open_table(super::RUN_FILTERS)) {
            (Ok(runs), Ok(filters)) => (runs, filters),
            (Err(redb::TableError::TableDoesNotExist(_)), _)
            | (_, Err(redb::TableError::TableDoesNotExist(_))) => return Ok(0),
            (Err(e), _) | (_, Err(e)) => return Err(e.into()),
        };
        for entry in runs.iter()? {
            for run in manifest::decode(entry?.1.value())? {
                let stored = super::filter::stored(&filters, run.id)?.unwrap_or_default();
                if super::filter::stand_in_inputs(&stored)?.is_some() {
                    unfinished.push(run);
                }
            }
        }
    }
    for run in &unfinished {
        let mut bloom =
            crate::hash::bloom::Bloom::new(usize::try_from(run.rows).unwrap_or(1).max(1));
        {
            let txn = db.begin_read()?;
            let table = txn.open_table(data_table(&run_table_name(run.id)))?;
            let (start, end) = run.clip(Bound::Unbounded, Bound::Unbounded);
            for entry in RunIter::new(&table, start, end, false)? {
                bloom.add(crate::hash::bloom::stored_key_hash(&entry?.0));
            }
        }
        let txn = db.begin_write()?;
        let still = super::filter::stored(&txn.open_table(super::RUN_FILTERS)?, run.id)?;
        if still.is_some_and(|f| matches!(super::filter::stand_in_inputs(&f), Ok(Some(_)))) {
            super::build::store_filter(&txn, run.id, &bloom.to_bytes())?;
        }
        txn.commit()?;
    }
    Ok(unfinished.len())
}

/// Deletes the tables a reset or restore discarded (`stored::discard_table`), one per short
/// write transaction; how many.
///
/// # Errors
/// redb errors.
pub(crate) fn empty_trash(slot: &DbSlot) -> Result<usize, StorageError> {
    let db = slot::current(slot)?;
    let trash: Vec<String> = db
        .begin_read()?
        .list_tables()?
        .map(|handle| handle.name().to_string())
        .filter(|name| name.starts_with(super::stored::TRASH_PREFIX))
        .collect();
    for name in &trash {
        let mut txn = db.begin_write()?;
        txn.set_durability(Durability::None)?;
        txn.delete_table(data_table(name))?;
        txn.commit()?;
    }
    Ok(trash.len())
}

/// A durable commit of nothing, once the merges are done. Until a durable commit, redb keeps
/// the pages of non-durable commits (every merge's) in its write buffer, every read that misses
/// its cache first walks the buffer's 131 stripes, and the pages the merges freed are not
/// reused. After a load the merges' commits were the last ones: uniform reads at 10 M rows ran
/// at 42-43 k/s, against 54-59 k/s once a durable commit had come. Once per
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
    // Runs a snapshot pins are named too, by the snapshot.
    let mut named = super::pins::all_pinned(&txn)?;
    {
        let table = txn.open_table(RUNS)?;
        for entry in table.iter()? {
            let (_, value) = entry?;
            named.extend(manifest::decode(value.value())?.into_iter().map(|r| r.id));
        }
    }
    let mut stored_filters = Vec::new();
    {
        // A filter a stand-in names (a merge a stop cut short) stays while its run is named.
        let filters = txn.open_table(super::RUN_FILTERS)?;
        let mut referenced = Vec::new();
        for entry in filters.iter()? {
            let (id, value) = entry?;
            let Ok(id) = Uuid::from_slice(id.value()) else {
                continue;
            };
            if named.contains(&id) {
                let inputs = super::filter::stand_in_inputs(value.value())?;
                referenced.extend(inputs.unwrap_or_default());
            }
            stored_filters.push(id);
        }
        named.extend(referenced);
    }
    let mut orphans: Vec<Uuid> = txn
        .list_tables()?
        .filter_map(|handle| run_id_of(handle.name()))
        .filter(|id| !named.contains(id))
        .collect();
    // A filter whose run was deleted by a transaction that never became durable, or whose
    // stand-in is gone.
    for id in stored_filters {
        if !named.contains(&id) && !orphans.contains(&id) {
            orphans.push(id);
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
    use crate::runs::stored;

    const TABLE: Uuid = Uuid::from_u128(0x7ab1e);
    const KEYS: u32 = 15_000;

    /// A value that lz4 cannot shrink, different for every run and key.
    fn value(run: u32, key: u32) -> Vec<u8> {
        let mut state = u64::from(run) << 32 | u64::from(key);
        (0..200)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                (state >> 56) as u8
            })
            .collect()
    }

    /// A database whose table has four runs, each with every key; run 0 (the newest) holds
    /// `value(0, k)`, and every fifth key of run 0 is a deletion.
    fn four_runs() -> (tempfile::TempDir, DbSlot) {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::create(dir.path().join("db.redb")).unwrap();
        let txn = db.begin_write().unwrap();
        let mut runs = Vec::new();
        for run in 0..4 {
            let mut builder = RunBuilder::new(KEYS as usize);
            for k in 0..KEYS {
                let deleted = run == 0 && k % 5 == 0;
                builder.add(
                    &k.to_be_bytes(),
                    (!deleted).then(|| value(run, k)).as_deref(),
                );
            }
            runs.push(builder.finish(&txn).unwrap().unwrap());
        }
        manifest::write(&txn, TABLE, &runs).unwrap();
        txn.commit().unwrap();
        (dir, Arc::new(std::sync::RwLock::new(Some(Arc::new(db)))))
    }

    /// Every stored row of the table is run 0's, and only those.
    fn check_rows(db: &Database) {
        let txn = db.begin_write().unwrap();
        let mut seen = Vec::new();
        stored::for_each(&txn, TABLE, Bound::Unbounded, Bound::Unbounded, |k, v| {
            let k = u32::from_be_bytes(k.try_into().unwrap());
            assert_eq!(v, value(0, k), "key {k}");
            seen.push(k);
            Ok(true)
        })
        .unwrap();
        let live: Vec<u32> = (0..KEYS).filter(|k| k % 5 != 0).collect();
        assert_eq!(seen, live);
        for k in (0..KEYS).step_by(7) {
            let got = stored::get(&txn, TABLE, &k.to_be_bytes()).unwrap();
            assert_eq!(got.as_deref(), (k % 5 != 0).then(|| value(0, k)).as_deref());
        }
        txn.abort().unwrap();
    }

    fn blocks_of(db: &Database, run: Uuid) -> u64 {
        let txn = db.begin_read().unwrap();
        let table = txn.open_table(data_table(&run_table_name(run))).unwrap();
        redb::ReadableTableMetadata::len(&table).unwrap()
    }

    /// A merge stopped after its first chunk leaves the manifest listing its output so far and
    /// what remains of its inputs, clipped: every row still reads as before, the blocks it
    /// passed are gone from the inputs, and a later merge finishes the work.
    #[test]
    fn a_merge_stopped_midway_leaves_its_output_and_the_rest_of_its_inputs() {
        let (_dir, slot) = four_runs();
        let db = slot::current(&slot).unwrap();
        let inputs = manifest::read(&db.begin_read().unwrap(), TABLE).unwrap();
        let parts = CompactorParts {
            db: slot.clone(),
            views: Arc::new(ViewCache::new(1 << 20)),
            throughput: 0,
            merges: Arc::new(MergeTracker::default()),
        };
        let stop = Signal::default();
        lock(&stop.state).1 = true;
        assert!(compact_once(&parts, &stop).unwrap());

        let runs = manifest::read(&db.begin_read().unwrap(), TABLE).unwrap();
        assert_eq!(
            runs.len(),
            5,
            "the output so far, then the four inputs clipped"
        );
        let output = &runs[0];
        assert!(inputs.iter().all(|r| r.id != output.id));
        assert_eq!(
            output.first_key,
            1u32.to_be_bytes(),
            "key 0 was a deletion, dropped"
        );
        for (left, input) in runs[1..].iter().zip(&inputs) {
            assert_eq!(left.id, input.id);
            assert!(left.first_key > output.last_key);
            assert_eq!(left.last_key, input.last_key);
            assert!(left.bytes < input.bytes && left.blocks < input.blocks);
            assert_eq!(blocks_of(&db, left.id), left.blocks);
        }
        check_rows(&db);
        // Stopped, it got the filter of its keys; opening keeps its runs' filters.
        assert_eq!(remove_orphans(&db).unwrap(), 0);
        let filter = super::super::filter::in_read(&db.begin_read().unwrap(), output.id);
        let super::super::filter::RunFilter::Bloom(filter_before) = filter.unwrap() else {
            panic!("a stand-in after the stop");
        };
        assert_eq!(filter_before.keys as u64, output.rows);
        // After a crash the stand-in stays; once an input it names is gone, it rules out
        // nothing, and the compactor gives the run the filter of its keys when it starts.
        let txn = db.begin_write().unwrap();
        txn.open_table(super::super::RUN_FILTERS)
            .unwrap()
            .insert(
                output.id.as_bytes().as_slice(),
                super::super::filter::stand_in(&[Uuid::new_v4()]).as_slice(),
            )
            .unwrap();
        txn.commit().unwrap();
        super::super::filter::forget([output.id]);
        let filter = super::super::filter::in_read(&db.begin_read().unwrap(), output.id);
        assert!(matches!(
            filter.unwrap(),
            super::super::filter::RunFilter::Inputs(None)
        ));
        assert_eq!(replace_stand_ins(&slot).unwrap(), 1);
        assert_eq!(replace_stand_ins(&slot).unwrap(), 0);
        let filter = super::super::filter::in_read(&db.begin_read().unwrap(), output.id);
        let super::super::filter::RunFilter::Bloom(rebuilt) = filter.unwrap() else {
            panic!("still a stand-in");
        };
        assert_eq!(rebuilt.keys, filter_before.keys);
        let first = u32::from_be_bytes(output.first_key.as_slice().try_into().unwrap());
        let last = u32::from_be_bytes(output.last_key.as_slice().try_into().unwrap());
        assert!((first..=last)
            .filter(|k| k % 5 != 0)
            .all(|k| rebuilt.may_hold(crate::hash::bloom::stored_key_hash(&k.to_be_bytes()))));
        check_rows(&db);

        assert_eq!(
            compact_pending(&slot, &parts.views, &parts.merges).unwrap(),
            1
        );
        let runs = manifest::read(&db.begin_read().unwrap(), TABLE).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].rows, u64::from(KEYS - KEYS / 5));
        check_rows(&db);
        let txn = db.begin_read().unwrap();
        let filters = txn.open_table(super::super::RUN_FILTERS).unwrap();
        for run in &inputs {
            assert!(txn.open_table(data_table(&run_table_name(run.id))).is_err());
            assert!(filters.get(run.id.as_bytes().as_slice()).unwrap().is_none());
        }
        assert_eq!(redb::ReadableTableMetadata::len(&filters).unwrap(), 1);
    }

    /// A merge goes on only while the manifest lists its runs adjacent and in order: a
    /// TRUNCATE or DROP meanwhile takes them out, and the merge drops its output.
    #[test]
    fn a_merge_finds_its_runs_only_where_they_still_stand_together() {
        let runs: Vec<RunMeta> = (1..=5)
            .map(|i| RunMeta::empty(Uuid::from_u128(i)))
            .collect();
        let ids = |of: &[u128]| of.iter().map(|&i| Uuid::from_u128(i)).collect::<Vec<_>>();
        assert_eq!(position_of(&runs, &ids(&[2, 3, 4])), Some(1));
        assert_eq!(position_of(&runs, &ids(&[4, 5])), Some(3));
        assert_eq!(position_of(&runs, &ids(&[2, 4])), None);
        assert_eq!(position_of(&runs, &ids(&[4, 5, 6])), None);
        assert_eq!(position_of(&runs, &ids(&[9])), None);
        assert_eq!(position_of(&[], &ids(&[1])), None);
    }

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
