//! One module per request opcode. [`begin`] takes a decoded request as far as it goes
//! without waiting (a QUERY, EXECUTE or BATCH is bound, authorized and planned once, then
//! run by the executor); what waits is left to [`Rest::run`] or, for a write handed to the
//! writer, to [`PendingReply`]. Each handler returns a response value; only the connection's
//! writer touches the socket.

mod auth;
mod batch;
mod exec_options;
mod execute;
mod options;
mod prepare;
mod query;
mod register;
mod startup;

use std::sync::Arc;
use std::task::{ready, Context, Poll};

use bytes::Bytes;
use cql::frame::request::{AuthResponse, QueryParameters, Request, Value};
use cql::frame::response::{Response, ResultBody, ResultMetadata};

use crate::error::{CqlResult, ProtocolError, RequestError};
use crate::executor;
use crate::node::prepared::result_metadata_id;
use crate::node::Node;
use crate::planner::common::bind::BindInfo;
use crate::telemetry::metrics::StatementKind;
use crate::transport::session::Session;

/// What a handler produced.
#[derive(Debug)]
pub(crate) struct Reply {
    /// The response to send on the request's stream.
    pub response: Response,
    /// Warnings to attach (frame flag 0x08).
    pub warnings: Vec<String>,
    /// Whether the connection must start forwarding events (first REGISTER).
    pub start_events: bool,
}

impl Reply {
    /// A reply of `response`, without warnings.
    pub(crate) fn new(response: Response) -> Reply {
        Reply {
            response,
            warnings: Vec::new(),
            start_events: false,
        }
    }
}

/// A request's opcode as Cassandra's messages name it.
fn opcode_name(request: &Request) -> &'static str {
    match request {
        Request::Startup(_) => "STARTUP",
        Request::Options => "OPTIONS",
        Request::Query(_) => "QUERY",
        Request::Prepare(_) => "PREPARE",
        Request::Execute(_) => "EXECUTE",
        Request::Batch(_) => "BATCH",
        Request::Register(_) => "REGISTER",
        Request::AuthResponse(_) => "AUTH_RESPONSE",
    }
}

/// How far [`begin`] took a request.
pub(crate) enum Begun {
    /// Answered (or failed).
    Done(CqlResult<Reply>),
    /// A write handed to the writer, answered when the writer acknowledges it.
    Writing(PendingReply),
    /// Waiting for something (the blocking pool, a lock, room in the write queue): [`Rest`]
    /// finishes it.
    Later(Rest),
}

/// Handles one decoded request to its end: [`begin`], then what it left. `kind` learns what
/// kind of statement it ran (for metrics).
pub(crate) async fn handle(
    node: &Arc<Node>,
    session: &Arc<Session>,
    request: Request,
    kind: &mut StatementKind,
) -> CqlResult<Reply> {
    match begin(node, session, request, kind) {
        Begun::Done(reply) => reply,
        Begun::Writing(mut pending) => {
            std::future::poll_fn(|cx| pending.poll_reply(cx, node)).await
        }
        Begun::Later(rest) => rest.run(node, session).await,
    }
}

/// Begins a request on the caller's thread: what can be answered without waiting is
/// answered, a write goes to the writer, and the rest is left to [`Rest::run`]. Each
/// statement is bound, authorized and planned once, here. `kind` learns what kind of
/// statement the request runs (for metrics).
pub(crate) fn begin(
    node: &Arc<Node>,
    session: &Arc<Session>,
    request: Request,
    kind: &mut StatementKind,
) -> Begun {
    // The connection's stages as Cassandra's `ServerConnection` checks them: before STARTUP
    // only STARTUP and OPTIONS; while authenticating only AUTH_RESPONSE; once ready anything
    // but a second STARTUP.
    let started = session.is_started();
    let reply = match request {
        Request::AuthResponse(response) => return Begun::Later(Rest(Continue::Auth(response))),
        other if session.is_authenticating() => Err(ProtocolError::ExpectingSaslResponse {
            opcode: opcode_name(&other),
        }
        .into()),
        Request::Options => Ok(options::handle()),
        Request::Startup(_) if started => Err(ProtocolError::AlreadyInitialized.into()),
        Request::Startup(startup) => startup::handle(node, session, &startup),
        other if !started => Err(ProtocolError::ExpectingStartup {
            opcode: opcode_name(&other),
        }
        .into()),
        Request::Query(query) => return statement(|| query::begin(node, session, query, kind)),
        Request::Prepare(prepare) => prepare::handle(node, session, &prepare),
        Request::Execute(execute) => {
            return statement(|| execute::begin(node, session, execute, kind))
        }
        Request::Batch(batch) => {
            *kind = StatementKind::Batch;
            return statement(|| batch::begin(node, session, batch));
        }
        Request::Register(register) => Ok(register::handle(session, &register)),
    };
    Begun::Done(reply)
}

/// A statement's request once bound: what the executor made of it, and the result metadata
/// id an EXECUTE was sent with.
struct Started {
    outcome: executor::Outcome,
    held_metadata_id: Option<Bytes>,
}

/// Begins a QUERY, EXECUTE or BATCH, collecting the warnings it adds
/// ([`crate::telemetry::warnings`]).
fn statement(begin: impl FnOnce() -> CqlResult<Started>) -> Begun {
    let (started, warnings) = crate::telemetry::warnings::collect_now(begin);
    let Started {
        outcome,
        held_metadata_id,
    } = match started {
        Ok(started) => started,
        Err(err) => return Begun::Done(Err(err)),
    };
    match outcome {
        executor::Outcome::Done(result) => {
            let reply = result.map(|result| reply(result, held_metadata_id.as_deref()));
            Begun::Done(attach(reply, warnings))
        }
        executor::Outcome::Writing(write) => Begun::Writing(PendingReply { write, warnings }),
        executor::Outcome::Later(later) => Begun::Later(Rest(Continue::Statement {
            later,
            held_metadata_id,
            warnings,
        })),
    }
}

/// A write handed to the writer, with the warnings its request added: the reply once the
/// writer acknowledges it.
pub(crate) struct PendingReply {
    write: executor::PendingWrite,
    warnings: Vec<String>,
}

impl PendingReply {
    /// Polls for the writer's acknowledgement: the request's reply.
    pub(crate) fn poll_reply(
        &mut self,
        cx: &mut Context<'_>,
        node: &Node,
    ) -> Poll<CqlResult<Reply>> {
        let result = ready!(self.write.poll_done(cx, node));
        let reply = result.map(|result| Reply::new(Response::Result(result)));
        Poll::Ready(attach(reply, std::mem::take(&mut self.warnings)))
    }
}

/// What [`begin`] left of a request, finished by [`Rest::run`].
pub(crate) struct Rest(Continue);

/// What a [`Rest`] holds.
enum Continue {
    /// AUTH_RESPONSE, which checks credentials off the runtime's threads.
    Auth(AuthResponse),
    /// A statement the executor left to finish, with what its reply needs.
    Statement {
        later: executor::Later,
        held_metadata_id: Option<Bytes>,
        warnings: Vec<String>,
    },
}

impl Rest {
    /// Finishes the request.
    pub(crate) async fn run(self, node: &Arc<Node>, session: &Arc<Session>) -> CqlResult<Reply> {
        match self.0 {
            Continue::Auth(response) => auth::handle(node, session, response).await,
            Continue::Statement {
                later,
                held_metadata_id,
                mut warnings,
            } => {
                let finishing = later.finish(node, session);
                let (result, more) = crate::telemetry::warnings::collect(finishing).await;
                warnings.extend(more);
                let reply = result.map(|result| reply(result, held_metadata_id.as_deref()));
                attach(reply, warnings)
            }
        }
    }
}

/// A successful reply with the warnings its request added.
pub(crate) fn attach(reply: CqlResult<Reply>, warnings: Vec<String>) -> CqlResult<Reply> {
    let mut reply = reply?;
    reply.warnings.extend(warnings);
    Ok(reply)
}

/// The reply carrying a statement's result; `held` is the result metadata id an EXECUTE was
/// sent with (v5).
fn reply(mut result: ResultBody, held: Option<&[u8]>) -> Reply {
    if let (ResultBody::Rows(rows), Some(held)) = (&mut result, held) {
        announce_changed_metadata(&mut rows.metadata, held);
    }
    Reply::new(Response::Result(result))
}

/// v5: when the columns differ from those of the metadata id the client executed with (the
/// table changed since PREPARE), the result carries full metadata and the new id, whatever
/// the client asked (native_protocol_v5.spec, Metadata_changed).
fn announce_changed_metadata(metadata: &mut ResultMetadata, held: &[u8]) {
    let current = result_metadata_id(&metadata.columns);
    if current.as_ref() != held {
        metadata.no_metadata = false;
        metadata.new_metadata_id = Some(current);
    }
}

/// The values of a QUERY or EXECUTE in marker order, taken from its parameters: positional
/// values (the usual case) as they came, named ones (flag 0x40) resolved against the
/// markers' names and receivers.
fn take_values(
    params: &mut QueryParameters,
    bind_names: &[Option<String>],
    info: Option<&BindInfo>,
) -> CqlResult<Vec<Value>> {
    let Some(names) = &params.value_names else {
        return Ok(std::mem::take(&mut params.values));
    };
    let mut out = Vec::with_capacity(bind_names.len());
    for (i, bind_name) in bind_names.iter().enumerate() {
        let marker_name = bind_name.clone().or_else(|| {
            info.and_then(|info| info.specs.get(i))
                .map(|s| s.name.clone())
        });
        let Some(marker_name) = marker_name else {
            return Err(RequestError::UnnamedMarker { index: i }.into());
        };
        let position = names
            .iter()
            .position(|n| n.eq_ignore_ascii_case(&marker_name));
        match position.and_then(|p| params.values.get(p)) {
            Some(v) => out.push(v.clone()),
            None => return Err(RequestError::MissingNamedValue { name: marker_name }.into()),
        }
    }
    Ok(out)
}

/// Checks the number of bound values against the number of markers.
fn check_value_count(markers: usize, values: usize) -> CqlResult<()> {
    if markers != values {
        return Err(RequestError::ValueCount { markers, values }.into());
    }
    Ok(())
}
