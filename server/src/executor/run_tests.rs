//! Which way [`run`] sends a bound statement: answered inline, handed to the writer, or left
//! to [`crate::executor::Later::finish`]. The hot path (point reads, plain writes) must stay
//! inline; what waits must not block the connection's thread.

use std::sync::Arc;

use crate::executor::consistency::SERIAL;
use crate::executor::write::test_node::{parse, TestNode, ONE};
use crate::executor::{run, Authorized, ExecOptions, Outcome, Source};

const TABLE: &str = "CREATE TABLE t (k int, c int, v int, PRIMARY KEY (k, c))";

/// The way [`run`] sends `text` (no bound values, keyspace `ks`) at `consistency`.
fn way(test: &TestNode, text: &str, consistency: u16) -> &'static str {
    let source = Source::Text {
        statement: Arc::new(parse(text)),
        keyspace: Some("ks".to_string()),
    };
    let options = ExecOptions {
        consistency,
        ..ExecOptions::default()
    };
    let (node, session) = (&test.node, test.session());
    let bound = Authorized::new(node, session, source, Vec::new(), None)
        .and_then(|authorized| authorized.plan(node, options))
        .unwrap_or_else(|err| panic!("{text}: {err}"));
    match run(node, session, bound) {
        Outcome::Done(Ok(_)) => "done",
        Outcome::Done(Err(_)) => "failed",
        Outcome::Writing(_) => "writing",
        Outcome::Later(_) => "later",
    }
}

#[tokio::test]
async fn reads_that_need_no_waiting_and_plain_writes_never_wait_for_a_future() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let point = "SELECT v FROM t WHERE k = 1 AND c = 2";
    assert_eq!(way(&test, point, ONE), "done");
    assert_eq!(
        way(&test, "SELECT v FROM t WHERE k = 1 LIMIT 1", ONE),
        "done"
    );
    let insert = "INSERT INTO t (k, c, v) VALUES (1, 2, 3)";
    assert_eq!(way(&test, insert, ONE), "writing");
    assert_eq!(
        way(&test, insert, SERIAL),
        "failed",
        "a refused level fails inline"
    );
    assert_eq!(way(&test, "USE ks", ONE), "done");
    assert_eq!(way(&test, "DESCRIBE TABLE t", ONE), "done");
}

#[tokio::test]
async fn what_waits_is_left_for_later() {
    let test = TestNode::with_tables(&[TABLE]).await;
    let point = "SELECT v FROM t WHERE k = 1 AND c = 2";
    assert_eq!(
        way(&test, point, SERIAL),
        "later",
        "a serial read waits for LWTs"
    );
    assert_eq!(way(&test, "SELECT v FROM t", ONE), "later", "a scan");
    let conditional = "INSERT INTO t (k, c, v) VALUES (1, 2, 3) IF NOT EXISTS";
    assert_eq!(way(&test, conditional, ONE), "later");
    assert_eq!(way(&test, "TRUNCATE t", ONE), "later");
    assert_eq!(
        way(&test, "CREATE TABLE u (k int PRIMARY KEY)", ONE),
        "later"
    );
    let queue = test.node.write_queue().clone();
    let free = u32::try_from(queue.available_permits()).expect("a queue length");
    let _full = queue.try_acquire_many_owned(free).expect("every slot");
    let insert = "INSERT INTO t (k, c, v) VALUES (1, 2, 3)";
    assert_eq!(way(&test, insert, ONE), "later", "a full write queue");
}
