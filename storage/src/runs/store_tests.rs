//! Store-level tests of sorted runs: flushes write runs, reads and scans merge them with the
//! head and the memtable, compaction merges them, and all of it survives a reopen.

use std::ops::Bound;

use bytes::Bytes;

use crate::catalog::TableDef;
use crate::runs::manifest;
use crate::runs::manifest::RunMeta;
use crate::runs::stored;
use crate::store::tests::create_schema;
use crate::store::tests::create_schema_with;
use crate::store::tests::key;
use crate::store::tests::open_sized;
use crate::store::tests::rows;
use crate::store::tests::value_of;
use crate::Cell;
use crate::ColumnId;
use crate::KeyRange;
use crate::Liveness;
use crate::Order;
use crate::RowWrite;
use crate::Store;
use crate::StoredRow;
use crate::SyncMode;

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

/// A store in a new directory whose table holds `count` rows of round 1, flushed into runs.
fn flushed_round(count: i32) -> (tempfile::TempDir, Store, std::sync::Arc<TableDef>) {
    let dir = tempfile::tempdir().unwrap();
    let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
    let table = create_schema(&store);
    write_round(&store, &table, count, 1);
    store.flush().unwrap();
    (dir, store, table)
}

#[test]
fn flushed_runs_serve_reads_and_scans_across_a_reopen() {
    let (dir, store, table) = flushed_round(4000);
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
    // The background compactor may have merged them already; `compact` finishes the work.
    store.compact().unwrap();
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

/// A table with a secondary index is written through writer transactions, into its head;
/// a full head becomes a run, and reads, index lookups and overwrites still see every row.
#[test]
fn a_full_head_becomes_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
    let mut indexed = crate::catalog::tests::sample_table();
    indexed.indexes.push(crate::IndexDef {
        id: uuid::Uuid::from_u128(0x91),
        name: "t_v_idx".into(),
        column: ColumnId(4),
        target: crate::IndexTargetKind::Simple,
        custom_class: None,
        options: Default::default(),
    });
    let table = std::sync::Arc::new(indexed);
    create_schema_with(&store, &table);
    write_round(&store, &table, 1000, 1);
    let runs = runs_of(&store, &table);
    assert!(!runs.is_empty(), "the head was sealed");
    assert!(runs.iter().map(|r| r.rows).sum::<u64>() >= u64::from(stored::HEAD_LIMIT as u32));
    check_round(&store, &table, 1000, 1);
    write_round(&store, &table, 300, 2);
    check_round(&store, &table, 300, 2);
    let prefix = crate::index::lookup_prefix(&[b"2/7/3".as_slice()]).unwrap();
    let entries = store
        .snapshot()
        .unwrap()
        .index_entries(uuid::Uuid::from_u128(0x91), &prefix)
        .unwrap();
    assert_eq!(entries, vec![key(&table, 7, 3)]);
    drop(store);
    let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
    check_round(&store, &table, 300, 2);
    assert_eq!(partition(&store, &table, 50, Order::Forward).len(), 10);
}

/// A merge output that no manifest names (a compaction cut short) is deleted at open.
#[test]
fn an_unfinished_merge_is_removed_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
    let table = create_schema(&store);
    write_round(&store, &table, 1000, 1);
    store.flush().unwrap();
    drop(store);
    let path = dir.path().join("db.redb");
    let orphan = {
        let db = crate::store::tests::raw_database(&path);
        let txn = db.begin_write().unwrap();
        let mut run = crate::runs::build::RunBuilder::new(10);
        for i in 0u32..10 {
            run.add(&i.to_be_bytes(), Some(b"x"));
        }
        let id = run.id();
        run.store_ready(&txn).unwrap();
        drop(run);
        txn.commit().unwrap();
        id
    };
    let has_orphan = |store: &Store| {
        let txn = store.snapshot_txn();
        let name = crate::runs::run_table_name(orphan);
        let found = redb::ReadTransaction::list_tables(&txn)
            .unwrap()
            .any(|t| redb::TableHandle::name(&t) == name);
        found
    };
    let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
    assert!(!has_orphan(&store));
    check_round(&store, &table, 1000, 1);
}

/// A partial update of a row that only a run holds merges with the run's version: the
/// writer's memtable merge reads runs too, not just the head.
#[test]
fn a_partial_update_merges_with_the_row_in_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_sized(dir.path(), SyncMode::Periodic, 1 << 20);
    let table = create_schema(&store);
    write_round(&store, &table, 2000, 1);
    store.flush().unwrap();
    // A second flush leaves no clean layer holding the rows: only the run has them.
    write_round(&store, &table, 10, 2);
    store.flush().unwrap();
    assert!(!runs_of(&store, &table).is_empty());
    let mut update = put_at(&table, 150, 3, "", 9);
    update.update.liveness = None;
    update.update.cells = vec![(ColumnId(5), Cell::live(9, b"new".to_vec()))];
    store.write_blocking(rows(vec![update])).unwrap();
    let row = store
        .snapshot()
        .unwrap()
        .get(table.id, &key(&table, 150, 3))
        .unwrap()
        .unwrap();
    assert!(row.cell(ColumnId(4)).is_some(), "the run's cell is kept");
    assert!(row.cell(ColumnId(5)).is_some(), "the new cell is added");
}

/// Runs one whole purge pass over `table` as of `now`; returns the rows it examined and
/// rewrote.
fn purge_pass(store: &Store, table: &TableDef, now: i64) -> (u64, u64) {
    let (mut examined, mut rewritten) = (0, 0);
    let mut resume_after = None;
    loop {
        let progress = store
            .purge(crate::PurgeRequest {
                table: table.clone(),
                now_seconds: now,
                resume_after,
                max_rows: 500,
            })
            .unwrap();
        examined += progress.rows_examined;
        rewritten += progress.rows_rewritten;
        resume_after = progress.resume_after;
        if resume_after.is_none() {
            return (examined, rewritten);
        }
    }
}

/// Rows `from..to` of partition 9_000 + i / 10, their value cell expiring at `expires_at`.
fn expiring_rows(table: &TableDef, from: i32, to: i32, expires_at: i64) -> Vec<RowWrite> {
    (from..to)
        .map(|i| {
            let mut row = put_at(table, 9_000 + i / 10, i64::from(i % 10), "soon gone", 5);
            row.update.cells[0].1.expiry = Some(crate::Expiry {
                ttl_seconds: 60,
                expires_at_seconds: expires_at,
            });
            row
        })
        .collect()
}

/// A purge pass reads a table's runs only when one of them holds something due: a run of
/// rows that never expire costs a pass nothing, while an expired cell in a run is still found.
#[test]
fn a_purge_pass_leaves_out_runs_that_hold_nothing_due() {
    let (_dir, store, table) = flushed_round(4000);
    let runs = runs_of(&store, &table);
    assert!(!runs.is_empty());
    assert!(runs
        .iter()
        .all(|r| r.purge == crate::encoding::row::PurgeTimes::NONE));
    // A few expiring rows: too few for a run of their own, so the flush puts them in the head.
    store
        .write_blocking(rows(expiring_rows(&table, 0, 3, 1_000)))
        .unwrap();
    store.flush().unwrap();
    assert_eq!(runs_of(&store, &table).len(), runs.len());
    assert_eq!(purge_pass(&store, &table, 2_000), (3, 3));

    // Expiring rows in a run of their own make every run worth reading.
    store
        .write_blocking(rows(expiring_rows(&table, 10, 1_010, 1_000)))
        .unwrap();
    store.flush().unwrap();
    let runs = runs_of(&store, &table);
    assert_eq!(runs[0].purge.expiry, 1_000);
    let (examined, rewritten) = purge_pass(&store, &table, 2_000);
    assert_eq!(examined, 4_000 + 3 + 1_000);
    assert_eq!(rewritten, 1_000);
    check_round(&store, &table, 4000, 1);
}
