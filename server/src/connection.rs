//! `Connection`: one client socket. The reader half decodes envelopes and spawns a handler
//! task per request (bounded by a per-connection in-flight limit, which is the backpressure:
//! past it the reader stops reading); the writer half drains an mpsc of encoded frames,
//! writing every queued frame before one flush. Answers go out in completion order, on the
//! request's stream id; events go out on stream -1.
//!
//! Framing is isolated in [`read_envelope`] so that protocol v5 segments can wrap it later.

use std::io;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use cql::frame::response::{Event, Response};
use cql::frame::{self, Compression, FrameHeader, Opcode, HEADER_LEN};
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, Semaphore};
use tracing::{debug, warn, Instrument};

use crate::error::CqlError;
use crate::handler;
use crate::node::Node;
use crate::session::Session;
use crate::shutdown::Shutdown;

/// One client connection and the state it needs to run.
pub struct Connection {
    socket: TcpStream,
    node: Arc<Node>,
    shutdown: Shutdown,
    /// Held until the connection ends, so the listener can wait for all connections.
    _shutdown_complete: mpsc::Sender<()>,
}

/// A request envelope: header plus the body as received (possibly compressed).
struct Envelope {
    header: FrameHeader,
    body: Bytes,
}

/// Why reading the next envelope stopped.
enum ReadOutcome {
    Envelope(Envelope),
    /// The peer closed the socket cleanly between frames.
    Closed,
    /// A framing fault: answer with this error on this stream, then close.
    Fatal {
        stream: i16,
        error: CqlError,
    },
}

impl Connection {
    /// Wraps an accepted socket.
    pub fn new(
        socket: TcpStream,
        node: Arc<Node>,
        shutdown: Shutdown,
        shutdown_complete: mpsc::Sender<()>,
    ) -> Connection {
        Connection {
            socket,
            node,
            shutdown,
            _shutdown_complete: shutdown_complete,
        }
    }

    /// Serves the connection until the peer closes it, a framing error occurs, or the server
    /// shuts down.
    ///
    /// # Errors
    /// Socket I/O errors.
    pub async fn run(mut self) -> io::Result<()> {
        let peer = self.socket.peer_addr()?;
        let local = self.socket.local_addr()?;
        let (read_half, write_half) = self.socket.into_split();
        let session = Arc::new(Session::new(peer, local));
        let (out_tx, out_rx) = mpsc::channel::<BytesMut>(1024);
        let writer = tokio::spawn(write_loop(write_half, out_rx).in_current_span());
        let in_flight = Arc::new(Semaphore::new(self.node.config.max_requests_per_connection));
        let mut reader = BufReader::with_capacity(64 * 1024, read_half);
        let max_frame = self.node.config.max_frame_size;
        loop {
            let permit = tokio::select! {
                permit = in_flight.clone().acquire_owned() => permit,
                _ = self.shutdown.recv() => break,
            };
            // The semaphore is never closed while the connection runs.
            let Ok(permit) = permit else { break };
            let outcome = tokio::select! {
                outcome = read_envelope(&mut reader, max_frame) => outcome,
                _ = self.shutdown.recv() => break,
            };
            // A reset or any other read error ends the connection like a clean close: the
            // session must still be closed below, or its event forwarder keeps the socket.
            let outcome = match outcome {
                Ok(outcome) => outcome,
                Err(err) => {
                    debug!(cause = %err, "connection read failed");
                    break;
                }
            };
            let envelope = match outcome {
                ReadOutcome::Envelope(envelope) => envelope,
                ReadOutcome::Closed => break,
                ReadOutcome::Fatal { stream, error } => {
                    warn!(cause = %error, "closing connection after a protocol error");
                    let frame = encode(stream, Response::Error(error.error_body()), &[], None);
                    let _ = out_tx.send(frame).await;
                    break;
                }
            };
            let node = self.node.clone();
            let session = session.clone();
            let out = out_tx.clone();
            let span = tracing::debug_span!(
                "request",
                stream = envelope.header.stream,
                opcode = envelope.header.opcode
            );
            tokio::spawn(
                async move {
                    serve_request(node, session, envelope, out).await;
                    drop(permit);
                }
                .instrument(span),
            );
        }
        drop(out_tx);
        session.close();
        // Let in-flight handlers finish and the writer flush what they produced.
        let _ = writer.await;
        Ok(())
    }
}

/// Decodes and handles one request, then queues its answer (and, after a successful
/// REGISTER, starts forwarding events).
async fn serve_request(
    node: Arc<Node>,
    session: Arc<Session>,
    envelope: Envelope,
    out: mpsc::Sender<BytesMut>,
) {
    let answer = answer(&node, &session, &envelope.header, envelope.body).await;
    if answer.start_events {
        spawn_event_forwarder(&node, &session, out.clone());
    }
    let _ = out.send(answer.frame).await;
}

/// The answer to one request: its encoded frame, and whether the connection must start
/// forwarding events (the first successful REGISTER).
pub struct Answer {
    /// The response frame, on the request's stream.
    pub frame: BytesMut,
    /// Whether event forwarding must start.
    pub start_events: bool,
}

/// Decodes, handles and encodes one request: what a connection does with each envelope it
/// reads. Public so benchmarks can drive the whole request path without a socket.
pub async fn answer(
    node: &Arc<Node>,
    session: &Arc<Session>,
    header: &FrameHeader,
    body: Bytes,
) -> Answer {
    let request = match Opcode::try_from(header.opcode) {
        // Decompression and custom payloads are handled by `decode_request`.
        Ok(_) => frame::decode_request(
            header,
            &body,
            session.compression(),
            node.config.max_frame_size,
        )
        .map_err(|err| CqlError::Protocol(format!("Invalid or malformed message: {err}"))),
        Err(_) => Err(CqlError::Protocol(format!(
            "Unknown opcode {}",
            header.opcode
        ))),
    };
    let outcome = match request {
        Ok(request) => handler::handle(node, session, request).await,
        Err(err) => Err(err),
    };
    let (response, warnings, start_events) = match outcome {
        Ok(reply) => (reply.response, reply.warnings, reply.start_events),
        Err(err) => {
            debug!(cause = %err, "request failed");
            (Response::Error(err.error_body()), Vec::new(), false)
        }
    };
    let compression = if matches!(response, Response::Ready) {
        None
    } else {
        session.compression()
    };
    Answer {
        frame: encode(header.stream, response, &warnings, compression),
        start_events,
    }
}

fn encode(
    stream: i16,
    response: Response,
    warnings: &[String],
    compression: Option<Compression>,
) -> BytesMut {
    frame::encode_response_frame(stream, &response, warnings, compression)
}

/// Pushes the events this connection registered for on stream -1 until it closes.
fn spawn_event_forwarder(node: &Arc<Node>, session: &Arc<Session>, out: mpsc::Sender<BytesMut>) {
    let mut events = node.events.subscribe();
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
                if !session.is_registered(kind) {
                    continue;
                }
                let frame = encode(-1, Response::Event(event), &[], session.compression());
                if out.send(frame).await.is_err() {
                    break;
                }
            }
        }
        .in_current_span(),
    );
}

/// Reads one envelope: the 9-byte header, the version and length checks, then the body.
/// The body is allocated only after its length passed the limit.
async fn read_envelope(
    reader: &mut BufReader<OwnedReadHalf>,
    max_frame: usize,
) -> io::Result<ReadOutcome> {
    let mut header_bytes = [0u8; HEADER_LEN];
    match reader.read_exact(&mut header_bytes[..1]).await {
        Ok(_) => {}
        Err(err) if err.kind() == io::ErrorKind::UnexpectedEof => return Ok(ReadOutcome::Closed),
        Err(err) => return Err(err),
    }
    let version = header_bytes[0];
    if version & 0x7f != 4 || version & 0x80 != 0 {
        // Old versions have shorter headers; reply on stream 0 as Cassandra does.
        let message = frame::unsupported_version_message(version);
        return Ok(ReadOutcome::Fatal {
            stream: 0,
            error: CqlError::Protocol(message),
        });
    }
    reader.read_exact(&mut header_bytes[1..]).await?;
    let Some(header) = frame::parse_header(&header_bytes) else {
        return Ok(ReadOutcome::Closed);
    };
    let length = header.length as usize;
    if length > max_frame {
        let message = format!(
            "Request is too big: length {length} exceeds maximum allowed length {max_frame}."
        );
        return Ok(ReadOutcome::Fatal {
            stream: header.stream,
            error: CqlError::Protocol(message),
        });
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).await?;
    Ok(ReadOutcome::Envelope(Envelope {
        header,
        body: Bytes::from(body),
    }))
}

/// Writes queued frames, flushing once the queue is momentarily empty.
async fn write_loop(write_half: OwnedWriteHalf, mut rx: mpsc::Receiver<BytesMut>) {
    let mut writer = BufWriter::with_capacity(64 * 1024, write_half);
    while let Some(frame) = rx.recv().await {
        if writer.write_all(&frame).await.is_err() {
            return;
        }
        while let Ok(frame) = rx.try_recv() {
            if writer.write_all(&frame).await.is_err() {
                return;
            }
        }
        if writer.flush().await.is_err() {
            return;
        }
    }
    let _ = writer.flush().await;
    let _ = writer.shutdown().await;
}
