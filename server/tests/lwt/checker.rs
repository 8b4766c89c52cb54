//! A linearizability checker for one register (a key's value, or none), after Wing and Gong
//! with Lowe's memoization: search for an order of the operations that respects real time
//! (an operation that completed before another was invoked comes first) and in which each
//! operation returns what the sequential register returns. Operations whose outcome is
//! unknown (a timeout, a connection lost in a crash) may take effect at any point after
//! their invocation, or never.

use std::collections::{BTreeSet, HashSet};

/// What an operation asks of the register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// `INSERT ... IF NOT EXISTS` of a value.
    InsertIfNotExists(i32),
    /// `UPDATE ... SET v = new IF v = expected`.
    UpdateIf { expected: i32, new: i32 },
    /// A `SERIAL` read.
    Read,
}

/// What an operation returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Applied.
    Applied,
    /// Not applied; the value the condition was checked against.
    NotApplied(Option<i32>),
    /// A read's value.
    Read(Option<i32>),
    /// Unknown: the operation may or may not have taken effect.
    Unknown,
}

/// One operation of a history: times in any unit that orders them (nanoseconds since the
/// run started); an unknown outcome has no completion time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Event {
    pub(crate) op: Op,
    pub(crate) outcome: Outcome,
    pub(crate) invoked: u64,
    pub(crate) completed: Option<u64>,
}

/// The sequential register: the next state and what the operation returns from `state`.
fn step(state: Option<i32>, op: Op) -> (Option<i32>, Outcome) {
    match op {
        Op::InsertIfNotExists(v) if state.is_none() => (Some(v), Outcome::Applied),
        Op::InsertIfNotExists(_) => (state, Outcome::NotApplied(state)),
        Op::UpdateIf { expected, new } if state == Some(expected) => (Some(new), Outcome::Applied),
        Op::UpdateIf { .. } => (state, Outcome::NotApplied(state)),
        Op::Read => (state, Outcome::Read(state)),
    }
}

/// Whether `history` (one register's, starting with no value) is linearizable.
///
/// A depth-first search over orders, without recursion (histories run to tens of thousands
/// of operations). From each point the operations that may come next are those not placed
/// and invoked before the earliest completion not placed yet; those with a known outcome
/// are tried first, so a history without crashes is checked in one pass. Every (placed
/// set, state) known to fail is remembered by a hash of the set (a random word per
/// operation, XORed).
pub(crate) fn linearizable(history: &[Event]) -> bool {
    let mut events = history.to_vec();
    events.sort_by_key(|e| e.invoked);
    let mut search = Search {
        keys: (0..events.len() as u64).map(splitmix).collect(),
        open: (0..events.len()).collect(),
        set: 0,
        known_left: events.iter().filter(|e| e.completed.is_some()).count(),
        events: &events,
    };
    search.run()
}

/// Search steps before the checker gives up (a failing assertion, never a hang).
const STEP_BUDGET: u64 = 50_000_000;

/// A well-mixed 64-bit word for `n` (SplitMix64).
fn splitmix(n: u64) -> u64 {
    let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

struct Search<'a> {
    /// The operations, by invocation.
    events: &'a [Event],
    keys: Vec<u64>,
    /// The operations not placed yet.
    open: BTreeSet<usize>,
    /// The placed set's hash.
    set: u64,
    /// Operations with a known outcome not placed yet.
    known_left: usize,
}

/// A point of the search: its state, the operations that may come next, the next one to
/// try, and the one placed from here (undone when the search comes back).
struct Frame {
    state: Option<i32>,
    candidates: Vec<usize>,
    next: usize,
    placed: Option<usize>,
}

impl Search<'_> {
    fn run(&mut self) -> bool {
        let mut failed: HashSet<(u64, Option<i32>)> = HashSet::new();
        let mut steps: u64 = 0;
        let mut frames: Vec<Frame> = Vec::new();
        let mut arrived = Some(None);
        loop {
            if let Some(state) = arrived.take() {
                if self.known_left == 0 {
                    // Operations of unknown outcome left over never took effect.
                    return true;
                }
                if failed.insert((self.set, state)) {
                    frames.push(Frame {
                        state,
                        candidates: self.candidates(),
                        next: 0,
                        placed: None,
                    });
                }
            }
            let Some(frame) = frames.last_mut() else {
                return false;
            };
            steps += 1;
            assert!(
                steps < STEP_BUDGET,
                "the search gave up after {STEP_BUDGET} steps ({} operations): inconclusive",
                self.events.len()
            );
            if let Some(at) = frame.placed.take() {
                self.place(at, false);
            }
            while let Some(&at) = frame.candidates.get(frame.next) {
                frame.next += 1;
                let event = self.events[at];
                let (next, returned) = step(frame.state, event.op);
                // An operation of unknown outcome is placed only where it changes the
                // register: placed where it does not, it is the same as never happening,
                // which leaving it out already covers.
                let fits = match event.outcome {
                    Outcome::Unknown => next != frame.state,
                    known => known == returned,
                };
                if fits {
                    frame.placed = Some(at);
                    arrived = Some(next);
                    break;
                }
            }
            let placed = frame.placed;
            match placed {
                Some(at) => self.place(at, true),
                None => drop(frames.pop()),
            }
        }
    }

    /// The operations that may come next: known outcomes first.
    fn candidates(&self) -> Vec<usize> {
        let horizon = self.horizon();
        let next: Vec<usize> = self
            .open
            .iter()
            .copied()
            .take_while(|&at| self.events[at].invoked <= horizon)
            .collect();
        let (mut known, unknown): (Vec<usize>, Vec<usize>) = next
            .into_iter()
            .partition(|&at| self.events[at].completed.is_some());
        known.extend(unknown);
        known
    }

    /// The earliest completion among the operations not placed: one invoked after it
    /// cannot come next.
    fn horizon(&self) -> u64 {
        let mut horizon = u64::MAX;
        for &at in &self.open {
            let event = self.events[at];
            if event.invoked > horizon {
                break;
            }
            if let Some(completed) = event.completed {
                horizon = horizon.min(completed);
            }
        }
        horizon
    }

    fn place(&mut self, at: usize, placed: bool) {
        self.set ^= self.keys[at];
        let known = usize::from(self.events[at].completed.is_some());
        if placed {
            self.open.remove(&at);
            self.known_left -= known;
        } else {
            self.open.insert(at);
            self.known_left += known;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(op: Op, outcome: Outcome, invoked: u64, completed: u64) -> Event {
        Event {
            op,
            outcome,
            invoked,
            completed: Some(completed),
        }
    }

    #[test]
    fn a_sequential_history_that_follows_the_register_is_linearizable() {
        let history = [
            event(Op::Read, Outcome::Read(None), 0, 1),
            event(Op::InsertIfNotExists(5), Outcome::Applied, 2, 3),
            event(Op::InsertIfNotExists(6), Outcome::NotApplied(Some(5)), 4, 5),
            event(
                Op::UpdateIf {
                    expected: 5,
                    new: 7,
                },
                Outcome::Applied,
                6,
                7,
            ),
            event(
                Op::UpdateIf {
                    expected: 5,
                    new: 8,
                },
                Outcome::NotApplied(Some(7)),
                8,
                9,
            ),
            event(Op::Read, Outcome::Read(Some(7)), 10, 11),
        ];
        assert!(linearizable(&history));
    }

    #[test]
    fn a_stale_read_after_a_completed_write_is_not() {
        let history = [
            event(Op::InsertIfNotExists(5), Outcome::Applied, 0, 1),
            event(Op::Read, Outcome::Read(None), 2, 3),
        ];
        assert!(!linearizable(&history));
    }

    #[test]
    fn concurrent_operations_may_take_effect_in_either_order() {
        // The read overlaps the insert: it may see it or not, but two reads after it may
        // not disagree with each other about the order.
        let history = [
            event(Op::InsertIfNotExists(5), Outcome::Applied, 0, 10),
            event(Op::Read, Outcome::Read(Some(5)), 1, 2),
            event(Op::Read, Outcome::Read(None), 1, 3),
        ];
        assert!(linearizable(&history));
        let history = [
            event(Op::InsertIfNotExists(5), Outcome::Applied, 0, 10),
            event(Op::Read, Outcome::Read(Some(5)), 1, 2),
            event(Op::Read, Outcome::Read(None), 3, 4),
        ];
        assert!(!linearizable(&history), "a value seen, then unseen");
    }

    #[test]
    fn two_inserts_if_not_exists_cannot_both_apply() {
        let history = [
            event(Op::InsertIfNotExists(5), Outcome::Applied, 0, 10),
            event(Op::InsertIfNotExists(6), Outcome::Applied, 0, 10),
        ];
        assert!(!linearizable(&history));
    }

    #[test]
    fn an_unknown_outcome_may_have_happened_or_not() {
        let lost = Event {
            op: Op::InsertIfNotExists(5),
            outcome: Outcome::Unknown,
            invoked: 0,
            completed: None,
        };
        // It happened: a later read sees it.
        assert!(linearizable(&[
            lost,
            event(Op::Read, Outcome::Read(Some(5)), 10, 11)
        ]));
        // It did not.
        assert!(linearizable(&[
            lost,
            event(Op::Read, Outcome::Read(None), 10, 11)
        ]));
        // But not both: seen, then gone.
        assert!(!linearizable(&[
            lost,
            event(Op::Read, Outcome::Read(Some(5)), 10, 11),
            event(Op::Read, Outcome::Read(None), 12, 13),
        ]));
        // And never before it was invoked.
        let late = Event {
            invoked: 20,
            ..lost
        };
        assert!(!linearizable(&[
            late,
            event(Op::Read, Outcome::Read(Some(5)), 10, 11)
        ]));
    }

    #[test]
    fn unknown_outcomes_that_change_nothing_cost_nothing() {
        // Thirty conditional updates cut off by crashes, whose condition never held, and a
        // history that is not linearizable: the search must say so without trying every
        // subset of them.
        let mut history: Vec<Event> = (0..30)
            .map(|i| Event {
                op: Op::UpdateIf {
                    expected: 1000 + i,
                    new: 2000 + i,
                },
                outcome: Outcome::Unknown,
                invoked: i as u64,
                completed: None,
            })
            .collect();
        history.push(event(Op::InsertIfNotExists(1), Outcome::Applied, 100, 101));
        history.push(event(Op::Read, Outcome::Read(Some(7)), 102, 103));
        let started = std::time::Instant::now();
        assert!(!linearizable(&history));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn long_histories_finish_quickly() {
        // 50,000 sequential updates by two alternating clients, and an unknown outcome.
        let mut history = vec![event(Op::InsertIfNotExists(0), Outcome::Applied, 0, 1)];
        for i in 1..50_000u64 {
            let op = Op::UpdateIf {
                expected: i as i32 - 1,
                new: i as i32,
            };
            history.push(event(op, Outcome::Applied, i * 4, i * 4 + 2));
        }
        history.push(Event {
            op: Op::InsertIfNotExists(7),
            outcome: Outcome::Unknown,
            invoked: 3,
            completed: None,
        });
        let started = std::time::Instant::now();
        assert!(linearizable(&history));
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn wide_histories_finish_quickly() {
        // 12 reads of nothing overlapping each other and the first of 200 sequential
        // operations: memoization keeps the search from trying every interleaving.
        let mut history: Vec<Event> = (0..12)
            .map(|i| event(Op::Read, Outcome::Read(None), i, 13 + i))
            .collect();
        for i in 0..200u64 {
            let at = 10 + i * 4;
            let value = i as i32;
            let op = if i == 0 {
                Op::InsertIfNotExists(0)
            } else {
                Op::UpdateIf {
                    expected: value - 1,
                    new: value,
                }
            };
            history.push(event(op, Outcome::Applied, at, at + 2));
        }
        let started = std::time::Instant::now();
        assert!(linearizable(&history));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
