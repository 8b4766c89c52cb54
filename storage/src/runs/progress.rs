//! What the merge under way has done, for operators: Cassandra's `sstable_tasks` and
//! `nodetool compactionstats` show each running compaction with its progress in bytes.
//!
//! One merge runs at a time (`compact.rs`), so a store tracks at most one. Its progress is
//! estimated from where the merge is in the key space: keys are in token order and tokens are
//! spread evenly (Murmur3), so a merge that has written every key up to token `t` has read
//! about the share of its inputs' bytes that lies between their first token and `t`. Output
//! bytes would not do: rows that replace others are written once, so the output of a merge
//! that does its job falls short of its inputs.

use std::sync::Mutex;

use uuid::Uuid;

use super::manifest::RunMeta;
use crate::encoding::key::token_order;
use crate::store::locking::lock;

/// A merge under way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeProgress {
    /// Identifies the merge: a time-based (version 1) UUID taken when it started, as
    /// Cassandra's compaction task ids are.
    pub task_id: Uuid,
    /// The CQL table whose runs it merges.
    pub table_id: Uuid,
    /// How many runs it merges.
    pub runs: usize,
    /// Bytes of the inputs merged so far (estimated, see the module documentation).
    pub bytes_done: u64,
    /// Bytes of the inputs' blocks.
    pub bytes_total: u64,
}

/// The merge under way in one store, if any, and its inputs' ids.
#[derive(Debug, Default)]
pub(crate) struct MergeTracker {
    current: Mutex<Option<(MergeProgress, Vec<Uuid>)>>,
}

impl MergeTracker {
    /// Records the start of a merge of `inputs` (adjacent runs of `table_id`, newest first);
    /// it is forgotten when the returned guard is dropped.
    pub(crate) fn begin(&self, table_id: Uuid, inputs: &[RunMeta]) -> Running<'_> {
        let span = TokenSpan::of(inputs);
        let progress = MergeProgress {
            task_id: Uuid::now_v1(&node_id()),
            table_id,
            runs: inputs.len(),
            bytes_done: 0,
            bytes_total: inputs.iter().map(|r| r.bytes).sum(),
        };
        let ids = inputs.iter().map(|r| r.id).collect();
        *lock(&self.current) = Some((progress, ids));
        Running {
            tracker: self,
            span,
        }
    }

    /// The merge under way, if any.
    pub(crate) fn current(&self) -> Option<MergeProgress> {
        lock(&self.current).as_ref().map(|(p, _)| p.clone())
    }

    /// The merge of `table_id`'s runs under way, if any, with the ids of the runs it merges.
    pub(crate) fn of_table(&self, table_id: Uuid) -> Option<(MergeProgress, Vec<Uuid>)> {
        lock(&self.current)
            .as_ref()
            .filter(|(p, _)| p.table_id == table_id)
            .cloned()
    }
}

/// A merge under way; dropping it forgets the merge.
pub(crate) struct Running<'a> {
    tracker: &'a MergeTracker,
    span: TokenSpan,
}

impl Running<'_> {
    /// The merge has written every key up to `key`.
    pub(crate) fn reached(&self, key: &[u8]) {
        let share = self.span.share_up_to(token_order(key));
        self.set(|total| (total as f64 * share) as u64);
    }

    /// The manifest now lists the merge as the runs `ids` (its output so far and what remains
    /// of its inputs), which operators' figures count as one run.
    pub(crate) fn regroup(&self, ids: Vec<Uuid>) {
        if let Some((_, current)) = lock(&self.tracker.current).as_mut() {
            *current = ids;
        }
    }

    /// The merge has written every key.
    pub(crate) fn finished(&self) {
        self.set(|total| total);
    }

    fn set(&self, done: impl FnOnce(u64) -> u64) {
        if let Some((progress, _)) = lock(&self.tracker.current).as_mut() {
            progress.bytes_done = done(progress.bytes_total).min(progress.bytes_total);
        }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        *lock(&self.tracker.current) = None;
    }
}

/// The node part of task ids: random, fixed for the process.
fn node_id() -> [u8; 6] {
    static NODE: std::sync::OnceLock<[u8; 6]> = std::sync::OnceLock::new();
    *NODE.get_or_init(|| {
        let random = Uuid::new_v4();
        let mut node = [0; 6];
        node.copy_from_slice(&random.as_bytes()[10..]);
        node
    })
}

/// The tokens a merge's inputs cover, from the smallest first key to the largest last key.
#[derive(Debug, Clone, Copy)]
struct TokenSpan {
    first: u64,
    last: u64,
}

impl TokenSpan {
    fn of(inputs: &[RunMeta]) -> TokenSpan {
        let first = inputs.iter().map(|r| token_order(&r.first_key)).min();
        let last = inputs.iter().map(|r| token_order(&r.last_key)).max();
        TokenSpan {
            first: first.unwrap_or(0),
            last: last.unwrap_or(0),
        }
    }

    /// The share of the span at or below `token`, from 0 to 1.
    fn share_up_to(&self, token: u64) -> f64 {
        if self.last <= self.first {
            return if token >= self.last { 1.0 } else { 0.0 };
        }
        let done = token.clamp(self.first, self.last) - self.first;
        done as f64 / (self.last - self.first) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(bytes: u64, first: u64, last: u64) -> RunMeta {
        RunMeta {
            bytes,
            first_key: first.to_be_bytes().to_vec(),
            last_key: [last.to_be_bytes().as_slice(), b"row"].concat(),
            ..RunMeta::empty(Uuid::new_v4())
        }
    }

    #[test]
    fn progress_follows_the_merge_through_the_token_span() {
        let tracker = MergeTracker::default();
        let table = Uuid::from_u128(5);
        let inputs = [run(600, 100, 1100), run(400, 0, 1000)];
        {
            let running = tracker.begin(table, &inputs);
            let started = tracker.current().unwrap();
            assert_eq!(started.task_id.get_version_num(), 1);
            assert_eq!((started.runs, started.bytes_done), (2, 0));
            assert_eq!(started.bytes_total, 1000);
            assert_eq!(
                tracker.of_table(table).unwrap().1,
                [inputs[0].id, inputs[1].id]
            );
            assert_eq!(tracker.of_table(Uuid::from_u128(6)), None);
            running.reached(&[550u64.to_be_bytes().as_slice(), b"k"].concat());
            assert_eq!(tracker.current().unwrap().bytes_done, 500);
            running.finished();
            assert_eq!(tracker.current().unwrap().bytes_done, 1000);
        }
        assert_eq!(tracker.current(), None, "the guard forgets the merge");
    }

    #[test]
    fn a_span_of_one_token_is_all_or_nothing() {
        let span = TokenSpan { first: 7, last: 7 };
        assert_eq!(span.share_up_to(6), 0.0);
        assert_eq!(span.share_up_to(7), 1.0);
        let span = TokenSpan { first: 0, last: 10 };
        assert_eq!(span.share_up_to(20), 1.0);
    }
}
