//! Result shaping: folds the rows a scan accepts into result rows — PER PARTITION LIMIT,
//! DISTINCT, GROUP BY groups and aggregates, LIMIT and the page size — and tells the scan
//! when to skip the rest of a partition or stop, so it reads at most one row past the result.

use bytes::Bytes;
use storage::TableDef;

use crate::error::CqlResult;
use crate::eval::functions::CallContext;
use crate::executor::read::aggregate::Accumulator;
use crate::executor::read::paging::PagingState;
use crate::executor::read::row::LiveRow;
use crate::planner::select::grouping::Grouping;
use crate::planner::select::selector::Scalar;
use crate::planner::select::{Output, OutputSource, SelectPlan};

/// What the scan does after handing a row over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    Continue,
    /// Skip the rest of the current partition.
    SkipPartition,
    /// The result (or page) is complete.
    Stop,
}

/// One result row, with the clustering values of its (first) row when the result is sorted
/// after the read (empty otherwise).
#[derive(Debug, Clone)]
pub(crate) struct ResultRow {
    pub values: Vec<Option<Bytes>>,
    pub clustering: Vec<Bytes>,
}

/// The limits a result is shaped by, all in result rows (groups when grouping).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Limits {
    /// What is left of LIMIT.
    pub remaining: Option<usize>,
    pub per_partition: Option<usize>,
    pub page_size: Option<usize>,
}

/// A group still taking rows.
struct OpenGroup {
    partition: Vec<u8>,
    /// The grouped clustering prefix.
    prefix: Vec<Bytes>,
    first: ResultRow,
    /// Per output, the accumulators of its aggregates (none for other outputs).
    accumulators: Vec<Vec<Accumulator>>,
    last_key: Vec<u8>,
}

/// Folds accepted rows into result rows.
pub(crate) struct Shaper<'a> {
    def: &'a TableDef,
    outputs: &'a [Output],
    /// Whether every output is a different column: a row's values can then be moved into
    /// its result row instead of cloned.
    moves_values: bool,
    /// The request's clock, for functions in the selectors.
    call: CallContext,
    grouping: Grouping,
    distinct: bool,
    limits: Limits,
    /// Whether result rows keep their clustering values for a sort after the read.
    sort_keys: bool,
    rows: Vec<ResultRow>,
    /// Prefix of the partition rows currently come from, and result rows emitted from it.
    partition: Vec<u8>,
    partition_emitted: usize,
    group: Option<OpenGroup>,
    /// Key of the last row behind the last result row, and result rows of its partition.
    last: Option<(Vec<u8>, usize)>,
    has_more: bool,
}

impl<'a> Shaper<'a> {
    /// A shaper of `plan`'s result rows; `resume` is the paging state's partition prefix and
    /// its emitted count, `sort_keys` whether result rows are sorted after the read, `call`
    /// the clock that functions in the selectors read.
    pub(crate) fn new(
        def: &'a TableDef,
        plan: &'a SelectPlan,
        call: CallContext,
        limits: Limits,
        resume: Option<(Vec<u8>, usize)>,
        sort_keys: bool,
    ) -> Shaper<'a> {
        let (partition, partition_emitted) = resume.unwrap_or_default();
        Shaper {
            def,
            outputs: &plan.outputs,
            moves_values: plan.distinct_columns,
            call,
            grouping: plan.grouping,
            distinct: plan.distinct,
            limits,
            sort_keys,
            rows: Vec::new(),
            partition,
            partition_emitted,
            group: None,
            last: None,
            has_more: false,
        }
    }

    /// Takes the next row the scan accepted, at storage key `key` whose first
    /// `partition_len` bytes are the partition prefix.
    pub(crate) fn accept(
        &mut self,
        key: &[u8],
        partition_len: usize,
        row: LiveRow,
    ) -> CqlResult<Next> {
        let partition = key.get(..partition_len).unwrap_or(key);
        if let Grouping::Prefix { clustering } = self.grouping {
            if let Some(next) = self.continue_group(key, partition, &row, clustering)? {
                return Ok(next);
            }
        }
        if self.partition != partition {
            self.partition = partition.to_vec();
            self.partition_emitted = 0;
        }
        if self.grouping == Grouping::All {
            self.fold_all(key, partition, &row)?;
            return Ok(self.after_group_row());
        }
        if let Some(next) = self.limit_reached() {
            return Ok(next);
        }
        if let Grouping::Prefix { clustering } = self.grouping {
            self.open_group(key, partition, &row, clustering)?;
            return Ok(self.after_group_row());
        }
        let result = self.result_row_of(row)?;
        self.emit(result, key.to_vec());
        Ok(if self.limits.remaining == Some(0) {
            Next::Stop
        } else if self.partition_full() {
            Next::SkipPartition
        } else {
            Next::Continue
        })
    }

    /// GROUP BY a clustering prefix of `clustering` columns: adds `row` to the open group
    /// when it shares the group's partition and prefix (`Some(Continue)`); else closes the
    /// open group, answering `Some(Stop)` when that spent the LIMIT.
    fn continue_group(
        &mut self,
        key: &[u8],
        partition: &[u8],
        row: &LiveRow,
        clustering: usize,
    ) -> CqlResult<Option<Next>> {
        let prefix = row.clustering.get(..clustering).unwrap_or(&row.clustering);
        if let Some(group) = &mut self.group {
            if group.partition == partition && group.prefix == prefix {
                add_row(
                    self.def,
                    self.outputs,
                    &self.call,
                    &mut group.accumulators,
                    row,
                )?;
                group.last_key = key.to_vec();
                return Ok(Some(Next::Continue));
            }
        }
        if let Some(group) = self.group.take() {
            self.close(group)?;
            if self.limits.remaining == Some(0) {
                return Ok(Some(Next::Stop));
            }
        }
        Ok(None)
    }

    /// Before a row starts a new result row or group: skip the rest of a full partition,
    /// stop when LIMIT is spent or the page is full (then there are more rows).
    fn limit_reached(&mut self) -> Option<Next> {
        if self.partition_full() {
            return Some(Next::SkipPartition);
        }
        if self.limits.remaining == Some(0) {
            return Some(Next::Stop);
        }
        if self
            .limits
            .page_size
            .is_some_and(|size| self.rows.len() >= size)
        {
            self.has_more = true;
            return Some(Next::Stop);
        }
        None
    }

    /// Opens the group `row` starts (GROUP BY a prefix of `clustering` columns).
    fn open_group(
        &mut self,
        key: &[u8],
        partition: &[u8],
        row: &LiveRow,
        clustering: usize,
    ) -> CqlResult<()> {
        let prefix = row.clustering.get(..clustering).unwrap_or(&row.clustering);
        let mut group = self.open(key, partition, prefix, Some(row))?;
        add_row(
            self.def,
            self.outputs,
            &self.call,
            &mut group.accumulators,
            row,
        )?;
        self.group = Some(group);
        Ok(())
    }

    /// After a row went into a group: DISTINCT wants one per partition.
    fn after_group_row(&self) -> Next {
        if self.distinct {
            Next::SkipPartition
        } else {
            Next::Continue
        }
    }

    /// How many result rows are built so far.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// Ends the scan: closes the open group (or builds the single aggregate row) and returns
    /// the result rows with the paging state of the next page, if there is one.
    pub(crate) fn finish(mut self) -> CqlResult<(Vec<ResultRow>, Option<PagingState>)> {
        if let Some(group) = self.group.take() {
            self.close(group)?;
        } else if self.grouping == Grouping::All {
            // No rows: aggregates of nothing, plain columns null.
            let empty = self.open(&[], &[], &[], None)?;
            let (row, _) = self.finish_group(empty)?;
            self.rows.push(row);
        }
        // Cassandra's pager is exhausted only by a short page (`DataLimits.isExhausted`) or
        // a spent LIMIT: a full page always offers a next one, even if it will be empty.
        let page_full = self
            .limits
            .page_size
            .is_some_and(|size| self.rows.len() >= size);
        let more = self.has_more || (page_full && self.limits.remaining != Some(0));
        let paging = match (more, self.last) {
            (true, Some((last_key, partition_emitted))) => Some(PagingState {
                last_key,
                remaining: self.limits.remaining,
                partition_emitted,
            }),
            _ => None,
        };
        Ok((self.rows, paging))
    }

    /// Whether the current partition has given all it may (DISTINCT gives one row).
    fn partition_full(&self) -> bool {
        let per_partition = if self.distinct {
            Some(1)
        } else {
            self.limits.per_partition
        };
        per_partition.is_some_and(|n| self.partition_emitted >= n)
    }

    fn emit(&mut self, row: ResultRow, last_key: Vec<u8>) {
        self.rows.push(row);
        self.partition_emitted += 1;
        self.limits.remaining = self.limits.remaining.map(|n| n.saturating_sub(1));
        self.last = Some((last_key, self.partition_emitted));
    }

    /// Folds a row into the single group of an aggregate without GROUP BY.
    fn fold_all(&mut self, key: &[u8], partition: &[u8], row: &LiveRow) -> CqlResult<()> {
        if self.group.is_none() {
            self.group = Some(self.open(key, partition, &[], Some(row))?);
        }
        match &mut self.group {
            Some(group) => add_row(
                self.def,
                self.outputs,
                &self.call,
                &mut group.accumulators,
                row,
            ),
            None => Ok(()),
        }
    }

    /// Starts a group whose first row is `row` (not yet folded into the accumulators).
    fn open(
        &self,
        key: &[u8],
        partition: &[u8],
        prefix: &[Bytes],
        row: Option<&LiveRow>,
    ) -> CqlResult<OpenGroup> {
        let accumulators: Vec<Vec<Accumulator>> = self
            .outputs
            .iter()
            .map(|o| match &o.source {
                OutputSource::Aggregate(aggregate) => aggregate
                    .all()
                    .map(|a| Accumulator::new(a, a.input.as_ref().map(|(_, ty)| ty)))
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        let first = match row {
            Some(row) => self.result_row(row)?,
            None => ResultRow {
                values: vec![None; self.outputs.len()],
                clustering: Vec::new(),
            },
        };
        Ok(OpenGroup {
            partition: partition.to_vec(),
            prefix: prefix.to_vec(),
            first,
            accumulators,
            last_key: key.to_vec(),
        })
    }

    fn finish_group(&self, group: OpenGroup) -> CqlResult<(ResultRow, Vec<u8>)> {
        let mut result = group.first;
        let applied = self.outputs.iter().zip(&group.accumulators);
        for (value, (output, accumulators)) in result.values.iter_mut().zip(applied) {
            let OutputSource::Aggregate(aggregate) = &output.source else {
                continue;
            };
            let results = accumulators
                .iter()
                .map(Accumulator::result)
                .collect::<CqlResult<Vec<_>>>()?;
            *value = match &aggregate.then {
                Some(then) => then.scalar.eval_applied(self.def, &results, &self.call)?,
                None => results.into_iter().next().flatten(),
            };
        }
        Ok((result, group.last_key))
    }

    fn close(&mut self, group: OpenGroup) -> CqlResult<()> {
        let (result, last_key) = self.finish_group(group)?;
        self.emit(result, last_key);
        Ok(())
    }

    fn result_row(&self, row: &LiveRow) -> CqlResult<ResultRow> {
        Ok(ResultRow {
            values: self.values(row)?,
            clustering: if self.sort_keys {
                row.clustering.clone()
            } else {
                Vec::new()
            },
        })
    }

    /// [`Self::result_row`] from a row no longer needed: when every output is a different
    /// column their values are moved, not cloned (cloning a value decoded from the key into
    /// a buffer of its own allocates, and every clone counts a reference).
    fn result_row_of(&self, mut row: LiveRow) -> CqlResult<ResultRow> {
        if !self.moves_values {
            return self.result_row(&row);
        }
        let clustering = if self.sort_keys {
            row.clustering.clone()
        } else {
            Vec::new()
        };
        let values = self
            .outputs
            .iter()
            .map(|output| match output.source {
                OutputSource::Column(i) => row.take_value(self.def, i),
                _ => None,
            })
            .collect();
        Ok(ResultRow { values, clustering })
    }

    /// A row's values for the non-aggregate outputs (aggregates are filled in later).
    fn values(&self, row: &LiveRow) -> CqlResult<Vec<Option<Bytes>>> {
        // Sized once: collecting results through `?` would grow the list as it goes.
        let mut values = Vec::with_capacity(self.outputs.len());
        for output in self.outputs {
            values.push(match &output.source {
                OutputSource::Column(i) => row.value(self.def, *i).cloned(),
                OutputSource::Token => Some(Bytes::copy_from_slice(&row.token.to_be_bytes())),
                OutputSource::Scalar(scalar) => scalar.eval(self.def, row, &self.call)?,
                OutputSource::Aggregate(_) => None,
            });
        }
        Ok(values)
    }
}

/// Feeds a row to a group's accumulators.
fn add_row(
    def: &TableDef,
    outputs: &[Output],
    call: &CallContext,
    accumulators: &mut [Vec<Accumulator>],
    row: &LiveRow,
) -> CqlResult<()> {
    static PRESENT: Bytes = Bytes::from_static(&[1]);
    for (output, accs) in outputs.iter().zip(accumulators) {
        let OutputSource::Aggregate(aggregate) = &output.source else {
            continue;
        };
        for (a, acc) in aggregate.all().zip(accs.iter_mut()) {
            match &a.input {
                None => acc.add(Some(&PRESENT))?,
                Some((Scalar::Column(i), _)) => acc.add(row.value(def, *i))?,
                Some((scalar, _)) => acc.add(scalar.eval(def, row, call)?.as_ref())?,
            }
        }
    }
    Ok(())
}
