//! Background work in short turns: the flusher and the compactor give the CPU back to the
//! request threads every [`TURN`] of building blocks.
//!
//! Both run at the request threads' priority (they hold redb locks that reads take, so a
//! lowered priority starved them while reads waited). At that priority, a connection thread
//! woken by a request on a core where a merge is compressing blocks waited for the merge's
//! time slice to end: with both cores busy, a 10 M-row load ran at about 51-54 k writes/s,
//! and with the two threads moved to `SCHED_IDLE` from outside (which any wakeup preempts)
//! at 60.8 k/s. A `sched_yield` between two blocks once a turn is over gives the same
//! wakeups their core at once, and costs nothing when no thread waits; it does not lower the
//! thread's share of the CPU, so a flush still finishes under a CPU-bound neighbour. Turns
//! are taken only between blocks, never while a redb page or a memtable lock is held.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// The longest stretch of block building between two yields.
const TURN: Duration = Duration::from_micros(200);

thread_local! {
    /// When this thread's turn began; `None` on threads that do not take turns.
    static TURN_BEGAN: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Makes the calling thread take turns from now on (the flusher and the compactor).
pub(crate) fn take_turns() {
    TURN_BEGAN.set(Some(Instant::now()));
}

/// Between two blocks: yields the CPU if the calling thread takes turns and its turn is over.
pub(crate) fn between_blocks() {
    if let Some(began) = TURN_BEGAN.get() {
        if began.elapsed() >= TURN {
            std::thread::yield_now();
            TURN_BEGAN.set(Some(Instant::now()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_threads_that_take_turns_yield() {
        between_blocks();
        assert_eq!(TURN_BEGAN.get(), None);
        take_turns();
        let first = TURN_BEGAN.get().unwrap();
        std::thread::sleep(TURN * 2);
        between_blocks();
        assert!(TURN_BEGAN.get().unwrap() > first, "a new turn began");
    }
}
