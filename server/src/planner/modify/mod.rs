//! INSERT, UPDATE and DELETE planning with Cassandra's key rules: the full partition key by
//! `=`/`IN`, the full clustering key for writes, no slices, no non-key columns in WHERE.

pub(crate) mod batch_bind;
pub(crate) mod conditions;
pub(crate) mod counters;
pub(crate) mod delete;
pub(crate) mod operations;
pub(crate) mod print;
#[cfg(test)]
pub(crate) mod tests;

use cql::statement::ast::{
    Insert, InsertValues, Literal, Operator, Relation, Term, Update, UsingClause,
};
use cql::types::ColumnType;
use storage::ColumnKind;

use crate::error::{CqlError, CqlResult, DdlError, ModifyError, RestrictionError};
use crate::eval::values::json_insert as insert;
use crate::eval::values::json_insert::JsonInsert;
use crate::planner::common::clustering::ClusteringPlan;
use crate::planner::common::restrictions::{ColumnRestriction, ValueSet};
use crate::planner::common::{restrictions, selection_only};
use crate::planner::modify::conditions::CasConditions;
use crate::planner::modify::operations::{ColumnOperation, Operation};
use crate::planner::{column_index, resolve_table};
use crate::schema::{is_system_keyspace, Schema, TableKind, TableRef};

/// What the mutation does to each addressed row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ModifyKind {
    /// INSERT: writes a row marker and the given cells.
    Insert,
    /// UPDATE: writes the given cells only.
    Update,
    /// DELETE of whole rows (or partitions when only the partition key is given).
    DeleteRows,
    /// DELETE of columns, elements or fields (the plan's operations).
    DeleteColumns,
    /// DELETE of a clustering range or a whole partition (range tombstone).
    DeleteRange,
}

/// A planned INSERT/UPDATE/DELETE.
#[derive(Debug, Clone)]
pub(crate) struct ModifyPlan {
    pub table: TableRef,
    pub kind: ModifyKind,
    /// One value set per partition key column.
    pub partition_key: Vec<ValueSet>,
    /// One value set per clustering column given: all of them, or none when the statement
    /// writes static columns only.
    pub clustering_key: Vec<ValueSet>,
    /// What happens to each non-key column.
    pub operations: Vec<ColumnOperation>,
    pub using: UsingClause,
    /// The deleted clustering range of a `DeleteRange`.
    pub range: Option<ClusteringPlan>,
    /// `INSERT JSON`: the JSON source whose values the executor binds to the synthetic
    /// markers of the plan's terms.
    pub json: Option<JsonInsert>,
    /// The `IF` clause of a conditional (lightweight-transaction) modification.
    pub conditions: Option<CasConditions>,
    /// `(c1, c2) IN ((..), (..))` in an UPDATE: the rows its tuples name. Its columns' entries
    /// in `clustering_key` are empty `IN` lists standing for it.
    pub clustering_tuples: Option<ClusteringTuples>,
}

/// A multi-column `IN` naming whole clustering prefixes of an UPDATE.
#[derive(Debug, Clone)]
pub(crate) struct ClusteringTuples {
    /// Position of its first column in the clustering key.
    pub start: usize,
    /// How many clustering columns it covers.
    pub width: usize,
    /// The tuples (or one marker bound to a list of tuples).
    pub values: cql::statement::ast::InValues,
}

/// The user table an UPDATE/DELETE addresses, and its planned `IF` clause.
pub(super) fn target_table(
    schema: &Schema,
    name: &cql::statement::ast::QualifiedName,
    session_keyspace: Option<&str>,
    condition: &Option<cql::statement::ast::Condition>,
    using: &UsingClause,
) -> CqlResult<(TableRef, Option<CasConditions>)> {
    let table = resolve_table(schema, name, session_keyspace)?;
    check_modifiable(&table)?;
    let planned = conditions::plan_for(&table.def, condition, using)?;
    crate::planner::modify::counters::check_using(&table.def, using)?;
    Ok((table, planned))
}

pub(super) fn check_modifiable(table: &TableRef) -> CqlResult<()> {
    if table.kind == TableKind::Virtual && table.def.keyspace == crate::control::KEYSPACE {
        // The test controls' CQL door: run as commands (`crate::control::cql`).
        return Ok(());
    }
    if table.kind == TableKind::Virtual || is_system_keyspace(&table.def.keyspace) {
        return Err(DdlError::SystemKeyspaceNotModifiable {
            keyspace: table.def.keyspace.clone(),
        }
        .into());
    }
    if table.def.is_view() {
        return Err(ModifyError::MaterializedView.into());
    }
    Ok(())
}

/// Plans an INSERT.
pub(crate) fn plan_insert(
    schema: &Schema,
    stmt: &Insert,
    session_keyspace: Option<&str>,
) -> CqlResult<ModifyPlan> {
    let table = resolve_table(schema, &stmt.table, session_keyspace)?;
    check_modifiable(&table)?;
    let def = &table.def;
    if def.columns.iter().any(|c| c.ty.is_counter()) {
        return Err(ModifyError::InsertOnCounterTable.into());
    }
    let cas = stmt.if_not_exists.then_some(CasConditions::NotExists);
    conditions::check_statement(def, cas.as_ref(), &stmt.using)?;
    let (by_column, json) = match &stmt.values {
        InsertValues::Columns { columns, values } => (column_terms(def, columns, values)?, None),
        InsertValues::Json {
            json,
            default_unset,
        } => json_terms(def, stmt, json, *default_unset),
    };
    selection_only::refuse_to_json_in_values(&by_column)?;
    let key_set = |indexes: &[usize]| -> Vec<Option<ValueSet>> {
        indexes
            .iter()
            .map(|&i| by_column[i].clone().map(ValueSet::Eq))
            .collect()
    };
    let partition_key = require_partition_key(def, key_set(&def.partition_key))?;
    let operations: Vec<ColumnOperation> = by_column
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            matches!(
                def.columns[*i].kind,
                ColumnKind::Regular | ColumnKind::Static
            )
        })
        .filter_map(|(column, term)| {
            term.clone().map(|t| ColumnOperation {
                column,
                op: Operation::Set(t),
            })
        })
        .collect();
    let clustering_key = clustering_or_static(
        def,
        key_set(&def.clustering_key),
        static_only(def, &operations),
    )
    .map_err(|missing| constant_value_error(def, &operations).unwrap_or(missing))?;
    Ok(ModifyPlan {
        table: table.clone(),
        kind: ModifyKind::Insert,
        partition_key,
        clustering_key,
        operations,
        using: stmt.using.clone(),
        range: None,
        json,
        conditions: cas,
        clustering_tuples: None,
    })
}

/// The first error of a constant value among `operations`: Cassandra checks constant values
/// as it prepares the statement, before its key restrictions, so such an error comes first.
fn constant_value_error(
    def: &storage::TableDef,
    operations: &[ColumnOperation],
) -> Option<CqlError> {
    let ctx = crate::eval::values::EvalContext {
        binds: &[],
        now_micros: 0,
    };
    operations.iter().find_map(|op| match &op.op {
        Operation::Set(term) if is_constant(term) => {
            let column = &def.columns[op.column];
            let receiver = crate::eval::values::Receiver {
                name: &column.name,
                ty: &column.ty,
            };
            crate::eval::values::evaluate(term, receiver, &ctx).err()
        }
        _ => None,
    })
}

/// Checks the constant operands of `c = c + x`, `c = c - x` and `c = x + c` on collections
/// against what they receive, as Cassandra does while preparing (`Operation.Addition` and
/// `Substraction`): a map takes a map to add and a set of its keys to remove, with their
/// own messages when the value is not one.
fn check_constant_collection_operands(
    def: &storage::TableDef,
    operations: &[ColumnOperation],
) -> CqlResult<()> {
    let ctx = crate::eval::values::EvalContext {
        binds: &[],
        now_micros: 0,
    };
    type Refusal = fn(String) -> ModifyError;
    for operation in operations {
        let column = &def.columns[operation.column];
        let (term, receiver_ty, refused): (_, _, Option<Refusal>) =
            match (&operation.op, &column.ty) {
                (Operation::Add(term), ColumnType::Map { .. }) => (
                    term,
                    column.ty.clone(),
                    Some(|term| ModifyError::MapAdditionNotMap { term }),
                ),
                (Operation::Remove(term), ColumnType::Map { key, .. }) => {
                    let keys = ColumnType::Set {
                        element: key.clone(),
                        frozen: false,
                    };
                    (
                        term,
                        keys,
                        Some(|term| ModifyError::MapSubtractionNotSet { term }),
                    )
                }
                (Operation::Add(term) | Operation::Remove(term) | Operation::Prepend(term), ty)
                    if ty.is_collection() =>
                {
                    (term, ty.clone(), None)
                }
                _ => continue,
            };
        if !is_constant(term) {
            continue;
        }
        let receiver = crate::eval::values::Receiver {
            name: &column.name,
            ty: &receiver_ty,
        };
        if let Err(err) = crate::eval::values::evaluate(term, receiver, &ctx) {
            return Err(match refused {
                Some(refusal) => refusal(term.to_string()).into(),
                None => err,
            });
        }
    }
    Ok(())
}

/// Checks the constant operands of single-column relations against their column's type, as
/// Cassandra does while preparing the WHERE clause, before any check of which columns it
/// restricts.
pub(super) fn check_constant_relations(
    def: &storage::TableDef,
    relations: &[Relation],
) -> CqlResult<()> {
    let ctx = crate::eval::values::EvalContext {
        binds: &[],
        now_micros: 0,
    };
    for relation in relations {
        let Relation::Single {
            column,
            op: Operator::Eq | Operator::Lt | Operator::Lte | Operator::Gt | Operator::Gte,
            value,
        } = relation
        else {
            continue;
        };
        let Ok(i) = column_index(def, column) else {
            continue;
        };
        if is_constant(value) && !matches!(value, Term::Literal(Literal::Null)) {
            let column = &def.columns[i];
            let receiver = crate::eval::values::Receiver {
                name: &column.name,
                ty: &column.ty,
            };
            crate::eval::values::evaluate(value, receiver, &ctx)?;
        }
    }
    Ok(())
}

/// Whether `term` is made of literals only (no marker, function or column).
fn is_constant(term: &Term) -> bool {
    match term {
        Term::Literal(_) => true,
        Term::List(items) | Term::Set(items) | Term::Tuple(items) => items.iter().all(is_constant),
        Term::Map(entries) => entries
            .iter()
            .all(|(k, v)| is_constant(k) && is_constant(v)),
        Term::Udt(fields) => fields.iter().all(|(_, v)| is_constant(v)),
        _ => false,
    }
}

/// The value term of each table column named by `INSERT (columns) VALUES (values)`.
fn column_terms(
    def: &storage::TableDef,
    columns: &[cql::statement::ast::Ident],
    values: &[Term],
) -> CqlResult<Vec<Option<Term>>> {
    if columns.len() != values.len() {
        return Err(ModifyError::UnmatchedColumnValues.into());
    }
    let mut by_column: Vec<Option<Term>> = vec![None; def.columns.len()];
    for (ident, value) in columns.iter().zip(values) {
        let i = column_index(def, ident)?;
        if by_column[i].is_some() {
            return Err(ModifyError::DuplicateColumnNames.into());
        }
        by_column[i] = Some(value.clone());
    }
    Ok(by_column)
}

/// `INSERT JSON`: every column takes a synthetic marker numbered after the statement's own
/// markers; the executor binds them from the JSON object (`crate::eval::values::json_insert`).
fn json_terms(
    def: &storage::TableDef,
    stmt: &Insert,
    source: &Term,
    default_unset: bool,
) -> (Vec<Option<Term>>, Option<JsonInsert>) {
    let using = &stmt.using;
    let own = [
        Some(source),
        using.ttl.as_ref(),
        using.timestamp.as_ref(),
        using.timeout.as_ref(),
    ];
    let json = JsonInsert {
        source: source.clone(),
        default_unset,
        first_marker: insert::marker_count(own.into_iter().flatten()),
    };
    let terms = (0..def.columns.len())
        .map(|i| Some(json.marker(i)))
        .collect();
    (terms, Some(json))
}

/// Whether the operations touch static columns only (and at least one).
pub(super) fn static_only(def: &storage::TableDef, operations: &[ColumnOperation]) -> bool {
    !operations.is_empty()
        && operations
            .iter()
            .all(|o| def.columns[o.column].kind == ColumnKind::Static)
}

/// The clustering key of a write: all of its columns, or none at all when only static
/// columns are written (the partition's static row).
pub(super) fn clustering_or_static(
    def: &storage::TableDef,
    sets: Vec<Option<ValueSet>>,
    static_only: bool,
) -> CqlResult<Vec<ValueSet>> {
    if static_only && sets.iter().all(Option::is_none) {
        return Ok(Vec::new());
    }
    require_all(def, &def.clustering_key, sets, |columns| {
        ModifyError::MissingClusteringKeys { columns }
    })
}

/// The one value set of each partition key column.
pub(super) fn require_partition_key(
    def: &storage::TableDef,
    sets: Vec<Option<ValueSet>>,
) -> CqlResult<Vec<ValueSet>> {
    require_all(def, &def.partition_key, sets, |columns| {
        ModifyError::MissingPartitionKeyParts { columns }
    })
}

/// The one value set of each key column in `indexes`, or the error `missing` builds from
/// the names of the columns without one.
pub(super) fn require_all(
    def: &storage::TableDef,
    indexes: &[usize],
    sets: Vec<Option<ValueSet>>,
    missing: impl FnOnce(Vec<String>) -> ModifyError,
) -> CqlResult<Vec<ValueSet>> {
    let absent: Vec<String> = indexes
        .iter()
        .zip(&sets)
        .filter(|(_, s)| s.is_none())
        .map(|(&i, _)| def.columns[i].name.clone())
        .collect();
    if !absent.is_empty() {
        return Err(missing(absent).into());
    }
    Ok(sets.into_iter().flatten().collect())
}

/// `(c1, c2) = (a, b)` on clustering columns as `c1 = a AND c2 = b` (a tuple of terms, as
/// many as the columns), and `(c) IN ((a), (b))` as `c IN (a, b)`: for UPDATE they name the
/// same rows. Other relations are kept as they are (a multi-column IN of several columns is
/// not a product of per-column sets).
pub(super) fn split_tuple_equalities(
    def: &storage::TableDef,
    relations: &[cql::statement::ast::Relation],
) -> Vec<cql::statement::ast::Relation> {
    use cql::statement::ast::{InValues, Relation, Term};
    let mut out = Vec::with_capacity(relations.len());
    for relation in relations {
        match relation {
            Relation::Multi {
                columns,
                op: Operator::Eq,
                value: Term::Tuple(items),
            } if items.len() == columns.len() && all_clustering(def, columns) => {
                out.extend(restrictions::column_equalities(columns, items));
            }
            Relation::MultiIn {
                columns,
                values: InValues::List(tuples),
            } if columns.len() == 1 && all_clustering(def, columns) => {
                let values: Option<Vec<Term>> = tuples
                    .iter()
                    .map(|tuple| match tuple {
                        Term::Tuple(items) if items.len() == 1 => items.first().cloned(),
                        _ => None,
                    })
                    .collect();
                match values {
                    Some(values) => out.push(Relation::In {
                        column: columns[0].clone(),
                        values: InValues::List(values),
                        negated: false,
                    }),
                    None => out.push(relation.clone()),
                }
            }
            other => out.push(other.clone()),
        }
    }
    out
}

/// Whether every column named is a clustering column of `def`.
pub(super) fn all_clustering(
    def: &storage::TableDef,
    columns: &[cql::statement::ast::Ident],
) -> bool {
    columns.iter().all(|column| {
        super::column_index(def, column).is_ok_and(|i| def.clustering_key.contains(&i))
    })
}

/// Optional `=`/`IN` sets, one per key column.
type KeySets = Vec<Option<ValueSet>>;

/// Key restrictions of UPDATE/DELETE: `=`/`IN` on key columns only.
pub(super) fn where_keys(
    table: &TableRef,
    relations: &[cql::statement::ast::Relation],
    statement: &'static str,
) -> CqlResult<(KeySets, KeySets)> {
    let def = &table.def;
    let relations = split_tuple_equalities(def, relations);
    let (by_column, rest) = restrictions::collect(def, &relations)?;
    if let Some(relation) = rest.first() {
        if matches!(relation, cql::statement::ast::Relation::Token { .. }) {
            return Err(ModifyError::TokenInWhere { statement }.into());
        }
        return Err(RestrictionError::UnsupportedRestriction {
            relation: relation.to_string(),
        }
        .into());
    }
    check_non_key_columns(def, &by_column)?;
    check_partition_relations(def, &by_column, statement)?;
    for &i in &def.clustering_key {
        let r = &by_column[i];
        if r.is_slice() || !r.other.is_empty() {
            return Err(ModifyError::ClusteringSlice { statement }.into());
        }
    }
    let pick = |indexes: &[usize]| indexes.iter().map(|&i| by_column[i].eq.clone()).collect();
    Ok((pick(&def.partition_key), pick(&def.clustering_key)))
}

/// Plans an UPDATE.
pub(crate) fn plan_update(
    schema: &Schema,
    stmt: &Update,
    session_keyspace: Option<&str>,
) -> CqlResult<ModifyPlan> {
    let (table, cas) = target_table(
        schema,
        &stmt.table,
        session_keyspace,
        &stmt.condition,
        &stmt.using,
    )?;
    let def = &table.def;
    // Cassandra prepares the SET operations before the WHERE clause.
    let operations = stmt
        .assignments
        .iter()
        .map(|a| operations::plan_assignment(def, a))
        .collect::<CqlResult<Vec<_>>>()?;
    selection_only::refuse_to_json(&operations, &stmt.where_clause)?;
    check_constant_collection_operands(def, &operations)?;
    let (relations, clustering_tuples) = take_clustering_tuples(def, &stmt.where_clause);
    let (pk, mut ck) = where_keys(&table, &relations, "UPDATE")?;
    if let Some(tuples) = &clustering_tuples {
        for slot in &mut ck[tuples.start..tuples.start + tuples.width] {
            *slot = Some(ValueSet::In(
                cql::statement::ast::InValues::List(Vec::new()),
            ));
        }
    }
    let partition_key = require_partition_key(def, pk)?;
    let statics = conditions::static_only(def, static_only(def, &operations), &operations, &cas);
    let restricted = ck.iter().any(Option::is_some);
    conditions::check_static_only_restrictions("UPDATE", statics, restricted)?;
    let clustering_key = clustering_or_static(def, ck, statics)?;
    Ok(ModifyPlan {
        table: table.clone(),
        kind: ModifyKind::Update,
        partition_key,
        clustering_key,
        operations,
        using: stmt.using.clone(),
        range: None,
        json: None,
        conditions: cas,
        clustering_tuples,
    })
}

/// Takes out of `relations` the first multi-column `IN` on two or more consecutive clustering
/// columns, which no per-column value set can express.
pub(super) fn take_clustering_tuples(
    def: &storage::TableDef,
    relations: &[Relation],
) -> (Vec<Relation>, Option<ClusteringTuples>) {
    let mut tuples = None;
    let mut rest = Vec::with_capacity(relations.len());
    for relation in relations {
        if let (None, Relation::MultiIn { columns, values }) = (&tuples, relation) {
            let consecutive = restrictions::consecutive_clustering_positions(def, columns)
                .filter(|p| p.len() > 1);
            if let Some(p) = consecutive {
                tuples = Some(ClusteringTuples {
                    start: p[0],
                    width: p.len(),
                    values: values.clone(),
                });
                continue;
            }
        }
        rest.push(relation.clone());
    }
    (rest, tuples)
}

/// Modifications take only `=`/`IN` on partition key columns.
pub(super) fn check_partition_relations(
    def: &storage::TableDef,
    by_column: &[ColumnRestriction],
    statement: &'static str,
) -> CqlResult<()> {
    for &i in &def.partition_key {
        let r = &by_column[i];
        if r.is_slice() || !r.other.is_empty() {
            return Err(ModifyError::PartitionKeyNotEqOrIn { statement }.into());
        }
    }
    Ok(())
}

/// Modifications cannot restrict regular or static columns.
pub(super) fn check_non_key_columns(
    def: &storage::TableDef,
    by_column: &[ColumnRestriction],
) -> CqlResult<()> {
    let non_key: Vec<String> = def
        .columns
        .iter()
        .zip(by_column)
        .filter(|(c, r)| {
            matches!(c.kind, ColumnKind::Regular | ColumnKind::Static) && r.is_restricted()
        })
        .map(|(c, _)| c.name.clone())
        .collect();
    if !non_key.is_empty() {
        return Err(ModifyError::NonKeyColumnsInWhere { columns: non_key }.into());
    }
    Ok(())
}
