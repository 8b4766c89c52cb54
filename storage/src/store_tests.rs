//! Store-level tests: catalog persistence, group commit, durability per sync mode, reads.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use uuid::Uuid;

use crate::catalog::tests::sample_table;
use crate::tables::{data_table, data_table_name, FORMAT_VERSION_KEY, META};
use crate::{
    row_key, CatalogOp, Cell, ColumnId, KeyspaceDef, Liveness, RowWrite, StorageError, Store,
    StoreOptions, StoredRow, SyncMode, TableDef, WriteBatch,
};

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

fn create_schema(store: &Store) -> Arc<TableDef> {
    let table = Arc::new(sample_table());
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
    table
}

fn key(table: &TableDef, p: i32, c1: i64) -> Vec<u8> {
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

fn put(table: &TableDef, p: i32, c1: i64, value: &str) -> RowWrite {
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

fn rows(writes: Vec<RowWrite>) -> WriteBatch {
    WriteBatch {
        rows: writes,
        catalog: vec![],
        range_tombstones: Vec::new(),
        counters: Vec::new(),
    }
}

fn value_of(store: &Store, table: &TableDef, p: i32, c1: i64) -> Option<Bytes> {
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
    // A corrupt stored row under key (1, 1).
    {
        let txn = store.inner.db.begin_write().unwrap();
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

#[test]
fn batch_mode_survives_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.redb");
    let (store, _) =
        Store::open(&path, options(SyncMode::Batch, Duration::from_secs(3600))).unwrap();
    let table = create_schema(&store);
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "kept")]))
        .unwrap();
    // The file as a kill -9 would leave it: copied while the store is still running.
    let crashed = dir.path().join("crashed.redb");
    std::fs::copy(&path, &crashed).unwrap();
    let (reopened, _) = Store::open(&crashed, StoreOptions::default()).unwrap();
    assert_eq!(
        value_of(&reopened, &table, 1, 1).unwrap(),
        "kept".as_bytes()
    );
    drop(store);
}

fn crash_copy(store_path: &Path, to: &Path, table: &TableDef) -> Option<Bytes> {
    std::fs::copy(store_path, to).unwrap();
    let (reopened, _) = Store::open(to, StoreOptions::default()).unwrap();
    value_of(&reopened, table, 1, 1)
}

#[test]
fn periodic_mode_syncs_on_flush_and_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.redb");
    let opts = options(SyncMode::Periodic, Duration::from_secs(3600));
    let (store, _) = Store::open(&path, opts).unwrap();
    let table = create_schema(&store);
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "v")]))
        .unwrap();
    // Acknowledged but not yet durable: a crash now loses it.
    assert_eq!(crash_copy(&path, &dir.path().join("c1.redb"), &table), None);
    store.flush().unwrap();
    assert!(crash_copy(&path, &dir.path().join("c2.redb"), &table).is_some());
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
    let (reopened, _) = Store::open(&path, opts).unwrap();
    assert_eq!(value_of(&reopened, &table, 1, 1).unwrap(), "w".as_bytes());
}

#[test]
fn periodic_mode_syncs_when_idle() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.redb");
    let opts = options(SyncMode::Periodic, Duration::from_millis(20));
    let (store, _) = Store::open(&path, opts).unwrap();
    let table = create_schema(&store);
    store
        .write_blocking(rows(vec![put(&table, 1, 1, "v")]))
        .unwrap();
    // The writer makes it durable on its own once the period has passed.
    let mut synced = false;
    for i in 0..100 {
        std::thread::sleep(Duration::from_millis(20));
        if crash_copy(&path, &dir.path().join(format!("c{i}.redb")), &table).is_some() {
            synced = true;
            break;
        }
    }
    assert!(synced);
}

#[test]
fn missing_tables_read_empty() {
    let store = memory();
    let table = create_schema(&store);
    let snap = store.snapshot().unwrap();
    assert_eq!(snap.get(table.id, b"nope").unwrap(), None);
    let all = (Bound::Unbounded, Bound::Unbounded);
    assert_eq!(snap.scan(table.id, all.clone(), false).unwrap().count(), 0);
    assert_eq!(snap.scan(Uuid::from_u128(7), all, true).unwrap().count(), 0);
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
    let range = (
        Bound::Included(key(&table, 1, 3)),
        Bound::Excluded(key(&table, 1, 7)),
    );
    let read_before = store.rows_read();
    let forward: Vec<_> = snap
        .scan(table.id, range.clone(), false)
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(
        forward,
        (3..7).map(|i| key(&table, 1, i)).collect::<Vec<_>>()
    );
    assert_eq!(store.rows_read() - read_before, 4);
    let backward: Vec<_> = snap
        .scan(table.id, range, true)
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(
        backward,
        (3..7).rev().map(|i| key(&table, 1, i)).collect::<Vec<_>>()
    );
    let inverted = (
        Bound::Included(key(&table, 1, 7)),
        Bound::Included(key(&table, 1, 3)),
    );
    assert_eq!(snap.scan(table.id, inverted, false).unwrap().count(), 0);
    // A snapshot does not see later commits.
    let all = (Bound::Unbounded, Bound::Unbounded);
    assert_eq!(
        before.scan(table.id, all.clone(), false).unwrap().count(),
        10
    );
    assert_eq!(snap.scan(table.id, all, false).unwrap().count(), 11);
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
        let db = redb::Database::create(&path).unwrap();
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
            expected: 1
        })
    ));
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
    use crate::encoding::row::{DeletionTime, Expiry};
    use crate::{PurgeRequest, RangeTombstone, RangeTombstoneWrite};

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
