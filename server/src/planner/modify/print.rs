//! `Display` for [`ModifyPlan`]: one line saying what the executor does, for tests and debug
//! logs, in the style of `SelectPlan`'s. The operations, conditions and key parts print
//! through private helpers here, so the types they belong to keep no printing of their own.

use std::fmt;

use cql::statement::ast::{Term, UsingClause};
use cql::types::ColumnType;
use storage::TableDef;

use crate::planner::common::clustering::{ClusteringPlan, PrefixPart, SliceBound};
use crate::planner::common::restrictions::ValueSet;
use crate::planner::modify::conditions::{Access, CasConditions, ColumnCondition, ConditionValues};
use crate::planner::modify::operations::{ColumnOperation, Operation};
use crate::planner::modify::{ModifyKind, ModifyPlan};
use crate::planner::select::print::write_bounds;

/// A one-line description, for tests and debug logs:
///
/// `{kind} {ks}.{table} partitions[{pk} {set}, ..]`, then in this order, each when present:
/// - ` clustering {c} {set}` per clustering column written, or ` clustering ({c}, {d}) IN
///   (..)` for the columns of an UPDATE's multi-column `IN`; no clustering at all for a
///   static-row write;
/// - a range delete's clustering range as `SelectPlan` prints it: ` clustering {c} {set}` per
///   prefix part, then ` {c} > {lower} {c} <= {upper}` (`({c}, {d})` for a multi-column
///   bound) and ` (tuple-filtered)` when the slice is not one byte range; a `Delete range`
///   without any deletes whole partitions;
/// - the column operations, comma-separated, after ` set ` for INSERT/UPDATE (`v = 1`,
///   `l = l + [1]`, `l = l - [1]`, `l = [1] + l`, `m[k] = v`, `u.f = v`) and after a space
///   for DELETE (`DELETE v`, `DELETE m[k]`, `DELETE u.f`);
/// - ` json {source}` and ` default unset` for `INSERT JSON`;
/// - ` ttl {t}`, ` timestamp {t}`, ` timeout {t}` from USING;
/// - ` if not exists`, ` if exists`, or ` if {condition} AND ..`.
///
/// `{kind}` is `Insert`, `Update`, `Delete rows`, `Delete columns` or `Delete range`; names
/// print unquoted and terms as CQL (`?` for any marker, INSERT JSON's synthetic ones too).
impl fmt::Display for ModifyPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let def = &self.table.def;
        write!(f, "{} {}.{}", kind_name(&self.kind), def.keyspace, def.name)?;
        write_partitions(f, def, &self.partition_key)?;
        write_clustering_key(f, def, self)?;
        if let Some(range) = &self.range {
            write_range(f, def, range)?;
        }
        write_operations(f, def, &self.kind, &self.operations)?;
        if let Some(json) = &self.json {
            write!(f, " json {}", json.source)?;
            if json.default_unset {
                f.write_str(" default unset")?;
            }
        }
        write_using(f, &self.using)?;
        match &self.conditions {
            Some(conditions) => write_conditions(f, def, conditions),
            None => Ok(()),
        }
    }
}

fn kind_name(kind: &ModifyKind) -> &'static str {
    match kind {
        ModifyKind::Insert => "Insert",
        ModifyKind::Update => "Update",
        ModifyKind::DeleteRows => "Delete rows",
        ModifyKind::DeleteColumns => "Delete columns",
        ModifyKind::DeleteRange => "Delete range",
    }
}

/// The name of the column at `index` of the table, or `#index` for none.
fn column_name(def: &TableDef, index: usize) -> String {
    def.columns
        .get(index)
        .map_or_else(|| format!("#{index}"), |c| c.name.clone())
}

/// `c`, or `(c, d)` for `width` clustering columns from position `start` when `tuple`.
fn clustering_names(def: &TableDef, start: usize, width: usize, tuple: bool) -> String {
    let names: Vec<String> = def
        .clustering_key
        .iter()
        .skip(start)
        .take(width)
        .map(|&i| column_name(def, i))
        .collect();
    if tuple {
        format!("({})", names.join(", "))
    } else {
        names.join("")
    }
}

/// ` partitions[k = 1, b IN (1, 2)]`, as `SelectPlan` prints its partition keys.
fn write_partitions(f: &mut fmt::Formatter<'_>, def: &TableDef, sets: &[ValueSet]) -> fmt::Result {
    let keys: Vec<String> = sets
        .iter()
        .zip(&def.partition_key)
        .map(|(set, &i)| format!("{} {set}", column_name(def, i)))
        .collect();
    f.write_str(" partitions[")?;
    cql::statement::comma(f, &keys)?;
    f.write_str("]")
}

/// ` clustering c = 1` per clustering column written; the columns of a multi-column `IN`
/// print once, as that relation, instead of their placeholder entries.
fn write_clustering_key(
    f: &mut fmt::Formatter<'_>,
    def: &TableDef,
    plan: &ModifyPlan,
) -> fmt::Result {
    let mut position = 0;
    while let Some(set) = plan.clustering_key.get(position) {
        match &plan.clustering_tuples {
            Some(tuples) if tuples.start == position => {
                let names = clustering_names(def, position, tuples.width, true);
                let set = ValueSet::In(tuples.values.clone());
                write!(f, " clustering {names} {set}")?;
                position += tuples.width.max(1);
            }
            _ => {
                let name = clustering_names(def, position, 1, false);
                write!(f, " clustering {name} {set}")?;
                position += 1;
            }
        }
    }
    Ok(())
}

/// The clustering range of a range delete: its prefix parts, then its slice.
fn write_range(f: &mut fmt::Formatter<'_>, def: &TableDef, range: &ClusteringPlan) -> fmt::Result {
    let mut position = 0;
    for part in &range.prefix {
        let (width, tuple) = match part {
            PrefixPart::Single(_) => (1, false),
            PrefixPart::Multi { width, .. } => (*width, true),
        };
        let names = clustering_names(def, position, width, tuple);
        write!(f, " clustering {names} {part}")?;
        position += width;
    }
    let Some(slice) = &range.slice else {
        return Ok(());
    };
    let subject = |bound: &SliceBound| {
        let names = clustering_names(def, slice.start, bound.width.max(1), bound.multi);
        format!(" {names}")
    };
    if let Some(lower) = &slice.lower {
        write_bounds(
            f,
            &subject(lower),
            Some((&lower.term, lower.inclusive)),
            None,
        )?;
    }
    if let Some(upper) = &slice.upper {
        write_bounds(
            f,
            &subject(upper),
            None,
            Some((&upper.term, upper.inclusive)),
        )?;
    }
    if !slice.exact {
        f.write_str(" (tuple-filtered)")?;
    }
    Ok(())
}

/// The operations, after ` set ` for a write and a space for a delete.
fn write_operations(
    f: &mut fmt::Formatter<'_>,
    def: &TableDef,
    kind: &ModifyKind,
    operations: &[ColumnOperation],
) -> fmt::Result {
    if operations.is_empty() {
        return Ok(());
    }
    let written: Vec<String> = operations
        .iter()
        .map(|operation| operation_text(def, operation))
        .collect();
    f.write_str(match kind {
        ModifyKind::Insert | ModifyKind::Update => " set ",
        ModifyKind::DeleteRows | ModifyKind::DeleteColumns | ModifyKind::DeleteRange => " ",
    })?;
    cql::statement::comma(f, &written)
}

/// One operation as CQL: `v = 1`, `l = l + [1]`, `m[k] = v`, `DELETE u.f`, ...
fn operation_text(def: &TableDef, operation: &ColumnOperation) -> String {
    let c = column_name(def, operation.column);
    let field = |i: &usize| field_name(def, operation.column, *i);
    match &operation.op {
        Operation::Set(value) => format!("{c} = {value}"),
        Operation::Add(value) => format!("{c} = {c} + {value}"),
        Operation::Remove(value) => format!("{c} = {c} - {value}"),
        Operation::Prepend(value) => format!("{c} = {value} + {c}"),
        Operation::SetElement { key, value } => format!("{c}[{key}] = {value}"),
        Operation::SetField { field: i, value } => format!("{c}.{} = {value}", field(i)),
        Operation::Delete => format!("DELETE {c}"),
        Operation::DeleteElement(key) => format!("DELETE {c}[{key}]"),
        Operation::DeleteField(i) => format!("DELETE {c}.{}", field(i)),
    }
}

/// The name of field `field` of the UDT column at `column`, or `#field` for none.
fn field_name(def: &TableDef, column: usize, field: usize) -> String {
    match def.columns.get(column).map(|c| &c.ty) {
        Some(ColumnType::Udt { fields, .. }) => fields
            .get(field)
            .map_or_else(|| format!("#{field}"), |(name, _)| name.clone()),
        _ => format!("#{field}"),
    }
}

/// ` ttl 10 timestamp 5 timeout 1s`, each when given.
fn write_using(f: &mut fmt::Formatter<'_>, using: &UsingClause) -> fmt::Result {
    let parts: [(&str, &Option<Term>); 3] = [
        ("ttl", &using.ttl),
        ("timestamp", &using.timestamp),
        ("timeout", &using.timeout),
    ];
    for (name, value) in parts {
        if let Some(value) = value {
            write!(f, " {name} {value}")?;
        }
    }
    Ok(())
}

/// ` if not exists`, ` if exists` or ` if v = 1 AND l[0] IN (1, 2)`.
fn write_conditions(
    f: &mut fmt::Formatter<'_>,
    def: &TableDef,
    conditions: &CasConditions,
) -> fmt::Result {
    match conditions {
        CasConditions::NotExists => f.write_str(" if not exists"),
        CasConditions::Exists => f.write_str(" if exists"),
        CasConditions::Columns(columns) => {
            let texts: Vec<String> = columns.iter().map(|c| condition_text(def, c)).collect();
            write!(f, " if {}", texts.join(" AND "))
        }
    }
}

/// One column condition as CQL: `v = 1`, `m[k] > 2`, `u.f IN (1, 2)`, `l CONTAINS 3`.
fn condition_text(def: &TableDef, condition: &ColumnCondition) -> String {
    let mut text = column_name(def, condition.column);
    match &condition.access {
        Access::Whole => {}
        Access::Element(key) => text.push_str(&format!("[{key}]")),
        Access::Field(i) => text.push_str(&format!(".{}", field_name(def, condition.column, *i))),
    }
    let values = match &condition.values {
        ConditionValues::Single(term) | ConditionValues::Marker(term) => term.to_string(),
        ConditionValues::List(terms) => format!("{}", Term::Tuple(terms.clone())),
    };
    format!("{text} {} {values}", condition.op)
}
