//! Query tracing, as Cassandra's `Tracing` does it: a request sent with the TRACING flag
//! (QUERY, EXECUTE, BATCH, PREPARE) gets a session id (a time-based uuid) that its response
//! carries first, and leaves a `system_traces.sessions` row and `system_traces.events` rows
//! describing the steps it went through.
//!
//! A traced request runs inside a task-local [`Tracer`]; code deep in the handler and the
//! executor records a step with [`event`], which does nothing (one task-local read, no
//! allocation, no lock) when the request is not traced. Work that leaves the task (a read on
//! the blocking pool, the storage writer's acknowledgement) takes the tracer along explicitly
//! ([`current`], [`within`]). When the request is answered, its session and events go into the
//! node's [`TraceLog`], a bounded in-memory ring that the `system_traces` tables are read
//! from (Cassandra keeps them a day with a TTL; we keep the last [`log::MAX_SESSIONS`]).

pub(crate) mod literal;
pub(crate) mod log;

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cql::frame::request::{QueryParameters, Request};
use cql::frame::response::ColumnSpec;
use uuid::Uuid;

pub(crate) use log::{SessionRow, TraceLog};

use crate::node::clock::Clock;
use crate::transport::session::Session;

/// The thread name of events recorded on the connection's task (Cassandra's request pool).
pub(crate) const REQUEST_THREAD: &str = "Native-Transport-Requests-1";
/// The thread name of events recorded by reads on the blocking pool (Cassandra's read stage).
pub(crate) const READ_THREAD: &str = "ReadStage-1";
/// The thread name of events recorded by the storage writer (Cassandra's mutation stage).
pub(crate) const MUTATION_THREAD: &str = "MutationStage-1";

/// The port Cassandra reports as `coordinator_port` and `source_port`: the internode port of
/// the broadcast address (`system.local.broadcast_port`).
pub(crate) const INTERNODE_PORT: i32 = 7000;

tokio::task_local! {
    static ACTIVE: Tracer;
}

/// One step of a traced request.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    /// `event_id`: a timeuuid of the moment the step was recorded.
    pub id: Uuid,
    /// `activity`.
    pub activity: String,
    /// `source_elapsed`: microseconds since the request started.
    pub elapsed_micros: i32,
    /// `thread`.
    pub thread: &'static str,
}

/// The shared state of one traced request.
#[derive(Debug)]
struct Active {
    id: Uuid,
    started: Instant,
    started_micros: i64,
    events: Mutex<Vec<Event>>,
}

/// A handle on the traced request, with the thread name its events are recorded under.
#[derive(Debug, Clone)]
pub(crate) struct Tracer {
    active: Arc<Active>,
    thread: &'static str,
}

impl Tracer {
    /// The same request's tracer, recording under another thread name.
    pub(crate) fn on(&self, thread: &'static str) -> Tracer {
        Tracer {
            active: self.active.clone(),
            thread,
        }
    }

    /// Records a step now (at most [`log::MAX_EVENTS`] per session).
    pub(crate) fn record(&self, activity: impl Into<String>) {
        let elapsed = self.active.started.elapsed();
        let elapsed_micros = i32::try_from(elapsed.as_micros()).unwrap_or(i32::MAX);
        let id = crate::eval::functions::time::time_uuid(
            self.active.started_micros + i64::from(elapsed_micros),
        );
        let mut events = self.active.events.lock().unwrap_or_else(|p| p.into_inner());
        if events.len() < log::MAX_EVENTS {
            events.push(Event {
                id,
                activity: log::truncate(activity.into()),
                elapsed_micros,
                thread: self.thread,
            });
        }
    }
}

/// Records a step of the current request if it is traced; `activity` is only called then.
#[inline]
pub(crate) fn event<S: Into<String>>(activity: impl FnOnce() -> S) {
    let _ = ACTIVE.try_with(|tracer| tracer.record(activity()));
}

/// The current request's tracer, to take along where the task-local does not reach (the
/// blocking pool, the storage writer); `None` when the request is not traced.
#[inline]
pub(crate) fn current() -> Option<Tracer> {
    ACTIVE.try_with(Clone::clone).ok()
}

/// Runs `f` with `tracer` as the current one (on a blocking-pool thread), or plainly.
#[inline]
pub(crate) fn within<R>(tracer: Option<Tracer>, f: impl FnOnce() -> R) -> R {
    match tracer {
        Some(tracer) => ACTIVE.sync_scope(tracer, f),
        None => f(),
    }
}

/// Whether Cassandra traces this request when asked (`Message.Request.isTraceable`).
pub(crate) fn is_traceable(request: &Request) -> bool {
    matches!(
        request,
        Request::Query(_) | Request::Execute(_) | Request::Batch(_) | Request::Prepare(_)
    )
}

/// What a traced request's session row says about it, fixed when it starts.
#[derive(Debug, Clone)]
pub(crate) struct Begun {
    /// `request`: Cassandra's description of the message.
    pub request: &'static str,
    /// `parameters`, in the order Cassandra adds them.
    pub parameters: Vec<(String, String)>,
}

/// Cassandra's name of a consistency level code (`ConsistencyLevel.name()`).
pub(crate) fn consistency_name(code: u16) -> String {
    let name = match code {
        0x0000 => "ANY",
        0x0001 => "ONE",
        0x0002 => "TWO",
        0x0003 => "THREE",
        0x0004 => "QUORUM",
        0x0005 => "ALL",
        0x0006 => "LOCAL_QUORUM",
        0x0007 => "EACH_QUORUM",
        0x0008 => "SERIAL",
        0x0009 => "LOCAL_SERIAL",
        0x000A => "LOCAL_ONE",
        0x000B => "NODE_LOCAL",
        other => return format!("{other:#06x}"),
    };
    name.to_string()
}

/// `page_size`, `consistency_level` and `serial_consistency_level` as Cassandra's
/// `traceQuery` adds them (an absent serial consistency is SERIAL, `QueryOptions`' default).
fn option_parameters(params: &QueryParameters, out: &mut Vec<(String, String)>) {
    if let Some(size) = params.page_size.filter(|&size| size > 0) {
        out.push(("page_size".into(), size.to_string()));
    }
    out.push((
        "consistency_level".into(),
        consistency_name(params.consistency),
    ));
    out.push((
        "serial_consistency_level".into(),
        consistency_name(
            params
                .serial_consistency
                .unwrap_or(crate::executor::consistency::SERIAL),
        ),
    ));
}

/// The session row's description of `request` (`QueryMessage.traceQuery` and its siblings);
/// `prepared` is an EXECUTE's statement, when the node still holds it: its text and the
/// specs of its bind markers.
pub(crate) fn describe(request: &Request, prepared: Option<(&str, &[ColumnSpec])>) -> Begun {
    let mut parameters = Vec::new();
    let request = match request {
        Request::Query(query) => {
            parameters.push(("query".into(), log::truncate(query.query.clone())));
            option_parameters(&query.params, &mut parameters);
            "Execute CQL3 query"
        }
        Request::Execute(execute) => {
            option_parameters(&execute.params, &mut parameters);
            if let Some((query, specs)) = prepared {
                parameters.push(("query".into(), log::truncate(query.to_string())));
                for (i, spec) in specs.iter().enumerate() {
                    let value = execute.params.values.get(i);
                    parameters.push((
                        format!("bound_var_{i}_{}", spec.name),
                        literal::bound_value(&spec.ty, value),
                    ));
                }
            }
            "Execute CQL3 prepared query"
        }
        Request::Batch(batch) => {
            parameters.push((
                "consistency_level".into(),
                consistency_name(batch.consistency),
            ));
            parameters.push((
                "serial_consistency_level".into(),
                consistency_name(
                    batch
                        .serial_consistency
                        .unwrap_or(crate::executor::consistency::SERIAL),
                ),
            ));
            "Execute batch of CQL3 queries"
        }
        Request::Prepare(prepare) => {
            parameters.push(("query".into(), log::truncate(prepare.query.clone())));
            "Preparing CQL3 query"
        }
        _ => "",
    };
    Begun {
        request,
        parameters,
    }
}

/// Runs a traced request: starts the session, handles the request with the tracer in scope,
/// and records the finished session in the node's log. Returns the handler's outcome and
/// the session id for the response.
pub(crate) async fn run<F: std::future::Future>(
    clock: &Clock,
    traces: &TraceLog,
    session: &Session,
    begun: Begun,
    request: F,
) -> (F::Output, Uuid) {
    let started_micros = clock.now_micros();
    let active = Arc::new(Active {
        id: crate::eval::functions::time::time_uuid(started_micros),
        started: Instant::now(),
        started_micros,
        events: Mutex::new(Vec::new()),
    });
    let tracer = Tracer {
        active: active.clone(),
        thread: REQUEST_THREAD,
    };
    let output = ACTIVE.scope(tracer, request).await;
    let duration = i32::try_from(active.started.elapsed().as_micros()).unwrap_or(i32::MAX);
    let events = std::mem::take(&mut *active.events.lock().unwrap_or_else(|p| p.into_inner()));
    traces.record(log::Recorded {
        id: active.id,
        session: Some(log::SessionRow {
            client: session.peer.ip(),
            coordinator: coordinator(session),
            command: "QUERY",
            request: begun.request,
            parameters: begun.parameters,
            started_at_millis: started_micros.div_euclid(1000),
            duration_micros: duration,
        }),
        events,
    });
    (output, active.id)
}

/// The coordinator's address: the one the client connected to, as `system.local` reports it.
fn coordinator(session: &Session) -> IpAddr {
    session.local.ip()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::Node;

    #[tokio::test]
    async fn events_belong_to_the_traced_request_only() {
        // Outside a traced request nothing is recorded and the closure never runs.
        event(|| -> String { panic!("must not be called") });
        assert!(current().is_none());

        let node = Arc::new(Node::open(crate::config::Config::default()).expect("node"));
        let addr = "127.0.0.1:9042".parse().expect("an address");
        let session = Session::new(addr, addr);
        let begun = Begun {
            request: "Execute CQL3 query",
            parameters: vec![("query".into(), "SELECT 1".into())],
        };
        let ((), id) = run(node.clock(), node.traces(), &session, begun, async {
            event(|| "Parsing SELECT 1");
            let tracer = current().map(|t| t.on(READ_THREAD));
            tokio::task::spawn_blocking(move || within(tracer, || event(|| "on the pool")))
                .await
                .expect("joined");
        })
        .await;
        assert_eq!(id.get_version_num(), 1);
        let recorded = node.traces().get(id).expect("recorded");
        let activities: Vec<(&str, &str)> = recorded
            .events
            .iter()
            .map(|e| (e.activity.as_str(), e.thread))
            .collect();
        assert_eq!(
            activities,
            [
                ("Parsing SELECT 1", REQUEST_THREAD),
                ("on the pool", READ_THREAD)
            ]
        );
        assert_ne!(recorded.events[0].id, recorded.events[1].id);
        let row = recorded.session.expect("a session row");
        assert_eq!(row.command, "QUERY");
        assert!(row.duration_micros >= recorded.events[1].elapsed_micros);
        node.close();
    }

    #[test]
    fn consistency_names_are_cassandras() {
        assert_eq!(consistency_name(0x0001), "ONE");
        assert_eq!(consistency_name(0x0006), "LOCAL_QUORUM");
        assert_eq!(consistency_name(0x000A), "LOCAL_ONE");
    }
}
