//! Store-level tests of snapshots and the reset: every table (an indexed base, its view, a
//! counter table) with range tombstones and TTLs comes back exactly as it was, in any order
//! and any number of times, across merges, on disk after restarts, and without a reader ever
//! seeing half a restore.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use cql::types::ColumnType;
use uuid::Uuid;

use crate::encoding::range_tombstone::RangeTombstone;
use crate::runs::run_table_name;
use crate::store::tables::data_table;
use crate::store::tests::crash_copy;
use crate::view::store_tests::{base, create_view, insert, int, view, view_rows};
use crate::writer::mutation::RangeTombstoneWrite;
use crate::CatalogOp;
use crate::Cell;
use crate::CellValue;
use crate::ClusteringOrder;
use crate::ColumnDef;
use crate::ColumnId;
use crate::ColumnKind;
use crate::CounterChange;
use crate::CounterWrite;
use crate::DeletionTime;
use crate::Expiry;
use crate::IndexDef;
use crate::IndexTargetKind;
use crate::KeyRange;
use crate::KeyspaceDef;
use crate::Order;
use crate::RoleDef;
use crate::StorageError;
use crate::Store;
use crate::StoreOptions;
use crate::StoredRow;
use crate::TableDef;
use crate::TableParams;
use crate::WriteBatch;

const INDEX: Uuid = Uuid::from_u128(0x77);

/// `t` with an index on `v`.
fn indexed_base() -> Arc<TableDef> {
    let mut table = (*base()).clone();
    table.indexes.push(IndexDef {
        id: INDEX,
        name: "t_v_idx".into(),
        column: ColumnId(2),
        target: IndexTargetKind::Simple,
        custom_class: None,
        options: BTreeMap::new(),
    });
    Arc::new(table)
}

/// `plain`: `t`'s layout without index or view, so its writes go to the memtable.
pub(super) fn plain() -> Arc<TableDef> {
    let mut table = (*base()).clone();
    table.id = Uuid::from_u128(4);
    table.name = "plain".into();
    Arc::new(table)
}

/// [`insert`] into [`plain`].
pub(super) fn insert_plain(k: i32, c: i32, v: i32, ts: i64) -> WriteBatch {
    let mut batch = insert(k, c, v, ts);
    batch.rows[0].table_id = plain().id;
    batch
}

/// `counts (k int PRIMARY KEY, n counter)`.
fn counters() -> Arc<TableDef> {
    let column = |id, name: &str, ty, kind, position| ColumnDef {
        id: ColumnId(id),
        name: name.into(),
        ty,
        kind,
        position,
        order: ClusteringOrder::None,
    };
    Arc::new(TableDef::new(
        Uuid::from_u128(3),
        "ks",
        "counts",
        vec![
            column(0, "k", ColumnType::Int, ColumnKind::PartitionKey, 0),
            column(1, "n", ColumnType::Counter, ColumnKind::Regular, -1),
        ],
        TableParams::default(),
    ))
}

fn keyspace(name: &str) -> KeyspaceDef {
    KeyspaceDef {
        name: name.into(),
        replication: BTreeMap::new(),
        durable_writes: true,
        tables: BTreeMap::new(),
        types: BTreeMap::new(),
    }
}

fn catalog(ops: Vec<CatalogOp>) -> WriteBatch {
    WriteBatch {
        catalog: ops,
        ..WriteBatch::default()
    }
}

/// Keyspace `ks` with the indexed base, its view and the counter table.
pub(super) fn setup(store: &Store) {
    let ops = vec![
        CatalogOp::PutKeyspace(keyspace("ks")),
        CatalogOp::PutTable(indexed_base()),
        CatalogOp::PutTable(counters()),
        CatalogOp::PutTable(plain()),
    ];
    store.write_blocking(catalog(ops)).unwrap();
    let mut view = create_view();
    if let Some(CatalogOp::PutViews { base, .. }) = view.catalog.last_mut() {
        *base = indexed_base();
    }
    store.write_blocking(view).unwrap();
}

pub(super) fn add(k: i32, delta: i64, ts: i64) -> WriteBatch {
    let table = counters();
    let key = crate::row_key(&table, &[int(k)], &[]).unwrap();
    WriteBatch {
        counters: vec![CounterWrite {
            table_id: table.id,
            partition_len: key.len(),
            key,
            is_static: false,
            column: ColumnId(1),
            timestamp: ts,
            change: CounterChange::Add(delta),
        }],
        ..WriteBatch::default()
    }
}

/// `DELETE FROM t USING TIMESTAMP ts WHERE k = k AND c >= from`.
pub(super) fn delete_from(k: i32, from: i32, ts: i64) -> WriteBatch {
    let table = base();
    let partition = crate::encoding::key::partition_key(&table, &[int(k)]).unwrap();
    let row = crate::row_key(&table, &[int(k)], &[int(from)]).unwrap();
    let suffix = row[partition.len()..].to_vec();
    WriteBatch {
        range_tombstones: vec![RangeTombstoneWrite {
            table_id: table.id,
            partition,
            tombstone: RangeTombstone {
                start: Bound::Included(suffix),
                end: Bound::Unbounded,
                deletion: DeletionTime {
                    timestamp: ts,
                    local_deletion_seconds: 0,
                },
            },
        }],
        ..WriteBatch::default()
    }
}

/// An insert whose `w` expires.
fn insert_with_ttl(k: i32, c: i32, v: i32, ts: i64) -> WriteBatch {
    let mut batch = insert(k, c, v, ts);
    let expiry = Expiry {
        ttl_seconds: 60,
        expires_at_seconds: 1_000_000,
    };
    batch.rows[0].update.cells[1].1 = Cell {
        timestamp: ts,
        expiry: Some(expiry),
        path: None,
        value: CellValue::Live(int(1)),
    };
    batch
}

/// Everything the store holds for the three tables, the index and some partitions'
/// range tombstones, as stored.
#[derive(Debug, PartialEq)]
pub(super) struct Dump {
    rows: Vec<(Uuid, Vec<u8>, StoredRow)>,
    index: Vec<Vec<u8>>,
    tombstones: Vec<Vec<RangeTombstone>>,
}

pub(super) fn dump(store: &Store) -> Dump {
    let snapshot = store.snapshot().unwrap();
    let mut rows = Vec::new();
    for table in [base().id, view().id, counters().id, plain().id] {
        for item in snapshot
            .scan(table, &KeyRange::all(), Order::Forward)
            .unwrap()
        {
            let (key, row) = item.unwrap();
            rows.push((table, key.to_vec(), row));
        }
    }
    let tombstones = (0..4)
        .map(|k| {
            let partition = crate::encoding::key::partition_key(&base(), &[int(k)]).unwrap();
            snapshot.range_tombstones(base().id, &partition).unwrap()
        })
        .collect();
    Dump {
        rows,
        index: snapshot.index_all_entries(INDEX).unwrap(),
        tombstones,
    }
}

/// Writes `rows` rows into partition `k` at timestamp `ts`, in one request.
pub(super) fn fill(store: &Store, k: i32, rows: i32, v: i32, ts: i64) {
    let mut batch = WriteBatch::default();
    let mut memtable = WriteBatch::default();
    for c in 0..rows {
        batch.rows.extend(insert(k, c, v + c, ts).rows);
        memtable.rows.extend(insert_plain(k, c, v + c, ts).rows);
    }
    store.write_blocking(batch).unwrap();
    store.write_blocking(memtable).unwrap();
}

fn run_tables(store: &Store) -> usize {
    let txn = store.snapshot_txn();
    txn.list_tables()
        .unwrap()
        .filter(|t| redb::TableHandle::name(t).starts_with("run_"))
        .count()
}

#[test]
fn snapshots_restore_in_any_order_any_number_of_times() {
    let (store, _) = Store::open_in_memory(StoreOptions::default()).unwrap();
    setup(&store);
    store.write_blocking(insert(1, 1, 10, 1)).unwrap();
    store.write_blocking(insert_with_ttl(1, 2, 20, 1)).unwrap();
    store.write_blocking(insert(2, 1, 30, 1)).unwrap();
    store.write_blocking(delete_from(2, 5, 2)).unwrap();
    store.write_blocking(add(1, 5, 1)).unwrap();
    let at_a = dump(&store);
    assert_eq!(view_rows(&store), [(10, 1, 1), (20, 1, 2), (30, 2, 1)]);
    let a = store.take_snapshot("a", 7).unwrap();
    assert_eq!((a.name.as_str(), a.created_at_micros), ("a", 7));
    assert_eq!(
        (a.keyspaces.as_slice(), a.tables),
        (["ks".to_string()].as_slice(), 4)
    );
    assert_eq!(dump(&store), at_a, "taking a snapshot changes nothing read");

    // Large writes (runs of their own), overwrites, deletions, counters, then B.
    fill(&store, 3, 600, 100, 3);
    store.write_blocking(insert(1, 1, 11, 4)).unwrap();
    store.write_blocking(delete_from(1, 0, 5)).unwrap();
    store.write_blocking(add(1, 2, 6)).unwrap();
    store.write_blocking(add(2, 1, 6)).unwrap();
    let at_b = dump(&store);
    store.take_snapshot("b", 8).unwrap();
    fill(&store, 0, 700, 1000, 9);
    store.flush().unwrap();
    let later = dump(&store);
    assert_ne!(later, at_b);

    for (name, want) in [
        ("a", &at_a),
        ("b", &at_b),
        ("a", &at_a),
        ("a", &at_a),
        ("b", &at_b),
    ] {
        let (summary, catalog) = store.restore_snapshot(name).unwrap();
        assert_eq!(summary.name, name);
        assert!(catalog.table("ks", "mv").unwrap().is_view());
        assert_eq!(&dump(&store), want, "after restoring {name}");
        // Writes after a restore land on it, and the next restore drops them.
        fill(&store, 0, 300, 5000, 20);
        store.write_blocking(add(1, 100, 20)).unwrap();
        assert_ne!(&dump(&store), want);
    }
    assert_eq!(
        store
            .snapshots()
            .unwrap()
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert!(matches!(
        store.restore_snapshot("c"),
        Err(StorageError::UnknownSnapshot { name }) if name == "c"
    ));
}

/// Restoring the snapshot the store holds again leaves the index and range-tombstone tables
/// no commit changed since, and copies back exactly those that changed.
#[test]
fn restoring_the_installed_snapshot_again_copies_back_what_changed() {
    let (store, _) = Store::open_in_memory(StoreOptions::default()).unwrap();
    setup(&store);
    store.write_blocking(insert(1, 1, 10, 1)).unwrap();
    store.write_blocking(insert(2, 1, 20, 1)).unwrap();
    store.write_blocking(delete_from(2, 5, 2)).unwrap();
    let at_s = dump(&store);
    store.take_snapshot("s", 1).unwrap();
    let changes: Vec<(&str, WriteBatch)> = vec![
        ("a plain write", insert_plain(1, 1, 5, 3)),
        ("a counter", add(1, 1, 3)),
        ("an indexed write", insert(3, 1, 30, 3)),
        ("an overwrite of an indexed value", insert(1, 1, 11, 3)),
        ("a range tombstone", delete_from(1, 0, 3)),
        (
            "a truncate",
            catalog(vec![CatalogOp::TruncateTable { id: base().id }]),
        ),
    ];
    for (what, change) in changes {
        store.write_blocking(change).unwrap();
        assert_ne!(dump(&store), at_s, "{what} changes something");
        store.restore_snapshot("s").unwrap();
        assert_eq!(dump(&store), at_s, "after {what}");
        store.restore_snapshot("s").unwrap();
        assert_eq!(dump(&store), at_s, "after {what}, restored twice");
    }
    // A purge that drops range tombstones changes them too.
    let mut table = (*indexed_base()).clone();
    table.params.gc_grace_seconds = 0;
    let purge = crate::PurgeRequest {
        table,
        now_seconds: 1_000,
        resume_after: None,
        max_rows: 1_000,
    };
    assert!(store.purge(purge).unwrap().range_tombstones_removed > 0);
    store.restore_snapshot("s").unwrap();
    assert_eq!(dump(&store), at_s, "after a purge");
}

#[test]
fn compaction_merges_pinned_runs_without_taking_them_from_snapshots() {
    let (store, _) = Store::open_in_memory(StoreOptions::default()).unwrap();
    setup(&store);
    for round in 0..4 {
        fill(&store, round, 600, round * 1000, 1);
        store.flush().unwrap();
    }
    let at_s = dump(&store);
    store.take_snapshot("s", 1).unwrap();
    for round in 0..4 {
        fill(&store, round, 600, 7, 2);
        store.flush().unwrap();
    }
    assert!(store.compact().unwrap() > 0, "the runs merge though pinned");
    let merged = dump(&store);
    store.restore_snapshot("s").unwrap();
    assert_eq!(dump(&store), at_s);
    store.compact().unwrap();
    assert_eq!(
        dump(&store),
        at_s,
        "merging the restored runs changes no row"
    );
    // Replacing the snapshot and deleting it frees what only it held.
    store.take_snapshot("s", 2).unwrap();
    let before = run_tables(&store);
    assert!(store.delete_snapshot("s").unwrap());
    assert!(!store.delete_snapshot("s").unwrap());
    assert!(store.snapshots().unwrap().is_empty());
    assert_eq!(run_tables(&store), before, "live runs stay");
    assert_eq!(dump(&store), at_s);
    assert_ne!(merged, at_s);
    store
        .write_blocking(catalog(vec![CatalogOp::TruncateTable { id: base().id }]))
        .unwrap();
    let txn = store.snapshot_txn();
    let runs = crate::runs::manifest::read(&txn, base().id).unwrap();
    assert!(runs.is_empty());
    assert!(
        txn.list_tables()
            .unwrap()
            .all(|t| !redb::TableHandle::name(&t).starts_with("snap_")),
        "the snapshot's copies went with it"
    );
}

#[test]
fn a_truncated_table_keeps_its_runs_for_the_snapshot() {
    let (store, _) = Store::open_in_memory(StoreOptions::default()).unwrap();
    setup(&store);
    fill(&store, 1, 600, 0, 1);
    let at_s = dump(&store);
    store.take_snapshot("s", 1).unwrap();
    let run_ids: Vec<Uuid> = {
        let txn = store.snapshot_txn();
        crate::runs::manifest::read(&txn, base().id)
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect()
    };
    assert!(!run_ids.is_empty());
    store
        .write_blocking(catalog(vec![CatalogOp::TruncateTable { id: base().id }]))
        .unwrap();
    {
        let txn = store.snapshot_txn();
        for id in &run_ids {
            assert!(txn.open_table(data_table(&run_table_name(*id))).is_ok());
        }
    }
    let base_rows = |store: &Store| {
        let snapshot = store.snapshot().unwrap();
        let rows = snapshot.scan(base().id, &KeyRange::all(), Order::Forward);
        rows.unwrap().count()
    };
    assert_eq!(base_rows(&store), 0);
    store.restore_snapshot("s").unwrap();
    assert_eq!(dump(&store), at_s);
    assert_eq!(base_rows(&store), 600);
    store.delete_snapshot("s").unwrap();
    store
        .write_blocking(catalog(vec![CatalogOp::TruncateTable { id: base().id }]))
        .unwrap();
    let txn = store.snapshot_txn();
    for id in &run_ids {
        assert!(txn.open_table(data_table(&run_table_name(*id))).is_err());
    }
}

fn role(name: &str) -> RoleDef {
    RoleDef {
        name: name.into(),
        is_superuser: true,
        can_login: true,
        ..RoleDef::default()
    }
}

#[test]
fn reset_drops_everything_but_the_roles_kept_and_the_snapshots() {
    let (store, _) = Store::open_in_memory(StoreOptions::default()).unwrap();
    setup(&store);
    for name in ["cassandra", "alice"] {
        store
            .write_blocking(catalog(vec![CatalogOp::PutRole(role(name))]))
            .unwrap();
    }
    store.write_blocking(insert(1, 1, 10, 1)).unwrap();
    store.write_blocking(add(1, 5, 1)).unwrap();
    let before = dump(&store);
    store.take_snapshot("s", 1).unwrap();
    let left = store.reset(vec![role("cassandra")]).unwrap();
    assert!(left.keyspaces.is_empty());
    assert_eq!(left.roles.keys().collect::<Vec<_>>(), ["cassandra"]);
    let empty = dump(&store);
    assert!(empty.rows.is_empty() && empty.index.is_empty());
    assert!(matches!(
        store.write_blocking(insert(1, 2, 10, 2)),
        Err(StorageError::UnknownTable { .. })
    ));
    let (_, catalog) = store.restore_snapshot("s").unwrap();
    assert_eq!(
        catalog.roles.keys().collect::<Vec<_>>(),
        ["alice", "cassandra"]
    );
    assert_eq!(dump(&store), before);
    store.write_blocking(insert(1, 2, 10, 2)).unwrap();
    // With no snapshot left, a reset discards every table, deleted in the background.
    store.delete_snapshot("s").unwrap();
    store.reset(Vec::new()).unwrap();
    store.compact().unwrap();
    let txn = store.snapshot_txn();
    let left: Vec<String> = txn
        .list_tables()
        .unwrap()
        .map(|t| redb::TableHandle::name(&t).to_string())
        .filter(|n| !["index_targets", "run_filters", "run_pins"].contains(&n.as_str()))
        .filter(|n| {
            ["run_", "trash_", "data_", "index_", "rt_"]
                .iter()
                .any(|p| n.starts_with(p))
        })
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn on_disk_a_restore_and_later_writes_survive_restarts_and_kill() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    std::fs::create_dir_all(&live).unwrap();
    let path = live.join("db.redb");
    let (at_s, after) = {
        let (store, _) = Store::open(&path, StoreOptions::default()).unwrap();
        setup(&store);
        store.write_blocking(insert(1, 1, 10, 1)).unwrap();
        store.write_blocking(delete_from(1, 5, 1)).unwrap();
        let at_s = dump(&store);
        store.take_snapshot("s", 1).unwrap();
        // Logged writes, some flushed, some only in the commit log and memtable.
        fill(&store, 2, 600, 0, 2);
        store.flush().unwrap();
        fill(&store, 3, 10, 0, 3);
        store.restore_snapshot("s").unwrap();
        assert_eq!(dump(&store), at_s);
        store.write_blocking(insert(1, 2, 20, 4)).unwrap();
        let after = dump(&store);
        // What a kill -9 now leaves: the restore plus the write after it, nothing before.
        let copy = crash_copy(&live, &dir.path().join("killed"));
        assert_eq!(dump(&copy), after);
        copy.restore_snapshot("s").unwrap();
        assert_eq!(dump(&copy), at_s);
        store.shutdown().unwrap();
        (at_s, after)
    };
    let (store, catalog) = Store::open(&path, StoreOptions::default()).unwrap();
    assert!(catalog.table("ks", "t").is_some());
    assert_eq!(dump(&store), after);
    assert_eq!(
        store.snapshots().unwrap().len(),
        1,
        "snapshots survive a restart"
    );
    store.restore_snapshot("s").unwrap();
    assert_eq!(dump(&store), at_s);
    store.reset(Vec::new()).unwrap();
    store.shutdown().unwrap();
    drop(store);
    let (store, catalog) = Store::open(&path, StoreOptions::default()).unwrap();
    assert!(catalog.keyspaces.is_empty() && catalog.roles.is_empty());
    assert!(dump(&store).rows.is_empty());
    store.restore_snapshot("s").unwrap();
    assert_eq!(dump(&store), at_s);
}

#[test]
fn a_snapshot_record_names_only_what_exists() {
    let (store, _) = Store::open_in_memory(StoreOptions::default()).unwrap();
    setup(&store);
    fill(&store, 1, 600, 0, 1);
    store.take_snapshot("s", 1).unwrap();
    // What a build before snapshots could do: delete a run only the snapshot names.
    let db = crate::store::slot::current(&store.inner.db).unwrap();
    let txn = db.begin_write().unwrap();
    let record = crate::snapshot::state::load(&txn, "s").unwrap().unwrap();
    let run = record
        .tables
        .iter()
        .flat_map(|t| &t.runs)
        .next()
        .unwrap()
        .id;
    txn.delete_table(data_table(&run_table_name(run))).unwrap();
    txn.commit().unwrap();
    let error = store.restore_snapshot("s").unwrap_err();
    assert!(error.to_string().contains("snapshot s"), "{error}");
    assert!(
        view_rows(&store).len() == 600,
        "a refused restore changes nothing"
    );
}
