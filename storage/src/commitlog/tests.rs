//! The segment format: appends, reading back after a position, torn tails, undo, checkpoints.

use super::*;

fn payload(n: u8) -> Vec<u8> {
    vec![n; usize::from(n) + 1]
}

fn seqs(records: &[Record]) -> Vec<u64> {
    records.iter().map(|r| r.seq).collect()
}

fn segment_files(dir: &Path) -> Vec<PathBuf> {
    list_segments(dir)
        .unwrap()
        .into_iter()
        .map(|(_, p)| p)
        .collect()
}

/// A log in `dir` holding records 1 to 3; returns its segment's path.
fn three_records(dir: &Path) -> PathBuf {
    let (mut log, _) = CommitLog::open(dir, 0).unwrap();
    for n in 1..=3u8 {
        log.append(&[&payload(n)]).unwrap();
    }
    segment_files(dir).pop().unwrap()
}

#[test]
fn records_after_the_position_come_back_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, records) = CommitLog::open(dir.path(), 0).unwrap();
    assert!(records.is_empty());
    for n in 1..=5u8 {
        let seq = log.append(&[&payload(n)]).unwrap();
        assert_eq!(seq, u64::from(n));
    }
    drop(log);
    let (log, records) = CommitLog::open(dir.path(), 2).unwrap();
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
    let (log, records) = CommitLog::open(dir.path(), 0).unwrap();
    assert_eq!(seqs(&records), vec![1, 2]);
    assert_eq!(log.last_seq(), 2, "the torn record's number is used again");
}

#[test]
fn a_corrupt_record_ends_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let path = three_records(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    let (_, records) = CommitLog::open(dir.path(), 0).unwrap();
    assert_eq!(seqs(&records), vec![1, 2]);
}

#[test]
fn undo_removes_the_last_record() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = CommitLog::open(dir.path(), 0).unwrap();
    log.append(&[&payload(1)]).unwrap();
    log.append(&[&payload(2)]).unwrap();
    log.undo_last();
    assert_eq!(log.append(&[&payload(3)]).unwrap(), 2);
    drop(log);
    let (_, records) = CommitLog::open(dir.path(), 0).unwrap();
    assert_eq!(seqs(&records), vec![1, 2]);
    assert_eq!(&records[1].payload[4..], payload(3).as_slice());
}

#[test]
fn a_checkpoint_deletes_the_older_segments() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = CommitLog::open(dir.path(), 0).unwrap();
    log.append(&[&payload(1)]).unwrap();
    assert!(log.since_checkpoint() > 0);
    log.checkpointed();
    assert_eq!(log.since_checkpoint(), 0);
    assert!(segment_files(dir.path()).is_empty());
    assert_eq!(log.append(&[&payload(2)]).unwrap(), 2);
    assert_eq!(segment_files(dir.path()).len(), 1);
    drop(log);
    let (_, records) = CommitLog::open(dir.path(), 1).unwrap();
    assert_eq!(seqs(&records), vec![2]);
}

#[test]
fn a_gap_stops_replay() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = CommitLog::open(dir.path(), 0).unwrap();
    log.append(&[&payload(1)]).unwrap();
    drop(log);
    // Position 5 is past the log: records at or before it are skipped, none is missing.
    let (log, records) = CommitLog::open(dir.path(), 5).unwrap();
    assert!(records.is_empty());
    assert_eq!(log.last_seq(), 5);
}

#[test]
fn a_record_larger_than_the_copy_limit_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = CommitLog::open(dir.path(), 0).unwrap();
    let big = vec![7u8; COPY_LIMIT + 10];
    let small = payload(3);
    log.append(&[&big, &small]).unwrap();
    log.append(&[&small]).unwrap();
    drop(log);
    let (_, records) = CommitLog::open(dir.path(), 0).unwrap();
    assert_eq!(seqs(&records), vec![1, 2]);
    assert_eq!(records[0].payload.len(), 4 + big.len() + small.len());
    assert_eq!(&records[0].payload[4..4 + big.len()], big.as_slice());
}
