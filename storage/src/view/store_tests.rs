//! Store-level tests of materialized-view maintenance: view rows follow base writes (moves
//! between view partitions, deletions, range tombstones, old timestamps), a new view is
//! built from the rows stored, and its layout survives a reopen.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use bytes::Bytes;
use cql::types::ColumnType;
use uuid::Uuid;

use crate::encoding::range_tombstone::RangeTombstone;
use crate::row_key;
use crate::writer::mutation::RangeTombstoneWrite;
use crate::CatalogOp;
use crate::Cell;
use crate::ClusteringOrder;
use crate::ColumnDef;
use crate::ColumnId;
use crate::ColumnKind;
use crate::DeletionTime;
use crate::KeyspaceDef;
use crate::Liveness;
use crate::RowWrite;
use crate::Store;
use crate::StoreOptions;
use crate::StoredRow;
use crate::TableDef;
use crate::TableParams;
use crate::ViewDef;
use crate::WriteBatch;

fn col(id: u32, name: &str, kind: ColumnKind, position: i32) -> ColumnDef {
    let order = match kind {
        ColumnKind::Clustering => ClusteringOrder::Asc,
        _ => ClusteringOrder::None,
    };
    ColumnDef {
        id: ColumnId(id),
        name: name.into(),
        ty: ColumnType::Int,
        kind,
        position,
        order,
    }
}

/// `t (k int, c int, v int, w int, PRIMARY KEY (k, c))`.
pub(crate) fn base() -> Arc<TableDef> {
    use ColumnKind as K;
    let columns = vec![
        col(0, "k", K::PartitionKey, 0),
        col(1, "c", K::Clustering, 0),
        col(2, "v", K::Regular, -1),
        col(3, "w", K::Regular, -1),
    ];
    Arc::new(TableDef::new(
        Uuid::from_u128(1),
        "ks",
        "t",
        columns,
        TableParams::default(),
    ))
}

/// `mv AS SELECT * FROM t ... PRIMARY KEY (v, k, c)`.
pub(crate) fn view() -> Arc<TableDef> {
    use ColumnKind as K;
    let columns = vec![
        col(2, "v", K::PartitionKey, 0),
        col(0, "k", K::Clustering, 0),
        col(1, "c", K::Clustering, 1),
        col(3, "w", K::Regular, -1),
    ];
    let mut def = TableDef::new(
        Uuid::from_u128(2),
        "ks",
        "mv",
        columns,
        TableParams::default(),
    );
    def.view = Some(ViewDef {
        base_id: Uuid::from_u128(1),
        base_name: "t".into(),
        include_all_columns: true,
        where_clause: "v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL".into(),
        filters: Vec::new(),
    });
    Arc::new(def)
}

pub(crate) fn int(v: i32) -> Bytes {
    Bytes::from(v.to_be_bytes().to_vec())
}

fn catalog(ops: Vec<CatalogOp>) -> WriteBatch {
    WriteBatch {
        catalog: ops,
        ..WriteBatch::default()
    }
}

pub(crate) fn create_view() -> WriteBatch {
    catalog(vec![
        CatalogOp::PutTable(view()),
        CatalogOp::PutViews {
            base: base(),
            views: vec![view()],
        },
    ])
}

fn setup(store: &Store) {
    let ks = KeyspaceDef {
        name: "ks".into(),
        replication: BTreeMap::new(),
        durable_writes: true,
        tables: BTreeMap::new(),
        types: BTreeMap::new(),
    };
    let ops = vec![CatalogOp::PutKeyspace(ks), CatalogOp::PutTable(base())];
    store.write_blocking(catalog(ops)).unwrap();
}

/// `INSERT INTO t (k, c, v, w) VALUES (k, c, v, w) USING TIMESTAMP ts`.
pub(crate) fn insert(k: i32, c: i32, v: i32, ts: i64) -> WriteBatch {
    WriteBatch {
        rows: vec![RowWrite {
            table_id: base().id,
            key: row_key(&base(), &[int(k)], &[int(c)]).unwrap(),
            update: StoredRow {
                liveness: Some(Liveness {
                    timestamp: ts,
                    ttl: None,
                }),
                deletion: None,
                cells: vec![
                    (ColumnId(2), Cell::live(ts, int(v))),
                    (ColumnId(3), Cell::live(ts, int(k * 100))),
                ],
            },
        }],
        ..WriteBatch::default()
    }
}

/// The view's rows as (v, k, c).
pub(crate) fn view_rows(store: &Store) -> Vec<(i32, i32, i32)> {
    let range = crate::KeyRange::all();
    let snapshot = store.snapshot().unwrap();
    let view = view();
    let mut out: Vec<(i32, i32, i32)> = snapshot
        .scan(view.id, &range, crate::Order::Forward)
        .unwrap()
        .map(|item| {
            let (key, _) = item.unwrap();
            let decoded = crate::encoding::key::decode_row_key(&view, &key).unwrap();
            let get = |b: &Bytes| i32::from_be_bytes(b.as_ref().try_into().unwrap());
            (
                get(&decoded.partition[0]),
                get(&decoded.clustering[0]),
                get(&decoded.clustering[1]),
            )
        })
        .collect();
    out.sort();
    out
}

fn partition_deletion(k: i32, ts: i64) -> WriteBatch {
    WriteBatch {
        range_tombstones: vec![RangeTombstoneWrite {
            table_id: base().id,
            partition: crate::encoding::key::partition_key(&base(), &[int(k)]).unwrap(),
            tombstone: RangeTombstone {
                start: Bound::Unbounded,
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

#[test]
fn view_rows_follow_writes_moves_and_deletions() {
    let (store, _) = Store::open_in_memory(StoreOptions::default()).unwrap();
    setup(&store);
    store.write_blocking(create_view()).unwrap();
    store.write_blocking(insert(1, 1, 10, 1)).unwrap();
    store.write_blocking(insert(1, 2, 20, 1)).unwrap();
    assert_eq!(view_rows(&store), vec![(10, 1, 1), (20, 1, 2)]);
    // v changes: the view row moves to another view partition.
    store.write_blocking(insert(1, 1, 30, 2)).unwrap();
    assert_eq!(view_rows(&store), vec![(20, 1, 2), (30, 1, 1)]);
    // An older write loses the base merge and moves nothing.
    store.write_blocking(insert(1, 1, 40, 1)).unwrap();
    assert_eq!(view_rows(&store), vec![(20, 1, 2), (30, 1, 1)]);
    // A partition deletion removes every view row of the partition...
    store.write_blocking(partition_deletion(1, 5)).unwrap();
    assert!(view_rows(&store).is_empty());
    // ...and a later write below its timestamp stays shadowed.
    store.write_blocking(insert(1, 3, 50, 4)).unwrap();
    assert!(view_rows(&store).is_empty());
    store.write_blocking(insert(1, 3, 60, 6)).unwrap();
    assert_eq!(view_rows(&store), vec![(60, 1, 3)]);
    // Setting the view key column to null removes the view row.
    let mut null = insert(1, 3, 0, 7);
    null.rows[0].update.cells = vec![(ColumnId(2), Cell::tombstone(7, 0))];
    store.write_blocking(null).unwrap();
    assert!(view_rows(&store).is_empty());
}

#[test]
fn a_new_view_is_built_from_stored_rows_and_kept_after_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.redb");
    {
        let (store, _) = Store::open(&path, StoreOptions::default()).unwrap();
        setup(&store);
        store.write_blocking(insert(1, 1, 10, 1)).unwrap();
        store.write_blocking(insert(2, 1, 20, 1)).unwrap();
        store.write_blocking(create_view()).unwrap();
        assert_eq!(view_rows(&store), vec![(10, 1, 1), (20, 2, 1)]);
        store.shutdown().unwrap();
    }
    let (store, loaded) = Store::open(&path, StoreOptions::default()).unwrap();
    assert!(loaded.table("ks", "mv").unwrap().is_view());
    store.write_blocking(insert(2, 1, 30, 2)).unwrap();
    assert_eq!(view_rows(&store), vec![(10, 1, 1), (30, 2, 1)]);
    // Dropping the view stops its maintenance.
    let drop = catalog(vec![
        CatalogOp::DropTable {
            keyspace: "ks".into(),
            name: "mv".into(),
            id: view().id,
        },
        CatalogOp::PutViews {
            base: base(),
            views: Vec::new(),
        },
    ]);
    store.write_blocking(drop).unwrap();
    store.write_blocking(insert(3, 1, 40, 2)).unwrap();
    assert!(view_rows(&store).is_empty());
}
