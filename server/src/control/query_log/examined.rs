//! What a recorded request's reads examined: rows and tombstones, added up over its reads.
//!
//! Each read reports its [`ReadStats`] to [`add_read`] when it finishes; the counts go to a
//! task-local scope that exists only around a request being recorded ([`counting_now`],
//! [`counting`]). When the log is off, a read pays one check of a plain field and no scope
//! is ever set.

use std::cell::Cell;
use std::future::Future;

use futures::future::Either;
use futures::FutureExt;

use super::Noted;
use crate::executor::read::stats::ReadStats;
use crate::node::Node;

tokio::task_local! {
    static EXAMINED: Cell<Examined>;
}

/// Rows and tombstones examined by a request's reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Examined {
    /// Reads finished.
    pub(crate) reads: u32,
    /// Stored rows examined, live or not.
    pub(crate) rows: u64,
    /// Tombstones met.
    pub(crate) tombstones: u64,
}

impl Examined {
    /// The sum of two counts.
    pub(crate) fn plus(self, other: Examined) -> Examined {
        Examined {
            reads: self.reads.saturating_add(other.reads),
            rows: self.rows.saturating_add(other.rows),
            tombstones: self.tombstones.saturating_add(other.tombstones),
        }
    }
}

/// Counts a finished read toward the request being recorded, if one is.
pub(crate) fn add_read(node: &Node, stats: &ReadStats) {
    if !node.controls().queries().is_recording() {
        return;
    }
    let read = Examined {
        reads: 1,
        rows: stats.rows_examined,
        tombstones: stats.tombstones,
    };
    // Outside a recorded request's scope (an init script, a test) nothing is counted.
    let _ = EXAMINED.try_with(|counts| counts.set(counts.get().plus(read)));
}

/// Runs `request` (synchronous), counting its reads into `noted` when it is recorded.
pub(crate) fn counting_now<T>(noted: &mut Option<Box<Noted>>, request: impl FnOnce() -> T) -> T {
    let Some(noted) = noted else {
        return request();
    };
    let (output, examined) = EXAMINED.sync_scope(Cell::new(Examined::default()), || {
        let output = request();
        (output, EXAMINED.with(Cell::get))
    });
    noted.add_examined(examined);
    output
}

/// Runs `request`, counting its reads into `noted` when it is recorded. A plain function
/// around combinators rather than an `async fn`: a request not recorded is polled as it is,
/// with no layer around it.
pub(crate) fn counting<'n, F>(
    noted: &'n mut Option<Box<Noted>>,
    request: F,
) -> impl Future<Output = F::Output> + 'n
where
    F: Future + 'n,
{
    let Some(noted) = noted else {
        return Either::Left(request);
    };
    let counted = request.map(|output| (output, EXAMINED.with(Cell::get)));
    let scoped = EXAMINED.scope(Cell::new(Examined::default()), counted);
    Either::Right(scoped.map(move |(output, examined)| {
        noted.add_examined(examined);
        output
    }))
}

/// Adds `read` to the current scope's counts (tests: no node needed).
#[cfg(test)]
pub(super) fn add_for_test(read: Examined) {
    let _ = EXAMINED.try_with(|counts| counts.set(counts.get().plus(read)));
}

#[cfg(test)]
mod tests {
    use super::*;

    const READ: Examined = Examined {
        reads: 1,
        rows: 10,
        tombstones: 2,
    };

    #[test]
    fn reads_add_up_within_their_scope_only() {
        let mut none: Option<Box<Noted>> = None;
        assert_eq!(counting_now(&mut none, || 7), 7);
        add_for_test(READ);
        let ((), counted) = EXAMINED.sync_scope(Cell::new(Examined::default()), || {
            add_for_test(READ);
            add_for_test(READ);
            ((), EXAMINED.with(Cell::get))
        });
        assert_eq!(
            counted,
            Examined {
                reads: 2,
                rows: 20,
                tombstones: 4
            }
        );
    }

    #[tokio::test]
    async fn a_request_that_waits_keeps_its_counts() {
        let (output, counted) = EXAMINED
            .scope(Cell::new(Examined::default()), async {
                add_for_test(READ);
                tokio::task::yield_now().await;
                add_for_test(READ);
                (5, EXAMINED.with(Cell::get))
            })
            .await;
        assert_eq!((output, counted.reads, counted.rows), (5, 2, 20));
    }
}
