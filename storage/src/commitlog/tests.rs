//! The segment format: appends, reading back after a position, torn tails, undo, checkpoints.

use super::*;
use std::fs::OpenOptions;

fn payload(n: u8) -> Vec<u8> {
    vec![n; usize::from(n) + 1]
}

/// [`CommitLog::open`], with the records to replay collected.
fn open_log(
    dir: &Path,
    position: u64,
    rules: ReplayRules,
) -> Result<(CommitLog, Vec<Record>), StorageError> {
    let disk: Arc<dyn Disk> = Arc::new(crate::disk::RealDisk);
    CommitLog::open(&disk, dir, position, rules).map(|(log, pending)| {
        let records = pending.records();
        assert_eq!(records.len() as u64, pending.count);
        (log, records)
    })
}

fn seqs(records: &[Record]) -> Vec<u64> {
    records.iter().map(|r| r.seq).collect()
}

fn segment_files(dir: &Path) -> Vec<PathBuf> {
    list_segments(&crate::disk::RealDisk, dir)
        .unwrap()
        .into_iter()
        .map(|(_, p)| p)
        .collect()
}

/// A log in `dir` holding records 1 to 3; returns its segment's path.
fn three_records(dir: &Path) -> PathBuf {
    let (mut log, _) = open_log(dir, 0, ReplayRules::default()).unwrap();
    for n in 1..=3u8 {
        log.append(&[&payload(n)]).unwrap();
    }
    segment_files(dir).pop().unwrap()
}

#[test]
fn records_after_the_position_come_back_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, records) = open_log(dir.path(), 0, ReplayRules::default()).unwrap();
    assert!(records.is_empty());
    for n in 1..=5u8 {
        let seq = log.append(&[&payload(n)]).unwrap();
        assert_eq!(seq, u64::from(n));
    }
    drop(log);
    let (log, records) = open_log(dir.path(), 2, ReplayRules::default()).unwrap();
    assert_eq!(seqs(&records), vec![3, 4, 5]);
    // The payload is the request count, then the request bytes.
    assert_eq!(&records[0].payload[..4], &1u32.to_be_bytes());
    assert_eq!(&records[0].payload[4..], payload(3).as_slice());
    assert_eq!(log.last_seq(), 5);
}

#[test]
fn a_torn_tail_ends_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = three_records(dir.path());
    let len = std::fs::metadata(&path).unwrap().len();
    let file = OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(len - 2).unwrap();
    let (log, records) = open_log(dir.path(), 0, ReplayRules::default()).unwrap();
    assert_eq!(seqs(&records), vec![1, 2]);
    assert_eq!(log.last_seq(), 2, "the torn record's number is used again");
}

#[test]
fn a_corrupt_last_record_is_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let path = three_records(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    let (_, records) = open_log(dir.path(), 0, ReplayRules::default()).unwrap();
    assert_eq!(seqs(&records), vec![1, 2]);
}

#[test]
fn undo_removes_the_last_record() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = open_log(dir.path(), 0, ReplayRules::default()).unwrap();
    log.append(&[&payload(1)]).unwrap();
    log.append(&[&payload(2)]).unwrap();
    log.undo_last();
    assert_eq!(log.append(&[&payload(3)]).unwrap(), 2);
    drop(log);
    let (_, records) = open_log(dir.path(), 0, ReplayRules::default()).unwrap();
    assert_eq!(seqs(&records), vec![1, 2]);
    assert_eq!(&records[1].payload[4..], payload(3).as_slice());
}

#[test]
fn a_checkpoint_deletes_the_older_segments() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = open_log(dir.path(), 0, ReplayRules::default()).unwrap();
    log.append(&[&payload(1)]).unwrap();
    assert!(log.since_checkpoint() > 0);
    log.checkpointed();
    assert_eq!(log.since_checkpoint(), 0);
    assert!(segment_files(dir.path()).is_empty());
    assert_eq!(log.append(&[&payload(2)]).unwrap(), 2);
    assert_eq!(segment_files(dir.path()).len(), 1);
    drop(log);
    let (_, records) = open_log(dir.path(), 1, ReplayRules::default()).unwrap();
    assert_eq!(seqs(&records), vec![2]);
}

#[test]
fn segments_deleted_in_the_background_are_gone_once_the_log_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = open_log(dir.path(), 0, ReplayRules::default()).unwrap();
    log.delete_in_background().unwrap();
    log.append(&[&payload(1)]).unwrap();
    log.checkpointed();
    assert_eq!(log.append(&[&payload(2)]).unwrap(), 2);
    drop(log);
    // Only the segment of record 2 is left; record 1's went with the checkpoint.
    assert_eq!(segment_files(dir.path()).len(), 1);
    let (_, records) = open_log(dir.path(), 1, ReplayRules::default()).unwrap();
    assert_eq!(seqs(&records), vec![2]);
}

#[test]
fn a_gap_stops_replay() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = open_log(dir.path(), 0, ReplayRules::default()).unwrap();
    log.append(&[&payload(1)]).unwrap();
    drop(log);
    // Position 5 is past the log: records at or before it are skipped, none is missing.
    let (log, records) = open_log(dir.path(), 5, ReplayRules::default()).unwrap();
    assert!(records.is_empty());
    assert_eq!(log.last_seq(), 5);
}

#[test]
fn a_record_larger_than_the_copy_limit_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = open_log(dir.path(), 0, ReplayRules::default()).unwrap();
    let big = vec![7u8; COPY_LIMIT + 10];
    let small = payload(3);
    log.append(&[&big, &small]).unwrap();
    log.append(&[&small]).unwrap();
    drop(log);
    let (_, records) = open_log(dir.path(), 0, ReplayRules::default()).unwrap();
    assert_eq!(seqs(&records), vec![1, 2]);
    assert_eq!(records[0].payload.len(), 4 + big.len() + small.len());
    assert_eq!(&records[0].payload[4..4 + big.len()], big.as_slice());
}

/// Rules that refuse damage outside the last segment (Cassandra's default).
fn strict() -> ReplayRules {
    ReplayRules::default()
}

/// A log in `dir` with records 1-3 in one segment and 4-6 in the next; their paths.
fn two_segments(dir: &Path) -> (PathBuf, PathBuf) {
    let (mut log, _) = open_log(dir, 0, strict()).unwrap();
    for n in 1..=3u8 {
        log.append(&[&payload(n)]).unwrap();
    }
    log.rotate();
    for n in 4..=6u8 {
        log.append(&[&payload(n)]).unwrap();
    }
    let files = segment_files(dir);
    assert_eq!(files.len(), 2);
    (files[0].clone(), files[1].clone())
}

/// Flips one byte in the body of the second record of the segment at `path`; returns where
/// that record starts.
fn damage_second_body(path: &Path) -> usize {
    let mut bytes = std::fs::read(path).unwrap();
    let first_len = u32::from_be_bytes(
        bytes[SEGMENT_HEADER..SEGMENT_HEADER + 4]
            .try_into()
            .unwrap(),
    );
    let second = SEGMENT_HEADER + 20 + first_len as usize;
    bytes[second + 20 + 5] ^= 0x10;
    std::fs::write(path, bytes).unwrap();
    second
}

#[test]
fn a_damaged_record_in_the_last_segment_is_skipped_and_the_rest_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let (_, last) = two_segments(dir.path());
    damage_second_body(&last);
    for acknowledged_after_fsync in [false, true] {
        let rules = ReplayRules {
            acknowledged_after_fsync,
            ignore_errors: false,
        };
        let (log, records) = open_log(dir.path(), 0, rules).unwrap();
        assert_eq!(seqs(&records), vec![1, 2, 3, 4, 6]);
        assert_eq!(log.last_seq(), 6);
    }
}

#[test]
fn damage_in_an_earlier_segment_stops_the_start_unless_overridden() {
    let dir = tempfile::tempdir().unwrap();
    let (first, _) = two_segments(dir.path());
    let offset = damage_second_body(&first);
    let before = std::fs::read(&first).unwrap();
    let Err(StorageError::CommitLogReplay { message }) = open_log(dir.path(), 0, strict()) else {
        panic!("damage in an earlier segment must stop the start");
    };
    let name = first.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        message,
        format!("Mutation checksum failure at {offset} in {name}")
    );
    assert_eq!(
        std::fs::read(&first).unwrap(),
        before,
        "a refused start changes no file"
    );
    let rules = ReplayRules {
        acknowledged_after_fsync: false,
        ignore_errors: true,
    };
    let (_, records) = open_log(dir.path(), 0, rules).unwrap();
    assert_eq!(seqs(&records), vec![1, 3, 4, 5, 6]);
}

#[test]
fn damage_already_behind_the_position_costs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (first, _) = two_segments(dir.path());
    damage_second_body(&first);
    let (_, records) = open_log(dir.path(), 3, strict()).unwrap();
    assert_eq!(seqs(&records), vec![4, 5, 6]);
}

#[test]
fn a_damaged_segment_header_stops_the_start_unless_overridden() {
    let dir = tempfile::tempdir().unwrap();
    let (_, last) = two_segments(dir.path());
    let mut bytes = std::fs::read(&last).unwrap();
    bytes[3] ^= 0x01;
    std::fs::write(&last, bytes).unwrap();
    let Err(StorageError::CommitLogReplay { message }) = open_log(dir.path(), 0, strict()) else {
        panic!("a damaged segment header must stop the start");
    };
    assert!(
        message.starts_with("Could not read commit log descriptor in file CommitLog-"),
        "{message}"
    );
    let rules = ReplayRules {
        acknowledged_after_fsync: true,
        ignore_errors: true,
    };
    let (log, records) = open_log(dir.path(), 0, rules).unwrap();
    assert_eq!(seqs(&records), vec![1, 2, 3]);
    assert_eq!(log.last_seq(), 3);
}

#[test]
fn the_garbage_of_a_failed_append_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (first, _) = two_segments(dir.path());
    // An append that failed half-way and could not be cut back: its number was used again
    // in the next segment.
    let mut bytes = std::fs::read(&first).unwrap();
    bytes.extend_from_slice(&[0xab; 13]);
    std::fs::write(&first, bytes).unwrap();
    let (_, records) = open_log(dir.path(), 0, strict()).unwrap();
    assert_eq!(seqs(&records), vec![1, 2, 3, 4, 5, 6]);
}

#[test]
fn a_segment_cut_short_at_creation_holds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    three_records(dir.path());
    std::fs::write(segment_path(dir.path(), 9), b"CQLC").unwrap();
    let (log, records) = open_log(dir.path(), 0, strict()).unwrap();
    assert_eq!(seqs(&records), vec![1, 2, 3]);
    assert_eq!(log.last_seq(), 3);
}

#[test]
fn a_newer_segment_version_is_refused_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = three_records(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[7] = b'3';
    std::fs::write(&path, &bytes).unwrap();
    for result in [
        check_versions(&crate::disk::RealDisk, dir.path()).map(|()| 0usize),
        open_log(dir.path(), 0, strict()).map(|(_, r)| r.len()),
    ] {
        let Err(StorageError::CommitLogVersion { found, known, .. }) = result else {
            panic!("a newer segment must be refused");
        };
        assert_eq!((found, known), (3, 2));
    }
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[test]
fn segments_of_the_previous_format_replay() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = b"CQLCLOG1".to_vec();
    for seq in 1..=2u64 {
        let body = [0u8, 0, 0, 1, seq as u8];
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&seq.to_be_bytes());
        hasher.update(&body);
        bytes.extend_from_slice(&(body.len() as u32).to_be_bytes());
        bytes.extend_from_slice(&hasher.finalize().to_be_bytes());
        bytes.extend_from_slice(&seq.to_be_bytes());
        bytes.extend_from_slice(&body);
    }
    std::fs::write(segment_path(dir.path(), 4), bytes).unwrap();
    let (mut log, records) = open_log(dir.path(), 0, strict()).unwrap();
    assert_eq!(seqs(&records), vec![1, 2]);
    assert_eq!(&records[1].payload[4..], &[2]);
    assert_eq!(log.append(&[&payload(3)]).unwrap(), 3);
}
