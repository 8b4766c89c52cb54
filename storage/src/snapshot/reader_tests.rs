//! Readers during restores: a scan never sees the restored runs beside the memtable's rows
//! of the state the restore replaced, nor the old runs without them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::store_tests::{fill, insert_plain, plain, setup};
use crate::KeyRange;
use crate::Order;
use crate::Store;
use crate::StoreOptions;
use crate::WriteBatch;

/// A reader scanning while restores replace a state whose rows are in runs and in the
/// memtable never sees the snapshot's rows beside the memtable's: each restore is seen whole.
#[test]
fn no_reader_sees_half_a_restore() {
    let (store, _) = Store::open_in_memory(StoreOptions::default()).unwrap();
    setup(&store);
    fill(&store, 1, 200, 0, 1);
    store.take_snapshot("s", 1).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (store, stop) = (store.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut checked = 0;
            while !stop.load(Ordering::Relaxed) {
                let snapshot = store.snapshot().unwrap();
                let stamps: Vec<i64> = snapshot
                    .scan(plain().id, &KeyRange::all(), Order::Forward)
                    .unwrap()
                    .map(|item| item.unwrap().1.liveness.map_or(0, |l| l.timestamp))
                    .collect();
                assert_eq!(stamps.len(), 200);
                // The snapshot's rows (timestamp 1) never stand beside later ones.
                assert!(
                    stamps.iter().all(|&ts| ts == 1) || stamps.iter().all(|&ts| ts != 1),
                    "a scan saw two states: {stamps:?}"
                );
                checked += 1;
            }
            checked
        })
    };
    for round in 0..30 {
        // Every row rewritten and flushed into a run, then half of them again into the
        // memtable: a restore must drop both at once.
        let mut all = WriteBatch::default();
        let mut half = WriteBatch::default();
        for c in 0..200 {
            all.rows.extend(insert_plain(1, c, c, 10 + 2 * round).rows);
            if c % 2 == 0 {
                half.rows.extend(insert_plain(1, c, c, 11 + 2 * round).rows);
            }
        }
        store.write_blocking(all).unwrap();
        store.flush().unwrap();
        store.write_blocking(half).unwrap();
        store.restore_snapshot("s").unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    assert!(reader.join().unwrap() > 0);
}
