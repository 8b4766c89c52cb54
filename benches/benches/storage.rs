//! The redb store through its public API, on a file in a temporary directory:
//! `write_blocking` of one-row and 100-row batches in periodic sync mode (acknowledged after a
//! non-durable commit, as the server's default `commitlog_sync: periodic`), point reads and
//! 100-row partition scans of already-written data.

use std::hint::black_box;
use std::time::Duration;

use benches::rows::{create_table, key, partition_batch, partition_values};
use benches::schema::readings_table;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use storage::{KeyRange, Order, PartitionKey, Store, StoreOptions, SyncMode, TableDef};
use tempfile::TempDir;

/// Rows per partition, and per batch in the grouped write benchmark.
const ROWS_PER_PARTITION: u32 = 100;

/// Partitions written before the read benchmarks (100,000 rows).
const READ_PARTITIONS: u32 = 1000;

/// A store on a fresh file with `bench.readings` created.
struct Fixture {
    store: Store,
    table: TableDef,
    /// Holds the database file; removed on drop.
    _dir: TempDir,
}

impl Fixture {
    fn open() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let options = StoreOptions {
            sync: SyncMode::Periodic,
            ..StoreOptions::default()
        };
        let (store, _catalog) = Store::open(&dir.path().join("data.redb"), options).expect("open");
        let table = readings_table();
        store
            .write_blocking(create_table(&table))
            .expect("create table");
        Fixture {
            store,
            table,
            _dir: dir,
        }
    }

    fn close(self) {
        self.store.shutdown().expect("clean shutdown");
    }
}

fn writes(c: &mut Criterion) {
    let fixture = Fixture::open();
    let (store, table) = (&fixture.store, &fixture.table);
    let mut group = c.benchmark_group("storage");

    // Each batch is one row of a new partition: random token order, like stress's writes.
    let mut next_partition = 0;
    group.throughput(Throughput::Elements(1));
    group.bench_function("write_blocking 1 row/batch", |b| {
        b.iter_batched(
            || {
                next_partition += 1;
                partition_batch(table, next_partition, 0..1)
            },
            |batch| store.write_blocking(batch).expect("write"),
            BatchSize::SmallInput,
        )
    });

    // Each batch is a whole new 100-row partition.
    let mut next_partition = 10_000_000;
    group.throughput(Throughput::Elements(u64::from(ROWS_PER_PARTITION)));
    group.bench_function("write_blocking 100 rows/batch", |b| {
        b.iter_batched(
            || {
                next_partition += 1;
                partition_batch(table, next_partition, 0..ROWS_PER_PARTITION)
            },
            |batch| store.write_blocking(batch).expect("write"),
            BatchSize::SmallInput,
        )
    });
    group.finish();
    fixture.close();
}

/// The key range of partition `p`, as a partition-key restriction scans it.
fn partition_range(table: &TableDef, p: u32) -> KeyRange {
    KeyRange::partition(PartitionKey::encode(table, &partition_values(p)).expect("fits"))
}

fn reads(c: &mut Criterion) {
    let fixture = Fixture::open();
    let (store, table) = (&fixture.store, &fixture.table);
    for p in 0..READ_PARTITIONS {
        store
            .write_blocking(partition_batch(table, p, 0..ROWS_PER_PARTITION))
            .expect("populate");
    }
    // A fixed pseudo-random walk over the written rows.
    let keys: Vec<Vec<u8>> = (0..4096u32)
        .map(|i| {
            key(
                table,
                i.wrapping_mul(7919) % READ_PARTITIONS,
                i.wrapping_mul(31) % 100,
            )
        })
        .collect();
    let mut group = c.benchmark_group("storage");
    group.throughput(Throughput::Elements(1));

    let mut i = 0;
    group.bench_function("snapshot + get (100k rows)", |b| {
        b.iter(|| {
            i = (i + 1) % keys.len();
            let snapshot = store.snapshot().expect("snapshot");
            snapshot
                .get(table.id, black_box(&keys[i]))
                .expect("read")
                .expect("row exists")
        })
    });

    let snapshot = store.snapshot().expect("snapshot");
    group.bench_function("get, snapshot reused (100k rows)", |b| {
        b.iter(|| {
            i = (i + 1) % keys.len();
            snapshot
                .get(table.id, black_box(&keys[i]))
                .expect("read")
                .expect("row exists")
        })
    });
    drop(snapshot);

    let mut p = 0;
    group.throughput(Throughput::Elements(u64::from(ROWS_PER_PARTITION)));
    group.bench_function("snapshot + scan 100-row partition", |b| {
        b.iter(|| {
            p = (p + 7919) % READ_PARTITIONS;
            let snapshot = store.snapshot().expect("snapshot");
            let mut rows = 0;
            for row in snapshot
                .scan(table.id, &partition_range(table, p), Order::Forward)
                .expect("scan")
            {
                black_box(row.expect("row"));
                rows += 1;
            }
            assert_eq!(rows, ROWS_PER_PARTITION);
            rows
        })
    });
    group.finish();
    fixture.close();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = writes, reads
}
criterion_main!(benches);
