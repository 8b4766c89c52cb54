//! A restore through the test controls is durable when it is answered: `kill -9` right after
//! the answer (and after one more acknowledged write) comes back to the restored rows plus
//! that write, never replaying the commit log from before the restore; the snapshot itself
//! survives the kill.

mod support;

use support::{free_port, start_with, Client, ONE_AT_A_TIME};

fn controls_on() -> Vec<std::ffi::OsString> {
    vec!["--test-controls".into(), "true".into()]
}

fn sorted(mut keys: Vec<i32>) -> Vec<i32> {
    keys.sort_unstable();
    keys
}

#[test]
fn kill_9_right_after_a_restore_keeps_the_restore_and_later_writes() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for sync in ["periodic", "batch"] {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let mut server = start_with(dir.path(), port, sync, &controls_on());
        let mut client = Client::connect(port);
        client.query("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
        client.query("CREATE TABLE ks.t (k int PRIMARY KEY, v int)");
        for k in 0..50 {
            client.query(&format!("INSERT INTO ks.t (k, v) VALUES ({k}, 1)"));
        }
        client.query("INSERT INTO test_control.snapshots (name) VALUES ('s')");
        for k in 25..100 {
            client.query(&format!("INSERT INTO ks.t (k, v) VALUES ({k}, 2)"));
        }
        client.query("DELETE FROM ks.t WHERE k = 0");
        client.query("INSERT INTO test_control.commands (command, name) VALUES ('restore', 's')");
        client.query("INSERT INTO ks.t (k, v) VALUES (200, 3)");
        server.kill().unwrap(); // SIGKILL right after the answers
        server.wait().unwrap();

        let port = free_port();
        let mut server = start_with(dir.path(), port, sync, &controls_on());
        let mut client = Client::connect(port);
        let mut want: Vec<i32> = (0..50).collect();
        want.push(200);
        assert_eq!(sorted(client.ints("SELECT k FROM ks.t")), want, "{sync}");
        assert_eq!(
            client.ints("SELECT v FROM ks.t WHERE k = 30"),
            [1],
            "{sync}: the snapshot's value, not the one written before the restore"
        );
        client.query("INSERT INTO test_control.commands (command, name) VALUES ('restore', 's')");
        assert_eq!(
            sorted(client.ints("SELECT k FROM ks.t")),
            (0..50).collect::<Vec<_>>()
        );
        server.kill().unwrap();
        server.wait().unwrap();
    }
}
