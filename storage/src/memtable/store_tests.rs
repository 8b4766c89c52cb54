//! The memtable under real stores: rows merge over stored ones, reads see one consistent
//! state while the flusher writes a frozen memtable to redb, and nothing is lost across it.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use redb::ReadableTableMetadata;

use crate::store::tables::data_table;
use crate::store::tables::data_table_name;
use crate::store::tests::crash_copy;
use crate::store::tests::create_schema;
use crate::store::tests::key;
use crate::store::tests::open_in;
use crate::store::tests::open_sized;
use crate::store::tests::put;
use crate::store::tests::rows;
use crate::store::tests::value_of;
use crate::Cell;
use crate::ColumnId;
use crate::Store;
use crate::StoredRow;
use crate::SyncMode;
use crate::TableDef;

/// Rows of partition 1 as a scan returns them: (clustering c1, column 4, column 5).
fn scan_partition(store: &Store, table: &TableDef, reverse: bool) -> Vec<(i64, String, String)> {
    let start = key(table, 1, i64::MIN);
    let end = key(table, 1, i64::MAX);
    let snapshot = store.snapshot().unwrap();
    let range = crate::KeyRange::between(
        std::ops::Bound::Included(start),
        std::ops::Bound::Included(end),
    );
    let text = |row: &StoredRow, id| match row.cell(ColumnId(id)).map(|c| &c.value) {
        Some(crate::CellValue::Live(v)) => String::from_utf8(v.to_vec()).unwrap(),
        _ => String::new(),
    };
    let c1_of = |k: &[u8]| (0..100).find(|c| key(table, 1, *c) == k).unwrap();
    snapshot
        .scan(table.id, &range, crate::Order::reversed_if(reverse))
        .unwrap()
        .map(|item| {
            let (k, row) = item.unwrap();
            (c1_of(&k), text(&row, 4), text(&row, 5))
        })
        .collect()
}

/// Rows stored in redb itself (not the memtable) for `table`: in its head and its runs.
fn stored_rows(store: &Store, table: &TableDef) -> u64 {
    let txn = store.snapshot_txn();
    let name = data_table_name(table.id);
    let head = txn
        .open_table(data_table(&name))
        .map_or(0, |t| t.len().unwrap());
    let runs = crate::runs::manifest::read(&txn, table.id).unwrap();
    head + runs.iter().map(|r| r.rows).sum::<u64>()
}

#[test]
fn memtable_rows_merge_over_stored_rows_in_reads_and_scans() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_in(dir.path(), SyncMode::Periodic);
    let table = create_schema(&store);
    let first: Vec<_> = (0..10)
        .map(|c| put(&table, 1, c, &format!("a{c}")))
        .collect();
    store.write_blocking(rows(first)).unwrap();
    store.flush().unwrap();
    assert_eq!(
        stored_rows(&store, &table),
        10,
        "flush wrote the rows to redb"
    );
    // Column 5 on even rows and new rows 20..25: they stay in the memtable.
    let mut second: Vec<_> = (0..10)
        .step_by(2)
        .map(|c| {
            let mut w = put(&table, 1, c, "");
            w.update.liveness = None;
            w.update.cells = vec![(ColumnId(5), Cell::live(2, format!("b{c}").into_bytes()))];
            w
        })
        .collect();
    second.extend((20..25).map(|c| put(&table, 1, c, &format!("a{c}"))));
    store.write_blocking(rows(second)).unwrap();
    assert_eq!(
        stored_rows(&store, &table),
        10,
        "the new writes are in the memtable"
    );
    let expected: Vec<(i64, String, String)> = (0..10)
        .chain(20..25)
        .map(|c| {
            let b = if c < 10 && c % 2 == 0 {
                format!("b{c}")
            } else {
                String::new()
            };
            (c, format!("a{c}"), b)
        })
        .collect();
    assert_eq!(scan_partition(&store, &table, false), expected);
    let mut reversed = expected.clone();
    reversed.reverse();
    assert_eq!(scan_partition(&store, &table, true), reversed);
    assert_eq!(value_of(&store, &table, 1, 4).as_deref(), Some(&b"a4"[..]));
    assert_eq!(
        value_of(&store, &table, 1, 22).as_deref(),
        Some(&b"a22"[..])
    );
    // A flush moves everything to redb; reads do not change.
    store.flush().unwrap();
    assert_eq!(stored_rows(&store, &table), 15);
    assert_eq!(scan_partition(&store, &table, false), expected);
}

/// Rows new to the table go to the memtable as their commit-log request holds them; rows
/// merged with another version (one written earlier in the same batch, or one in the
/// memtable) are encoded anew. Either way reads see every write merged, before and after the
/// commit log is replayed.
#[test]
fn logged_rows_read_back_merged_whether_new_rewritten_in_the_batch_or_over_the_memtable() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_in(dir.path(), SyncMode::Periodic);
    let table = create_schema(&store);
    let column_5 = |c, value: &str| {
        let mut write = put(&table, 1, c, "");
        write.update.liveness = None;
        write.update.cells = vec![(ColumnId(5), Cell::live(2, value.as_bytes().to_vec()))];
        write
    };
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "old")]))
        .unwrap();
    let batch = vec![
        put(&table, 1, 2, "new"),
        column_5(1, "over the memtable"),
        put(&table, 1, 3, "first"),
        column_5(3, "same batch"),
        put(&table, 1, 4, "last"),
    ];
    store.write_blocking(rows(batch)).unwrap();
    let expected: Vec<(i64, String, String)> = [
        (1, "old", "over the memtable"),
        (2, "new", ""),
        (3, "first", "same batch"),
        (4, "last", ""),
    ]
    .iter()
    .map(|(c, a, b)| (*c, a.to_string(), b.to_string()))
    .collect();
    assert_eq!(scan_partition(&store, &table, false), expected);
    assert_eq!(value_of(&store, &table, 1, 2).as_deref(), Some(&b"new"[..]));
    let copy = tempfile::tempdir().unwrap();
    let replayed = crash_copy(dir.path(), copy.path());
    assert_eq!(scan_partition(&replayed, &table, false), expected);
}

/// 20 MB of writes pass the 16 MiB memtable size set here, so the flusher writes a frozen memtable
/// while writes go on; a reader checking every acknowledged row never misses one, redb ends
/// up holding rows without any explicit flush, and a crash copy has them all.
#[test]
fn a_background_flush_loses_no_row_and_hides_none() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let store = open_sized(&live, SyncMode::Periodic, 16 << 20);
    let table = create_schema(&store);
    let value = "v".repeat(8000);
    let acked = AtomicI64::new(-1);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            for c in 0..2500 {
                let row = put(&table, 2, c, &format!("{c}{value}"));
                store.write_blocking(rows(vec![row])).unwrap();
                acked.store(c, Ordering::Release);
            }
            done.store(true, Ordering::Release);
        });
        scope.spawn(|| {
            let mut checks = 0;
            while !done.load(Ordering::Acquire) || checks < 3 {
                let upto = acked.load(Ordering::Acquire);
                for c in (0..=upto).rev().step_by(97).chain([0, upto.max(0)]) {
                    if upto >= 0 {
                        let got = value_of(&store, &table, 2, c).expect("an acknowledged row");
                        assert!(got.starts_with(c.to_string().as_bytes()));
                    }
                }
                checks += 1;
                std::thread::sleep(Duration::from_millis(2));
            }
        });
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while stored_rows(&store, &table) == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        stored_rows(&store, &table) > 0,
        "the flusher wrote rows to redb"
    );
    let copy = crash_copy(&live, &dir.path().join("copy"));
    for c in 0..2500 {
        let got = value_of(&copy, &table, 2, c).expect("every acknowledged row");
        assert!(got.starts_with(c.to_string().as_bytes()));
    }
    drop((store, copy));
}

/// Each batch sets rows 0 and 99 of a 100-row partition to the same value; scans (which copy
/// the memtable 64 keys at a time) and point reads running meanwhile never see one row of a
/// batch without the other.
#[test]
fn readers_never_see_half_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_in(dir.path(), SyncMode::Periodic);
    let table = create_schema(&store);
    let filler: Vec<_> = (0..100).map(|c| put(&table, 1, c, "0")).collect();
    store.write_blocking(rows(filler)).unwrap();
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            for i in 1..=300 {
                let v = i.to_string();
                let mut first = put(&table, 1, 0, &v);
                let mut last = put(&table, 1, 99, &v);
                first.update.cells[0].1.timestamp = i;
                last.update.cells[0].1.timestamp = i;
                store.write_blocking(rows(vec![first, last])).unwrap();
            }
            done.store(true, Ordering::Release);
        });
        for reverse in [false, true] {
            let (store, table, done) = (&store, &table, &done);
            scope.spawn(move || {
                let mut scans = 0;
                while !done.load(Ordering::Acquire) || scans < 5 {
                    let rows = scan_partition(store, table, reverse);
                    assert_eq!(rows.len(), 100);
                    let first = rows.iter().find(|r| r.0 == 0).unwrap();
                    let last = rows.iter().find(|r| r.0 == 99).unwrap();
                    assert_eq!(first.1, last.1, "a scan saw half a batch");
                    scans += 1;
                }
            });
        }
    });
    assert_eq!(
        value_of(&store, &table, 1, 99).as_deref(),
        Some(&b"300"[..])
    );
}

/// Whether the store holds a flushed layer for point lookups.
fn has_clean_layer(store: &Store) -> bool {
    store.inner.memtables.load().clean.is_some()
}

/// After a background flush its rows stay in memory as the clean layer: point reads and the
/// writer's merges find them there as redb holds them, and any other commit (a TRUNCATE
/// here) drops the layer, so no row it held shows again.
#[test]
fn a_flushed_layer_serves_point_reads_until_another_commit() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_sized(&dir.path().join("db"), SyncMode::Periodic, 1 << 20);
    let table = create_schema(&store);
    let value = "v".repeat(2000);
    let mut c = 0;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !has_clean_layer(&store) {
        assert!(std::time::Instant::now() < deadline, "no background flush");
        store
            .write_blocking(rows(vec![put(&table, 3, c, &format!("{c}{value}"))]))
            .unwrap();
        c += 1;
    }
    assert!(stored_rows(&store, &table) > 0, "the flush reached redb");
    for i in 0..c {
        let got = value_of(&store, &table, 3, i).expect("every written row");
        assert!(got.starts_with(format!("{i}v").as_bytes()));
    }
    // A partial update of a flushed row merges over the clean layer's copy.
    let mut update = put(&table, 3, 0, "");
    update.update.liveness = None;
    update.update.cells = vec![(ColumnId(5), Cell::live(i64::MAX / 2, b"new".to_vec()))];
    store.write_blocking(rows(vec![update])).unwrap();
    let snapshot = store.snapshot().unwrap();
    let row = snapshot.get(table.id, &key(&table, 3, 0)).unwrap().unwrap();
    assert!(row.cell(ColumnId(4)).is_some(), "the flushed cell is kept");
    assert!(row.cell(ColumnId(5)).is_some(), "the new cell is added");
    drop(snapshot);
    let truncate = crate::WriteBatch {
        rows: vec![],
        catalog: vec![crate::CatalogOp::TruncateTable { id: table.id }],
        range_tombstones: Vec::new(),
        counters: Vec::new(),
    };
    store.write_blocking(truncate).unwrap();
    assert!(
        !has_clean_layer(&store),
        "the commit dropped the clean layer"
    );
    for i in 0..c {
        assert_eq!(
            value_of(&store, &table, 3, i),
            None,
            "row {i} after TRUNCATE"
        );
    }
}

/// A flushed layer of large rows is not kept: a few of them would hold a layer's memory for
/// little gain. The rows are all still read, from redb.
#[test]
fn a_flushed_layer_of_large_rows_is_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_sized(&dir.path().join("db"), SyncMode::Periodic, 1 << 20);
    let table = create_schema(&store);
    let value = "w".repeat(64 << 10);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut c = 0;
    while stored_rows(&store, &table) == 0 {
        assert!(std::time::Instant::now() < deadline, "no background flush");
        store
            .write_blocking(rows(vec![put(&table, 4, c, &format!("{c}{value}"))]))
            .unwrap();
        c += 1;
    }
    // One more write lets the writer take the flush's outcome.
    store
        .write_blocking(rows(vec![put(&table, 4, c, "last")]))
        .unwrap();
    assert!(!has_clean_layer(&store));
    for i in 0..c {
        let got = value_of(&store, &table, 4, i).expect("every written row");
        assert!(got.starts_with(format!("{i}w").as_bytes()));
    }
}
