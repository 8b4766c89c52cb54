//! On a simulated cluster, the consistency arithmetic a coordinator does before it runs a
//! statement: the replicas of the partitions it touches (every range, for a scan) under its
//! keyspace's replication, those up, and so `Unavailable` with Cassandra's counts, or a
//! timeout when a replica it needs is paused. The data is one copy, so every request allowed
//! sees every acknowledged write. With `strict_consistency` on one node, the same arithmetic
//! for a ring of that one node (`cluster::single`). Otherwise nothing here runs.

use std::time::Duration;

use bytes::Bytes;

use cql::statement::ast::BatchKind;

use crate::cluster::availability::level;
use crate::cluster::ring::Replication;
use crate::cluster::route::{self, Tokens, Verdict};
use crate::cluster::single;
use crate::error::{CqlError, CqlResult};
use crate::error::{InjectedError, InjectedKind};
use crate::eval::values::EvalContext;
use crate::executor::write::cas;
use crate::executor::{consistency, keys, ExecOptions};
use crate::node::Node;
use crate::planner::modify::ModifyPlan;
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

impl Check {
    /// The check's outcome where the request may wait: `Ok` to run it, else its error (after
    /// the wait, for a paused replica).
    pub(crate) async fn settle(self) -> CqlResult<()> {
        match self {
            Check::Proceed => Ok(()),
            Check::Fail(error) => Err(error),
            Check::FailAfter(after, error) => {
                tokio::time::sleep(after).await;
                Err(error)
            }
        }
    }
}

/// One statement to check: its table, the tokens it touches, whether it writes (and its
/// write type), its consistency level.
pub(crate) struct Touch<'a> {
    pub(crate) table: &'a TableRef,
    pub(crate) tokens: Option<Vec<i64>>,
    pub(crate) write_type: Option<&'static str>,
    pub(crate) consistency: u16,
}

/// What a statement's plan touches, its keys evaluated with `ctx`, in the order Cassandra
/// 5.0's coordinator checks them; none for statements that touch no user table's
/// partitions. A serial read and a conditional update (Paxos v1, 5.0's default) run a
/// Paxos round at the serial level, then read the partition at `QUORUM` (`LOCAL_QUORUM`
/// for `LOCAL_SERIAL`); the update then commits at its own level.
///
/// # Errors
/// A key that cannot be evaluated; a consistency level Cassandra refuses for the statement
/// (checked before the replicas are counted, as Cassandra does).
pub(crate) fn touches_of<'a>(
    plan: &'a StatementPlan,
    ctx: &EvalContext<'_>,
    options: &ExecOptions,
) -> CqlResult<Vec<Touch<'a>>> {
    Ok(match plan {
        StatementPlan::Select(select) => {
            let tokens = match &select.partitions {
                PartitionSelection::Keys(sets) => Some(tokens(&select.table, sets, ctx)?),
                _ => None,
            };
            if consistency::is_serial(options.consistency) {
                paxos(&select.table, tokens, options.consistency, None)
            } else {
                vec![Touch {
                    table: &select.table,
                    tokens,
                    write_type: None,
                    consistency: options.consistency,
                }]
            }
        }
        StatementPlan::Modify(modify) => {
            let tokens = Some(tokens(&modify.table, &modify.partition_key, ctx)?);
            if modify.conditions.is_some() {
                cas::check_cas_consistency(options)?;
                let mut touches = paxos(&modify.table, tokens.clone(), serial(options), CAS);
                touches.push(Touch {
                    table: &modify.table,
                    tokens,
                    write_type: CAS,
                    consistency: options.consistency,
                });
                touches
            } else {
                crate::executor::check_write(modify, options)?;
                vec![Touch {
                    table: &modify.table,
                    tokens,
                    write_type: Some("SIMPLE"),
                    consistency: options.consistency,
                }]
            }
        }
        _ => Vec::new(),
    })
}

/// What a batch's statements (their plans, keys evaluated with their contexts) touch, as
/// one write of `kind`; a conditional batch is one partition's Paxos round, as
/// [`touches_of`] checks a conditional update.
///
/// # Errors
/// As [`touches_of`].
pub(crate) fn batch_touches<'a, 'v>(
    entries: impl IntoIterator<Item = (&'a ModifyPlan, EvalContext<'v>)>,
    kind: BatchKind,
    options: &ExecOptions,
) -> CqlResult<Vec<Touch<'a>>> {
    let keyed = entries
        .into_iter()
        .map(|(plan, ctx)| Ok((plan, tokens(&plan.table, &plan.partition_key, &ctx)?)))
        .collect::<CqlResult<Vec<_>>>()?;
    let conditional = keyed.iter().any(|(plan, _)| plan.conditions.is_some());
    let mut touches = Vec::with_capacity(keyed.len() + 2);
    let write_type = if conditional {
        cas::check_cas_consistency(options)?;
        if let Some((plan, tokens)) = keyed.first() {
            touches = paxos(&plan.table, Some(tokens.clone()), serial(options), CAS);
        }
        CAS
    } else {
        cas::check_write_consistency(options)?;
        Some(match kind {
            BatchKind::Logged => "BATCH",
            BatchKind::Unlogged => "UNLOGGED_BATCH",
            BatchKind::Counter => "COUNTER",
        })
    };
    touches.extend(keyed.into_iter().map(|(plan, tokens)| Touch {
        table: &plan.table,
        tokens: Some(tokens),
        write_type,
        consistency: options.consistency,
    }));
    Ok(touches)
}

const CAS: Option<&str> = Some("CAS");

/// The serial level of a conditional update's Paxos round (`SERIAL` unless named).
fn serial(options: &ExecOptions) -> u16 {
    options.serial_consistency.unwrap_or(consistency::SERIAL)
}

/// A Paxos round at `serial` over `tokens` of `table`, then its read of the partition at
/// `QUORUM`, or `LOCAL_QUORUM` for `LOCAL_SERIAL` (Cassandra 5.0's `legacyCas` and
/// `legacyReadWithPaxos`).
fn paxos<'a>(
    table: &'a TableRef,
    tokens: Option<Vec<i64>>,
    serial: u16,
    write_type: Option<&'static str>,
) -> Vec<Touch<'a>> {
    let read = if serial == consistency::LOCAL_SERIAL {
        level::LOCAL_QUORUM
    } else {
        level::QUORUM
    };
    vec![
        Touch {
            table,
            tokens: tokens.clone(),
            write_type,
            consistency: serial,
        },
        Touch {
            table,
            tokens,
            write_type: None,
            consistency: read,
        },
    ]
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

/// Checks `touches` as the coordinator the client `session` is connected to would: a
/// simulated cluster's node, or the one node when `strict_consistency` is on.
pub(crate) fn check(
    node: &Node,
    session: &Session,
    schema: &Schema,
    touches: &[Touch<'_>],
) -> Check {
    if let Some(cluster) = node.cluster() {
        let Some(local_dc) = cluster.datacenter_at(session.local.ip()) else {
            return Check::Proceed;
        };
        verdicts(node, schema, touches, |replication, touch| {
            let tokens = match &touch.tokens {
                Some(tokens) => Tokens::Partitions(tokens),
                None => Tokens::Everywhere,
            };
            route::verdict(cluster, replication, tokens, touch.consistency, &local_dc)
        })
    } else if node.config().strict_consistency {
        verdicts(
            node,
            schema,
            touches,
            |replication, touch| match single::check(touch.consistency, replication) {
                Ok(()) => Verdict::Proceed,
                Err(shortfall) => Verdict::Unavailable(shortfall),
            },
        )
    } else {
        Check::Proceed
    }
}

/// The first `Unavailable` of `touches` (user tables only), else the first timeout, else
/// go on; `verdict` judges one touch under its keyspace's replication.
fn verdicts(
    node: &Node,
    schema: &Schema,
    touches: &[Touch<'_>],
    verdict: impl Fn(&Replication, &Touch<'_>) -> Verdict,
) -> Check {
    let mut wait = None;
    for touch in touches {
        if touch.table.kind != TableKind::User {
            continue;
        }
        let Some(keyspace) = schema.keyspace(&touch.table.def.keyspace) else {
            continue;
        };
        let replication = Replication::of(&keyspace.replication);
        match verdict(&replication, touch) {
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
