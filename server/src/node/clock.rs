//! The node's clock: wall time in microseconds, the strictly increasing write-timestamp
//! sequence derived from it, and a forward offset so tests can move time (TTL expiry,
//! `gc_grace_seconds`) without sleeping.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Microseconds since the Unix epoch from the system clock.
pub(crate) fn system_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// The node's time source. Every read of "now" in the server (liveness, TTL expiry, time
/// functions, server-side write timestamps, purges) goes through it.
#[derive(Debug, Default)]
pub(crate) struct Clock {
    /// Added to the system clock; only ever grows.
    offset_micros: AtomicI64,
    /// The last write timestamp handed out.
    last_timestamp: AtomicI64,
}

impl Clock {
    /// Now, in microseconds since the epoch.
    pub(crate) fn now_micros(&self) -> i64 {
        system_micros().saturating_add(self.offset_micros.load(Ordering::Relaxed))
    }

    /// Now, in whole seconds since the epoch.
    pub(crate) fn now_seconds(&self) -> i64 {
        self.now_micros().div_euclid(1_000_000)
    }

    /// Moves this node's time forward by `by` (for tests: expiring TTLs, passing
    /// `gc_grace_seconds`). Time never moves backwards.
    pub(crate) fn advance(&self, by: Duration) {
        let micros = i64::try_from(by.as_micros()).unwrap_or(i64::MAX);
        self.offset_micros.fetch_add(micros, Ordering::Relaxed);
    }

    /// How far the clock was moved forward, in microseconds.
    pub(crate) fn offset_micros(&self) -> i64 {
        self.offset_micros.load(Ordering::Relaxed)
    }

    /// Takes back every [`Clock::advance`] (a test-control reset). Write timestamps still
    /// never go backwards: [`Clock::next_timestamp`] stays past the last one handed out.
    pub(crate) fn reset_offset(&self) {
        self.offset_micros.store(0, Ordering::Relaxed);
    }

    /// A write timestamp that never repeats and never goes backwards across the whole node
    /// (Cassandra's `ClientState.getTimestamp`).
    pub(crate) fn next_timestamp(&self) -> i64 {
        self.timestamp_from(self.now_micros())
    }

    /// [`Clock::next_timestamp`] for a request that read the clock already (`now`, from
    /// [`Clock::now_micros`]): `now`, unless an earlier timestamp reached it.
    pub(crate) fn timestamp_from(&self, now: i64) -> i64 {
        let mut last = self.last_timestamp.load(Ordering::Relaxed);
        loop {
            let candidate = if now > last { now } else { last + 1 };
            match self.last_timestamp.compare_exchange_weak(
                last,
                candidate,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return candidate,
                Err(actual) => last = actual,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_strictly_increasing() {
        let clock = Clock::default();
        let mut prev = clock.next_timestamp();
        for _ in 0..10_000 {
            let next = clock.next_timestamp();
            assert!(next > prev);
            prev = next;
        }
    }

    #[test]
    fn a_reading_taken_earlier_still_gives_a_later_timestamp_than_any_before() {
        let clock = Clock::default();
        let read = clock.now_micros();
        let first = clock.timestamp_from(read + 50);
        assert_eq!(first, read + 50);
        // Another request that read the clock before it: after it all the same.
        assert_eq!(clock.timestamp_from(read), first + 1);
        assert!(clock.next_timestamp() > first + 1);
    }

    #[test]
    fn advancing_moves_now_and_timestamps_forward() {
        let clock = Clock::default();
        let before = clock.next_timestamp();
        clock.advance(Duration::from_secs(3600));
        let now = clock.now_micros();
        assert!(now >= before + 3_600_000_000, "{before} -> {now}");
        assert!(clock.next_timestamp() >= now);
        assert_eq!(
            clock.now_seconds(),
            clock.now_micros().div_euclid(1_000_000)
        );
    }
}
