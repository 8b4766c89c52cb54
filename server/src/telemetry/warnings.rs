//! Client warnings (Cassandra's `ClientWarn`): code deep in a request's execution adds a
//! warning, and the handler sends it in the response frame's warnings list (flag 0x08).
//!
//! The list lives in a task-local scope around one request's handling, so requests running
//! concurrently on one connection never see each other's warnings.

use std::cell::RefCell;
use std::future::Future;

use futures::FutureExt;

tokio::task_local! {
    static WARNINGS: RefCell<Vec<String>>;
}

/// Runs `request`, returning its output and the warnings it added.
///
/// A plain function around combinators rather than an `async fn`: each `async` layer would
/// keep its own copy of `request`'s state, and request futures are moved as they start.
pub(crate) fn collect<F: Future>(request: F) -> impl Future<Output = (F::Output, Vec<String>)> {
    let request = request.map(|output| {
        let warnings = WARNINGS.with(|w| std::mem::take(&mut *w.borrow_mut()));
        (output, warnings)
    });
    WARNINGS.scope(RefCell::new(Vec::new()), request)
}

/// [`collect`] for a request answered synchronously: runs `request`, returning its output
/// and the warnings it added.
pub(crate) fn collect_now<T>(request: impl FnOnce() -> T) -> (T, Vec<String>) {
    WARNINGS.sync_scope(RefCell::new(Vec::new()), || {
        let output = request();
        let warnings = WARNINGS.with(|w| std::mem::take(&mut *w.borrow_mut()));
        (output, warnings)
    })
}

/// Adds a warning to the current request's response; outside [`collect`] it is only logged.
pub(crate) fn warn(message: String) {
    tracing::warn!(%message, "client warning");
    let _ = WARNINGS.try_with(|w| w.borrow_mut().push(message));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_of_a_synchronous_request_are_its_own() {
        let (value, warnings) = collect_now(|| {
            warn("now".into());
            7
        });
        assert_eq!((value, warnings), (7, vec!["now".to_string()]));
        let ((), none) = collect_now(|| ());
        assert!(none.is_empty());
    }

    #[tokio::test]
    async fn warnings_belong_to_their_request() {
        let (value, warnings) = collect(async {
            warn("first".into());
            warn("second".into());
            7
        })
        .await;
        assert_eq!(value, 7);
        assert_eq!(warnings, ["first", "second"]);
        let ((), none) = collect(async {}).await;
        assert!(none.is_empty());
        // Outside a request nothing is collected (and nothing panics).
        warn("lost".into());
    }
}
