//! Counter updates and counter column deletions turned into [`CounterWrite`]s: deltas the
//! storage writer adds to the stored sums inside its transaction, so concurrent increments
//! never lose one another (Cassandra's `Constants.Adder`/`Substracter` and `Deleter`).

use bytes::Bytes;
use cql::types::ColumnType;
use storage::{ColumnKind, CounterChange, CounterWrite, TableDef, WriteBatch};

use crate::error::{CqlResult, ModifyError};
use crate::eval::values::{evaluate, EvalContext, Evaluated, Receiver};
use crate::executor::keys;
use crate::planner::modify::operations::{ColumnOperation, Operation};

/// When and what a counter statement writes.
pub(crate) struct CounterStatement<'a> {
    pub(crate) def: &'a TableDef,
    pub(crate) operations: &'a [ColumnOperation],
    /// The write timestamp (microseconds).
    pub(crate) timestamp: i64,
    /// The local deletion time of counter tombstones (seconds).
    pub(crate) now_seconds: i64,
}

impl CounterStatement<'_> {
    /// Adds the counter writes of every addressed row to `out`: static columns on each
    /// partition's static row, the others on each clustering row (when the clustering key is
    /// given).
    pub(crate) fn writes(
        &self,
        pk_values: Vec<Vec<Bytes>>,
        ck_rows: Option<Vec<Vec<Bytes>>>,
        ctx: &EvalContext<'_>,
        out: &mut WriteBatch,
    ) -> CqlResult<()> {
        let def = self.def;
        let changes = self
            .operations
            .iter()
            .map(|o| Ok((o, self.change(o, ctx)?)))
            .collect::<CqlResult<Vec<_>>>()?;
        for pk in keys::cartesian(pk_values) {
            keys::check_partition_key(def, &pk)?;
            let partition = storage::row_key(def, &pk, &[])?;
            let mut row_keys = Vec::new();
            for ck in ck_rows.iter().flatten() {
                keys::check_clustering_length(ck)?;
                row_keys.push(storage::row_key(def, &pk, ck)?);
            }
            for (op, change) in &changes {
                let Some(change) = change else { continue };
                let col = &def.columns[op.column];
                let is_static = col.kind == ColumnKind::Static;
                let keys = if is_static {
                    std::slice::from_ref(&partition)
                } else {
                    row_keys.as_slice()
                };
                for key in keys {
                    out.counters.push(CounterWrite {
                        table_id: def.id,
                        key: key.clone(),
                        partition_len: partition.len(),
                        is_static,
                        column: col.id,
                        timestamp: self.timestamp,
                        change: *change,
                    });
                }
            }
        }
        Ok(())
    }

    /// The change one operation makes; `None` for an unset delta.
    fn change(
        &self,
        op: &ColumnOperation,
        ctx: &EvalContext<'_>,
    ) -> CqlResult<Option<CounterChange>> {
        let col = &self.def.columns[op.column];
        let (term, negate) = match &op.op {
            Operation::Add(term) => (term, false),
            Operation::Remove(term) => (term, true),
            Operation::Delete => {
                return Ok(Some(CounterChange::Delete {
                    local_deletion_seconds: self.now_seconds,
                }))
            }
            _ => {
                return Err(ModifyError::CounterOperation {
                    column: col.name.clone(),
                }
                .into())
            }
        };
        let receiver = Receiver {
            name: &col.name,
            ty: &ColumnType::Counter,
        };
        let bytes = match evaluate(term, receiver, ctx)? {
            Evaluated::Unset => return Ok(None),
            Evaluated::Null => return Err(ModifyError::NullCounterIncrement.into()),
            Evaluated::Value(bytes) => bytes,
        };
        let delta = <[u8; 8]>::try_from(bytes.as_ref())
            .map(i64::from_be_bytes)
            .map_err(|_| ModifyError::CounterDeltaSize { size: bytes.len() })?;
        if !negate {
            return Ok(Some(CounterChange::Add(delta)));
        }
        if delta == i64::MIN {
            return Err(ModifyError::CounterNegationOverflow { delta }.into());
        }
        Ok(Some(CounterChange::Add(-delta)))
    }
}
