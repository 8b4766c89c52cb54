//! A damaged byte anywhere in the data file is refused, never served as a value.

use std::path::Path;

use crate::store::tests::create_schema;
use crate::store::tests::put;
use crate::store::tests::rows;
use crate::DiskFailurePolicy;
use crate::StorageError;
use crate::Store;
use crate::StoreOptions;

const ROWS: i64 = 3000;

fn value(i: i64) -> String {
    // Incompressible, so blocks are stored as written: 96 characters drawn from 94 printable
    // ones (hex digits were not enough: with 16 symbols, repeated 4-byte sequences are
    // common in a block of many values, and lz4 sometimes saved the 1/8 that makes it keep
    // its form).
    let mut x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..96)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'!' + (x % 94) as u8)
        })
        .collect()
}

fn options() -> StoreOptions {
    StoreOptions {
        memtable_size: 64 << 10,
        disk_failure_policy: DiskFailurePolicy::Stop,
        ..StoreOptions::default()
    }
}

/// A store in `dir` holding [`ROWS`] rows (in runs and the head), closed cleanly.
fn written(dir: &Path) {
    let (store, _) = Store::open(&dir.join("db.redb"), options()).unwrap();
    let table = create_schema(&store);
    for chunk in 0..ROWS / 100 {
        let writes = (chunk * 100..chunk * 100 + 100)
            .map(|i| put(&table, (i % 7) as i32, i, &value(i)))
            .collect();
        store.write_blocking(rows(writes)).unwrap();
    }
    store.flush().unwrap();
    store.shutdown().unwrap();
}

/// What a read met: the right value, or a refusal caused by the damage.
enum Outcome {
    Right,
    Refused,
}

fn read_all(store: &Store) -> Vec<Outcome> {
    let table = crate::catalog::tests::sample_table();
    (0..ROWS)
        .map(|i| {
            let key = crate::store::tests::key(&table, (i % 7) as i32, i);
            let got = store.snapshot().and_then(|s| s.get(table.id, &key));
            match got {
                Ok(row) => {
                    let cell = row.as_ref().and_then(|row| row.cell(crate::ColumnId(4)));
                    let v = cell.and_then(|cell| match &cell.value {
                        crate::CellValue::Live(v) => Some(v.clone()),
                        crate::CellValue::Tombstone { .. } => None,
                    });
                    assert_eq!(
                        v.as_deref(),
                        Some(value(i).as_bytes()),
                        "row {i} served wrong"
                    );
                    Outcome::Right
                }
                Err(e) => {
                    assert!(refusal(&e), "row {i}: {e}");
                    Outcome::Refused
                }
            }
        })
        .collect()
}

/// An error a damaged page may cause: the damage named, or redb refusing work until the
/// reopen the damage asked for.
fn refusal(e: &StorageError) -> bool {
    let text = e.to_string();
    e.page_damage().is_some()
        || matches!(e, StorageError::Recovering)
        || text.contains("Previous I/O error")
        || text.contains("Database has been closed")
}

#[test]
fn every_flipped_byte_is_refused_or_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean");
    std::fs::create_dir_all(&clean).unwrap();
    written(&clean);
    let data = std::fs::read(clean.join("db.redb")).unwrap();
    let sums = std::fs::read(clean.join("db.redb.checksums")).unwrap();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let (mut refused_at_start, mut refused_reads, mut harmless) = (0, 0, 0);
    for round in 0..40 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let at = 4096 + (x as usize) % (data.len() - 4096);
        let copy = dir.path().join(format!("round{round}"));
        std::fs::create_dir_all(&copy).unwrap();
        let mut damaged = data.clone();
        damaged[at] ^= 0x5a;
        std::fs::write(copy.join("db.redb"), &damaged).unwrap();
        std::fs::write(copy.join("db.redb.checksums"), &sums).unwrap();
        match Store::open(&copy.join("db.redb"), options()) {
            Err(e) => {
                assert!(
                    matches!(e, StorageError::StartupDiskFailure { policy: "stop", .. }),
                    "byte {at}: {e}"
                );
                assert!(e.to_string().starts_with(
                    "Exiting forcefully due to file system exception on startup, disk failure policy \"stop\""
                ));
                refused_at_start += 1;
            }
            Ok((store, _)) => {
                let outcomes = read_all(&store);
                if outcomes.iter().any(|o| matches!(o, Outcome::Refused)) {
                    refused_reads += 1;
                } else {
                    harmless += 1;
                }
            }
        }
    }
    eprintln!(
        "{refused_reads} refused reads, {refused_at_start} refused starts, {harmless} harmless"
    );
    // Most of the file is rows: a flip there must be caught by a read.
    assert!(
        refused_reads >= 10,
        "{refused_reads} refused reads, {refused_at_start} refused starts, {harmless} harmless"
    );
}

#[test]
fn a_damaged_row_names_its_table_and_key() {
    let dir = tempfile::tempdir().unwrap();
    written(dir.path());
    let path = dir.path().join("db.redb");
    let mut data = std::fs::read(&path).unwrap();
    let needle = value(1234);
    let at = data
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .expect("the value is stored as written");
    data[at + 3] ^= 1;
    std::fs::write(&path, &data).unwrap();
    let (store, _) = Store::open(&path, options()).unwrap_or_else(|e| panic!("{e}"));
    let table = crate::catalog::tests::sample_table();
    let key = crate::store::tests::key(&table, 1234 % 7, 1234);
    let err = store.snapshot().unwrap().get(table.id, &key).unwrap_err();
    let StorageError::Damaged {
        damage,
        table: id,
        partition,
    } = &err
    else {
        panic!("expected damage, got {err}");
    };
    assert_eq!(*id, table.id);
    assert_eq!(partition.as_deref(), Some(key.as_slice()));
    assert_eq!(damage.offset, (at as u64) / 4096 * 4096);
    assert!(err.to_string().starts_with("Corrupted: "), "{err}");
}
