//! Handing writes to the storage writer: a slot in its bounded queue, held from submission to
//! acknowledgement (the backpressure), the batch sent, and the writer's answer turned into
//! the write's outcome.

use storage::WriteBatch;

use crate::error::{CqlResult, InternalError};
use crate::node::Node;
use crate::telemetry::trace;

/// How far [`hand_off`] took a write.
pub(crate) enum Handoff {
    /// Handed to the writer: its acknowledgement is awaited.
    Sent(Ack),
    /// Built and checked, waiting for room in the writer's queue, which was full
    /// ([`when_room`]).
    Queued(WriteBatch),
}

impl Handoff {
    /// The write's outcome, once handed to the writer (after waiting for room if it must)
    /// and acknowledged.
    pub(crate) async fn complete(self, node: &Node) -> CqlResult<()> {
        match self {
            Handoff::Sent(ack) => ack.wait(node).await,
            Handoff::Queued(batch) => when_room(node, batch).await,
        }
    }
}

/// Submits a batch to the writer (waiting for room in its bounded queue) and waits for its
/// commit.
pub(crate) async fn submit(node: &Node, batch: WriteBatch) -> CqlResult<()> {
    hand_off(node, batch)?.complete(node).await
}

/// Checks a batch against the index limits and hands it to the writer if its queue has room
/// now.
pub(crate) fn hand_off(node: &Node, batch: WriteBatch) -> CqlResult<Handoff> {
    crate::executor::write::index_limits::check(node, &batch)?;
    match node.write_queue().clone().try_acquire_owned() {
        Ok(slot) => Ok(Handoff::Sent(send(node, batch, slot))),
        Err(_) => Ok(Handoff::Queued(batch)),
    }
}

/// Waits for a slot in the bounded write queue, then sends `batch` and waits for its commit:
/// while the queue is full this waits, which stops the connection reading (backpressure).
pub(crate) async fn when_room(node: &Node, batch: WriteBatch) -> CqlResult<()> {
    let slot = node
        .write_queue()
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| InternalError::WriterStopped)?;
    send(node, batch, slot).wait(node).await
}

/// What the writer answers to a write, as its receiver gets it (an error when the writer went
/// away without answering).
pub(crate) type Acknowledged =
    Result<Result<(), storage::StorageError>, tokio::sync::oneshot::error::RecvError>;

/// A write handed to the writer: the receiver of its outcome, and what it wrote.
pub(crate) struct Ack {
    pub(crate) receiver: tokio::sync::oneshot::Receiver<Result<(), storage::StorageError>>,
    pub(crate) rows: WrittenRows,
}

impl Ack {
    /// Waits for the writer's answer: the write's outcome.
    pub(crate) async fn wait(self, node: &Node) -> CqlResult<()> {
        let acknowledged = self.receiver.await;
        self.rows.outcome(node, acknowledged)
    }
}

/// The rows a write changes, counted once the writer acknowledges it.
#[derive(Clone, Copy)]
pub(crate) struct WrittenRows(usize);

impl WrittenRows {
    /// The write's outcome, as the writer's answer (or its absence) makes it.
    pub(crate) fn outcome(self, node: &Node, acknowledged: Acknowledged) -> CqlResult<()> {
        match acknowledged {
            Ok(Ok(())) => {
                node.metrics().rows_written(self.0);
                Ok(())
            }
            Ok(Err(err)) => Err(err.into()),
            Err(_) => Err(InternalError::WriterStopped.into()),
        }
    }
}

/// Hands `batch` to the writer, holding `slot` (its place in the write queue) until the writer
/// answers; the write is then under way whatever happens to the request.
pub(crate) fn send(node: &Node, batch: WriteBatch, slot: tokio::sync::OwnedSemaphorePermit) -> Ack {
    let rows = WrittenRows(batch.rows.len() + batch.counters.len());
    let (tx, receiver) = tokio::sync::oneshot::channel();
    // Traced: the writer's steps are recorded when it acknowledges (on its thread, after it
    // appended the commit log and applied the memtable).
    let traced = trace::current().map(|tracer| {
        tracer.record("Determining replicas for mutation");
        (
            tracer.on(trace::MUTATION_THREAD),
            written_tables(node, &batch),
        )
    });
    node.store().submit(
        batch,
        Box::new(move |result| {
            drop(slot);
            if let Some((tracer, tables)) = traced {
                if result.is_ok() {
                    tracer.record("Appending to commitlog");
                    for table in tables {
                        tracer.record(format!("Adding to {table} memtable"));
                    }
                }
            }
            let _ = tx.send(result);
        }),
    );
    Ack { receiver, rows }
}

/// The names of the tables a traced write changes, in first-written order.
fn written_tables(node: &Node, batch: &WriteBatch) -> Vec<String> {
    let schema = node.schema();
    let ids = batch
        .rows
        .iter()
        .map(|r| r.table_id)
        .chain(batch.range_tombstones.iter().map(|r| r.table_id))
        .chain(batch.counters.iter().map(|c| c.table_id));
    let mut names: Vec<String> = Vec::new();
    for id in ids {
        let name = schema
            .user_keyspaces()
            .flat_map(|ks| ks.tables.values())
            .find(|t| t.id == id)
            .map(|t| t.name.clone());
        if let Some(name) = name.filter(|n| !names.contains(n)) {
            names.push(name);
        }
    }
    names
}
