//! Store-level tests of sorted runs: flushes write runs, reads and scans merge them with the
//! head and the memtable, compaction merges them, and all of it survives a reopen.

use std::ops::Bound;

use bytes::Bytes;

use crate::catalog::TableDef;
use crate::runs::manifest::{self, RunMeta};
use crate::store_tests::{create_schema, key, open_sized, rows, value_of};
use crate::{Cell, ColumnId, KeyRange, Liveness, Order, RowWrite, Store, StoredRow, SyncMode};

/// A row of partition `p`, clustering `c1`, holding `value` written at `timestamp`.
fn put_at(table: &TableDef, p: i32, c1: i64, value: &str, timestamp: i64) -> RowWrite {
    RowWrite {
        table_id: table.id,
        key: key(table, p, c1),
        update: StoredRow {
            liveness: Some(Liveness {
                timestamp,
                ttl: None,
            }),
            deletion: None,
            cells: vec![(
                ColumnId(4),
                Cell::live(timestamp, value.as_bytes().to_vec()),
            )],
        },
    }
}

/// Writes `count` rows (partitions `0..count / 10`, ten rows each) at `timestamp`, in
/// batches of 50, with values `"<round>/<p>/<c>"`.
fn write_round(store: &Store, table: &TableDef, count: i32, round: i64) {
    let all: Vec<_> = (0..count)
        .map(|i| {
            let (p, c) = (i / 10, i64::from(i % 10));
            put_at(table, p, c, &format!("{round}/{p}/{c}"), round)
        })
        .collect();
    for batch in all.chunks(50) {
        store.write_blocking(rows(batch.to_vec())).unwrap();
    }
}

fn runs_of(store: &Store, table: &TableDef) -> Vec<RunMeta> {
    let snapshot = store.snapshot().unwrap();
    manifest::read(&snapshot.view.txn, table.id).unwrap()
}

fn check_round(store: &Store, table: &TableDef, count: i32, round: i64) {
    for i in 0..count {
        let (p, c) = (i / 10, i64::from(i % 10));
        let expected = format!("{round}/{p}/{c}");
        assert_eq!(
            value_of(store, table, p, c),
            Some(Bytes::from(expected)),
            "row {p}/{c}"
        );
    }
}

/// Every row of partition `p` as `(c1, value)`, in the given order.
fn partition(store: &Store, table: &TableDef, p: i32, order: Order) -> Vec<(i64, String)> {
    let range = KeyRange::between(
        Bound::Included(key(table, p, i64::MIN)),
        Bound::Included(key(table, p, i64::MAX)),
    );
    let c1_of = |k: &[u8]| (0..10).find(|c| key(table, p, *c) == k).unwrap();
    let snapshot = store.snapshot().unwrap();
    snapshot
        .scan(table.id, &range, order)
        .unwrap()
        .map(|item| {
            let (key, row) = item.unwrap();
            let value = match &row.cell(ColumnId(4)).unwrap().value {
                crate::CellValue::Live(v) => String::from_utf8(v.to_vec()).unwrap(),
                crate::CellValue::Tombstone { .. } => String::new(),
            };
            (c1_of(&key), value)
        })
        .collect()
}

#[test]
fn flushed_runs_serve_reads_and_scans_across_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
    let table = create_schema(&store);
    write_round(&store, &table, 4000, 1);
    store.flush().unwrap();
    let runs = runs_of(&store, &table);
    assert!(!runs.is_empty(), "the flush wrote a run");
    assert_eq!(runs.iter().map(|r| r.rows).sum::<u64>(), 4000);
    check_round(&store, &table, 4000, 1);
    let forward = partition(&store, &table, 7, Order::Forward);
    assert_eq!(
        forward,
        (0..10).map(|c| (c, format!("1/7/{c}"))).collect::<Vec<_>>()
    );
    let mut reverse = partition(&store, &table, 7, Order::Reverse);
    reverse.reverse();
    assert_eq!(reverse, forward);
    drop(store);
    let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
    check_round(&store, &table, 4000, 1);
    assert_eq!(partition(&store, &table, 399, Order::Forward).len(), 10);
}

#[test]
fn compaction_keeps_the_newest_version_of_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
    let table = create_schema(&store);
    for round in 1..=4 {
        // Each round rewrites a different share of the rows.
        write_round(&store, &table, 1000 * round as i32, round);
        store.flush().unwrap();
    }
    assert_eq!(runs_of(&store, &table).len(), 4);
    assert_eq!(store.compact().unwrap(), 1);
    let runs = runs_of(&store, &table);
    assert_eq!(runs.len(), 1, "four runs of one tier became one");
    assert_eq!(runs[0].rows, 4000);
    check_round(&store, &table, 4000, 4);
    // Writes after the merge still win over it, in the memtable and flushed.
    write_round(&store, &table, 600, 5);
    check_round(&store, &table, 600, 5);
    store.flush().unwrap();
    drop(store);
    let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
    check_round(&store, &table, 600, 5);
    let p = partition(&store, &table, 70, Order::Forward);
    assert_eq!(p[0], (0, "4/70/0".to_string()));
}
