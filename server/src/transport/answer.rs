//! From a request envelope to its answer frame: decode, handle, encode, in the request's
//! span, with a panic answered as SERVER_ERROR. A connection begins each request on its own
//! thread ([`answer_now`]: most are answered there, a write is handed to the writer), and
//! drives the futures of those that wait ([`serve_request`], [`WriteAnswer`]) on its task;
//! a request of [`HEAVY_REQUEST`] bytes or more, or a traced one, is handled whole by
//! [`serve_request`], a heavy one on the blocking pool.

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use bytes::{Bytes, BytesMut};
use cql::frame::request::Request;
use cql::frame::response::Response;
use cql::frame::{self, FrameHeader, Opcode};
use futures::FutureExt;
use tracing::{debug, error, Instrument};

use crate::control::faults::{Action, Injection};
use crate::control::query_log::{self, examined::counting, examined::counting_now, Noted};
use crate::error::{CqlError, InternalError, ProtocolError};
use crate::handler;
use crate::node::Node;
use crate::telemetry::metrics::StatementKind;
use crate::telemetry::trace;
use crate::transport::envelope::Envelope;
use crate::transport::session::Session;

/// Handles one envelope, in the span of its request, from the top or from where
/// [`answer_now`] left it (`begun`); a handler that panics answers SERVER_ERROR.
pub(crate) fn serve_request<'a>(
    node: &'a Arc<Node>,
    session: &'a Arc<Session>,
    envelope: Envelope,
    begun: Option<Later>,
) -> impl std::future::Future<Output = Answer> + Send + 'a {
    let span = tracing::debug_span!(
        "request",
        stream = envelope.header.stream,
        opcode = envelope.header.opcode
    );
    let stream = envelope.header.stream;
    session.count_request();
    // Boxed: the handler's state is a few kilobytes, which would otherwise be copied at each
    // of the wrappers below and again into the connection's set of requests.
    let answering = Box::pin(async move {
        match begun {
            Some(Later {
                rest: Resume::Injected(injected),
                began,
            }) => {
                let (injection, request) = *injected;
                let header = &envelope.header;
                Box::pin(inject(node, session, header, began, injection, request)).await
            }
            Some(Later {
                rest: Resume::Handler(rest),
                mut began,
            }) => {
                // Not recorded: the rest runs as it is, with no layer to move it into.
                let outcome = if began.noted.is_some() {
                    counting(&mut began.noted, rest.run(node, session)).await
                } else {
                    rest.run(node, session).await
                };
                finish(node, session, &envelope.header, began, outcome, None)
            }
            None => answer(node, session, &envelope.header, envelope.body).await,
        }
    });
    // A panic is a bug; it fails its own request, not every request of the connection.
    AssertUnwindSafe(answering)
        .catch_unwind()
        .map(move |answered| {
            answered.unwrap_or_else(|_| {
                error!("request handler panicked");
                server_error(session, stream)
            })
        })
        .instrument(span)
}

/// The answer to one request: its encoded frame, and whether the connection must start
/// forwarding events (the first successful REGISTER).
pub(crate) struct Answer {
    /// The response frame, on the request's stream.
    pub frame: BytesMut,
    /// Whether event forwarding must start.
    pub start_events: bool,
    /// Whether this frame ends a v5 handshake (READY): everything after it, both ways,
    /// travels in segments.
    pub start_segments: bool,
    /// Whether the connection must close now instead (an injected fault).
    pub close: bool,
}

impl Answer {
    /// No answer (an injected fault): an empty frame.
    fn unanswered() -> Answer {
        Answer {
            frame: BytesMut::new(),
            start_events: false,
            start_segments: false,
            close: false,
        }
    }
}

/// Requests at least this large are answered on the blocking pool: parsing them and
/// converting their values can take milliseconds, and meanwhile the other connections sharing
/// this thread would wait.
const HEAVY_REQUEST: usize = 64 * 1024;

/// Heavy requests answered at once, server-wide; the others wait for a turn without holding
/// a thread. Each holds its bytes and their parsed values, and a blocking thread, until done,
/// even when its connection has gone meanwhile.
static HEAVY_TURNS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(4);

/// Decodes, handles and encodes one request: what a connection does with each envelope it
/// reads. Public so benchmarks can drive the whole request path without a socket.
pub(crate) async fn answer(
    node: &Arc<Node>,
    session: &Arc<Session>,
    header: &FrameHeader,
    body: Bytes,
) -> Answer {
    if body.len() < HEAVY_REQUEST {
        return answer_here(node, session, header, body).await;
    }
    let Ok(turn) = HEAVY_TURNS.acquire().await else {
        // Never closed; answered as a failure rather than a panic.
        return server_error(session, header.stream);
    };
    let runtime = tokio::runtime::Handle::current();
    let (owned_node, owned_session, header) = (node.clone(), session.clone(), *header);
    // A blocking thread defers no writes: the request's write goes to storage at once. The
    // request's span goes along, so its logs stay in it.
    let span = tracing::Span::current();
    let answering = tokio::task::spawn_blocking(move || {
        let _turn = turn;
        let _in_request = span.enter();
        runtime.block_on(answer_here(&owned_node, &owned_session, &header, body))
    });
    match answering.await {
        Ok(answer) => answer,
        Err(failed) if failed.is_panic() => {
            error!("request handler panicked");
            server_error(session, header.stream)
        }
        Err(_) => {
            debug!("a request's blocking task was cancelled: the server is stopping");
            server_error(session, header.stream)
        }
    }
}

/// How far [`answer_now`] took a request.
pub(crate) enum Now {
    /// Answered.
    Answered(Answer),
    /// Not tried: traced or large; [`serve_request`] handles it whole.
    NotTried,
    /// Begun, and waiting for something: [`serve_request`] goes on from here.
    Later(Later),
    /// A write handed to the writer: [`WriteAnswer`] answers it once the writer acknowledges.
    Writing(PendingWrite),
}

/// A request [`answer_now`] began and left to [`serve_request`].
pub(crate) struct Later {
    rest: Resume,
    began: Began,
}

/// What a request carries from its start to its answer ([`finish`]).
struct Began {
    /// When its handling began.
    at: std::time::Instant,
    /// The kind of statement it runs (metrics).
    kind: StatementKind,
    /// What the query log noted of it, when the log records it.
    noted: Option<Box<Noted>>,
}

/// Where [`serve_request`] goes on with a [`Later`].
enum Resume {
    /// The handler's rest.
    Handler(handler::Rest),
    /// What an injected fault does, after its delay ([`inject`]).
    Injected(Box<(Injection, Request)>),
}

/// A request whose write [`answer_now`] handed to the writer.
pub(crate) struct PendingWrite {
    /// The request's span, entered again for the answer (its logs stay in it).
    span: tracing::Span,
    reply: handler::PendingReply,
    header: FrameHeader,
    began: Began,
}

/// The answer to a [`PendingWrite`], ready when the writer acknowledges the write: what
/// [`serve_request`] would answer, without a request future around a wait for one reply.
pub(crate) struct WriteAnswer<'a> {
    node: &'a Arc<Node>,
    session: &'a Arc<Session>,
    pending: PendingWrite,
}

impl<'a> WriteAnswer<'a> {
    /// Waits for `pending`'s acknowledgement.
    pub(crate) fn new(
        node: &'a Arc<Node>,
        session: &'a Arc<Session>,
        pending: PendingWrite,
    ) -> WriteAnswer<'a> {
        WriteAnswer {
            node,
            session,
            pending,
        }
    }
}

impl std::future::Future for WriteAnswer<'_> {
    type Output = Answer;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answer> {
        let WriteAnswer {
            node,
            session,
            pending,
        } = &mut *self;
        let header = pending.header;
        let _in_request = pending.span.enter();
        // A panic is a bug; it fails its own request, as in `serve_request`.
        let answered = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let outcome = ready!(pending.reply.poll_reply(cx, node));
            let began = Began {
                at: pending.began.at,
                kind: pending.began.kind,
                noted: pending.began.noted.take(),
            };
            Poll::Ready(finish(node, session, &header, began, outcome, None))
        }));
        answered.unwrap_or_else(|_| {
            error!("request handler panicked");
            Poll::Ready(server_error(session, header.stream))
        })
    }
}

/// Begins a request on the caller's thread, with no request future and no task-local
/// scopes: most requests are answered here, a write is handed to the writer, and a request
/// that waits is left, begun, to [`serve_request`]. A traced or large request is left
/// untouched to [`serve_request`].
pub(crate) fn answer_now(node: &Arc<Node>, session: &Arc<Session>, envelope: &Envelope) -> Now {
    let header = &envelope.header;
    if header.flags & frame::flags::TRACING != 0 || envelope.body.len() >= HEAVY_REQUEST {
        return Now::NotTried;
    }
    let span = tracing::debug_span!("request", stream = header.stream, opcode = header.opcode);
    let _in_request = span.enter();
    // A panic is a bug; it fails its own request, as in `serve_request`.
    match std::panic::catch_unwind(AssertUnwindSafe(|| begin(node, session, envelope, &span))) {
        Ok(now) => now,
        Err(_) => {
            error!("request handler panicked");
            session.count_request();
            Now::Answered(server_error(session, header.stream))
        }
    }
}

/// [`answer_now`] past its checks: decode, begin, and answer what is done. `span` is the
/// request's (a write waiting for the writer takes it along; `Span::current` would look it
/// up again).
fn begin(
    node: &Arc<Node>,
    session: &Arc<Session>,
    envelope: &Envelope,
    span: &tracing::Span,
) -> Now {
    let header = &envelope.header;
    let started = std::time::Instant::now();
    let mut kind = StatementKind::None;
    let decoded = decode(node, session, header, &envelope.body);
    let mut noted = query_log::note(node, session, header.opcode, decoded.as_ref().ok());
    let begun = match decoded {
        Ok(request) => match injected_fault(node, session, &request) {
            None => counting_now(&mut noted, || {
                handler::begin(node, session, request, &mut kind)
            }),
            Some(injection) => {
                let began = Began {
                    at: started,
                    kind,
                    noted,
                };
                return Now::Later(Later {
                    rest: Resume::Injected(Box::new((injection, request))),
                    began,
                });
            }
        },
        Err(err) => handler::Begun::Done(Err(err)),
    };
    let began = Began {
        at: started,
        kind,
        noted,
    };
    match begun {
        handler::Begun::Done(outcome) => {
            let answer = finish(node, session, header, began, outcome, None);
            session.count_request();
            Now::Answered(answer)
        }
        handler::Begun::Writing(reply) => {
            session.count_request();
            Now::Writing(PendingWrite {
                span: span.clone(),
                reply,
                header: *header,
                began,
            })
        }
        handler::Begun::Later(rest) => Now::Later(Later {
            rest: Resume::Handler(rest),
            began,
        }),
    }
}

/// Injected faults (test controls): what the fault rules do to a decoded request, looked
/// up once, here, for every opcode (the rules say which they apply to). With no rule, one
/// relaxed atomic load.
fn injected_fault(node: &Node, session: &Session, request: &Request) -> Option<Injection> {
    if let Some(cluster) = node.cluster() {
        if crate::cluster::arrival::arrive(cluster, session, request) {
            // A paused simulated node accepts and never answers.
            return Some(Injection {
                delay: None,
                action: Action::Drop,
            });
        }
    }
    node.controls().faults().check(node, session, request)
}

/// Answers a request an injected fault fired on: after the fault's delay (other requests of
/// the connection go on meanwhile), its error, no answer, a closed connection, or the real
/// answer. A delay ends early, unanswered, when the connection stops reading (the server
/// stops or the client left), so a long one never holds a shutdown back.
async fn inject(
    node: &Arc<Node>,
    session: &Arc<Session>,
    header: &FrameHeader,
    mut began: Began,
    injection: Injection,
    request: Request,
) -> Answer {
    if let Some(delay) = injection.delay {
        let mut closed = session.closed_signal();
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            _ = closed.wait_for(|closed| *closed) => return Answer::unanswered(),
        }
    }
    let outcome = match injection.action {
        Action::Answer => {
            let mut kind = StatementKind::None;
            let handling = handler::handle(node, session, request, &mut kind);
            let outcome = counting(&mut began.noted, handling).await;
            began.kind = kind;
            return finish(node, session, header, began, outcome, None);
        }
        Action::Error(err) => Err(err),
        Action::Drop => return Answer::unanswered(),
        Action::Close => {
            return Answer {
                close: true,
                ..Answer::unanswered()
            }
        }
    };
    finish(node, session, header, began, outcome, None)
}

/// SERVER_ERROR for a request whose handler panicked (a bug: it fails its own request, not
/// every request of the connection) or was stopped.
fn server_error(session: &Session, stream: i16) -> Answer {
    let failure = CqlError::from(InternalError::HandlerPanicked);
    let response = Response::Error(failure.error_body());
    Answer {
        frame: encode(session, stream, response, &[]),
        start_events: false,
        start_segments: false,
        close: false,
    }
}

/// [`answer`] on the current thread.
async fn answer_here(
    node: &Arc<Node>,
    session: &Arc<Session>,
    header: &FrameHeader,
    body: Bytes,
) -> Answer {
    let started = std::time::Instant::now();
    let request = decode(node, session, header, &body);
    let mut noted = query_log::note(node, session, header.opcode, request.as_ref().ok());
    let request = match request {
        Ok(request) => match injected_fault(node, session, &request) {
            Some(injection) => {
                let began = Began {
                    at: started,
                    kind: StatementKind::None,
                    noted,
                };
                return Box::pin(inject(node, session, header, began, injection, request)).await;
            }
            None => Ok(request),
        },
        Err(err) => Err(err),
    };
    let mut kind = StatementKind::None;
    let mut tracing_id = None;
    let outcome = match request {
        Ok(request)
            if header.flags & frame::flags::TRACING != 0 && trace::is_traceable(&request) =>
        {
            // Boxed: only traced requests pay for the trace's state.
            let tracing = Box::pin(traced(node, session, request, &mut kind));
            let (outcome, id) = counting(&mut noted, tracing).await;
            tracing_id = Some(id);
            outcome
        }
        Ok(request) if noted.is_some() => {
            let handling = handler::handle(node, session, request, &mut kind);
            counting(&mut noted, handling).await
        }
        // Not recorded: the request runs as it is, with no layer to move it into.
        Ok(request) => handler::handle(node, session, request, &mut kind).await,
        Err(err) => Err(err),
    };
    let began = Began {
        at: started,
        kind,
        noted,
    };
    finish(node, session, header, began, outcome, tracing_id)
}

/// A request's body, decoded (decompression and custom payloads are handled by
/// `decode_request`).
fn decode(
    node: &Node,
    session: &Session,
    header: &FrameHeader,
    body: &Bytes,
) -> crate::error::CqlResult<Request> {
    match Opcode::try_from(header.opcode) {
        Ok(_) => frame::decode_request(
            header,
            body,
            session.envelope_compression(),
            node.config().max_frame_size,
        )
        .map_err(decode_error),
        Err(_) => Err(ProtocolError::UnknownOpcode {
            opcode: header.opcode,
        }
        .into()),
    }
}

/// A request's answer: its outcome as a response frame, counted in the metrics and recorded
/// in the query log (when it records).
fn finish(
    node: &Node,
    session: &Session,
    header: &FrameHeader,
    began: Began,
    outcome: crate::error::CqlResult<handler::Reply>,
    tracing_id: Option<uuid::Uuid>,
) -> Answer {
    let (response, warnings, start_events) = match outcome {
        Ok(reply) => (reply.response, reply.warnings, reply.start_events),
        Err(err) => {
            // A failed login names the role it tried: logs show only that it failed.
            if matches!(err, CqlError::Credentials(_)) {
                debug!("authentication failed");
            } else {
                debug!(cause = %err, "request failed");
            }
            let body = err.error_body();
            node.metrics().error(body.code);
            (Response::Error(body), Vec::new(), false)
        }
    };
    // The query log: the one place a request's answer is recorded.
    query_log::record(node, began.noted, &response, &warnings, began.at);
    // The answer to STARTUP (READY, or AUTHENTICATE) ends the v5 handshake.
    let ready = matches!(response, Response::Ready | Response::Authenticate { .. })
        && header.opcode == Opcode::Startup.as_u8();
    let frame = if ready {
        // The answer to STARTUP is never compressed, and ends the v5 handshake.
        frame::encode_response_frame_for(
            session.protocol(),
            header.stream,
            &response,
            &warnings,
            None,
        )
    } else {
        encode_traced(session, header.stream, response, tracing_id, &warnings)
    };
    node.metrics().warnings(warnings.len());
    node.metrics()
        .request(header.opcode, began.kind, began.at.elapsed());
    Answer {
        frame,
        start_events,
        start_segments: ready && session.protocol().is_v5(),
        close: false,
    }
}

/// Handles a request sent with the TRACING flag in a trace session (see [`trace`]); returns
/// the outcome and the session id the response carries.
async fn traced(
    node: &Arc<Node>,
    session: &Arc<Session>,
    request: frame::request::Request,
    kind: &mut StatementKind,
) -> (crate::error::CqlResult<handler::Reply>, uuid::Uuid) {
    let prepared = match &request {
        frame::request::Request::Execute(execute) => node.prepared().get(&execute.id),
        _ => None,
    };
    let statement = prepared
        .as_deref()
        .map(|p| (p.query.as_str(), p.bind.specs.as_slice()));
    let begun = trace::describe(&request, statement);
    trace::run(
        node.clock(),
        node.traces(),
        session,
        begun,
        handler::handle(node, session, request, kind),
    )
    .await
}

/// A request that does not decode: Cassandra's own words where it has them (an unknown
/// consistency code or event type), else ours after "Invalid or malformed message".
fn decode_error(err: frame::FrameError) -> CqlError {
    match err {
        frame::FrameError::UnknownConsistency(_) | frame::FrameError::InvalidEnumValue { .. } => {
            ProtocolError::RefusedValue(err).into()
        }
        other => ProtocolError::Malformed(other).into(),
    }
}

/// A response frame in the connection's protocol version and body compression.
pub(crate) fn encode(
    session: &Session,
    stream: i16,
    response: Response,
    warnings: &[String],
) -> BytesMut {
    encode_traced(session, stream, response, None, warnings)
}

/// [`encode`], carrying the id of the request's trace session if it was traced.
fn encode_traced(
    session: &Session,
    stream: i16,
    response: Response,
    tracing_id: Option<uuid::Uuid>,
    warnings: &[String],
) -> BytesMut {
    frame::encode_response_frame_traced(
        session.protocol(),
        stream,
        &response,
        tracing_id,
        warnings,
        session.envelope_compression(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every request's future is moved into the connection's set when it starts, and its
    /// size is the largest of any opcode's: rare, large paths (BATCH, DDL, LWT) are boxed.
    #[test]
    fn request_futures_stay_small() {
        let node = Arc::new(Node::open(crate::config::Config::default()).expect("node"));
        let addr = "127.0.0.1:9042".parse().expect("an address");
        let session = Arc::new(Session::new(addr, addr));
        let header = frame::parse_header(&[4, 0, 0, 1, 5, 0, 0, 0, 0]).expect("a header");
        let envelope = Envelope {
            header,
            body: Bytes::new(),
        };
        let future = serve_request(&node, &session, envelope, None);
        let size = std::mem::size_of_val(&future);
        assert!(size <= 4096, "the request future takes {size} bytes");
        drop(future);
        node.close();
    }
}
