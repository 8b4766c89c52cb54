//! Power cuts around snapshots, on the simulated disk (`disk::sim`): a workload that writes,
//! takes a snapshot, writes, restores and writes again in `batch` mode loses power at its
//! `n`th mutating operation, for `n` spread over all of it. What survives is the state after
//! the last acknowledged step or after the step the cut interrupted, never a mix (a restore
//! acknowledged is never undone by replaying the commit log from before it), and a snapshot
//! acknowledged restores whole.

use std::path::PathBuf;
use std::sync::Arc;

use super::store_tests::{add, delete_from, dump, insert_plain, setup, Dump};
use crate::disk::sim::SimDisk;
use crate::view::store_tests::insert;
use crate::StorageError;
use crate::Store;
use crate::StoreOptions;
use crate::SyncMode;
use crate::WriteBatch;

fn open(disk: &Arc<SimDisk>) -> Result<Store, StorageError> {
    let options = StoreOptions {
        sync: SyncMode::Batch,
        memtable_size: 12 << 10,
        cache_size: 1 << 20,
        commit_failure_policy: crate::CommitFailurePolicy::Ignore,
        disk_failure_policy: crate::DiskFailurePolicy::Ignore,
        ..StoreOptions::default()
    };
    Store::open_on(disk.clone(), &PathBuf::from("/sim/data/db.redb"), options).map(|(s, _)| s)
}

/// Rows into the plain (memtable) table, the indexed base and the counters, one request.
fn writes(round: i32, ts: i64) -> WriteBatch {
    let mut batch = WriteBatch::default();
    for c in 0..8 {
        batch
            .rows
            .extend(insert_plain(round, c, c + ts as i32, ts).rows);
        batch.rows.extend(insert(round, c, c * 10, ts).rows);
    }
    batch.counters.extend(add(round, ts, ts).counters);
    batch
}

/// The workload's steps, each a request that is acknowledged or not.
fn step(store: &Store, n: usize) -> Result<(), StorageError> {
    match n {
        0 => {
            setup(store);
            Ok(())
        }
        1 => store.write_blocking(writes(1, 1)),
        2 => store.take_snapshot("s", 1).map(drop),
        3 => {
            let mut batch = writes(2, 2);
            batch.range_tombstones = delete_from(1, 3, 3).range_tombstones;
            store.write_blocking(batch)
        }
        4 => store.restore_snapshot("s").map(drop),
        _ => store.write_blocking(writes(3, 4)),
    }
}

const STEPS: usize = 6;

/// Runs the steps until one fails; how many were acknowledged.
fn workload(disk: &Arc<SimDisk>) -> usize {
    let Ok(store) = open(disk) else { return 0 };
    // Setup is not fallible in the helper; a cut before it ends is caught by its panic.
    let acked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        (0..STEPS).take_while(|&n| step(&store, n).is_ok()).count()
    }));
    drop(store);
    acked.unwrap_or(0)
}

#[test]
fn a_power_cut_around_snapshots_leaves_a_whole_step() {
    // The state after each step, on a disk that never fails.
    let whole = SimDisk::new(1);
    let store = open(&whole).unwrap();
    let mut states: Vec<Dump> = Vec::new();
    for n in 0..STEPS {
        step(&store, n).unwrap();
        states.push(dump(&store));
    }
    assert_eq!(
        states[4], states[1],
        "the restore brings step 1's state back"
    );
    drop(store);
    let total = whole.ops();
    let rounds = 30;
    for round in 0..rounds {
        let seed = 0x5_a9a5 + round * 7919;
        let cut = 1 + (total * round) / rounds + seed % (total / rounds).max(1);
        let disk = SimDisk::new(seed);
        disk.cut_at(cut);
        let acked = workload(&disk);
        let image = disk.image(seed.rotate_left(9));
        let what = format!("cut at {cut}/{total}, {acked} steps acknowledged");
        let store = open(&image).unwrap_or_else(|e| panic!("{what}: {e}"));
        if acked == 0 {
            continue;
        }
        let found = dump(&store);
        let allowed = &states[acked - 1..=acked.min(STEPS - 1)];
        assert!(allowed.contains(&found), "{what}: {found:?}");
        if acked > 2 {
            store
                .restore_snapshot("s")
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(
                dump(&store),
                states[1],
                "{what}: the snapshot restores whole"
            );
        }
    }
}
