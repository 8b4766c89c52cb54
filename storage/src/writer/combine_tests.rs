//! Combining (writes applied by the thread that queued them) and key filters (lookups skipped
//! for keys a table never held), through the store's public entry points.

use std::sync::mpsc;
use std::time::Duration;

use crate::store::tests::create_schema;
use crate::store::tests::key;
use crate::store::tests::put;
use crate::store::tests::rows;
use crate::store::tests::value_of;
use crate::CatalogOp;
use crate::Store;
use crate::StoreOptions;
use crate::WriteBatch;

fn open(dir: &std::path::Path) -> Store {
    Store::open(&dir.join("db.redb"), StoreOptions::default())
        .unwrap()
        .0
}

/// Submits `batch`; the receiver gets the outcome and the thread that acknowledged it.
fn submit(store: &Store, batch: WriteBatch) -> mpsc::Receiver<(bool, std::thread::ThreadId)> {
    let (tx, rx) = mpsc::channel();
    store.submit(
        batch,
        Box::new(move |result| {
            let _ = tx.send((result.is_ok(), std::thread::current().id()));
        }),
    );
    rx
}

#[test]
fn deferred_writes_wait_for_the_scope_and_are_applied_on_its_thread() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let table = create_schema(&store);
    // The writer thread acknowledges the schema's group before it goes back to the queue:
    // let it get there and sleep, or it would take the writes below itself.
    std::thread::sleep(Duration::from_millis(200));
    let scope = store.defer_writes();
    let first = submit(&store, rows(vec![put(&table, 1, 1, "a")]));
    let second = submit(&store, rows(vec![put(&table, 2, 2, "b")]));
    // Nothing woke the writer thread: the scope applies both, here. (Only its periodic look
    // at the queue, every 100 ms, could come between; then it applied them.)
    let here = std::thread::current().id();
    let applied_here = scope.drive();
    let acks = [first, second].map(|rx| rx.recv_timeout(Duration::from_secs(10)).unwrap());
    for (ok, thread) in acks {
        assert!(ok);
        assert_eq!(thread == here, applied_here);
    }
    drop(scope);
    assert_eq!(value_of(&store, &table, 1, 1).unwrap(), "a".as_bytes());
    assert_eq!(value_of(&store, &table, 2, 2).unwrap(), "b".as_bytes());
}

#[test]
fn a_scope_that_ends_applies_what_it_deferred() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let table = create_schema(&store);
    let done = {
        let _scope = store.defer_writes();
        submit(&store, rows(vec![put(&table, 1, 1, "a")]))
    };
    // Applied here, or (if the writer thread held its state at that moment) by it: never
    // left waiting.
    let (ok, _) = done.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(ok);
}

#[test]
fn a_catalog_change_in_a_scope_goes_to_the_writer_thread() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let table = create_schema(&store);
    let scope = store.defer_writes();
    let truncate = WriteBatch {
        catalog: vec![CatalogOp::TruncateTable { id: table.id }],
        ..WriteBatch::default()
    };
    let done = submit(&store, truncate);
    assert!(!scope.drive());
    let (ok, thread) = done.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(ok);
    assert_ne!(thread, std::thread::current().id());
}

#[test]
fn key_filters_never_hide_a_stored_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path());
    let table = create_schema(&store);
    let at = |ts: i64, value: &str| {
        let mut write = put(&table, 1, 1, value);
        write.update.cells[0].1.timestamp = ts;
        write.update.liveness.as_mut().unwrap().timestamp = ts;
        rows(vec![write])
    };
    // A new table: its first write skips the lookup; the next ones merge with it, in the
    // memtable and (after a flush) in redb.
    store.write_blocking(at(5, "a")).unwrap();
    store.write_blocking(at(3, "b")).unwrap();
    assert_eq!(value_of(&store, &table, 1, 1).unwrap(), "a".as_bytes());
    store.flush().unwrap();
    store.write_blocking(at(4, "c")).unwrap();
    assert_eq!(value_of(&store, &table, 1, 1).unwrap(), "a".as_bytes());
    // Reopened with rows: the table is unknown, every write looks.
    store.shutdown().unwrap();
    drop(store);
    store = open(dir.path());
    store.write_blocking(at(2, "d")).unwrap();
    assert_eq!(value_of(&store, &table, 1, 1).unwrap(), "a".as_bytes());
    // Truncated: empty again.
    store
        .write_blocking(WriteBatch {
            catalog: vec![CatalogOp::TruncateTable { id: table.id }],
            ..WriteBatch::default()
        })
        .unwrap();
    assert!(value_of(&store, &table, 1, 1).is_none());
    store.write_blocking(at(1, "e")).unwrap();
    assert_eq!(value_of(&store, &table, 1, 1).unwrap(), "e".as_bytes());
    assert!(store
        .snapshot()
        .unwrap()
        .get(table.id, &key(&table, 2, 2))
        .unwrap()
        .is_none());
}

#[test]
fn a_deferred_write_no_scope_applies_is_taken_by_the_writer_thread() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let table = create_schema(&store);
    let scope = store.defer_writes();
    let done = submit(&store, rows(vec![put(&table, 1, 1, "a")]));
    // This thread waits for the acknowledgement without ending or driving its scope.
    let (ok, thread) = done.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(ok);
    assert_ne!(thread, std::thread::current().id());
    drop(scope);
}
