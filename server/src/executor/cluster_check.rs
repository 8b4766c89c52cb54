//! On a simulated cluster, the consistency arithmetic a coordinator does before it runs a
//! statement: the replicas of the partitions it touches (every range, for a scan) under its
//! keyspace's replication, those up, and so `Unavailable` with Cassandra's counts, or a
//! timeout when a replica it needs is paused. The data is one copy, so every request allowed
//! sees every acknowledged write. Without a simulated cluster nothing here runs.

use std::time::Duration;

use bytes::Bytes;

use crate::cluster::ring::Replication;
use crate::cluster::route::{self, Tokens, Verdict};
use crate::error::{CqlError, CqlResult};
use crate::error::{InjectedError, InjectedKind};
use crate::eval::values::EvalContext;
use crate::executor::keys;
use crate::node::Node;
use crate::planner::plan::StatementPlan;
use crate::planner::select::PartitionSelection;
use crate::planner::ValueSet;
use crate::schema::{Schema, TableKind, TableRef};
use crate::transport::session::Session;

/// What the check makes of a request: go on, fail now, or fail after a wait.
pub(crate) enum Check {
    /// Run it.
    Proceed,
    /// Answer this error now.
    Fail(CqlError),
    /// Answer this error after the wait (a replica it needs is paused).
    FailAfter(Duration, CqlError),
}

/// One statement to check: its table, the tokens it touches, whether it writes (and its
/// write type), its consistency level.
pub(crate) struct Touch<'a> {
    pub(crate) table: &'a TableRef,
    pub(crate) tokens: Option<Vec<i64>>,
    pub(crate) write_type: Option<&'static str>,
    pub(crate) consistency: u16,
}

/// What a statement's plan touches, its keys evaluated with `ctx`; `None` for statements
/// that touch no user table's partitions.
pub(crate) fn touch_of<'a>(
    plan: &'a StatementPlan,
    ctx: &EvalContext<'_>,
    consistency: u16,
) -> CqlResult<Option<Touch<'a>>> {
    Ok(match plan {
        StatementPlan::Select(select) => Some(Touch {
            table: &select.table,
            tokens: match &select.partitions {
                PartitionSelection::Keys(sets) => Some(tokens(&select.table, sets, ctx)?),
                _ => None,
            },
            write_type: None,
            consistency,
        }),
        StatementPlan::Modify(modify) => Some(Touch {
            table: &modify.table,
            tokens: Some(tokens(&modify.table, &modify.partition_key, ctx)?),
            write_type: Some(if modify.conditions.is_some() {
                "CAS"
            } else {
                "SIMPLE"
            }),
            consistency,
        }),
        _ => None,
    })
}

/// The tokens of every partition key the value sets `sets` (one per key column) name.
fn tokens(table: &TableRef, sets: &[ValueSet], ctx: &EvalContext<'_>) -> CqlResult<Vec<i64>> {
    let def = &table.def;
    let mut keys: Vec<Vec<Bytes>> = vec![Vec::new()];
    for (set, &column) in sets.iter().zip(&def.partition_key) {
        let values = keys::write_key_values(set, def, column, ctx)?;
        keys = keys
            .iter()
            .flat_map(|prefix| {
                values.iter().map(move |value| {
                    let mut key = prefix.clone();
                    key.push(value.clone());
                    key
                })
            })
            .collect();
    }
    Ok(keys
        .iter()
        .map(|key| {
            let parts: Vec<&[u8]> = key.iter().map(|b| b.as_ref()).collect();
            storage::token_of(&parts)
        })
        .collect())
}

/// Checks `touches` as the coordinator the client `session` is connected to would.
pub(crate) fn check(
    node: &Node,
    session: &Session,
    schema: &Schema,
    touches: &[Touch<'_>],
) -> Check {
    let Some(cluster) = node.cluster() else {
        return Check::Proceed;
    };
    let Some(local_dc) = cluster.datacenter_at(session.local.ip()) else {
        return Check::Proceed;
    };
    let mut wait = None;
    for touch in touches {
        if touch.table.kind != TableKind::User {
            continue;
        }
        let Some(keyspace) = schema.keyspace(&touch.table.def.keyspace) else {
            continue;
        };
        let replication = Replication::of(&keyspace.replication);
        let tokens = match &touch.tokens {
            Some(tokens) => Tokens::Partitions(tokens),
            None => Tokens::Everywhere,
        };
        let verdict = route::verdict(cluster, &replication, tokens, touch.consistency, &local_dc);
        match verdict {
            Verdict::Proceed => {}
            Verdict::Unavailable(short) => {
                let kind = InjectedKind::Unavailable {
                    consistency: short.consistency,
                    required: count(short.required),
                    alive: count(short.alive),
                };
                let mut message = kind.cassandra_message();
                if let Some(dc) = &short.datacenter {
                    message = format!("{message} in DC {dc}");
                }
                return Check::Fail(InjectedError { kind, message }.into());
            }
            Verdict::Timeout {
                received,
                block_for,
            } if wait.is_none() => wait = Some(timeout(node, touch, received, block_for)),
            Verdict::Timeout { .. } => {}
        }
    }
    match wait {
        Some((after, error)) => Check::FailAfter(after, error),
        None => Check::Proceed,
    }
}

/// The timeout a request waiting on a paused replica ends with, and when.
fn timeout(
    node: &Node,
    touch: &Touch<'_>,
    received: usize,
    block_for: usize,
) -> (Duration, CqlError) {
    let (received, block_for) = (count(received), count(block_for));
    let (after, kind) = match touch.write_type {
        Some(write_type) => (
            node.config().write_request_timeout,
            InjectedKind::WriteTimeout {
                consistency: touch.consistency,
                received,
                block_for,
                write_type: write_type.to_string(),
            },
        ),
        None => (
            node.config().read_request_timeout,
            InjectedKind::ReadTimeout {
                consistency: touch.consistency,
                received,
                block_for,
                data_present: received > 0,
            },
        ),
    };
    let message = kind.cassandra_message();
    (after, InjectedError { kind, message }.into())
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}
