//! `Connection`: one client socket served by one task. The task reads envelopes into a buffer,
//! drives the requests they carry together (a `FuturesUnordered`, bounded by the
//! per-connection in-flight limit, which is the backpressure: at the limit it stops reading
//! the socket), and writes the answers that are ready together, in one write after every
//! few requests started (so a client that pipelines gets answers while the rest are worked
//! on). Answers go out in completion order, on the request's stream id; events go out on
//! stream -1.
//!
//! Requests are not spawned: a point read or a write hand-off takes a few microseconds, less
//! than waking another task. Handing half of each pass's EXECUTEs to another task as one
//! batch was tried: it cost 1-2 us more server CPU per request and gained no
//! throughput on two cores shared with the client. Work that can be long (scans) leaves the
//! runtime on its own (`spawn_blocking` in the executor), and the connection keeps driving
//! the other requests. Each request's future comes from `crate::transport::answer`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::BytesMut;
use cql::frame::response::{Event, Response};
use cql::frame::HEADER_LEN;
use futures::future::Either;
use futures::stream::{FuturesUnordered, StreamExt};
use futures::task::noop_waker_ref;
use futures::FutureExt;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tracing::{debug, Instrument};

use crate::error::CqlError;
use crate::node::Node;
pub(crate) use crate::transport::answer::Answer;
use crate::transport::answer::{
    answer_now, encode, serve_request, Later, Now, PendingWrite, WriteAnswer,
};
use crate::transport::envelope::Envelope;
use crate::transport::framing::Framing;
use crate::transport::inflight::{Allocation, Budget};
use crate::transport::session::Session;
use crate::transport::shutdown::Shutdown;
use crate::transport::tls::{Stream, Tls};

mod buffers;
mod parse;
mod serving;
mod timers;

use serving::Serving;

use buffers::Io;
use parse::next_envelope;
use timers::Timers;

/// The read buffer's starting size, and the room kept free in it before each read.
const READ_BUFFER: usize = 64 * 1024;

/// What a request in flight costs the server beyond its bytes (its future, bound values,
/// plan and write batch), charged to the in-flight limits so that many small pipelined
/// requests are bounded as well as a few large ones.
const REQUEST_OVERHEAD: usize = 4096;

/// Answers gathered for one write, at most (one larger answer still goes out whole).
const OUTPUT_BATCH: usize = 1 << 20;

/// Requests started in one pass before the answers ready so far are written. A client that
/// pipelines many requests gets its first answers while the server works on the rest, so
/// client and server run at once instead of taking turns.
const START_BATCH: usize = 16;

/// Event frames the forwarder may queue ahead of the connection's writes.
const EVENT_QUEUE: usize = 1024;

/// One client connection and the state it needs to run.
pub(crate) struct Connection {
    socket: TcpStream,
    node: Arc<Node>,
    shutdown: Shutdown,
    /// The TLS context when `client_encryption_options` enables TLS.
    tls: Option<Arc<Tls>>,
    /// Held until the connection ends, so the listener can wait for all connections.
    _shutdown_complete: mpsc::Sender<()>,
}

/// How a request goes on after [`answer_now`] left it.
enum Next {
    /// Through [`serve_request`], from where [`answer_now`] left it when it began it.
    Serve(Option<Later>),
    /// A write handed to the writer: only its acknowledgement is awaited.
    Await(PendingWrite),
}

/// What woke the connection task.
enum Wake {
    /// The server is shutting down.
    Shutdown,
    /// A request finished.
    Answer((Answer, Allocation)),
    /// A read from the socket: `false` when it ended (closed by the peer, reset, error).
    Read(bool),
    /// An event frame to send.
    Event(BytesMut),
}

impl Connection {
    /// Wraps an accepted socket.
    pub(crate) fn new(
        socket: TcpStream,
        node: Arc<Node>,
        shutdown: Shutdown,
        shutdown_complete: mpsc::Sender<()>,
    ) -> Connection {
        Connection {
            socket,
            node,
            shutdown,
            tls: None,
            _shutdown_complete: shutdown_complete,
        }
    }

    /// Serves the connection through `tls` (TLS required or optional) when given.
    pub(crate) fn with_tls(mut self, tls: Option<Arc<Tls>>) -> Connection {
        self.tls = tls;
        self
    }

    /// Serves the connection until the peer closes it, a framing error occurs, or the server
    /// shuts down; requests already read are answered first. With TLS, the handshake comes
    /// first, within `native_transport_handshake_timeout`; a client refused there (plain text
    /// where TLS is required, a failed handshake) is closed and logged at debug.
    ///
    /// # Errors
    /// The socket's addresses cannot be read.
    pub(crate) async fn run(self) -> io::Result<()> {
        let Connection {
            mut socket,
            node,
            mut shutdown,
            tls,
            _shutdown_complete: _done,
        } = self;
        let peer = socket.peer_addr()?;
        let local = socket.local_addr()?;
        let session = Arc::new(Session::new(peer, local));
        node.clients().register(&session);
        let Some(tls) = tls else {
            // Plain text: the socket's own halves, no lock between them.
            let (reader, writer) = socket.split();
            serve_stream(&node, &session, &mut shutdown, reader, writer).await;
            return Ok(());
        };
        let accepted = tokio::select! {
            biased;
            () = shutdown.recv() => return Ok(()),
            accepted = tokio::time::timeout(node.config().handshake_timeout, tls.accept(socket)) => {
                accepted
            }
        };
        match accepted {
            Err(_) => {
                debug!("closing a connection that did not complete the TLS handshake in time")
            }
            Ok(Err(refused)) => debug!(cause = %refused, "closing connection"),
            Ok(Ok(Stream::Plain(mut socket))) => {
                let (reader, writer) = socket.split();
                serve_stream(&node, &session, &mut shutdown, reader, writer).await;
            }
            Ok(Ok(Stream::Tls(stream))) => {
                session.mark_encrypted(super::tls_session::TlsSession::of(stream.get_ref().1));
                let (reader, writer) = tokio::io::split(*stream);
                serve_stream(&node, &session, &mut shutdown, reader, writer).await;
            }
        }
        Ok(())
    }
}

/// Serves a connection over its read and write halves (a plain socket's or a TLS stream's).
async fn serve_stream<R, W>(
    node: &Arc<Node>,
    session: &Arc<Session>,
    shutdown: &mut Shutdown,
    reader: R,
    writer: W,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut io = Io {
        reader,
        writer,
        input: BytesMut::with_capacity(READ_BUFFER),
        output: BytesMut::new(),
        held: Vec::new(),
        framing: Framing::default(),
        close: false,
    };
    serve(node, session, shutdown, &mut io).await;
    // Whatever ended the connection (a reset included), the session is closed, or its
    // event forwarder would keep going.
    session.close();
    let _ = io.writer.shutdown().await;
}

/// The connection's loop: parse what was read, drive the requests, write what is ready, and
/// wait for the next thing to do.
async fn serve<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    node: &Arc<Node>,
    session: &Arc<Session>,
    shutdown: &mut Shutdown,
    io: &mut Io<R, W>,
) {
    let mut serving = Serving::new(node, session);
    let mut in_flight = FuturesUnordered::new();
    let mut reading = true;
    let start = |envelope: Envelope, next: Next, allocation: Allocation| match next {
        Next::Serve(begun) => Either::Left(
            serve_request(node, session, envelope, begun).map(move |answer| (answer, allocation)),
        ),
        Next::Await(pending) => Either::Right(
            WriteAnswer::new(node, session, pending).map(move |answer| (answer, allocation)),
        ),
    };
    loop {
        let passes = serving.run_passes(io, &mut in_flight, &mut reading, &start);
        if io.close {
            // An injected fault closes the connection, answers still queued or not.
            return;
        }
        if !reading {
            // No more requests: let the event forwarder go now, not after the last answer.
            session.close();
        }
        while let Ok(frame) = serving.events_rx.try_recv() {
            io.queue(frame);
        }
        if !io.flush().await || (!reading && in_flight.is_empty()) {
            return;
        }
        if passes.started >= START_BATCH || passes.write_first {
            // More requests may be buffered: answer them before waiting on anything. No
            // explicit yield: it woke the other worker to steal (12 % more CPU per read), and
            // tokio's cooperative budget on the socket already makes a busy connection yield.
            continue;
        }
        let wake = serving
            .wait(shutdown, io, &mut in_flight, reading, passes.paused)
            .await;
        serving.timers.active();
        match wake {
            Wake::Shutdown | Wake::Read(false) => reading = false,
            Wake::Read(true) => {}
            Wake::Answer(answered) => serving.queue_answer(io, answered),
            Wake::Event(frame) => io.queue(frame),
        }
        if io.close {
            return;
        }
    }
}

/// Allocates a request's bytes from the connection's budget. A `THROW_ON_OVERLOAD` client
/// whose request does not fit gets OVERLOADED on its stream instead (`None`); any other
/// client's request is always taken, and reading then pauses while over the limits.
fn allocate<R, W>(
    budget: &Budget,
    session: &Session,
    io: &mut Io<R, W>,
    envelope: &Envelope,
) -> Option<Allocation> {
    let size = HEADER_LEN + envelope.body.len() + REQUEST_OVERHEAD;
    if !session.throw_on_overload() {
        return Some(budget.allocate(size));
    }
    let allocation = budget.try_allocate(size);
    if allocation.is_none() {
        let error = CqlError::Overloaded {
            request_bytes: size,
        };
        let response = Response::Error(error.error_body());
        io.queue(encode(session, envelope.header.stream, response, &[]));
    }
    allocation
}

/// Queues an answer's frame, after starting event forwarding when a REGISTER asked for it.
/// The request's bytes and the answer's stay charged to the in-flight limits until written.
fn queue_answer<R, W>(
    node: &Arc<Node>,
    session: &Arc<Session>,
    io: &mut Io<R, W>,
    events: &mpsc::Sender<BytesMut>,
    (answer, mut allocation): (Answer, Allocation),
) {
    if answer.close {
        io.close = true;
        return;
    }
    // The answer's bytes count with its request's until they are written.
    allocation.grow(answer.frame.len());
    io.held.push(allocation);
    if answer.start_events {
        spawn_event_forwarder(node, session, events.clone());
    }
    io.queue(answer.frame);
    if answer.start_segments {
        let lz4 = session.segments_compressed();
        io.framing
            .start_segments(lz4, node.config().max_frame_size, io.output.len());
    }
}

/// Whether `event` is a node's news about the node the connection is on (a simulated
/// node): nodes tell their clients about the others.
fn about_itself(event: &Event, session: &Session) -> bool {
    match event {
        Event::TopologyChange { address, .. } | Event::StatusChange { address, .. } => {
            address.ip() == session.local.ip()
        }
        Event::SchemaChange(_) => false,
    }
}

/// Pushes the events this connection registered for on stream -1 until it closes.
fn spawn_event_forwarder(node: &Arc<Node>, session: &Arc<Session>, out: mpsc::Sender<BytesMut>) {
    let mut events = node.events().subscribe();
    let mut closed = session.closed_signal();
    let session = session.clone();
    tokio::spawn(
        async move {
            loop {
                let received = tokio::select! {
                    received = events.recv() => received,
                    // `wait_for` sees a close that happened before this task started too.
                    _ = closed.wait_for(|closed| *closed) => break,
                };
                let event = match received {
                    Ok(event) => event,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                };
                let kind = match &event {
                    Event::SchemaChange(_) => "SCHEMA_CHANGE",
                    Event::TopologyChange { .. } => "TOPOLOGY_CHANGE",
                    Event::StatusChange { .. } => "STATUS_CHANGE",
                };
                if !session.is_registered(kind) || about_itself(&event, &session) {
                    continue;
                }
                let frame = encode(&session, -1, Response::Event(event), &[]);
                if out.send(frame).await.is_err() {
                    break;
                }
            }
        }
        .in_current_span(),
    );
}
