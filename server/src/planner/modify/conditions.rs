//! Lightweight-transaction conditions (`IF NOT EXISTS`, `IF EXISTS`, `IF c op v AND ...`):
//! each column condition resolved against the table and checked with Cassandra's messages
//! (`ColumnCondition.Raw.prepare`, `ModificationStatement.Parsed.prepareColumnConditions`).

use cql::statement::ast::{Condition, Operator, Term, UsingClause};
use cql::types::ColumnType;
use storage::{ColumnKind, TableDef};

use crate::error::{CqlResult, ModifyError, SyntaxError};
use crate::planner::column_index;

/// The conditions of a conditional modification.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CasConditions {
    /// `IF NOT EXISTS`: the addressed row must not exist.
    NotExists,
    /// `IF EXISTS`: the addressed row must exist.
    Exists,
    /// `IF c op v AND ...`: every condition must hold.
    Columns(Vec<ColumnCondition>),
}

/// What part of the column a condition reads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Access {
    /// The whole value.
    Whole,
    /// `l[i]` or `m[k]`: the element's index or key.
    Element(Term),
    /// `u.f`: the field's position.
    Field(usize),
}

/// The right-hand side of a condition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ConditionValues {
    /// One value (`=`, `<`, `CONTAINS`, ...).
    Single(Term),
    /// `IN (a, b, ...)`.
    List(Vec<Term>),
    /// `IN ?`: one marker bound to a list of candidates.
    Marker(Term),
}

/// One planned column condition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ColumnCondition {
    /// Index of the column in the table definition.
    pub column: usize,
    pub access: Access,
    pub op: Operator,
    pub values: ConditionValues,
}

impl ColumnCondition {
    /// The type the condition's values take (the element, field or column type; for
    /// `CONTAINS`/`CONTAINS KEY` the element or key type).
    pub(crate) fn value_type(&self, def: &TableDef) -> ColumnType {
        let ty = &def.columns[self.column].ty;
        let accessed = match (&self.access, ty) {
            (Access::Element(_), ColumnType::List { element, .. }) => element.as_ref().clone(),
            (Access::Element(_), ColumnType::Map { value, .. }) => value.as_ref().clone(),
            (Access::Field(i), ColumnType::Udt { fields, .. }) => fields
                .get(*i)
                .map(|(_, t)| t.clone())
                .unwrap_or(ColumnType::Blob),
            _ => ty.clone(),
        };
        match (self.op, &accessed) {
            (Operator::ContainsKey, ColumnType::Map { key, .. }) => key.as_ref().clone(),
            (
                Operator::Contains,
                ColumnType::List { element, .. } | ColumnType::Set { element, .. },
            ) => element.as_ref().clone(),
            (Operator::Contains, ColumnType::Map { value, .. }) => value.as_ref().clone(),
            _ => accessed,
        }
    }
}

impl CasConditions {
    /// Whether any condition reads a static column.
    pub(crate) fn on_static(&self, def: &TableDef) -> bool {
        self.conditions()
            .iter()
            .any(|c| def.columns[c.column].kind == ColumnKind::Static)
    }

    /// Whether any condition reads a regular column.
    pub(crate) fn on_regular(&self, def: &TableDef) -> bool {
        self.conditions()
            .iter()
            .any(|c| def.columns[c.column].kind == ColumnKind::Regular)
    }

    /// The column conditions (none for `IF [NOT] EXISTS`).
    pub(crate) fn conditions(&self) -> &[ColumnCondition] {
        match self {
            CasConditions::Columns(c) => c,
            CasConditions::Exists | CasConditions::NotExists => &[],
        }
    }

    /// The columns a not-applied result shows: `None` for every column (`IF [NOT] EXISTS`),
    /// else the conditions' columns, regular ones first, each once, in `IF` order.
    pub(crate) fn result_columns(&self, def: &TableDef) -> Option<Vec<usize>> {
        let CasConditions::Columns(conditions) = self else {
            return None;
        };
        let mut out: Vec<usize> = Vec::new();
        for kind in [ColumnKind::Regular, ColumnKind::Static] {
            for c in conditions {
                if def.columns[c.column].kind == kind && !out.contains(&c.column) {
                    out.push(c.column);
                }
            }
        }
        Some(out)
    }
}

/// Plans the `IF` clause of an UPDATE or DELETE.
pub(crate) fn plan(
    def: &TableDef,
    condition: &Option<Condition>,
) -> CqlResult<Option<CasConditions>> {
    match condition {
        None => Ok(None),
        Some(Condition::Exists) => Ok(Some(CasConditions::Exists)),
        Some(Condition::Columns(raw)) => raw
            .iter()
            .map(|c| plan_one(def, c))
            .collect::<CqlResult<Vec<_>>>()
            .map(|c| Some(CasConditions::Columns(c))),
    }
}

fn plan_one(
    def: &TableDef,
    raw: &cql::statement::ast::ColumnCondition,
) -> CqlResult<ColumnCondition> {
    let column = column_index(def, &raw.column)?;
    let col = &def.columns[column];
    if col.ty.is_counter() {
        return Err(ModifyError::ConditionOnCounter.into());
    }
    let access = match (&raw.element, &raw.field) {
        (Some(element), _) => {
            match &col.ty {
                ColumnType::List { .. } | ColumnType::Map { .. } => {}
                ColumnType::Set { .. } => {
                    return Err(ModifyError::ElementAccessOnSet {
                        column: col.name.clone(),
                    }
                    .into())
                }
                _ => {
                    return Err(ModifyError::ElementAccessOnNonCollection {
                        column: col.name.clone(),
                    }
                    .into())
                }
            }
            Access::Element(element.clone())
        }
        (None, Some(field)) => {
            let ColumnType::Udt { fields, .. } = &col.ty else {
                return Err(ModifyError::FieldOfNonUdt {
                    column: col.name.clone(),
                    ty: col.ty.clone(),
                }
                .into());
            };
            let position = fields
                .iter()
                .position(|(name, _)| *name == field.name)
                .ok_or_else(|| ModifyError::UnknownConditionField {
                    field: field.name.clone(),
                    column: col.name.clone(),
                })?;
            Access::Field(position)
        }
        (None, None) => Access::Whole,
    };
    let op = raw.op;
    let planned = ColumnCondition {
        column,
        access,
        op,
        values: match (&raw.value, op) {
            (Term::Tuple(items), Operator::In) => ConditionValues::List(items.clone()),
            (marker @ Term::Bind(_), Operator::In) => ConditionValues::Marker(marker.clone()),
            (value, _) => ConditionValues::Single(value.clone()),
        },
    };
    check_operator(def, &planned)?;
    if matches!(col.kind, ColumnKind::PartitionKey | ColumnKind::Clustering) {
        return Err(ModifyError::ConditionOnPrimaryKey {
            column: col.name.clone(),
        }
        .into());
    }
    Ok(planned)
}

/// Cassandra's operator checks: slices on durations, `CONTAINS` on collections only,
/// `CONTAINS KEY` on maps only.
fn check_operator(def: &TableDef, condition: &ColumnCondition) -> CqlResult<()> {
    let col = &def.columns[condition.column];
    let accessed = match condition.op {
        Operator::Contains | Operator::ContainsKey => col.ty.clone(),
        _ => condition.value_type(def),
    };
    let op = condition.op;
    match op {
        Operator::Eq
        | Operator::Neq
        | Operator::In
        | Operator::Lt
        | Operator::Lte
        | Operator::Gt
        | Operator::Gte
        | Operator::Contains
        | Operator::ContainsKey => {}
        Operator::NotIn | Operator::Like | Operator::IsNot => {
            return Err(SyntaxError::ConditionOperator { operator: op }.into())
        }
    }
    let slice = matches!(
        op,
        Operator::Lt | Operator::Lte | Operator::Gt | Operator::Gte
    );
    if slice && accessed.references_duration() {
        let what = match &accessed {
            ColumnType::List { .. } | ColumnType::Set { .. } | ColumnType::Map { .. } => {
                Some("collections")
            }
            ColumnType::Tuple(_) => Some("tuples"),
            ColumnType::Udt { .. } => Some("UDTs"),
            _ => None,
        };
        return Err(match what {
            Some(container) => ModifyError::SliceOnDurationsIn { container },
            None => ModifyError::SliceOnDuration { op },
        }
        .into());
    }
    let receiver = match &condition.access {
        Access::Field(i) => match &col.ty {
            ColumnType::Udt { fields, .. } => fields
                .get(*i)
                .map(|(f, _)| format!("{}.{f}", col.name))
                .unwrap_or_else(|| col.name.clone()),
            _ => col.name.clone(),
        },
        Access::Element(_) => format!("value({})", col.name),
        Access::Whole => col.name.clone(),
    };
    let target = match &condition.access {
        Access::Whole => col.ty.clone(),
        _ => condition_target_type(def, condition),
    };
    if op == Operator::ContainsKey && !matches!(target, ColumnType::Map { .. }) {
        return Err(ModifyError::ContainsKeyOnNonMap { receiver }.into());
    }
    if op == Operator::Contains && !target.is_collection() {
        return Err(ModifyError::ContainsOnNonCollection { receiver }.into());
    }
    Ok(())
}

/// The type of the element or field a condition reads (before `CONTAINS` narrowing).
fn condition_target_type(def: &TableDef, condition: &ColumnCondition) -> ColumnType {
    let plain = ColumnCondition {
        op: Operator::Eq,
        ..condition.clone()
    };
    plain.value_type(def)
}

/// Plans the `IF` clause of an UPDATE/DELETE and checks it against the statement
/// (`checkNull(attrs.timestamp)` comes before the conditions themselves, as in Cassandra).
pub(crate) fn plan_for(
    def: &TableDef,
    condition: &Option<Condition>,
    using: &UsingClause,
) -> CqlResult<Option<CasConditions>> {
    if matches!(condition, Some(Condition::Columns(_))) && using.timestamp.is_some() {
        return Err(ModifyError::ConditionalTimestamp.into());
    }
    let planned = plan(def, condition)?;
    check_statement(def, planned.as_ref(), using)?;
    Ok(planned)
}

/// The checks of a conditional statement as a whole: no counter tables, no `USING TIMESTAMP`.
pub(crate) fn check_statement(
    def: &TableDef,
    conditions: Option<&CasConditions>,
    using: &UsingClause,
) -> CqlResult<()> {
    if conditions.is_none() {
        return Ok(());
    }
    if def.columns.iter().any(|c| c.ty.is_counter()) {
        return Err(ModifyError::ConditionalCounterTable.into());
    }
    if using.timestamp.is_some() {
        return Err(ModifyError::ConditionalTimestamp.into());
    }
    Ok(())
}

/// Cassandra's `appliesOnlyToStaticColumns(operations, conditions)`: the statement writes
/// the static row alone (no clustering key needed) when neither its operations nor its
/// conditions touch a regular column, and one of them touches a static column.
/// `operations_static_only` is the answer for the operations alone.
pub(crate) fn static_only(
    def: &TableDef,
    operations_static_only: bool,
    operations: &[crate::planner::modify::operations::ColumnOperation],
    conditions: &Option<CasConditions>,
) -> bool {
    let Some(conditions) = conditions else {
        return operations_static_only;
    };
    let regular_ops = operations
        .iter()
        .any(|o| def.columns[o.column].kind == ColumnKind::Regular);
    !regular_ops
        && !conditions.on_regular(def)
        && (operations_static_only || conditions.on_static(def))
}

/// `DeleteStatement`'s rule for a conditional DELETE that does not name one full row.
pub(crate) fn check_range_delete(
    def: &TableDef,
    operations: &[crate::planner::modify::operations::ColumnOperation],
    conditions: Option<&CasConditions>,
) -> CqlResult<()> {
    let Some(conditions) = conditions else {
        return Ok(());
    };
    // A DELETE without columns deletes whole rows, regular columns included
    // (`Operations.appliesToRegularColumns`).
    if operations.is_empty()
        || operations
            .iter()
            .any(|o| def.columns[o.column].kind == ColumnKind::Regular)
    {
        return Err(ModifyError::DeleteNonStaticWithoutFullKey.into());
    }
    if conditions.on_regular(def) {
        return Err(ModifyError::ConditionOnNonStaticWithoutFullKey.into());
    }
    Ok(())
}

/// `StatementRestrictions`: an UPDATE or DELETE that modifies only static columns (given its
/// conditions) takes no clustering restriction.
pub(crate) fn check_static_only_restrictions(
    statement: &'static str,
    static_only: bool,
    restricts_clustering: bool,
) -> CqlResult<()> {
    if static_only && restricts_clustering {
        return Err(ModifyError::ClusteringRestrictedForStaticWrite { statement }.into());
    }
    Ok(())
}
