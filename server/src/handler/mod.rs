//! One module per request opcode. Each handler returns a response value; only the
//! connection's writer touches the socket.

mod auth;
mod batch;
mod exec_options;
mod execute;
mod options;
mod prepare;
mod query;
mod register;
mod startup;

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;

use cql::frame::request::{Execute, QueryParameters, Request, Value};
use cql::frame::response::Response;

use crate::error::{CqlResult, ProtocolError, RequestError};
use crate::node::prepared::PreparedStatement;
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

/// Handles one decoded request; `kind` learns what kind of statement it ran (for metrics).
pub(crate) fn handle<'a>(
    node: &'a Arc<Node>,
    session: &'a Arc<Session>,
    request: Request,
    kind: &'a mut StatementKind,
) -> impl Future<Output = CqlResult<Reply>> + 'a {
    handle_found(node, session, request, None, kind)
}

/// [`handle`], given the prepared statement an EXECUTE names when [`execute_now`] found it
/// (so it is not looked up twice).
pub(crate) async fn handle_found(
    node: &Arc<Node>,
    session: &Arc<Session>,
    request: Request,
    found: Found,
    kind: &mut StatementKind,
) -> CqlResult<Reply> {
    // The connection's stages as Cassandra's `ServerConnection` checks them: before STARTUP
    // only STARTUP and OPTIONS; while authenticating only AUTH_RESPONSE; once ready anything
    // but a second STARTUP.
    let started = session.is_started();
    match request {
        Request::AuthResponse(response) => auth::handle(node, session, response).await,
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
        // Boxed: a QUERY parses and plans inline and its future is the largest here; unboxed,
        // every request's future (EXECUTE's too) was sized, and copied, by it.
        Request::Query(query) => {
            with_warnings(Box::pin(query::handle(node, session, query, kind))).await
        }
        Request::Prepare(prepare) => prepare::handle(node, session, &prepare),
        Request::Execute(execute) => {
            with_warnings(execute::handle(node, session, execute, found, kind)).await
        }
        // Boxed: a BATCH future is large and would size every request future.
        Request::Batch(batch) => {
            *kind = StatementKind::Batch;
            with_warnings(Box::pin(batch::handle(node, session, batch))).await
        }
        Request::Register(register) => Ok(register::handle(session, &register)),
    }
}

/// Runs a request, attaching the warnings its execution added ([`crate::telemetry::warnings`]). Not an
/// `async fn`, which would hold a second copy of the request's state.
fn with_warnings(
    request: impl Future<Output = CqlResult<Reply>>,
) -> impl Future<Output = CqlResult<Reply>> {
    crate::telemetry::warnings::collect(request).map(|(reply, warnings)| attach(reply, warnings))
}

/// The prepared statement an EXECUTE names, when [`execute_now`] already looked it up.
pub(crate) type Found = Option<Arc<PreparedStatement>>;

/// How far [`execute_now`] took an EXECUTE.
pub(crate) enum Executed {
    /// Answered.
    Now(CqlResult<Reply>),
    /// A write handed to the writer: answered once it acknowledges, with these warnings.
    Writing(crate::executor::WriteBegun, Vec<String>),
    /// Left to [`handle_found`], with its prepared statement if it was found.
    Later(Found),
}

/// An EXECUTE answered on the caller's thread when it is a prepared read of one row, or
/// handed to the writer when it is a plain write (see `execute::handle_now`), with its
/// warnings; any other is left, having done nothing a client sees, to [`handle_found`].
pub(crate) fn execute_now(
    node: &Arc<Node>,
    session: &Arc<Session>,
    execute: &Execute,
    kind: &mut StatementKind,
) -> Executed {
    let (executed, warnings) = crate::telemetry::warnings::collect_now(|| {
        execute::handle_now(node, session, execute, kind)
    });
    match executed {
        Executed::Now(reply) => Executed::Now(attach(reply, warnings)),
        Executed::Writing(begun, _) => Executed::Writing(begun, warnings),
        Executed::Later(found) => Executed::Later(found),
    }
}

/// A successful reply with the warnings its request added.
pub(crate) fn attach(reply: CqlResult<Reply>, warnings: Vec<String>) -> CqlResult<Reply> {
    let mut reply = reply?;
    reply.warnings.extend(warnings);
    Ok(reply)
}

/// Orders bound values by marker index, resolving names (flag 0x40) against the markers'
/// names and receivers. Positional values (the usual case) are borrowed as they came.
fn positional_values<'p>(
    params: &'p QueryParameters,
    bind_names: &[Option<String>],
    info: Option<&BindInfo>,
) -> CqlResult<Cow<'p, [Value]>> {
    let Some(names) = &params.value_names else {
        return Ok(Cow::Borrowed(&params.values));
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
    Ok(Cow::Owned(out))
}

/// Checks the number of bound values against the number of markers.
fn check_value_count(markers: usize, values: usize) -> CqlResult<()> {
    if markers != values {
        return Err(RequestError::ValueCount { markers, values }.into());
    }
    Ok(())
}
