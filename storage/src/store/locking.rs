//! Locking the store's mutexes.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, taking the guard back from a holder that panicked: every mutex of the store
/// guards values that stay consistent between its holders' steps (a queue, an `Option`
/// taken and put back, a cache, a progress figure), so a panic elsewhere must not take the
/// store down with it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
