//! The writer's queue, and combining: a thread that queued writes may apply them itself.
//!
//! Every request goes into one queue. The writer thread (`storage-writer`) takes what is
//! queued, as a group, whenever it holds nothing else to do, and does the timed work
//! (periodic fsync, checkpoints, flushes) in between. A thread that queues plain writes
//! inside a [`DeferredWrites`] scope does not wake it: at the end of the scope it takes the
//! writer's state itself, if free, and applies what is queued, when the group is
//! *combinable* (logged row writes bound for the memtable: an append to the commit log and
//! map inserts, nothing that blocks). A server connection that read many requests at once
//! so appends them all in one `write(2)` and answers them without a hand-off between
//! threads (two futex wake-ups per group, and the latency of both).
//!
//! Whoever holds the writer's state looks at the queue again after letting go of it, so a
//! request queued while the state was busy is never left behind: the writer thread takes it
//! in its next round, and a combining thread wakes the writer thread for it. The writer
//! thread is also woken when combining brought timed work forward (a log to fsync, a
//! memtable to flush) or left a group it may not apply (a catalog change, an indexed table,
//! a flush falling behind).

use std::cell::Cell;
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::{Condvar, Mutex, TryLockError};
use std::time::{Duration, Instant};

use crate::error::StorageError;
use crate::store::locking::lock;
use crate::writer::request::Request;
use crate::writer::request::MAX_GROUP;
use crate::writer::request::MAX_GROUP_BYTES;
use crate::writer::Writer;

/// The longest the writer thread sleeps without looking at the queue.
const LONGEST_SLEEP: Duration = Duration::from_millis(100);

/// The writer's state and its queue, shared by the writer thread and every `Store` handle.
pub(crate) struct Shared {
    writer: Mutex<Writer>,
    queue: Mutex<Queue>,
    /// Wakes the writer thread: a request it must handle, timed work, or the queue closing.
    wake: Condvar,
}

#[derive(Default)]
struct Queue {
    requests: VecDeque<Request>,
    /// No request is taken any more: the store is shutting down.
    closed: bool,
}

thread_local! {
    /// The store (its `Shared`'s address) whose writes this thread defers, or 0.
    static DEFERRING: Cell<usize> = const { Cell::new(0) };
    /// Whether this thread queued a write for that store since its scope last applied them
    /// (a pass that wrote nothing then costs no lock).
    static DEFERRED: Cell<bool> = const { Cell::new(false) };
}

impl Shared {
    /// Shares `writer`, with an empty queue.
    pub(crate) fn new(writer: Writer) -> Shared {
        Shared {
            writer: Mutex::new(writer),
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
        }
    }

    /// Queues `request`; wakes the writer thread unless this thread defers this store's
    /// writes. Gives the request back once the queue is closed.
    pub(crate) fn push(&self, request: Request) -> Result<(), Request> {
        let mut queue = lock(&self.queue);
        if queue.closed {
            return Err(request);
        }
        queue.requests.push_back(request);
        drop(queue);
        if self.deferred_here() {
            DEFERRED.with(|d| d.set(true));
        } else {
            self.wake.notify_one();
        }
        Ok(())
    }

    fn deferred_here(&self) -> bool {
        DEFERRING.with(|d| d.get() == self.address())
    }

    fn address(&self) -> usize {
        std::ptr::from_ref(self) as usize
    }

    /// Closes the queue: later requests are refused; the writer thread drains what is
    /// queued, then stops.
    pub(crate) fn close(&self) {
        lock(&self.queue).closed = true;
        self.wake.notify_one();
    }

    /// The next group in queue order, bounded in requests and log bytes.
    fn take(&self) -> Vec<Request> {
        let mut queue = lock(&self.queue);
        let mut bytes = 0;
        let mut group = Vec::new();
        while group.len() < MAX_GROUP && bytes < MAX_GROUP_BYTES {
            let Some(request) = queue.requests.pop_front() else {
                break;
            };
            bytes += request.logged_len();
            group.push(request);
        }
        group
    }

    /// Puts a group taken but not handled back at the head of the queue, in order.
    fn give_back(&self, group: Vec<Request>) {
        let mut queue = lock(&self.queue);
        for request in group.into_iter().rev() {
            queue.requests.push_front(request);
        }
    }

    fn queue_is_empty(&self) -> bool {
        lock(&self.queue).requests.is_empty()
    }

    /// Waits until a request is queued, the queue closes, `due` passes or [`LONGEST_SLEEP`]
    /// has gone by. `false` once the queue is closed and empty.
    fn wait(&self, due: Option<Instant>) -> bool {
        let queue = lock(&self.queue);
        if !queue.requests.is_empty() {
            return true;
        }
        if queue.closed {
            return false;
        }
        // Never asleep for long: a deferred write whose scope cannot apply it is still taken
        // within `LONGEST_SLEEP`, a delay, never a hang.
        let now = Instant::now();
        let until = due.map_or(now + LONGEST_SLEEP, |due| due.min(now + LONGEST_SLEEP));
        if now < until {
            let (_queue, _timeout) = self
                .wake
                .wait_timeout(queue, until - now)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
        true
    }

    /// Applies what is queued on this thread when the writer's state is free and the group
    /// is combinable (see the module documentation); whether it applied anything.
    pub(crate) fn drive(&self) -> bool {
        let mut writer = match self.writer.try_lock() {
            Ok(writer) => writer,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            // Its holder looks at the queue once it lets go.
            Err(TryLockError::WouldBlock) => return false,
        };
        let before = writer.next_due();
        let group = self.take();
        if group.is_empty() {
            return false;
        }
        let combinable = writer.combinable(&group);
        if combinable {
            writer.process(group);
        } else {
            self.give_back(group);
        }
        let sooner = match (writer.next_due(), before) {
            (Some(after), Some(before)) => after < before,
            (after, _) => after.is_some() && before.is_none(),
        };
        let wanted = writer.checkpoint_wanted();
        drop(writer);
        if !combinable || sooner || wanted || !self.queue_is_empty() {
            self.wake.notify_one();
        }
        combinable
    }
}

/// The writer thread: handles queued groups and timed work until the queue closes and
/// drains, then makes everything durable; returns that final checkpoint's outcome.
pub(crate) fn run(shared: &Shared) -> Result<(), StorageError> {
    loop {
        let mut writer = lock(&shared.writer);
        let group = shared.take();
        if !group.is_empty() {
            writer.process(group);
            writer.timed_work();
            continue;
        }
        writer.timed_work();
        let due = writer.next_due();
        drop(writer);
        if !shared.wait(due) {
            break;
        }
    }
    lock(&shared.writer).finish()
}

/// While it lives, this thread's writes to one store are queued without waking the writer
/// thread; [`DeferredWrites::drive`] and dropping the scope apply them on this thread (see
/// the module documentation). Not `Send`: it marks a thread, so it must not be held across
/// an `.await`.
pub struct DeferredWrites<'a> {
    shared: &'a Shared,
    /// The store this thread deferred for before the scope, and whether it had deferred
    /// writes (scopes nest).
    previous: (usize, bool),
    _not_send: PhantomData<*const ()>,
}

impl<'a> DeferredWrites<'a> {
    pub(crate) fn new(shared: &'a Shared) -> DeferredWrites<'a> {
        let store = DEFERRING.with(|d| d.replace(shared.address()));
        let deferred = DEFERRED.with(|d| d.replace(false));
        DeferredWrites {
            shared,
            previous: (store, deferred),
            _not_send: PhantomData,
        }
    }

    /// Applies the writes this scope queued so far, here if the writer's state is free;
    /// whether any were applied (their acknowledgements have then been sent). Nothing to do,
    /// and no lock taken, when the scope queued none.
    pub fn drive(&self) -> bool {
        DEFERRED.with(|d| d.replace(false)) && self.shared.drive()
    }
}

impl Drop for DeferredWrites<'_> {
    fn drop(&mut self) {
        let (store, deferred) = self.previous;
        DEFERRING.with(|d| d.set(store));
        if DEFERRED.with(|d| d.replace(deferred))
            && !self.shared.drive()
            && !self.shared.queue_is_empty()
        {
            self.shared.wake.notify_one();
        }
    }
}
