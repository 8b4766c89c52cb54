//! Store-level tests of secondary-index maintenance: entries follow every row write, a new
//! index is built from existing rows, a dropped one disappears, all across a reopen.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use uuid::Uuid;

use crate::catalog::tests::sample_table;
use crate::index::lookup_prefix;
use crate::row_key;
use crate::CatalogOp;
use crate::Cell;
use crate::ColumnId;
use crate::DeletionTime;
use crate::IndexDef;
use crate::IndexTargetKind;
use crate::KeyspaceDef;
use crate::Liveness;
use crate::RowWrite;
use crate::Store;
use crate::StoreOptions;
use crate::StoredRow;
use crate::TableDef;
use crate::WriteBatch;

const INDEX: Uuid = Uuid::from_u128(0x77);

fn keyspace() -> KeyspaceDef {
    KeyspaceDef {
        name: "ks".into(),
        replication: BTreeMap::new(),
        durable_writes: true,
        tables: BTreeMap::new(),
        types: BTreeMap::new(),
    }
}

fn with_index(mut table: TableDef) -> Arc<TableDef> {
    table.indexes.push(IndexDef {
        id: INDEX,
        name: "t_v_idx".into(),
        column: ColumnId(4),
        target: IndexTargetKind::Simple,
        custom_class: None,
        options: BTreeMap::new(),
    });
    Arc::new(table)
}

fn catalog(ops: Vec<CatalogOp>) -> WriteBatch {
    WriteBatch {
        catalog: ops,
        ..WriteBatch::default()
    }
}

fn key(table: &TableDef, p: i32) -> Vec<u8> {
    let pk = [
        Bytes::from(p.to_be_bytes().to_vec()),
        Bytes::from_static(b"q"),
    ];
    let ck = [
        Bytes::from(1i64.to_be_bytes().to_vec()),
        Bytes::from_static(b"c"),
    ];
    row_key(table, &pk, &ck).unwrap()
}

fn write(table: &TableDef, p: i32, timestamp: i64, cell: Cell) -> WriteBatch {
    WriteBatch {
        rows: vec![RowWrite {
            table_id: table.id,
            key: key(table, p),
            update: StoredRow {
                liveness: Some(Liveness {
                    timestamp,
                    ttl: None,
                }),
                deletion: None,
                cells: vec![(ColumnId(4), cell)],
            },
        }],
        ..WriteBatch::default()
    }
}

fn lookup(store: &Store, value: &str) -> Vec<Vec<u8>> {
    let prefix = lookup_prefix(&[value.as_bytes()]).unwrap();
    store
        .snapshot()
        .unwrap()
        .index_entries(INDEX, &prefix)
        .unwrap()
}

#[test]
fn entries_follow_inserts_overwrites_and_deletes() {
    let (store, _) = Store::open_in_memory(StoreOptions::default()).unwrap();
    let table = with_index(sample_table());
    let ops = vec![
        CatalogOp::PutKeyspace(keyspace()),
        CatalogOp::PutTable(table.clone()),
    ];
    store.write_blocking(catalog(ops)).unwrap();
    store
        .write_blocking(write(&table, 1, 1, Cell::live(1, &b"a"[..])))
        .unwrap();
    store
        .write_blocking(write(&table, 2, 1, Cell::live(1, &b"a"[..])))
        .unwrap();
    let mut both = vec![key(&table, 1), key(&table, 2)];
    both.sort();
    assert_eq!(lookup(&store, "a"), both);

    store
        .write_blocking(write(&table, 1, 2, Cell::live(2, &b"b"[..])))
        .unwrap();
    assert_eq!(lookup(&store, "a"), vec![key(&table, 2)]);
    assert_eq!(lookup(&store, "b"), vec![key(&table, 1)]);

    // An older write loses the merge and changes nothing.
    store
        .write_blocking(write(&table, 1, 1, Cell::live(1, &b"c"[..])))
        .unwrap();
    assert!(lookup(&store, "c").is_empty());

    store
        .write_blocking(write(&table, 1, 3, Cell::tombstone(3, 0)))
        .unwrap();
    assert!(lookup(&store, "b").is_empty());

    let mut delete = write(&table, 2, 4, Cell::live(1, &b"a"[..]));
    delete.rows[0].update = StoredRow {
        deletion: Some(DeletionTime {
            timestamp: 4,
            local_deletion_seconds: 0,
        }),
        ..StoredRow::default()
    };
    store.write_blocking(delete).unwrap();
    assert!(lookup(&store, "a").is_empty());
}

#[test]
fn a_new_index_is_built_and_a_dropped_one_removed_durably() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.redb");
    let plain = Arc::new(sample_table());
    {
        let (store, _) = Store::open(&path, StoreOptions::default()).unwrap();
        let ops = vec![
            CatalogOp::PutKeyspace(keyspace()),
            CatalogOp::PutTable(plain.clone()),
        ];
        store.write_blocking(catalog(ops)).unwrap();
        store
            .write_blocking(write(&plain, 1, 1, Cell::live(1, &b"a"[..])))
            .unwrap();
        store
            .write_blocking(catalog(vec![CatalogOp::PutTable(with_index(
                sample_table(),
            ))]))
            .unwrap();
        assert_eq!(lookup(&store, "a"), vec![key(&plain, 1)]);
        store.shutdown().unwrap();
    }
    let (store, loaded) = Store::open(&path, StoreOptions::default()).unwrap();
    let table = loaded.table("ks", "t").unwrap().clone();
    assert_eq!(table.indexes.len(), 1);
    assert_eq!(lookup(&store, "a"), vec![key(&plain, 1)]);
    store
        .write_blocking(write(&table, 2, 1, Cell::live(1, &b"a"[..])))
        .unwrap();
    assert_eq!(lookup(&store, "a").len(), 2);

    store
        .write_blocking(catalog(vec![CatalogOp::PutTable(plain.clone())]))
        .unwrap();
    assert!(lookup(&store, "a").is_empty());
    // Writes after the drop no longer feed the index.
    store
        .write_blocking(write(&plain, 3, 1, Cell::live(1, &b"a"[..])))
        .unwrap();
    assert!(lookup(&store, "a").is_empty());
}

#[test]
fn truncate_and_drop_table_empty_the_index() {
    let (store, _) = Store::open_in_memory(StoreOptions::default()).unwrap();
    let table = with_index(sample_table());
    let ops = vec![
        CatalogOp::PutKeyspace(keyspace()),
        CatalogOp::PutTable(table.clone()),
    ];
    store.write_blocking(catalog(ops)).unwrap();
    store
        .write_blocking(write(&table, 1, 1, Cell::live(1, &b"a"[..])))
        .unwrap();
    store
        .write_blocking(catalog(vec![CatalogOp::TruncateTable { id: table.id }]))
        .unwrap();
    assert!(lookup(&store, "a").is_empty());
    store
        .write_blocking(write(&table, 1, 1, Cell::live(1, &b"a"[..])))
        .unwrap();
    assert_eq!(lookup(&store, "a").len(), 1);
    let drop = CatalogOp::DropTable {
        keyspace: "ks".into(),
        name: "t".into(),
        id: table.id,
    };
    store.write_blocking(catalog(vec![drop])).unwrap();
    assert!(lookup(&store, "a").is_empty());
}

#[test]
fn an_index_stored_in_another_layout_is_rebuilt_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.redb");
    let table = with_index(sample_table());
    {
        let (store, _) = Store::open(&path, StoreOptions::default()).unwrap();
        let ops = vec![
            CatalogOp::PutKeyspace(keyspace()),
            CatalogOp::PutTable(table.clone()),
        ];
        store.write_blocking(catalog(ops)).unwrap();
        store
            .write_blocking(write(&table, 1, 1, Cell::live(1, &b"a"[..])))
            .unwrap();
        store.shutdown().unwrap();
    }
    {
        // As a file written before this layout: no targets record, no entries.
        let db = crate::store::tests::raw_database(&path);
        let txn = db.begin_write().unwrap();
        txn.open_table(crate::store::tables::INDEX_TARGETS)
            .unwrap()
            .remove(table.id.as_bytes().as_slice())
            .unwrap();
        let name = crate::index::index_table_name(INDEX);
        txn.delete_table(crate::store::tables::data_table(&name))
            .unwrap();
        txn.commit().unwrap();
    }
    let (store, _) = Store::open(&path, StoreOptions::default()).unwrap();
    assert_eq!(lookup(&store, "a"), vec![key(&table, 1)]);
}

#[test]
fn the_feed_gives_watched_entry_changes_after_commit_and_resets_on_truncate() {
    let (store, _) = Store::open_in_memory(StoreOptions::default()).unwrap();
    let table = with_index(sample_table());
    let ops = vec![
        CatalogOp::PutKeyspace(keyspace()),
        CatalogOp::PutTable(table.clone()),
    ];
    store.write_blocking(catalog(ops)).unwrap();
    store
        .write_blocking(write(&table, 1, 1, Cell::live(1, &b"a"[..])))
        .unwrap();
    assert_eq!(store.index_feed().drain(INDEX), None);

    store.index_feed().watch(INDEX);
    store
        .write_blocking(write(&table, 1, 2, Cell::live(2, &b"b"[..])))
        .unwrap();
    let entry = |value: &str| {
        let mut k = lookup_prefix(&[value.as_bytes()]).unwrap();
        k.extend_from_slice(&key(&table, 1));
        k
    };
    let drained = store.index_feed().drain(INDEX).unwrap();
    assert!(!drained.reset);
    let mut changes = drained.changes;
    changes.sort();
    assert_eq!(changes, vec![(entry("a"), false), (entry("b"), true)]);
    let all = store.snapshot().unwrap().index_all_entries(INDEX).unwrap();
    assert_eq!(all, vec![entry("b")]);
    let (value, base) = crate::index::split_entry(&all[0]).unwrap();
    assert_eq!(
        (value.as_slice(), base),
        (&b"b"[..], key(&table, 1).as_slice())
    );

    let truncate = catalog(vec![CatalogOp::TruncateTable { id: table.id }]);
    store.write_blocking(truncate).unwrap();
    assert!(store.index_feed().drain(INDEX).unwrap().reset);
}
