//! Preparing a conditional request: each statement's keys evaluated, the refusals of
//! conditional statements (one table, one partition, no `IN` on the key), and the rows its
//! conditions check.

use bytes::Bytes;
use cql::statement::ast::InValues;
use storage::{ColumnKind, TableDef};

use crate::error::{CqlResult, ModifyError};
use crate::eval::values::EvalContext;
use crate::executor::keys;
use crate::planner::modify::conditions::{CasConditions, ColumnCondition};
use crate::planner::modify::{ModifyKind, ModifyPlan};
use crate::planner::ValueSet;

use super::*;

/// Evaluates keys and gathers each statement's conditions by the row they check.
pub(super) fn prepare<'p>(items: &'p [CasItem<'_>], is_batch: bool) -> CqlResult<Request<'p>> {
    let Some(first) = items.first() else {
        return Err(ModifyError::EmptyConditionalBatch.into());
    };
    let mut collected = Collected::new(&first.plan.table.def, is_batch);
    for (index, item) in items.iter().enumerate() {
        collected.add(index, item, is_batch)?;
    }
    Ok(collected.finish())
}

/// What a conditional request's statements add up to, one statement at a time.
struct Collected<'p> {
    def: &'p TableDef,
    partition: Option<Vec<Bytes>>,
    rows: Vec<CheckedRow<'p>>,
    shown: Option<Vec<usize>>,
    updates_regular: bool,
    updates_static: bool,
    condition_columns: Vec<usize>,
}

impl<'p> Collected<'p> {
    fn new(def: &'p TableDef, is_batch: bool) -> Self {
        let shown = Some(if is_batch {
            def.partition_key
                .iter()
                .chain(&def.clustering_key)
                .copied()
                .collect()
        } else {
            Vec::new()
        });
        Collected {
            def,
            partition: None,
            rows: Vec::new(),
            shown,
            updates_regular: false,
            updates_static: false,
            condition_columns: Vec::new(),
        }
    }

    /// Statement `index`: its keys, what it writes, and its conditions' checked rows.
    fn add(&mut self, index: usize, item: &'p CasItem<'_>, is_batch: bool) -> CqlResult<()> {
        let def = self.def;
        let plan: &'p ModifyPlan = item.plan;
        let (pk, ck) = keys(def, item, is_batch, &mut self.partition)?;
        let writes_row =
            ck.len() == def.clustering_key.len() && !matches!(plan.kind, ModifyKind::DeleteRange);
        self.updates_regular |= writes_row;
        let Some(conditions) = &plan.conditions else {
            return Ok(());
        };
        self.updates_static |= plan
            .operations
            .iter()
            .any(|o| def.columns[o.column].kind == ColumnKind::Static);
        let row_clustering = writes_row.then(|| ck.clone());
        match conditions {
            CasConditions::Exists | CasConditions::NotExists => {
                self.shown = None;
                let not = matches!(conditions, CasConditions::NotExists);
                add_exists(def, &pk, &mut self.rows, row_clustering, not)?;
            }
            CasConditions::Columns(list) => {
                if let (Some(shown), Some(columns)) =
                    (self.shown.as_mut(), conditions.result_columns(def))
                {
                    for c in columns {
                        if !shown.contains(&c) {
                            shown.push(c);
                        }
                    }
                }
                for c in list {
                    self.condition_columns.push(c.column);
                    let on_static = def.columns[c.column].kind == ColumnKind::Static;
                    let target = if on_static {
                        None
                    } else {
                        row_clustering.clone()
                    };
                    add_condition(def, &pk, &mut self.rows, target, c, index)?;
                }
            }
        }
        Ok(())
    }

    /// The request: the checked rows in key order, and the columns its read returns
    /// (Cassandra's `CQL3CasRequest.columnsToRead`).
    fn finish(mut self) -> Request<'p> {
        self.rows.sort_by(|a, b| a.key.cmp(&b.key));
        let (updates_static, updates_regular) = (self.updates_static, self.updates_regular);
        let conditioned = &self.condition_columns;
        let read = self
            .def
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| match c.kind {
                ColumnKind::PartitionKey | ColumnKind::Clustering => true,
                ColumnKind::Static => updates_static || conditioned.contains(&i),
                ColumnKind::Regular => updates_regular || conditioned.contains(&i),
            })
            .collect();
        Request {
            def: self.def,
            partition: self.partition.unwrap_or_default(),
            rows: self.rows,
            shown: self.shown,
            read,
        }
    }
}

/// One statement's partition and clustering key values, refused as Cassandra does when the
/// statements span tables or partitions or use `IN` on the key; `partition` is the first
/// statement's partition, which every later one must name.
fn keys(
    def: &TableDef,
    item: &CasItem<'_>,
    is_batch: bool,
    partition: &mut Option<Vec<Bytes>>,
) -> CqlResult<(Vec<Bytes>, Vec<Bytes>)> {
    let plan = item.plan;
    let table = &plan.table.def;
    if table.keyspace != def.keyspace || table.name != def.name {
        return Err(ModifyError::ConditionalBatchTables.into());
    }
    if plan.partition_key.iter().any(is_in) {
        return Err(if is_batch {
            ModifyError::ConditionalBatchIn
        } else {
            ModifyError::ConditionalPartitionIn {
                statements: what(plan),
            }
        }
        .into());
    }
    // INSERT JSON binds its synthetic key markers from the JSON object.
    let json_binds = match &plan.json {
        Some(json) => Some(crate::eval::values::json_insert::bind_values(
            json, def, &item.ctx,
        )?),
        None => None,
    };
    let key_ctx = EvalContext {
        binds: json_binds.as_deref().unwrap_or(item.ctx.binds),
        ..item.ctx
    };
    let pk = single_values(def, &plan.partition_key, &def.partition_key, &key_ctx)?;
    keys::check_partition_key(def, &pk)?;
    match partition {
        None => *partition = Some(pk.clone()),
        Some(existing) if *existing != pk => {
            return Err(ModifyError::ConditionalBatchPartitions.into())
        }
        Some(_) => {}
    }
    if plan.clustering_key.iter().any(is_in) {
        return Err(ModifyError::ConditionalClusteringIn {
            statements: what(plan),
        }
        .into());
    }
    let ck = single_values(def, &plan.clustering_key, &def.clustering_key, &key_ctx)?;
    Ok((pk, ck))
}

/// Whether a key restriction is an `IN` to 5.0, which reads an `IN` of one literal as `=`
/// (`SingleColumnRelation.newINRestriction`); `IN ?` stays an `IN` whatever it binds.
fn is_in(set: &ValueSet) -> bool {
    match set {
        ValueSet::Eq(_) => false,
        ValueSet::In(InValues::List(terms)) => terms.len() != 1,
        ValueSet::In(InValues::Bind(_)) => true,
    }
}

/// The one value of each key column given (conditional statements take no `IN`).
fn single_values(
    def: &TableDef,
    sets: &[ValueSet],
    columns: &[usize],
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Bytes>> {
    sets.iter()
        .zip(columns)
        .map(|(set, &i)| {
            let mut values = keys::key_values(set, def, i, ctx)?;
            values
                .pop()
                .ok_or_else(|| ModifyError::ConditionalEmptyKey.into())
        })
        .collect()
}

fn find_row<'r, 'p>(
    def: &TableDef,
    pk: &[Bytes],
    rows: &'r mut Vec<CheckedRow<'p>>,
    clustering: Option<Vec<Bytes>>,
) -> CqlResult<(&'r mut CheckedRow<'p>, bool)> {
    let key = storage::row_key(def, pk, clustering.as_deref().unwrap_or(&[]))?;
    if let Some(i) = rows.iter().position(|r| r.key == key) {
        return Ok((&mut rows[i], false));
    }
    rows.push(CheckedRow {
        clustering,
        key,
        check: RowCheck::Columns(Vec::new()),
    });
    let last = rows.len() - 1;
    Ok((&mut rows[last], true))
}

/// `CQL3CasRequest.addExistsCondition`.
fn add_exists(
    def: &TableDef,
    pk: &[Bytes],
    rows: &mut Vec<CheckedRow<'_>>,
    clustering: Option<Vec<Bytes>>,
    not: bool,
) -> CqlResult<()> {
    let (row, new) = find_row(def, pk, rows, clustering)?;
    let wanted = if not {
        RowCheck::NotExists
    } else {
        RowCheck::Exists
    };
    if new {
        row.check = wanted;
        return Ok(());
    }
    match (&row.check, not) {
        (RowCheck::NotExists, true) | (RowCheck::Exists, false) => Ok(()),
        (RowCheck::NotExists, false) | (RowCheck::Exists, true) => {
            Err(ModifyError::ExistsAndNotExists.into())
        }
        (RowCheck::Columns(_), true) => Err(ModifyError::ConditionsAndNotExists.into()),
        (RowCheck::Columns(_), false) => Err(ModifyError::ConditionsAndExists.into()),
    }
}

/// `CQL3CasRequest.addConditions`.
fn add_condition<'p>(
    def: &TableDef,
    pk: &[Bytes],
    rows: &mut Vec<CheckedRow<'p>>,
    clustering: Option<Vec<Bytes>>,
    condition: &'p ColumnCondition,
    item: usize,
) -> CqlResult<()> {
    let (row, _) = find_row(def, pk, rows, clustering)?;
    match &mut row.check {
        RowCheck::Columns(list) => {
            list.push((condition, item));
            Ok(())
        }
        RowCheck::Exists | RowCheck::NotExists => Err(ModifyError::ConditionsAndNotExists.into()),
    }
}
