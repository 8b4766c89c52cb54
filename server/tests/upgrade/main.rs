//! Upgrades: data directories written by earlier releases open with this one, replay their
//! commit logs, and hold what they held (issue 36, point 4).
//!
//! Each directory `data-format-<data format>-commitlog-<commit-log version>/` beside this file
//! is a fixture: `data/`, a data directory written by the release whose `FORMAT` record it
//! names (every CQL type, collections, UDTs, statics, TTLs, cell, row, range and partition
//! deletions, counters, secondary and SAI indexes, a materialized view, roles, and a commit
//! log holding writes never checkpointed), and `manifest.txt`, the queries that check it
//! and their results as text (`render.rs`). The test copies each fixture, starts the current
//! binary on the copy, compares every query's result with the manifest, writes new rows,
//! stops cleanly, restarts, compares again (manifest and new rows), writes more, `kill -9`s,
//! restarts and compares once more. From format 6 a fixture also holds a snapshot of its
//! first phase and `manifest-restored.txt`: last, the snapshot is restored and compared with
//! that. Every fixture found is tested.
//!
//! **When the format changes** (a new `FORMAT_VERSION` in `storage/src/db.rs` or a new
//! commit-log version): run `scripts/upgrade-fixture.sh` with the new build. It writes
//! (`generate_fixture`, ignored otherwise) a new directory named by the new versions; add
//! statements and checks to `fixture.rs` for anything the new format stores, commit the new
//! directory, and **never delete or regenerate an old one**: they are what earlier releases
//! left on disks.

mod fixture;
mod render;
mod session;
#[path = "../support/mod.rs"]
mod support;
mod writes;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use render::Entry;
use session::Server;
use support::ONE_AT_A_TIME;

/// Where the fixtures are.
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/upgrade");

/// A commit-log segment's header (`storage/DESIGN.md`, "The commit log").
const SEGMENT_HEADER: u64 = 20;

#[test]
fn every_fixture_opens_replays_and_takes_writes() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let fixtures = fixtures();
    assert!(!fixtures.is_empty(), "no fixture under {FIXTURES}");
    for fixture in fixtures {
        let started = Instant::now();
        check_fixture(&fixture);
        eprintln!("{}: {:?}", fixture.display(), started.elapsed());
    }
}

/// The fixture directories, oldest format first.
fn fixtures() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(FIXTURES)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir() && name(path).starts_with("data-format-"))
        .collect();
    found.sort();
    found
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// Opens a copy of `fixture`, compares, writes, restarts both ways, compares again.
fn check_fixture(fixture: &Path) {
    let manifest = render::parse(&fs::read_to_string(fixture.join("manifest.txt")).unwrap());
    assert!(
        manifest.len() > 20,
        "{}: a short manifest",
        fixture.display()
    );
    let work = tempfile::tempdir().unwrap();
    let data = work.path().join("data");
    copy_dir(&fixture.join("data"), &data);
    assert!(
        log_records(&data) > 0,
        "{}: no commit log",
        fixture.display()
    );
    needs_its_log(fixture, &manifest);

    let server = Server::start(&data);
    let mut expected = manifest;
    compare(&server, &expected, fixture, "after replay");
    write(&server, 100, &mut expected);
    compare(&server, &expected, fixture, "after writing");
    let server = Server::start(&server.stop());
    compare(&server, &expected, fixture, "after a clean restart");
    write(&server, 200, &mut expected);
    let server = Server::start(&server.kill());
    compare(&server, &expected, fixture, "after kill -9 and a restart");
    restore_compare(&server, fixture);
    server.stop();
}

/// A fixture that holds a snapshot (format 6 on) has `manifest-restored.txt`: what the
/// snapshot holds. Restoring it after everything written since must give exactly that.
fn restore_compare(server: &Server, fixture: &Path) {
    let Ok(text) = fs::read_to_string(fixture.join(RESTORED)) else {
        return;
    };
    server.execute(&fixture::restore_snapshot());
    compare(
        server,
        &render::parse(&text),
        fixture,
        "after restoring its snapshot",
    );
}

/// The manifest of what a fixture's snapshot holds.
const RESTORED: &str = "manifest-restored.txt";

/// Writes set `n` (`writes.rs`) and adds its checks to `expected`.
fn write(server: &Server, n: i32, expected: &mut Vec<Entry>) {
    for statement in writes::statements(n) {
        server.execute(&statement);
    }
    expected.extend(writes::expected(n));
}

/// Every entry's query gives the entry's result.
fn compare(server: &Server, expected: &[Entry], fixture: &Path, when: &str) {
    for (found, wanted) in server.check(expected).iter().zip(expected) {
        assert_eq!(
            found.lines,
            wanted.lines,
            "{} {when}: as {}: {}",
            name(fixture),
            wanted.login,
            wanted.query
        );
    }
}

/// Without its commit log the fixture answers differently: the log holds rows the manifest
/// shows, so comparing with it checks the replay.
fn needs_its_log(fixture: &Path, manifest: &[Entry]) {
    let work = tempfile::tempdir().unwrap();
    let data = work.path().join("data");
    copy_dir(&fixture.join("data"), &data);
    fs::remove_dir_all(data.join("commitlog")).unwrap();
    let server = Server::start(&data);
    let found = server.check(manifest);
    server.stop();
    let differing = found.iter().zip(manifest).filter(|(f, m)| f != m).count();
    assert!(
        differing > 0,
        "{}: the same results without the commit log",
        name(fixture)
    );
}

/// The bytes of records (past the segment headers) in `data`'s commit log.
fn log_records(data: &Path) -> u64 {
    let Ok(segments) = fs::read_dir(data.join("commitlog")) else {
        return 0;
    };
    segments
        .map(|segment| segment.unwrap().metadata().unwrap().len())
        .map(|len| len.saturating_sub(SEGMENT_HEADER))
        .sum()
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Writes this build's fixture: `scripts/upgrade-fixture.sh` runs it.
#[test]
#[ignore = "writes a fixture into the source tree: run by scripts/upgrade-fixture.sh"]
fn generate_fixture() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let work = tempfile::tempdir().unwrap();
    let data = work.path().join("data");
    write_fixture_data(&data);
    let format = fs::read_to_string(data.join("FORMAT")).unwrap();
    let target = Path::new(FIXTURES).join(fixture_name(&format));
    let replace = std::env::var("UPGRADE_FIXTURE_REPLACE").is_ok_and(|v| v == "1");
    assert!(
        replace || !target.exists(),
        "{} exists: fixtures are never replaced (UPGRADE_FIXTURE_REPLACE=1 replaces one \
         that was never committed)",
        target.display()
    );
    let (entries, restored) = {
        // On a copy: opening the directory replays and checkpoints its log.
        let copy = work.path().join("copy");
        copy_dir(&data, &copy);
        let server = Server::start(&copy);
        let entries = server.check(&fixture::checks());
        server.execute(&fixture::restore_snapshot());
        let restored = server.check(&fixture::checks());
        server.stop();
        (entries, restored)
    };
    assert_ne!(entries, restored, "the snapshot holds what phase 2 changed");
    if target.exists() {
        fs::remove_dir_all(&target).unwrap();
    }
    copy_dir(&data, &target.join("data"));
    fs::write(
        target.join("manifest.txt"),
        render::manifest(&format, &entries),
    )
    .unwrap();
    fs::write(target.join(RESTORED), render::manifest(&format, &restored)).unwrap();
    needs_its_log(&target, &entries);
    eprintln!("wrote {}", target.display());
}

/// Schema and phase 1, the snapshot of it, a clean stop (checkpointed); phase 2, `kill -9`
/// (only in the log).
fn write_fixture_data(data: &Path) {
    let server = Server::start(data);
    for statement in fixture::SCHEMA {
        server.execute(statement);
    }
    for statement in fixture::phase_one() {
        server.execute(&statement);
    }
    server.execute(&fixture::take_snapshot());
    // The cells written with `USING TTL 1` expire before anything is read.
    std::thread::sleep(Duration::from_secs(2));
    let server = Server::start(&server.stop());
    for statement in fixture::phase_two() {
        server.execute(&statement);
    }
    server.kill();
    assert!(log_records(data) > 0, "phase 2 is not in the commit log");
}

/// `data-format-4-commitlog-2` for a `FORMAT` record naming those versions.
fn fixture_name(format: &str) -> String {
    let version = |key: &str| -> String {
        format
            .lines()
            .find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
            .unwrap_or_else(|| panic!("FORMAT names no {key}: {format:?}"))
            .trim()
            .to_owned()
    };
    format!(
        "data-format-{}-commitlog-{}",
        version("data_format"),
        version("commitlog_version")
    )
}
