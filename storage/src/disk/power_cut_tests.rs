//! Power cuts (issue 36, point 3): a workload on the simulated disk (`sim`) loses power at its
//! `n`th mutating operation, for `n` spread over the whole workload; the store then opens from
//! what survived. Every write acknowledged in `batch` and `group` modes is there; `periodic`
//! loses only writes no sync of the commit log covered; nothing appears that was never
//! written; the index and the view match their base tables. Also: a second cut while the
//! first image replays, and I/O errors (EIO, ENOSPC) injected once and persistently.
//!
//! `POWER_CUT_ROUNDS` (default 40) sets the cuts per sync mode; a long run sets it high.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use uuid::Uuid;

use super::sim::SimDisk;
use super::Disk;
use crate::catalog::tests::sample_table;
use crate::index::lookup_prefix;
use crate::row_key;
use crate::view::store_tests::base;
use crate::view::store_tests::create_view;
use crate::view::store_tests::insert;
use crate::view::store_tests::view_rows;
use crate::CatalogOp;
use crate::Cell;
use crate::CellValue;
use crate::ColumnId;
use crate::CommitFailurePolicy;
use crate::DeletionTime;
use crate::DiskFailurePolicy;
use crate::IndexDef;
use crate::IndexTargetKind;
use crate::KeyspaceDef;
use crate::Liveness;
use crate::RowWrite;
use crate::Store;
use crate::StoreOptions;
use crate::StoredRow;
use crate::SyncMode;
use crate::TableDef;
use crate::WriteBatch;

const INDEX: Uuid = Uuid::from_u128(0x77);
/// Writes per thread.
const WRITES: usize = 90;
const THREADS: usize = 2;
/// Keys per table (`p` in 0..KEYS).
const KEYS: i32 = 12;

fn db_path() -> PathBuf {
    PathBuf::from("/sim/data/db.redb")
}

fn plain() -> Arc<TableDef> {
    let mut table = sample_table();
    // `view_tests::base` is `ks.t` too.
    table.name = "tp".into();
    Arc::new(table)
}

fn indexed() -> Arc<TableDef> {
    let mut table = sample_table();
    table.id = Uuid::from_u128(0x5678);
    table.name = "ti".into();
    table.indexes.push(IndexDef {
        id: INDEX,
        name: "ti_v_idx".into(),
        column: ColumnId(4),
        target: IndexTargetKind::Simple,
        custom_class: None,
        options: BTreeMap::new(),
    });
    Arc::new(table)
}

fn options(sync: SyncMode) -> StoreOptions {
    StoreOptions {
        sync,
        sync_period: Duration::from_millis(3),
        group_window: Duration::from_millis(1),
        memtable_size: 12 << 10,
        cache_size: 1 << 20,
        commit_failure_policy: CommitFailurePolicy::Ignore,
        disk_failure_policy: DiskFailurePolicy::Ignore,
        ..StoreOptions::default()
    }
}

fn open(disk: &Arc<SimDisk>, sync: SyncMode) -> Result<Store, crate::StorageError> {
    Store::open_on(disk.clone(), &db_path(), options(sync)).map(|(store, _)| store)
}

/// Which table a key is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Table {
    Plain,
    Indexed,
    ViewBase,
}

type Key = (Table, i32, i64);

/// One write of a key: the value it leaves (`None`: deleted), whether it was acknowledged,
/// and the disk's operation count when it was.
#[derive(Clone, Debug)]
struct Attempt {
    value: Option<String>,
    acked_at: Option<u64>,
}

type Histories = BTreeMap<Key, Vec<Attempt>>;

fn row_key_of(table: &TableDef, p: i32, c1: i64) -> Vec<u8> {
    let pk = [
        Bytes::from(p.to_be_bytes().to_vec()),
        Bytes::from_static(b"q"),
    ];
    let ck = [
        Bytes::from(c1.to_be_bytes().to_vec()),
        Bytes::from_static(b"c"),
    ];
    row_key(table, &pk, &ck).unwrap()
}

/// The batch writing `value` (or deleting the row) under `key` at `timestamp`.
fn batch(key: Key, value: Option<&str>, timestamp: i64) -> WriteBatch {
    let (table, p, c1) = key;
    if table == Table::ViewBase {
        let v: i32 = value.and_then(|v| v[1..].parse().ok()).unwrap_or(0);
        return insert(p, c1 as i32, v, timestamp);
    }
    let def = if table == Table::Plain {
        plain()
    } else {
        indexed()
    };
    let update = match value {
        Some(value) => StoredRow {
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
        None => StoredRow {
            liveness: None,
            deletion: Some(DeletionTime {
                timestamp,
                local_deletion_seconds: 1,
            }),
            cells: Vec::new(),
        },
    };
    WriteBatch {
        rows: vec![RowWrite {
            table_id: def.id,
            key: row_key_of(&def, p, c1),
            update,
        }],
        ..WriteBatch::default()
    }
}

fn setup(store: &Store) -> Result<(), crate::StorageError> {
    let ks = KeyspaceDef {
        name: "ks".into(),
        replication: BTreeMap::new(),
        durable_writes: true,
        tables: BTreeMap::new(),
        types: BTreeMap::new(),
    };
    store.write_blocking(WriteBatch {
        catalog: vec![
            CatalogOp::PutKeyspace(ks),
            CatalogOp::PutTable(plain()),
            CatalogOp::PutTable(indexed()),
            CatalogOp::PutTable(base()),
        ],
        ..WriteBatch::default()
    })?;
    store.write_blocking(create_view())
}

/// Thread `t`'s writes: keys with `p % THREADS == t`, so each key's writes are in order.
fn writer(store: &Store, disk: &SimDisk, t: usize, seed: u64, histories: &Mutex<Histories>) {
    let mut x = seed ^ (t as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for n in 0..WRITES {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let table = [Table::Plain, Table::Indexed, Table::ViewBase][(x % 3) as usize];
        let p = ((x >> 8) % (KEYS as u64 / THREADS as u64)) as i32 * THREADS as i32 + t as i32;
        let c1 = ((x >> 20) % 3) as i64;
        let key = (table, p, c1);
        let stamp = (n * THREADS + t + 1) as i64;
        let delete = table != Table::ViewBase && (x >> 30).is_multiple_of(7);
        let value = (!delete).then(|| format!("v{stamp}{}", "x".repeat((x >> 40) as usize % 300)));
        let value = value.map(|v| {
            if table == Table::ViewBase {
                format!("v{stamp}")
            } else {
                v
            }
        });
        let at = {
            let mut h = histories.lock().unwrap();
            let list = h.entry(key).or_default();
            list.push(Attempt {
                value: value.clone(),
                acked_at: None,
            });
            list.len() - 1
        };
        match store.write_blocking(batch(key, value.as_deref(), stamp)) {
            Ok(()) => {
                let ops = disk.ops();
                histories.lock().unwrap().get_mut(&key).unwrap()[at].acked_at = Some(ops);
            }
            Err(_) if disk.is_cut() => return,
            Err(_) => {}
        }
    }
}

/// Runs the workload on `disk` (whatever its plan); the histories of every key.
fn workload(disk: &Arc<SimDisk>, sync: SyncMode, seed: u64) -> Histories {
    let histories = Mutex::new(Histories::new());
    let Ok(store) = open(disk, sync) else {
        return Histories::new();
    };
    if setup(&store).is_ok() {
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let (store, histories) = (&store, &histories);
                scope.spawn(move || writer(store, disk, t, seed, histories));
            }
        });
    }
    drop(store);
    histories.into_inner().unwrap()
}

/// The value stored under `key`, `None` if absent or deleted.
fn stored(store: &Store, key: Key) -> Option<String> {
    let (table, p, c1) = key;
    let snapshot = store.snapshot().unwrap();
    if table == Table::ViewBase {
        let k = row_key(
            &base(),
            &[crate::view::store_tests::int(p)],
            &[crate::view::store_tests::int(c1 as i32)],
        )
        .unwrap();
        let row = snapshot.get(base().id, &k).unwrap()?;
        return match &row.cell(ColumnId(2))?.value {
            CellValue::Live(v) => Some(format!(
                "v{}",
                i32::from_be_bytes(v.as_ref().try_into().unwrap())
            )),
            CellValue::Tombstone { .. } => None,
        };
    }
    let def = if table == Table::Plain {
        plain()
    } else {
        indexed()
    };
    let row = snapshot.get(def.id, &row_key_of(&def, p, c1)).unwrap()?;
    if row.liveness.is_none() && row.cells.is_empty() {
        return None;
    }
    match &row.cell(ColumnId(4))?.value {
        CellValue::Live(v) => Some(String::from_utf8(v.to_vec()).unwrap()),
        CellValue::Tombstone { .. } => None,
    }
}

/// Whether an acknowledgement at operation `acked_at` had to survive the cut.
fn must_survive(sync: SyncMode, acked_at: u64, log_syncs: &[u64]) -> bool {
    match sync {
        SyncMode::Batch | SyncMode::Group => true,
        // Covered by a sync of the newest segment that started after it.
        SyncMode::Periodic => log_syncs.iter().any(|&start| start > acked_at),
    }
}

/// Checks the store against the histories: see the module doc.
fn verify(store: &Store, histories: &Histories, sync: SyncMode, log_syncs: &[u64], what: &str) {
    for (&key, attempts) in histories {
        let found = stored(store, key);
        let at = attempts
            .iter()
            .rposition(|a| a.value == found)
            .map(|i| i as isize)
            .or((found.is_none()).then_some(-1));
        let Some(at) = at else {
            panic!("{what}: {key:?} holds {found:?}, never written: {attempts:?}");
        };
        let required = attempts
            .iter()
            .rposition(|a| {
                a.acked_at
                    .is_some_and(|ack| must_survive(sync, ack, log_syncs))
            })
            .map_or(-1, |i| i as isize);
        assert!(
            at >= required,
            "{what}: {key:?} lost acknowledged write {required} (holds {found:?} = {at}): {attempts:?}"
        );
    }
    verify_index(store, histories, what);
    verify_view(store, what);
}

fn verify_index(store: &Store, histories: &Histories, what: &str) {
    let def = indexed();
    let snapshot = store.snapshot().unwrap();
    for &key in histories.keys().filter(|k| k.0 == Table::Indexed) {
        let Some(value) = stored(store, key) else {
            continue;
        };
        let prefix = lookup_prefix(&[value.as_bytes()]).unwrap();
        let entries = snapshot.index_entries(INDEX, &prefix).unwrap();
        let row = row_key_of(&def, key.1, key.2);
        assert!(
            entries.iter().any(|entry| entry.ends_with(&row)),
            "{what}: {key:?} = {value:?} is not in its index"
        );
    }
}

fn verify_view(store: &Store, what: &str) {
    let snapshot = store.snapshot().unwrap();
    let mut expected: Vec<(i32, i32, i32)> = snapshot
        .scan(base().id, &crate::KeyRange::all(), crate::Order::Forward)
        .unwrap()
        .filter_map(|item| {
            let (key, row) = item.unwrap();
            let decoded = crate::encoding::key::decode_row_key(&base(), &key).unwrap();
            let get = |b: &Bytes| i32::from_be_bytes(b.as_ref().try_into().unwrap());
            let v = match &row.cell(ColumnId(2))?.value {
                CellValue::Live(v) => get(v),
                CellValue::Tombstone { .. } => return None,
            };
            Some((v, get(&decoded.partition[0]), get(&decoded.clustering[0])))
        })
        .collect();
    expected.sort();
    assert_eq!(
        view_rows(store),
        expected,
        "{what}: the view differs from its base"
    );
}

fn rounds() -> u64 {
    std::env::var("POWER_CUT_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
}

/// Opens `image` with a power cut at a random point of its start (replay), then opens what
/// survived that, and checks it.
fn cut_during_replay(image: &Arc<SimDisk>, sync: SyncMode, seed: u64) -> Arc<SimDisk> {
    let probe = image.image(seed);
    drop(open(&probe, sync));
    let start_ops = probe.ops().max(1);
    let second = image.image(seed);
    second.cut_at(1 + seed % start_ops);
    drop(open(&second, sync));
    second.image(seed.rotate_left(17))
}

fn power_cuts(sync: SyncMode) {
    // A dry run measures how many operations the workload makes.
    let dry = SimDisk::new(1);
    workload(&dry, sync, 1);
    let total = dry.ops();
    assert!(total > 100, "{total} operations");
    let rounds = rounds();
    for round in 0..rounds {
        let seed = 0x5eed_0000 + round * 7919 + sync as u64;
        let cut = 1 + (total * round + seed % (total / rounds).max(1)) / rounds;
        let disk = SimDisk::new(seed);
        disk.cut_at(cut);
        let histories = workload(&disk, sync, seed);
        let log_syncs = disk.log_syncs();
        let image = disk.image(seed.rotate_left(9));
        let what = format!("{sync:?} cut at {cut}/{total}");
        let store = open(&image, sync).unwrap_or_else(|e| panic!("{what}: {e}"));
        verify(&store, &histories, sync, &log_syncs, &what);
        drop(store);
        let again = cut_during_replay(&disk.image(seed.rotate_left(9)), sync, seed);
        let what = format!("{what}, then during replay");
        let store = open(&again, sync).unwrap_or_else(|e| panic!("{what}: {e}"));
        verify(&store, &histories, sync, &log_syncs, &what);
    }
}

#[test]
fn batch_mode_loses_no_acknowledged_write_at_any_power_cut() {
    power_cuts(SyncMode::Batch);
}

#[test]
fn group_mode_loses_no_acknowledged_write_at_any_power_cut() {
    power_cuts(SyncMode::Group);
}

#[test]
fn periodic_mode_loses_only_what_no_sync_covered() {
    power_cuts(SyncMode::Periodic);
}

/// I/O errors from operation `from` (once, or until healed at `heal_at` writes later): the
/// writes that failed are not acknowledged, the others are kept, through a restart and
/// through a power cut after it.
fn injected(errno: i32, once: bool) {
    for round in 0..rounds().min(8) {
        let seed = 0xfa17_0000 + round * 31 + u64::from(once);
        let dry = SimDisk::new(seed);
        workload(&dry, SyncMode::Batch, seed);
        let from = 1 + (dry.ops() * round) / rounds().min(8);
        let disk = SimDisk::new(seed);
        disk.fail_from(from, Some(errno), once);
        let histories = Mutex::new(Histories::new());
        let healer = {
            let disk = disk.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                disk.heal();
            })
        };
        if let Ok(store) = open(&disk, SyncMode::Batch) {
            if setup(&store).is_ok() {
                std::thread::scope(|scope| {
                    for t in 0..THREADS {
                        let (store, disk, histories) = (&store, &disk, &histories);
                        scope.spawn(move || writer(store, disk, t, seed, histories));
                    }
                });
            }
        }
        healer.join().unwrap();
        let histories = histories.into_inner().unwrap();
        let what = format!("errno {errno} from operation {from}, once: {once}");
        // A restart with the OS up keeps everything written; a power cut, what was synced.
        for power_cut in [false, true] {
            if power_cut {
                disk.cut_at(disk.ops() + 1);
                assert!(disk.sync_dir(Path::new("/")).is_err());
            }
            let image = disk.image(seed);
            let store = open(&image, SyncMode::Batch).unwrap_or_else(|e| panic!("{what}: {e}"));
            verify(&store, &histories, SyncMode::Batch, &[], &what);
        }
    }
}

#[test]
fn an_io_error_once_loses_nothing_acknowledged() {
    injected(5, true);
}

#[test]
fn a_full_disk_until_freed_loses_nothing_acknowledged() {
    injected(28, false);
}

#[test]
fn an_io_error_until_healed_loses_nothing_acknowledged() {
    injected(5, false);
}

/// Once failed in CI (a page failing its checksum after the restart): a failed
/// data-file sync followed by a clean close marked the checksums `closed` over writes a power
/// cut could still tear. Fixed in `CheckedBackend` (the side file stays `open` then); this
/// test then passed 400 runs of 8 rounds in a row.
#[test]
fn a_full_disk_once_loses_nothing_acknowledged() {
    injected(28, true);
}
