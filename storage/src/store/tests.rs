//! Store-level tests: catalog persistence, group commit, durability per sync mode, reads.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use uuid::Uuid;

use crate::catalog::tests::sample_table;
use crate::row_key;
use crate::store::tables::data_table;
use crate::store::tables::data_table_name;
use crate::store::tables::FORMAT_VERSION_KEY;
use crate::store::tables::META;
use crate::CatalogOp;
use crate::Cell;
use crate::ColumnId;
use crate::KeyRange;
use crate::KeyspaceDef;
use crate::Liveness;
use crate::Order;
use crate::RowWrite;
use crate::StorageError;
use crate::Store;
use crate::StoreOptions;
use crate::StoredRow;
use crate::SyncMode;
use crate::TableDef;
use crate::WriteBatch;
use crate::FORMAT_VERSION;
use redb::ReadableTable;

fn keyspace(name: &str) -> KeyspaceDef {
    KeyspaceDef {
        name: name.into(),
        replication: BTreeMap::from([
            ("class".into(), "SimpleStrategy".into()),
            ("replication_factor".into(), "1".into()),
        ]),
        durable_writes: true,
        tables: BTreeMap::new(),
        types: BTreeMap::new(),
    }
}

pub(crate) fn create_schema(store: &Store) -> Arc<TableDef> {
    let table = Arc::new(sample_table());
    create_schema_with(store, &table);
    table
}

/// Creates keyspace `ks` and `table` in it.
pub(crate) fn create_schema_with(store: &Store, table: &Arc<TableDef>) {
    store
        .write_blocking(WriteBatch {
            rows: vec![],
            catalog: vec![
                CatalogOp::PutKeyspace(keyspace("ks")),
                CatalogOp::PutTable(table.clone()),
            ],
            range_tombstones: Vec::new(),
            counters: Vec::new(),
        })
        .unwrap();
}

pub(crate) fn key(table: &TableDef, p: i32, c1: i64) -> Vec<u8> {
    row_key(
        table,
        &[
            Bytes::from(p.to_be_bytes().to_vec()),
            Bytes::from_static(b"q"),
        ],
        &[
            Bytes::from(c1.to_be_bytes().to_vec()),
            Bytes::from_static(b"c2"),
        ],
    )
    .unwrap()
}

pub(crate) fn put(table: &TableDef, p: i32, c1: i64, value: &str) -> RowWrite {
    RowWrite {
        table_id: table.id,
        key: key(table, p, c1),
        update: StoredRow {
            liveness: Some(Liveness {
                timestamp: 1,
                ttl: None,
            }),
            deletion: None,
            cells: vec![(ColumnId(4), Cell::live(1, value.as_bytes().to_vec()))],
        },
    }
}

pub(crate) fn rows(writes: Vec<RowWrite>) -> WriteBatch {
    WriteBatch {
        rows: writes,
        catalog: vec![],
        range_tombstones: Vec::new(),
        counters: Vec::new(),
    }
}

pub(crate) fn value_of(store: &Store, table: &TableDef, p: i32, c1: i64) -> Option<Bytes> {
    let row = store
        .snapshot()
        .unwrap()
        .get(table.id, &key(table, p, c1))
        .unwrap()?;
    match &row.cell(ColumnId(4))?.value {
        crate::CellValue::Live(v) => Some(v.clone()),
        crate::CellValue::Tombstone { .. } => None,
    }
}

fn options(sync: SyncMode, period: Duration) -> StoreOptions {
    StoreOptions {
        sync,
        sync_period: period,
        ..StoreOptions::default()
    }
}

fn memory() -> Store {
    Store::open_in_memory(StoreOptions::default()).unwrap().0
}

#[test]
fn catalog_persists_across_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.redb");
    let (store, catalog) = Store::open(&path, StoreOptions::default()).unwrap();
    assert!(catalog.keyspaces.is_empty());
    let table = create_schema(&store);
    store.shutdown().unwrap();
    drop(store);
    let (_store, catalog) = Store::open(&path, StoreOptions::default()).unwrap();
    assert_eq!(
        catalog.keyspaces["ks"].replication,
        keyspace("ks").replication
    );
    assert_eq!(catalog.table("ks", "t"), Some(&table));
    assert_eq!(catalog.table_by_id(table.id), Some(&table));
}

#[test]
fn concurrent_writers_are_group_committed() {
    let store = memory();
    let table = create_schema(&store);
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (store, table) = (store.clone(), table.clone());
            std::thread::spawn(move || {
                let (tx, rx) = std::sync::mpsc::channel();
                for i in 0..50 {
                    let tx = tx.clone();
                    let write = put(&table, t, i, &format!("{t}-{i}"));
                    store.submit(rows(vec![write]), Box::new(move |r| tx.send(r).unwrap()));
                }
                drop(tx);
                rx.iter().map(|r| r.unwrap()).count()
            })
        })
        .collect();
    let acked: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(acked, 400);
    for t in 0..8 {
        for i in 0..50 {
            let v = value_of(&store, &table, t, i).unwrap();
            assert_eq!(v, format!("{t}-{i}").as_bytes());
        }
    }
}

#[test]
fn one_bad_request_does_not_fail_its_group() {
    let store = memory();
    let table = create_schema(&store);
    // A corrupt stored row under key (1, 1): written, made durable, then overwritten behind
    // the writer's back (so its key filter knows the key).
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "old")]))
        .unwrap();
    store.flush().unwrap();
    {
        let txn = crate::store::slot::current(&store.inner.db)
            .unwrap()
            .begin_write()
            .unwrap();
        let name = data_table_name(table.id);
        let mut t = txn.open_table(data_table(&name)).unwrap();
        t.insert(key(&table, 1, 1).as_slice(), [9u8, 9].as_slice())
            .unwrap();
        drop(t);
        txn.commit().unwrap();
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let unknown = RowWrite {
        table_id: Uuid::from_u128(99),
        ..put(&table, 3, 3, "x")
    };
    for (i, batch) in [
        rows(vec![put(&table, 1, 1, "bad")]),
        rows(vec![put(&table, 2, 2, "good")]),
        rows(vec![unknown]),
    ]
    .into_iter()
    .enumerate()
    {
        let tx = tx.clone();
        store.submit(batch, Box::new(move |r| tx.send((i, r)).unwrap()));
    }
    drop(tx);
    let mut results: Vec<_> = rx.iter().collect();
    results.sort_by_key(|(i, _)| *i);
    assert!(matches!(results[0].1, Err(StorageError::Corrupt { .. })));
    assert!(results[1].1.is_ok());
    assert!(matches!(
        results[2].1,
        Err(StorageError::UnknownTable { .. })
    ));
    assert_eq!(value_of(&store, &table, 2, 2).unwrap(), "good".as_bytes());
}

#[test]
fn writes_merge_with_the_stored_row() {
    let store = memory();
    let table = create_schema(&store);
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "a")]))
        .unwrap();
    let mut newer = put(&table, 1, 1, "b");
    newer.update.cells[0].1.timestamp = 5;
    let mut older = put(&table, 1, 1, "c");
    older.update.cells[0].1.timestamp = 3;
    store.write_blocking(rows(vec![newer, older])).unwrap();
    assert_eq!(value_of(&store, &table, 1, 1).unwrap(), "b".as_bytes());
}

/// The store's database opened with redb alone, to change it behind the store's back as an
/// older build would have written it. Its page checksums are forgotten (they would take the
/// change for damage); the store learns them again as it reads.
pub(crate) fn raw_database(path: &Path) -> redb::Database {
    let sums = crate::disk::checked::side_path(path);
    if sums.exists() {
        std::fs::remove_file(sums).unwrap();
    }
    redb::Database::create(path).unwrap()
}

/// What a kill -9 leaves: the store's directory (database and commit log) copied while the
/// store is still running, opened as a new store.
pub(crate) fn crash_copy(from: &Path, to: &Path) -> Store {
    copy_dir(from, to);
    Store::open(&to.join("db.redb"), StoreOptions::default())
        .unwrap()
        .0
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

pub(crate) fn open_in(dir: &Path, sync: SyncMode) -> Store {
    open_sized(dir, sync, StoreOptions::default().memtable_size)
}

/// [`open_in`] with a memtable (and checkpoint) size of `memtable_size` bytes.
pub(crate) fn open_sized(dir: &Path, sync: SyncMode, memtable_size: usize) -> Store {
    std::fs::create_dir_all(dir).unwrap();
    let opts = StoreOptions {
        group_window: Duration::from_millis(5),
        memtable_size,
        ..options(sync, Duration::from_secs(3600))
    };
    Store::open(&dir.join("db.redb"), opts).unwrap().0
}

/// Four threads write 50 rows each; every acknowledged row is in a crash copy, and in a crash
/// copy of that copy after it replayed its log and took more writes.
fn acknowledged_writes_survive_a_crash(sync: SyncMode) {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let store = open_in(&live, sync);
    let table = create_schema(&store);
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (store, table) = (&store, &table);
            scope.spawn(move || {
                for i in 0..50 {
                    let row = put(table, t, i, &format!("{t}/{i}"));
                    store.write_blocking(rows(vec![row])).unwrap();
                }
            });
        }
    });
    let copy = crash_copy(&live, &dir.path().join("c1"));
    for t in 0..4 {
        for i in 0..50 {
            let value = value_of(&copy, &table, t, i);
            assert_eq!(
                value.as_deref(),
                Some(format!("{t}/{i}").as_bytes()),
                "{sync:?}"
            );
        }
    }
    copy.write_blocking(rows(vec![put(&table, 9, 9, "after")]))
        .unwrap();
    let again = crash_copy(&dir.path().join("c1"), &dir.path().join("c2"));
    assert_eq!(
        value_of(&again, &table, 0, 49).as_deref(),
        Some(&b"0/49"[..])
    );
    assert_eq!(
        value_of(&again, &table, 9, 9).as_deref(),
        Some(&b"after"[..])
    );
    drop((store, copy, again));
}

#[test]
fn periodic_mode_acknowledged_writes_survive_a_crash() {
    acknowledged_writes_survive_a_crash(SyncMode::Periodic);
}

#[test]
fn batch_mode_acknowledged_writes_survive_a_crash() {
    acknowledged_writes_survive_a_crash(SyncMode::Batch);
}

#[test]
fn group_mode_acknowledged_writes_survive_a_crash() {
    acknowledged_writes_survive_a_crash(SyncMode::Group);
}

fn increment(table: &TableDef, delta: i64) -> WriteBatch {
    WriteBatch {
        counters: vec![crate::CounterWrite {
            table_id: table.id,
            key: key(table, 1, 1),
            partition_len: 0,
            is_static: false,
            column: ColumnId(4),
            timestamp: 5,
            change: crate::CounterChange::Add(delta),
        }],
        ..WriteBatch::default()
    }
}

fn counter_of(store: &Store, table: &TableDef) -> i64 {
    let value = value_of(store, table, 1, 1).unwrap();
    i64::from_be_bytes(value.as_ref().try_into().unwrap())
}

#[test]
fn replay_applies_counter_increments_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let store = open_in(&live, SyncMode::Periodic);
    let table = create_schema(&store);
    for _ in 0..30 {
        store.write_blocking(increment(&table, 2)).unwrap();
    }
    // Half of the increments become durable in redb; the other half only in the log.
    store.flush().unwrap();
    for _ in 0..30 {
        store.write_blocking(increment(&table, 1)).unwrap();
    }
    let copy = crash_copy(&live, &dir.path().join("c1"));
    assert_eq!(counter_of(&copy, &table), 90);
    drop(copy);
    // Opening again replays nothing twice.
    let reopened = open_in(&dir.path().join("c1"), SyncMode::Periodic);
    assert_eq!(counter_of(&reopened, &table), 90);
    drop((store, reopened));
}

#[test]
fn flush_and_shutdown_checkpoint_and_empty_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let store = open_in(&live, SyncMode::Periodic);
    let table = create_schema(&store);
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "v")]))
        .unwrap();
    let log_bytes = || -> u64 {
        std::fs::read_dir(live.join("commitlog"))
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum()
    };
    assert!(log_bytes() > 8, "the write is in the log");
    store.flush().unwrap();
    // The log's janitor thread deletes the redundant segment soon after the checkpoint.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while log_bytes() != 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(log_bytes(), 0, "the checkpoint deleted the segment");
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "w")]))
        .unwrap();
    store.shutdown().unwrap();
    store.shutdown().unwrap();
    assert!(matches!(
        store.write_blocking(rows(vec![put(&table, 2, 2, "late")])),
        Err(StorageError::WriterGone)
    ));
    // Reads still work after shutdown.
    assert_eq!(value_of(&store, &table, 1, 1).unwrap(), "w".as_bytes());
    drop(store);
    let reopened = open_in(&live, SyncMode::Periodic);
    assert_eq!(value_of(&reopened, &table, 1, 1).unwrap(), "w".as_bytes());
    drop(reopened);
    let _again = open_in(&live, SyncMode::Periodic);
    let segments = std::fs::read_dir(live.join("commitlog")).unwrap().count();
    assert_eq!(segments, 0, "opening deletes the segments of earlier runs");
}

#[test]
fn missing_tables_read_empty() {
    let store = memory();
    let table = create_schema(&store);
    let snap = store.snapshot().unwrap();
    assert_eq!(snap.get(table.id, b"nope").unwrap(), None);
    let all = KeyRange::all();
    assert_eq!(
        snap.scan(table.id, &all, Order::Forward).unwrap().count(),
        0
    );
    assert_eq!(
        snap.scan(Uuid::from_u128(7), &all, Order::Reverse)
            .unwrap()
            .count(),
        0
    );
}

#[test]
fn scans_follow_key_order_and_bounds() {
    let store = memory();
    let table = create_schema(&store);
    let writes = (0..10).map(|i| put(&table, 1, i, &i.to_string())).collect();
    store.write_blocking(rows(writes)).unwrap();
    let before = store.snapshot().unwrap();
    store
        .write_blocking(rows(vec![put(&table, 1, 10, "10")]))
        .unwrap();
    let snap = store.snapshot().unwrap();
    let range = KeyRange::between(
        Bound::Included(key(&table, 1, 3)),
        Bound::Excluded(key(&table, 1, 7)),
    );
    let read_before = store.rows_read();
    let forward: Vec<_> = snap
        .scan(table.id, &range, Order::Forward)
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(
        forward,
        (3..7).map(|i| key(&table, 1, i)).collect::<Vec<_>>()
    );
    assert_eq!(store.rows_read() - read_before, 4);
    let backward: Vec<_> = snap
        .scan(table.id, &range, Order::Reverse)
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(
        backward,
        (3..7).rev().map(|i| key(&table, 1, i)).collect::<Vec<_>>()
    );
    let inverted = KeyRange::between(
        Bound::Included(key(&table, 1, 7)),
        Bound::Included(key(&table, 1, 3)),
    );
    assert_eq!(
        snap.scan(table.id, &inverted, Order::Forward)
            .unwrap()
            .count(),
        0
    );
    // A snapshot does not see later commits.
    let all = KeyRange::all();
    assert_eq!(
        before.scan(table.id, &all, Order::Forward).unwrap().count(),
        10
    );
    assert_eq!(
        snap.scan(table.id, &all, Order::Forward).unwrap().count(),
        11
    );
}

#[test]
fn truncate_and_drop_remove_data() {
    let store = memory();
    let table = create_schema(&store);
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "a")]))
        .unwrap();
    let truncate = WriteBatch {
        rows: vec![],
        catalog: vec![CatalogOp::TruncateTable { id: table.id }],
        range_tombstones: Vec::new(),
        counters: Vec::new(),
    };
    store.write_blocking(truncate).unwrap();
    assert_eq!(value_of(&store, &table, 1, 1), None);
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "b")]))
        .unwrap();
    let drop_ks = WriteBatch {
        rows: vec![],
        catalog: vec![CatalogOp::DropKeyspace("ks".into())],
        range_tombstones: Vec::new(),
        counters: Vec::new(),
    };
    store.write_blocking(drop_ks).unwrap();
    assert_eq!(value_of(&store, &table, 1, 1), None);
    assert!(matches!(
        store.write_blocking(rows(vec![put(&table, 1, 1, "c")])),
        Err(StorageError::UnknownTable { .. })
    ));
    let catalog = crate::catalog::persist::load(&store.snapshot_txn()).unwrap();
    assert!(catalog.keyspaces.is_empty());
    // Re-created under a new id, the table starts empty.
    let table = create_schema(&store);
    let drop_table = WriteBatch {
        rows: vec![],
        catalog: vec![CatalogOp::DropTable {
            keyspace: "ks".into(),
            name: "t".into(),
            id: table.id,
        }],
        range_tombstones: Vec::new(),
        counters: Vec::new(),
    };
    store.write_blocking(drop_table).unwrap();
    let catalog = crate::catalog::persist::load(&store.snapshot_txn()).unwrap();
    assert!(catalog.keyspaces["ks"].tables.is_empty());
}

#[test]
fn unknown_format_version_refuses_to_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.redb");
    drop(Store::open(&path, StoreOptions::default()).unwrap());
    {
        let db = raw_database(&path);
        let txn = db.begin_write().unwrap();
        txn.open_table(META)
            .unwrap()
            .insert(FORMAT_VERSION_KEY, 99u32.to_be_bytes().as_slice())
            .unwrap();
        txn.commit().unwrap();
    }
    assert!(matches!(
        Store::open(&path, StoreOptions::default()),
        Err(StorageError::FormatVersion {
            found: 99,
            expected: FORMAT_VERSION
        })
    ));
}

/// A version 1 file (no runs) opens, keeps its rows, and is marked current before any run can
/// be written, so a version 1 build refuses it from then on.
#[test]
fn versions_1_to_3_are_upgraded_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_in(dir.path(), SyncMode::Periodic);
    let table = create_schema(&store);
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "old")]))
        .unwrap();
    store.shutdown().unwrap();
    drop(store);
    let path = dir.path().join("db.redb");
    let version = |path: &Path, set: u32| {
        let db = raw_database(path);
        let txn = db.begin_write().unwrap();
        let mut meta = txn.open_table(META).unwrap();
        let found = meta
            .get(FORMAT_VERSION_KEY)
            .unwrap()
            .unwrap()
            .value()
            .to_vec();
        meta.insert(FORMAT_VERSION_KEY, set.to_be_bytes().as_slice())
            .unwrap();
        drop(meta);
        txn.commit().unwrap();
        found
    };
    assert_eq!(version(&path, 1), FORMAT_VERSION.to_be_bytes());
    for old in [1, 2, 3, 4] {
        let store = open_in(dir.path(), SyncMode::Periodic);
        assert_eq!(value_of(&store, &table, 1, 1).unwrap(), "old".as_bytes());
        drop(store);
        let next = if old == 4 { FORMAT_VERSION } else { old + 1 };
        assert_eq!(
            version(&path, next),
            FORMAT_VERSION.to_be_bytes(),
            "opening version {old} upgraded it"
        );
    }
}

#[test]
fn handles_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    fn check_send<T: Send>() {}
    check::<Store>();
    check_send::<crate::Snapshot>();
    check_send::<crate::RowIter>();
}

#[test]
fn purge_reclaims_expired_cells_and_old_tombstones_in_chunks() {
    use crate::encoding::row::DeletionTime;
    use crate::encoding::row::Expiry;
    use crate::PurgeRequest;
    use crate::RangeTombstone;
    use crate::RangeTombstoneWrite;

    let store = memory();
    let mut def = (*create_schema(&store)).clone();
    def.params.gc_grace_seconds = 0;
    let now = 1_000_000;
    let big = "x".repeat(1000);
    let mut writes = Vec::new();
    for c1 in 0..20 {
        let mut write = put(&def, 1, c1, &big);
        if c1 < 15 {
            // Rows 0..15 expire at `now`.
            let expiry = Some(Expiry {
                ttl_seconds: 10,
                expires_at_seconds: now,
            });
            write.update.liveness = Some(Liveness {
                timestamp: 1,
                ttl: expiry,
            });
            write.update.cells[0].1.expiry = expiry;
        }
        writes.push(write);
    }
    store.write_blocking(rows(writes)).unwrap();
    // Row 19 is deleted; partition 2 only has a partition deletion.
    let mut deleted = put(&def, 1, 19, "gone");
    deleted.update = StoredRow {
        liveness: None,
        deletion: Some(DeletionTime {
            timestamp: 5,
            local_deletion_seconds: now - 1,
        }),
        cells: vec![],
    };
    let partition = key(&def, 2, 0)[..crate::encoding::key::decode_row_key(&def, &key(&def, 2, 0))
        .unwrap()
        .partition_len]
        .to_vec();
    store
        .write_blocking(WriteBatch {
            rows: vec![deleted],
            catalog: vec![],
            counters: Vec::new(),
            range_tombstones: vec![RangeTombstoneWrite {
                table_id: def.id,
                partition,
                tombstone: RangeTombstone {
                    start: Bound::Unbounded,
                    end: Bound::Unbounded,
                    deletion: DeletionTime {
                        timestamp: 5,
                        local_deletion_seconds: now - 1,
                    },
                },
            }],
        })
        .unwrap();
    let before = store.snapshot().unwrap().table_stats(def.id).unwrap();
    assert_eq!((before.rows, before.tombstoned_partitions), (20, 1));

    let mut resume_after = None;
    let mut chunks = 0;
    let mut removed = 0;
    let mut tombstones = 0;
    loop {
        let progress = store
            .purge(PurgeRequest {
                table: def.clone(),
                now_seconds: now,
                resume_after,
                max_rows: 8,
            })
            .unwrap();
        chunks += 1;
        removed += progress.rows_removed;
        tombstones += progress.range_tombstones_removed;
        resume_after = progress.resume_after;
        if resume_after.is_none() {
            break;
        }
    }
    assert_eq!(chunks, 3);
    assert_eq!((removed, tombstones), (16, 1));
    let after = store.snapshot().unwrap().table_stats(def.id).unwrap();
    assert_eq!((after.rows, after.tombstoned_partitions), (4, 0));
    assert!(
        after.stored_bytes * 3 < before.stored_bytes,
        "{before:?} -> {after:?}"
    );
    assert_eq!(
        value_of(&store, &def, 1, 15).as_deref(),
        Some(big.as_bytes())
    );
    assert_eq!(value_of(&store, &def, 1, 0), None);
}

/// A reopen (what the writer does after redb fails an I/O operation) brings back redb's last
/// durable state plus the replayed log: nothing acknowledged is lost, and writes go on.
#[test]
fn reopening_after_an_io_error_replays_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let store = open_in(&live, SyncMode::Periodic);
    let table = create_schema(&store);
    for i in 0..20 {
        store
            .write_blocking(rows(vec![put(&table, 1, i, "before")]))
            .unwrap();
    }
    store.reopen().unwrap();
    for i in 0..20 {
        assert_eq!(
            value_of(&store, &table, 1, i).as_deref(),
            Some(&b"before"[..])
        );
    }
    store
        .write_blocking(rows(vec![put(&table, 2, 0, "after")]))
        .unwrap();
    let copy = crash_copy(&live, &dir.path().join("c1"));
    assert_eq!(
        value_of(&copy, &table, 1, 19).as_deref(),
        Some(&b"before"[..])
    );
    assert_eq!(
        value_of(&copy, &table, 2, 0).as_deref(),
        Some(&b"after"[..])
    );
    drop((store, copy));
}

/// Reads between two commits share one read view; a commit gives the next read a new one,
/// and a view taken before it keeps seeing the old state.
#[test]
fn reads_share_a_view_until_the_next_commit() {
    let store = memory();
    let table = create_schema(&store);
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "a")]))
        .unwrap();
    let before = store.snapshot().unwrap();
    let same = store.snapshot().unwrap();
    assert!(Arc::ptr_eq(&before.view, &same.view));
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "b")]))
        .unwrap();
    let after = store.snapshot().unwrap();
    // The write went to the memtable: redb's view is still shared, until a commit.
    assert!(Arc::ptr_eq(&before.view, &after.view));
    store.flush().unwrap();
    assert!(!Arc::ptr_eq(&before.view, &store.snapshot().unwrap().view));
    let read = |s: &crate::Snapshot| match &s
        .get(table.id, &key(&table, 1, 1))
        .unwrap()
        .unwrap()
        .cell(ColumnId(4))
        .unwrap()
        .value
    {
        crate::CellValue::Live(v) => v.clone(),
        crate::CellValue::Tombstone { .. } => panic!("tombstone"),
    };
    assert_eq!(read(&before), "a".as_bytes());
    assert_eq!(read(&after), "b".as_bytes());
}
