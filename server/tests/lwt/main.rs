//! Lightweight transactions stay linearizable across crashes, with the real binary: clients
//! on a few keys issue `INSERT ... IF NOT EXISTS`, `UPDATE ... IF v = ?` and `SERIAL` reads
//! while the server (`batch` mode) is killed with SIGKILL and restarted every couple of
//! seconds. An operation cut off by a crash is indeterminate: it may or may not have taken
//! effect. Every key's history must have a linearizable order (`checker.rs`). Then
//! Cassandra's pair-of-sequences check: two lists appended together in one conditional
//! update are always equal, and hold every id whose append was acknowledged.
//!
//! `LWT_CRASH_SECS` sets how long each run writes (15 s by default).

mod checker;
#[path = "../support/mod.rs"]
mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use cql::frame::request::Request;
use cql::frame::response::{Response, ResultBody, Rows};

use checker::{linearizable, Event, Op, Outcome};
use support::{free_port, query_request, start, Client, KillOnDrop, ONE_AT_A_TIME};

const KEYS: i32 = 4;
const CLIENTS: i32 = 10;
const SERIAL: u16 = 0x0008;

/// The server being killed and restarted, and where it listens now.
struct Cluster {
    port: Mutex<u16>,
    started: Instant,
    stop: AtomicBool,
}

impl Cluster {
    fn now(&self) -> u64 {
        self.started.elapsed().as_nanos() as u64
    }

    /// `connection`, opened to the server now listening if it is closed; `None` (after a
    /// short wait) while no server answers.
    fn connected<'a>(&self, connection: &'a mut Option<Client>) -> Option<&'a mut Client> {
        if connection.is_none() {
            let port = *self.port.lock().unwrap();
            *connection = Client::try_connect(port).ok();
            if connection.is_none() {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        connection.as_mut()
    }
}

fn run_for() -> Duration {
    let secs = std::env::var("LWT_CRASH_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15);
    Duration::from_secs(secs)
}

/// A small deterministic generator (xorshift), one per client.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn request(text: &str, consistency: u16) -> Request {
    let mut request = query_request(text);
    if let Request::Query(query) = &mut request {
        query.params.consistency = consistency;
        query.params.serial_consistency = Some(SERIAL);
    }
    request
}

fn int(cell: &Option<Bytes>) -> Option<i32> {
    cell.as_ref()
        .map(|b| i32::from_be_bytes(b.as_ref().try_into().expect("an int")))
}

/// The cell of column `name` in the first row.
fn column<'a>(rows: &'a Rows, name: &str) -> Option<&'a Option<Bytes>> {
    let at = rows.metadata.columns.iter().position(|c| c.name == name)?;
    rows.rows.first().map(|row| &row[at])
}

/// What a conditional statement's answer says.
fn cas_outcome(rows: &Rows) -> Outcome {
    let applied = column(rows, "[applied]")
        .and_then(|cell| cell.as_ref())
        .is_some_and(|b| b.as_ref() == [1]);
    if applied {
        Outcome::Applied
    } else {
        Outcome::NotApplied(column(rows, "v").and_then(int))
    }
}

/// One client's operations until the run ends: (key, event) each.
fn client(id: i32, cluster: &Cluster) -> Vec<(i32, Event)> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (id as u64 + 1));
    let mut seen: Vec<Option<i32>> = vec![None; KEYS as usize];
    let mut history = Vec::new();
    let mut connection: Option<Client> = None;
    let mut counter = 0;
    while !cluster.stop.load(Ordering::Acquire) {
        let Some(conn) = cluster.connected(&mut connection) else {
            continue;
        };
        counter += 1;
        let value = id * 1_000_000 + counter;
        let key = rng.below(KEYS as u64) as i32;
        let (op, text, consistency) = match (rng.below(3), seen[key as usize]) {
            (0, _) | (1, None) => (
                Op::InsertIfNotExists(value),
                format!("INSERT INTO ks.r (k, v) VALUES ({key}, {value}) IF NOT EXISTS"),
                1,
            ),
            (1, Some(expected)) => (
                Op::UpdateIf {
                    expected,
                    new: value,
                },
                format!("UPDATE ks.r SET v = {value} WHERE k = {key} IF v = {expected}"),
                1,
            ),
            _ => (
                Op::Read,
                format!("SELECT v FROM ks.r WHERE k = {key}"),
                SERIAL,
            ),
        };
        let invoked = cluster.now();
        let answer = conn.try_call(&request(&text, consistency));
        let completed = cluster.now();
        let outcome = match (&answer, op) {
            (Ok(Response::Result(ResultBody::Rows(rows))), Op::Read) => {
                Outcome::Read(rows.rows.first().and_then(|row| int(&row[0])))
            }
            (Ok(Response::Result(ResultBody::Rows(rows))), _) => cas_outcome(rows),
            _ => Outcome::Unknown,
        };
        match outcome {
            Outcome::Unknown => connection = None,
            Outcome::Applied => {
                seen[key as usize] = match op {
                    Op::InsertIfNotExists(v) | Op::UpdateIf { new: v, .. } => Some(v),
                    Op::Read => seen[key as usize],
                }
            }
            Outcome::NotApplied(current) | Outcome::Read(current) => seen[key as usize] = current,
        }
        history.push((
            key,
            Event {
                op,
                outcome,
                invoked,
                completed: (outcome != Outcome::Unknown).then_some(completed),
            },
        ));
    }
    history
}

/// Kills the server with SIGKILL every `every` and starts it again on a new port, until the
/// run ends; returns how many times it was killed.
fn crash_loop(
    dir: &std::path::Path,
    cluster: &Cluster,
    mut server: KillOnDrop,
    every: Duration,
) -> usize {
    let deadline = Instant::now() + run_for();
    let mut kills = 0;
    while Instant::now() + every < deadline {
        std::thread::sleep(every);
        server.0.kill().unwrap();
        server.0.wait().unwrap();
        kills += 1;
        let port = free_port();
        server = KillOnDrop(start(dir, port, "batch"));
        drop(Client::connect(port));
        *cluster.port.lock().unwrap() = port;
    }
    std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
    cluster.stop.store(true, Ordering::Release);
    kills
}

/// A fresh server in `dir` with `schema` run, and the cluster handle pointing at it.
fn boot(dir: &std::path::Path, schema: &[&str]) -> (KillOnDrop, Arc<Cluster>) {
    let port = free_port();
    let server = KillOnDrop(start(dir, port, "batch"));
    let mut client = Client::connect(port);
    for statement in schema {
        client.query(statement);
    }
    let cluster = Arc::new(Cluster {
        port: Mutex::new(port),
        started: Instant::now(),
        stop: AtomicBool::new(false),
    });
    (server, cluster)
}

const KEYSPACE: &str =
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}";

#[test]
fn conditional_writes_and_serial_reads_stay_linearizable_across_kill_9() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let (server, cluster) = boot(
        dir.path(),
        &[KEYSPACE, "CREATE TABLE ks.r (k int PRIMARY KEY, v int)"],
    );
    let clients: Vec<_> = (0..CLIENTS)
        .map(|id| {
            let cluster = cluster.clone();
            std::thread::spawn(move || client(id, &cluster))
        })
        .collect();
    let kills = crash_loop(dir.path(), &cluster, server, Duration::from_millis(1500));
    let events: Vec<(i32, Event)> = clients
        .into_iter()
        .flat_map(|c| c.join().unwrap())
        .collect();
    let unknown = events
        .iter()
        .filter(|(_, e)| e.outcome == Outcome::Unknown)
        .count();
    let applied = events
        .iter()
        .filter(|(_, e)| e.outcome == Outcome::Applied)
        .count();
    eprintln!(
        "{} operations ({applied} applied, {unknown} indeterminate), {kills} kill -9",
        events.len()
    );
    assert!(kills >= 3, "the server was killed {kills} times");
    assert!(applied >= 20, "only {applied} conditional writes applied");
    for key in 0..KEYS {
        let history: Vec<Event> = events
            .iter()
            .filter(|(k, _)| *k == key)
            .map(|(_, e)| *e)
            .collect();
        assert!(
            linearizable(&history),
            "key {key}: no linearizable order for its {} operations",
            history.len()
        );
        // The checker can fail on this very history: a read of a value never written.
        let mut forged = history.clone();
        if let Some(read) = forged
            .iter_mut()
            .find(|e| matches!(e.outcome, Outcome::Read(Some(_))))
        {
            read.outcome = Outcome::Read(Some(-1));
            assert!(!linearizable(&forged), "key {key}: a forged read passed");
        }
    }
}

/// What one appender saw: the ids whose append was acknowledged applied (with when), and its
/// serial reads of the two sequences.
#[derive(Default)]
struct Appends {
    acknowledged: Vec<(i32, u64)>,
    reads: Vec<SerialRead>,
}

/// A serial read of both sequences, and when it was sent.
#[derive(Clone)]
struct SerialRead {
    invoked: u64,
    s1: Vec<i32>,
    s2: Vec<i32>,
}

/// One appender's run: appends its own ids to both sequences, and reads them.
fn append_ids(id: i32, cluster: &Cluster) -> Appends {
    let mut appends = Appends::default();
    let mut connection: Option<Client> = None;
    let mut counter = 0;
    while !cluster.stop.load(Ordering::Acquire) {
        let Some(conn) = cluster.connected(&mut connection) else {
            continue;
        };
        counter += 1;
        let item = id * 1_000_000 + counter;
        let text = if counter % 3 == 0 {
            "SELECT s1, s2 FROM ks.p WHERE k = 0".to_string()
        } else {
            format!("UPDATE ks.p SET s1 = s1 + [{item}], s2 = s2 + [{item}] WHERE k = 0 IF EXISTS")
        };
        let consistency = if counter % 3 == 0 { SERIAL } else { 1 };
        let invoked = cluster.now();
        let answer = conn.try_call(&request(&text, consistency));
        let completed = cluster.now();
        match answer {
            Ok(Response::Result(ResultBody::Rows(rows))) if counter % 3 == 0 => {
                let list = |name: &str| list_of_ints(column(&rows, name).and_then(|c| c.as_ref()));
                appends.reads.push(SerialRead {
                    invoked,
                    s1: list("s1"),
                    s2: list("s2"),
                });
            }
            Ok(Response::Result(ResultBody::Rows(rows))) => {
                if cas_outcome(&rows) == Outcome::Applied {
                    appends.acknowledged.push((item, completed));
                }
            }
            _ => connection = None,
        }
    }
    appends
}

/// A `list<int>` cell's elements.
fn list_of_ints(cell: Option<&Bytes>) -> Vec<i32> {
    let Some(bytes) = cell else { return Vec::new() };
    let count = i32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize;
    let mut at = 4;
    (0..count)
        .map(|_| {
            let len = i32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
            let value = i32::from_be_bytes(bytes[at + 4..at + 4 + len].try_into().unwrap());
            at += 4 + len;
            value
        })
        .collect()
}

#[test]
fn pairs_of_sequences_stay_equal_and_keep_every_acknowledged_id_across_kill_9() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let (server, cluster) = boot(
        dir.path(),
        &[
            KEYSPACE,
            "CREATE TABLE ks.p (k int PRIMARY KEY, s1 list<int>, s2 list<int>)",
            "INSERT INTO ks.p (k, s1, s2) VALUES (0, [], [])",
        ],
    );
    let appenders: Vec<_> = (0..8)
        .map(|id| {
            let cluster = cluster.clone();
            std::thread::spawn(move || append_ids(id, &cluster))
        })
        .collect();
    let kills = crash_loop(dir.path(), &cluster, server, Duration::from_millis(1500));
    let results: Vec<Appends> = appenders.into_iter().map(|a| a.join().unwrap()).collect();
    let acknowledged: Vec<(i32, u64)> = results
        .iter()
        .flat_map(|a| a.acknowledged.clone())
        .collect();
    let reads: Vec<SerialRead> = results.iter().flat_map(|a| a.reads.clone()).collect();
    eprintln!(
        "{} acknowledged appends, {} serial reads, {kills} kill -9",
        acknowledged.len(),
        reads.len()
    );
    assert!(kills >= 3 && acknowledged.len() >= 20 && reads.len() >= 20);
    for read in &reads {
        assert_eq!(
            read.s1, read.s2,
            "a read at {} ns saw the sequences differ",
            read.invoked
        );
        for (item, acked_at) in &acknowledged {
            if *acked_at < read.invoked {
                assert!(
                    read.s1.contains(item),
                    "id {item}, acknowledged before a later read, is missing"
                );
            }
        }
    }
}
