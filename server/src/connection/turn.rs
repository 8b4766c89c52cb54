//! A connection's turn on the runtime. Connections are tasks on a few worker threads; one
//! that always has requests buffered (a client pipelining thousands of writes) kept its
//! thread until tokio's cooperative budget ran out (about 128 socket operations: up to a
//! thousand requests). With forty such connections, another connection's point read waited
//! for each of them in turn: up to 1 s in the debug build the tests run, on a busy machine.
//! So a connection that has worked for [`SLICE`] without waiting lets the other tasks run
//! first, and its next turn begins then, or whenever it waits for input or answers (the same
//! load: 0.25 s at most).
//!
//! A yield after every pass of requests cost 12 % more server CPU per read under
//! cassandra-stress (it woke the other worker to steal); a connection that waits between a
//! few requests, as a driver's does, never uses up its slice and never yields.

use std::future::Future;
use std::time::{Duration, Instant};

/// How long a connection works before the other tasks get a turn: with two workers and N
/// busy connections, a request on another connection waits about N/2 slices.
const SLICE: Duration = Duration::from_millis(1);

/// When the connection's current turn began.
pub(super) struct Turn {
    began: Instant,
}

impl Turn {
    /// A turn beginning now.
    pub(super) fn new() -> Turn {
        Turn {
            began: Instant::now(),
        }
    }

    /// Lets the runtime's other tasks run first when this turn has lasted [`SLICE`].
    pub(super) async fn yield_if_over(&mut self) {
        if self.began.elapsed() >= SLICE {
            tokio::task::yield_now().await;
            self.began = Instant::now();
        }
    }

    /// Awaits `future`; a new turn begins if it had to wait (the thread went to others).
    pub(super) async fn wait<F: Future>(&mut self, future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let mut waited = false;
        let output = std::future::poll_fn(|cx| {
            let poll = future.as_mut().poll(cx);
            waited |= poll.is_pending();
            poll
        })
        .await;
        if waited {
            self.began = Instant::now();
        }
        output
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_turn_restarts_after_a_wait_and_after_a_yield_when_over() {
        let mut turn = Turn::new();
        turn.began -= SLICE * 2;
        assert_eq!(turn.wait(async { 7 }).await, 7);
        assert!(turn.began.elapsed() >= SLICE, "no wait: the turn goes on");
        turn.wait(tokio::time::sleep(Duration::from_millis(1)))
            .await;
        assert!(
            turn.began.elapsed() < SLICE * 100,
            "a wait began a new turn"
        );
        turn.began -= SLICE * 2;
        turn.yield_if_over().await;
        assert!(
            turn.began.elapsed() < SLICE * 100,
            "the yield began a new turn"
        );
    }
}
