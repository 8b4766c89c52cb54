//! The real binary under clients that push it: memory stays bounded by the in-flight limits
//! (pipelined writes on many connections, large values, a reader that does not read), and a
//! CPU-heavy statement never stalls other connections.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use cql::frame::encode_request_frame;
use cql::frame::primitives::Value;
use cql::frame::request::{Query, Request};
use cql::frame::response::Response;
use cql::frame::{parse_header, HEADER_LEN};
use support::{free_port, query_request, start, Client, KillOnDrop, ONE_AT_A_TIME};

/// The server's resident set, in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Seconds since the test's first call, to place its phases, slow reads and RSS peaks on
/// one timeline: printed as they happen, shown when the test fails.
fn at() -> f64 {
    static T0: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    T0.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// Samples the server's RSS every 20 ms until stopped; returns the peak.
struct RssWatch {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    thread: std::thread::JoinHandle<()>,
}

impl RssWatch {
    fn start(pid: u32) -> RssWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(0));
        let (s, p) = (stop.clone(), peak.clone());
        let thread = std::thread::spawn(move || {
            let mut shown = 0;
            while !s.load(Ordering::Relaxed) {
                let now = rss(pid);
                p.fetch_max(now, Ordering::Relaxed);
                if now >> 20 >= (shown >> 20) + 64 {
                    eprintln!("{:.2}s: RSS {} MB", at(), now >> 20);
                    shown = now;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        RssWatch { stop, peak, thread }
    }

    fn peak(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap();
        self.peak.load(Ordering::Relaxed)
    }
}

/// Point reads on their own connection until stopped; returns (reads, slowest).
struct Prober {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<(usize, Duration)>,
}

impl Prober {
    fn start(port: u16, query: &'static str) -> Prober {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let mut client = Client::connect(port);
        let thread = std::thread::spawn(move || {
            let (mut reads, mut slowest) = (0, Duration::ZERO);
            while !s.load(Ordering::Relaxed) {
                let started = Instant::now();
                client.query(query);
                let took = started.elapsed();
                if took > Duration::from_millis(250) {
                    eprintln!(
                        "{:.2}s: a point read took {took:?}",
                        at() - took.as_secs_f64()
                    );
                }
                slowest = slowest.max(took);
                reads += 1;
                std::thread::sleep(Duration::from_millis(2));
            }
            (reads, slowest)
        });
        Prober { stop, thread }
    }

    fn finish(self) -> (usize, Duration) {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

fn insert_frame(stream: i16, k: i32, c: i32, value: Bytes) -> Vec<u8> {
    let mut request = query_request("INSERT INTO ks.t (k, c, v) VALUES (?, ?, ?)");
    if let Request::Query(Query { params, .. }) = &mut request {
        params.values = vec![
            Value::Bytes(Bytes::copy_from_slice(&k.to_be_bytes())),
            Value::Bytes(Bytes::copy_from_slice(&c.to_be_bytes())),
            Value::Bytes(value),
        ];
    }
    encode_request_frame(stream, &request, None).to_vec()
}

/// Reads `n` response frames from `stream`, returning how many were errors.
fn read_responses(stream: &mut TcpStream, n: usize) -> usize {
    let mut errors = 0;
    for _ in 0..n {
        let mut header = [0u8; HEADER_LEN];
        stream.read_exact(&mut header).unwrap();
        let header = parse_header(&header).unwrap();
        let mut body = vec![0u8; header.length as usize];
        stream.read_exact(&mut body).unwrap();
        if header.opcode == 0x00 {
            errors += 1;
        }
    }
    errors
}

/// Sends `frames` on a connection of its own (a writer thread, so the server's backpressure
/// blocks only it) and reads every answer; returns how many were errors.
fn pipeline(port: u16, frames: Vec<Vec<u8>>) -> usize {
    let client = Client::connect(port);
    let mut reader = client.stream.try_clone().unwrap();
    let mut writer = client.stream;
    let n = frames.len();
    let sending = std::thread::spawn(move || {
        for frame in frames {
            writer.write_all(&frame).unwrap();
        }
        writer
    });
    let errors = read_responses(&mut reader, n);
    drop(sending.join().unwrap());
    errors
}

fn schema(client: &mut Client) {
    client.query("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    client.query("CREATE TABLE ks.t (k int, c int, v blob, PRIMARY KEY (k, c))");
    client.query("INSERT INTO ks.t (k, c, v) VALUES (0, 0, 0xcafe)");
}

const LIMIT: u64 = 512 << 20;

/// What the server may still hold 10 s after the burst: its caches (the storage engine's
/// 64 MiB page cache, the memtable) and the idle connections' buffers.
const AFTER_BURST_LIMIT: u64 = 160 << 20;

/// With the default limits: 40 connections pipelining 4 x 1,024 writes of 1 KB each, then one
/// connection pipelining 40 x 15 MB writes, then one pipelining 20 SELECTs of 15 MB rows and
/// reading nothing for 2 s. The server stays under 512 MB, keeps answering another
/// connection's point reads, and gives the memory back within 10 s.
#[test]
fn memory_stays_bounded_under_pipelining_and_large_values() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let server = KillOnDrop(start(dir.path(), port, "periodic"));
    schema(&mut Client::connect(port));
    let watch = RssWatch::start(server.0.id());
    let prober = Prober::start(port, "SELECT c FROM ks.t WHERE k = 0 AND c = 0");
    eprintln!("{:.2}s: small pipelined writes", at());

    let small = Bytes::from(vec![7u8; 1024]);
    let writers: Vec<_> = (0..40)
        .map(|w| {
            let small = small.clone();
            std::thread::spawn(move || {
                (0..4)
                    .map(|round| {
                        let frames = (0..1024)
                            .map(|i| insert_frame(i as i16, 1 + w, round * 1024 + i, small.clone()))
                            .collect();
                        pipeline(port, frames)
                    })
                    .sum::<usize>()
            })
        })
        .collect();
    let errors: usize = writers.into_iter().map(|w| w.join().unwrap()).sum();
    assert_eq!(errors, 0, "small pipelined writes failed");
    eprintln!(
        "{:.2}s: after small pipelined writes: RSS {} MB",
        at(),
        rss(server.0.id()) >> 20
    );

    let big = Bytes::from(vec![9u8; 15 << 20]);
    let frames = (0..40)
        .map(|i| insert_frame(i as i16, 100, i, big.clone()))
        .collect();
    assert_eq!(pipeline(port, frames), 0, "large pipelined writes failed");
    eprintln!(
        "{:.2}s: after large pipelined writes: RSS {} MB",
        at(),
        rss(server.0.id()) >> 20
    );

    let mut slow = Client::connect(port);
    for i in 0..20 {
        let select = query_request(&format!("SELECT v FROM ks.t WHERE k = 100 AND c = {i}"));
        slow.stream
            .write_all(&encode_request_frame(i as i16, &select, None))
            .unwrap();
    }
    std::thread::sleep(Duration::from_secs(2));
    let rss_while_unread = rss(server.0.id());
    assert_eq!(read_responses(&mut slow.stream, 20), 0);
    eprintln!("{:.2}s: large answers read", at());

    let (reads, slowest) = prober.finish();
    let peak = watch.peak();
    drop(slow);
    std::thread::sleep(Duration::from_secs(10));
    let after_burst = rss(server.0.id());
    eprintln!(
        "peak RSS {} MB ({} MB while 20 x 15 MB answers waited unread, {} MB 10 s after the \
         burst); {reads} point reads, slowest {slowest:?}",
        peak >> 20,
        rss_while_unread >> 20,
        after_burst >> 20
    );
    assert!(peak < LIMIT, "peak RSS {} MB", peak >> 20);
    // The burst's memory goes back to the system (glibc's malloc kept ~576 MB of it).
    assert!(
        after_burst < AFTER_BURST_LIMIT,
        "RSS 10 s after the burst: {} MB",
        after_burst >> 20
    );
    assert!(
        reads > 10,
        "the other connection was starved: {reads} reads"
    );
    assert!(
        slowest < Duration::from_secs(2),
        "a point read took {slowest:?}"
    );
}

/// Pipelined SELECTs whose answers together pass the connection's write batch (1 MiB) are all
/// answered, though the client sends nothing more until it has them: the connection writes
/// the batch, then starts the requests still in its buffer without waiting for more input.
#[test]
fn answers_past_a_write_batch_come_without_more_input() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let _server = KillOnDrop(start(dir.path(), port, "periodic"));
    schema(&mut Client::connect(port));
    let value = Bytes::from(vec![5u8; 400 << 10]);
    let writes = (0..6)
        .map(|c| insert_frame(c as i16, 7, c, value.clone()))
        .collect();
    assert_eq!(pipeline(port, writes), 0, "the writes failed");

    let client = Client::connect(port);
    let mut stream = client.stream;
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let selects: Vec<u8> = (0..6)
        .flat_map(|c| {
            let select = query_request(&format!("SELECT v FROM ks.t WHERE k = 7 AND c = {c}"));
            encode_request_frame(c as i16, &select, None).to_vec()
        })
        .collect();
    stream.write_all(&selects).unwrap();
    let mut answered = Vec::new();
    for _ in 0..6 {
        let mut header = [0u8; HEADER_LEN];
        stream
            .read_exact(&mut header)
            .expect("an answer within 20 s");
        let header = parse_header(&header).unwrap();
        let mut body = vec![0u8; header.length as usize];
        stream.read_exact(&mut body).unwrap();
        assert_eq!(header.opcode, 0x08, "a RESULT");
        assert!(body.len() > 400 << 10, "the row's value");
        answered.push(header.stream);
    }
    answered.sort_unstable();
    assert_eq!(answered, [0, 1, 2, 3, 4, 5]);
}

/// `WHERE k = 0 AND c1 IN (300 values) AND c2 IN (300) AND c3 IN (300)`: 27 million
/// combinations, read lazily. Its first page of 100 rows comes back at once and the server's
/// memory does not grow with the product (before, such a statement passed 8 GB).
#[test]
fn a_multiplying_in_restriction_is_read_page_by_page() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let server = KillOnDrop(start(dir.path(), port, "periodic"));
    let mut client = Client::connect(port);
    schema(&mut client);
    client.query(
        "CREATE TABLE ks.w (k int, c1 int, c2 int, c3 int, v int, PRIMARY KEY (k, c1, c2, c3))",
    );
    for c3 in 0..150 {
        client.query(&format!(
            "INSERT INTO ks.w (k, c1, c2, c3, v) VALUES (0, 0, 0, {c3}, {c3})"
        ));
    }
    let before = rss(server.0.id());
    let list = (0..300)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let mut request = query_request(&format!(
        "SELECT v FROM ks.w WHERE k = 0 AND c1 IN ({list}) AND c2 IN ({list}) AND c3 IN ({list})"
    ));
    if let Request::Query(Query { params, .. }) = &mut request {
        params.page_size = Some(100);
    }
    let started = Instant::now();
    let answer = client.call(&request);
    let took = started.elapsed();
    let grown = rss(server.0.id()).saturating_sub(before);
    eprintln!(
        "first page of 27 M combinations in {took:?}, RSS grew {} KB",
        grown >> 10
    );
    let Response::Result(cql::frame::response::ResultBody::Rows(rows)) = answer else {
        panic!("{answer:?}");
    };
    let values: Vec<i32> = rows
        .rows
        .iter()
        .map(|row| i32::from_be_bytes(row[0].as_ref().unwrap().as_ref().try_into().unwrap()))
        .collect();
    assert_eq!(values, (0..100).collect::<Vec<_>>());
    assert!(rows.metadata.paging_state.is_some(), "more pages follow");
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert!(grown < 64 << 20, "RSS grew {} MB", grown >> 20);
}

/// A 300,000-digit varint literal is answered (stored or refused) within 2 s, and another
/// connection's point reads stay under 100 ms meanwhile.
#[test]
fn a_huge_number_literal_stalls_no_other_connection() {
    let _serial = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let _server = KillOnDrop(start(dir.path(), port, "periodic"));
    let mut client = Client::connect(port);
    schema(&mut client);
    client.query("CREATE TABLE ks.n (k int PRIMARY KEY, v varint)");
    let prober = Prober::start(port, "SELECT c FROM ks.t WHERE k = 0 AND c = 0");
    std::thread::sleep(Duration::from_millis(50));
    let digits: String = (0..300_000)
        .map(|i| char::from(b'1' + (i % 9) as u8))
        .collect();
    let started = Instant::now();
    let answer = client.call(&query_request(&format!(
        "INSERT INTO ks.n (k, v) VALUES (1, {digits})"
    )));
    let took = started.elapsed();
    std::thread::sleep(Duration::from_millis(50));
    let (reads, slowest) = prober.finish();
    eprintln!("300,000 digits answered in {took:?}; {reads} point reads, slowest {slowest:?}");
    assert!(
        matches!(answer, Response::Result(_) | Response::Error(_)),
        "{answer:?}"
    );
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert!(reads > 0);
    assert!(
        slowest < Duration::from_millis(100),
        "a point read took {slowest:?}"
    );
}
