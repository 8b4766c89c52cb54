//! Client warnings (Cassandra's `ClientWarn`): code deep in a request's execution adds a
//! warning, and the handler sends it in the response frame's warnings list (flag 0x08).
//!
//! The list lives in a task-local scope around one request's handling, so requests running
//! concurrently on one connection never see each other's warnings.

use std::cell::RefCell;
use std::future::Future;

tokio::task_local! {
    static WARNINGS: RefCell<Vec<String>>;
}

/// Runs `request`, returning its output and the warnings it added.
pub async fn collect<F: Future>(request: F) -> (F::Output, Vec<String>) {
    WARNINGS
        .scope(RefCell::new(Vec::new()), async {
            let output = request.await;
            let warnings = WARNINGS.with(|w| std::mem::take(&mut *w.borrow_mut()));
            (output, warnings)
        })
        .await
}

/// Adds a warning to the current request's response; outside [`collect`] it is only logged.
pub fn warn(message: String) {
    tracing::warn!(%message, "client warning");
    let _ = WARNINGS.try_with(|w| w.borrow_mut().push(message));
}

#[cfg(test)]
mod tests {
    use super::*;

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
