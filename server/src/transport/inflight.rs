//! Bytes of requests in flight, bounded per client address and for the whole server, as
//! Cassandra 4.1's `native_transport_max_request_data_in_flight_per_ip` and
//! `native_transport_max_request_data_in_flight` bound them.
//!
//! A request's bytes (and its response's, until written) are allocated from its
//! connection's [`Budget`]: from the reserve of its client address and from the global one.
//! As in Cassandra, a client that set `THROW_ON_OVERLOAD` at STARTUP gets an OVERLOADED error
//! when the allocation does not fit; any other client's allocation always succeeds (one
//! message may over-allocate, so a request larger than the limit is still served) and the
//! connection stops reading while the reserves are over their limits (backpressure).
//!
//! As in Cassandra's `PreV5Handlers`, only a connection with bytes in flight of its own
//! pauses, and it resumes once the reserves are back under their limits *or* its own bytes
//! in flight are back to zero: a connection that sends one request at a time is never held
//! back by another connection's load. Pausing every connection of the address instead let a
//! client pipelining 15 MB writes hold another connection's point read for seconds, the two
//! racing for each release.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::Notify;

/// One reserve: bytes in use against a limit, with a wake-up when bytes are freed.
#[derive(Debug)]
struct Reserve {
    used: AtomicU64,
    limit: u64,
    freed: Notify,
}

impl Reserve {
    fn new(limit: u64) -> Arc<Reserve> {
        Arc::new(Reserve {
            used: AtomicU64::new(0),
            limit,
            freed: Notify::new(),
        })
    }

    fn over(&self) -> bool {
        self.used.load(Ordering::Acquire) > self.limit
    }

    /// Adds `n` bytes if they fit under the limit.
    fn try_add(&self, n: u64) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                let total = used.checked_add(n)?;
                (total <= self.limit).then_some(total)
            })
            .is_ok()
    }

    /// Gives `n` bytes back. Only a connection that found the reserve over its limit waits
    /// (`Budget::below_limits`), so only a release from over the limit wakes waiters: the
    /// release that brings the reserve back under always is one, and the common release
    /// takes no lock.
    fn release(&self, n: u64) {
        let before = self.used.fetch_sub(n, Ordering::AcqRel);
        if before > self.limit {
            self.freed.notify_waiters();
        }
    }
}

/// The server's reserves: one global, one per client address (dropped with its last
/// connection).
#[derive(Debug)]
pub(crate) struct Limits {
    global: Arc<Reserve>,
    per_ip_limit: u64,
    per_ip: Mutex<HashMap<IpAddr, Weak<Reserve>>>,
}

impl Limits {
    /// Reserves of `global` bytes in all and `per_ip` bytes per client address.
    pub(crate) fn new(global: u64, per_ip: u64) -> Limits {
        Limits {
            global: Reserve::new(global),
            per_ip_limit: per_ip,
            per_ip: Mutex::new(HashMap::new()),
        }
    }

    /// The budget of a connection from `ip`.
    pub(crate) fn budget(&self, ip: IpAddr) -> Budget {
        let mut per_ip = self.per_ip.lock().unwrap_or_else(|p| p.into_inner());
        per_ip.retain(|_, reserve| reserve.strong_count() > 0);
        let endpoint = match per_ip.get(&ip).and_then(Weak::upgrade) {
            Some(reserve) => reserve,
            None => {
                let reserve = Reserve::new(self.per_ip_limit);
                per_ip.insert(ip, Arc::downgrade(&reserve));
                reserve
            }
        };
        Budget {
            endpoint,
            global: self.global.clone(),
            own: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Bytes allocated server-wide right now.
    #[cfg(test)]
    pub(crate) fn global_in_use(&self) -> u64 {
        self.global.used.load(Ordering::Acquire)
    }
}

/// A connection's view of the reserves, with the bytes it has in flight itself (shared by
/// its allocations).
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    endpoint: Arc<Reserve>,
    global: Arc<Reserve>,
    own: Arc<AtomicU64>,
}

impl Budget {
    /// Allocates `n` bytes if they fit under both limits (for `THROW_ON_OVERLOAD` clients).
    pub(crate) fn try_allocate(&self, n: usize) -> Option<Allocation> {
        let n = n as u64;
        if !self.endpoint.try_add(n) {
            return None;
        }
        if !self.global.try_add(n) {
            self.endpoint.release(n);
            return None;
        }
        self.own.fetch_add(n, Ordering::AcqRel);
        Some(Allocation {
            budget: self.clone(),
            bytes: n,
        })
    }

    /// Allocates `n` bytes, over the limits if need be; the caller then checks
    /// [`Budget::must_pause`] before reading more.
    pub(crate) fn allocate(&self, n: usize) -> Allocation {
        let n = n as u64;
        self.add(n);
        Allocation {
            budget: self.clone(),
            bytes: n,
        }
    }

    /// Adds `n` bytes to the connection's own count and to both reserves, over the limits
    /// if need be.
    fn add(&self, n: u64) {
        self.own.fetch_add(n, Ordering::AcqRel);
        self.endpoint.used.fetch_add(n, Ordering::AcqRel);
        self.global.used.fetch_add(n, Ordering::AcqRel);
    }

    /// Whether either reserve is over its limit.
    pub(crate) fn over_limits(&self) -> bool {
        self.endpoint.over() || self.global.over()
    }

    /// Whether the connection must stop reading: either reserve is over its limit and the
    /// connection has bytes in flight of its own (see the module's doc).
    pub(crate) fn must_pause(&self) -> bool {
        self.own.load(Ordering::Acquire) > 0 && self.over_limits()
    }

    /// Completes once the connection may read again: both reserves are at or under their
    /// limits, or its own bytes in flight are back to zero. Its own bytes go back on its own
    /// task (answers written), which checks [`Budget::must_pause`] again before it waits.
    pub(crate) async fn below_limits(&self) {
        loop {
            let endpoint = self.endpoint.freed.notified();
            let global = self.global.freed.notified();
            if !self.must_pause() {
                return;
            }
            tokio::select! {
                _ = endpoint => {}
                _ = global => {}
            }
        }
    }
}

/// Bytes allocated from a budget; released when dropped.
#[derive(Debug)]
pub(crate) struct Allocation {
    budget: Budget,
    bytes: u64,
}

impl Allocation {
    /// Adds `n` bytes, over the limits if need be (as [`Budget::allocate`]); they go back
    /// with the rest when the allocation is dropped. A request's answer is charged this way
    /// to the request's own allocation, which needs no second handle on the reserves.
    pub(crate) fn grow(&mut self, n: usize) {
        let n = n as u64;
        self.budget.add(n);
        self.bytes += n;
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        self.budget.own.fetch_sub(self.bytes, Ordering::AcqRel);
        self.budget.endpoint.release(self.bytes);
        self.budget.global.release(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 0, 2));

    #[test]
    fn try_allocate_refuses_what_does_not_fit_and_drops_give_back() {
        let limits = Limits::new(100, 60);
        let a = limits.budget(A);
        let first = a.try_allocate(50).unwrap();
        assert!(a.try_allocate(20).is_none(), "over the per-address limit");
        let b = limits.budget(B);
        let other = b.try_allocate(50).unwrap();
        assert!(b.try_allocate(10).is_none(), "over the global limit");
        drop(first);
        assert!(b.try_allocate(10).is_some(), "freed bytes are reusable");
        drop(other);
        assert_eq!(limits.global_in_use(), 0);
    }

    #[test]
    fn a_grown_allocation_counts_and_gives_back_all_its_bytes() {
        let limits = Limits::new(100, 60);
        let budget = limits.budget(A);
        let mut request = budget.try_allocate(40).unwrap();
        request.grow(30);
        assert!(budget.over_limits(), "70 bytes against the address's 60");
        assert_eq!(limits.global_in_use(), 70);
        drop(request);
        assert!(!budget.over_limits());
        assert_eq!(limits.global_in_use(), 0);
    }

    #[test]
    fn connections_from_one_address_share_its_reserve() {
        let limits = Limits::new(1000, 60);
        let one = limits.budget(A);
        let two = limits.budget(A);
        let _held = one.try_allocate(60).unwrap();
        assert!(two.try_allocate(1).is_none());
    }

    #[tokio::test]
    async fn only_connections_with_bytes_in_flight_pause_while_over() {
        let limits = Limits::new(1000, 100);
        let (loaded, idle) = (limits.budget(A), limits.budget(A));
        let big = loaded.allocate(150);
        assert!(loaded.must_pause() && idle.over_limits());
        assert!(
            !idle.must_pause(),
            "nothing of its own in flight: it reads on"
        );
        let small = idle.allocate(10);
        assert!(
            idle.must_pause(),
            "over the address's limit, with 10 bytes of its own"
        );
        drop(small);
        tokio::time::timeout(Duration::from_secs(5), idle.below_limits())
            .await
            .expect("its own bytes are back to zero: it may read again");
        assert!(loaded.must_pause(), "still over, with 150 bytes of its own");
        drop(big);
        assert!(!loaded.must_pause());
    }

    #[tokio::test]
    async fn an_over_allocation_pauses_until_bytes_are_freed() {
        let limits = Limits::new(100, 100);
        let budget = limits.budget(A);
        let big = budget.allocate(150);
        assert!(budget.over_limits());
        let waiter = tokio::spawn({
            let budget = budget.clone();
            async move { budget.below_limits().await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished(), "still over the limit");
        drop(big);
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("woken once freed")
            .unwrap();
    }
}
