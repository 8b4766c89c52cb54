//! Which secondary index a SELECT reads, and whether the rest of its WHERE clause still
//! needs ALLOW FILTERING (Cassandra's `StatementRestrictions`: an index serves one
//! restriction; any other restriction evaluated row by row means filtering).

use cql::statement::ast::{Operator, Term};
use storage::{ColumnKind, IndexDef, IndexTargetKind, TableDef};
use uuid::Uuid;

use crate::planner::common::restrictions::{Bound, ColumnRestriction, ValueSet};

/// The index a SELECT reads and the value it looks up.
#[derive(Debug, Clone)]
pub(crate) struct IndexUse {
    /// The index name (printed in the plan).
    pub name: String,
    /// The index id (names its entry table).
    pub id: Uuid,
    /// The indexed column, by position in `TableDef::columns`.
    pub column: usize,
    /// What the index covers.
    pub target: IndexTargetKind,
    /// The looked-up value: the column value, the element, the map key (`CONTAINS KEY`), or
    /// the map key for `m[k] = v`.
    pub value: Term,
    /// For `m[k] = v` on an `entries()` index: `v`.
    pub entry_value: Option<Term>,
    /// Whether the index has entries to read; an index on a key column has none, and its
    /// queries read the base table and filter.
    pub has_entries: bool,
    /// For a range a storage-attached index answers: its (lower, upper) bounds; `value`
    /// is then the first bound's term, for display.
    pub range: Option<(Option<Bound>, Option<Bound>)>,
    /// How the index keys its values.
    pub keying: storage::index::TermKeying,
}

/// The first restriction (in column order) an index can serve, preferring columns outside
/// the partition key (a restricted partition-key column usually selects partitions itself).
pub(crate) fn choose(def: &TableDef, by_column: &[ColumnRestriction]) -> Option<IndexUse> {
    let is_partition = |i: usize| def.columns[i].kind == ColumnKind::PartitionKey;
    let order = (0..by_column.len())
        .filter(|&i| !is_partition(i))
        .chain((0..by_column.len()).filter(|&i| is_partition(i)));
    for column in order {
        let restriction = &by_column[column];
        if !restriction.is_restricted() {
            continue;
        }
        for index in def.indexes.iter() {
            let Some(col) = def.column_by_id(index.column) else {
                continue;
            };
            if col.name != def.columns[column].name {
                continue;
            }
            if let Some(found) = serve(def, index, column, restriction) {
                let has_entries = found.has_entries
                    && matches!(col.kind, ColumnKind::Regular | ColumnKind::Static);
                return Some(IndexUse {
                    has_entries,
                    keying: storage::index::term_keying(def, index),
                    ..found
                });
            }
        }
    }
    None
}

/// The lookup `index` can do for `restriction`, if any.
fn serve(
    def: &TableDef,
    index: &IndexDef,
    column: usize,
    restriction: &ColumnRestriction,
) -> Option<IndexUse> {
    let found = |value: &Term, entry_value: Option<&Term>| IndexUse {
        name: index.name.clone(),
        id: index.id,
        column,
        target: index.target,
        value: value.clone(),
        entry_value: entry_value.cloned(),
        has_entries: true,
        range: None,
        keying: storage::index::TermKeying::Bytes,
    };
    match index.target {
        // `IN` is not an index operator (`CassandraIndex.supportsExpression`, and SAI's
        // `IndexTermType.supports`): it filters.
        IndexTargetKind::Simple | IndexTargetKind::Full => match &restriction.eq {
            Some(ValueSet::Eq(term)) => Some(found(term, None)),
            Some(ValueSet::In(_)) => None,
            None if serves_ranges(def, index, column) => {
                let first = restriction.lower.as_ref().or(restriction.upper.as_ref())?;
                Some(IndexUse {
                    range: Some((restriction.lower.clone(), restriction.upper.clone())),
                    ..found(&first.term, None)
                })
            }
            None => None,
        },
        IndexTargetKind::Values => restriction
            .other
            .iter()
            .find(|(op, _)| *op == Operator::Contains)
            .map(|(_, term)| found(term, None)),
        IndexTargetKind::Keys => restriction
            .other
            .iter()
            .find(|(op, _)| *op == Operator::ContainsKey)
            .map(|(_, term)| found(term, None)),
        IndexTargetKind::Entries => restriction
            .elements
            .first()
            .map(|(key, value)| found(key, Some(value))),
    }
}

/// Whether `index` answers ranges on column `column`: a storage-attached index on a
/// non-literal type (numbers, dates and times, `timeuuid`, `inet`), as Cassandra 5.0's
/// `IndexTermType.supports` allows `RANGE`.
fn serves_ranges(def: &TableDef, index: &IndexDef, column: usize) -> bool {
    index.custom_class.is_some()
        && index.target == IndexTargetKind::Simple
        && storage::index::takes_ranges(&def.columns[column].ty)
}

/// What the WHERE clause filters row by row, for the ALLOW FILTERING decision.
#[derive(Debug, Default)]
pub(crate) struct FilteringNeeds {
    /// Partition-key columns restricted without selecting partitions.
    pub partition_columns: usize,
    /// Clustering restrictions that need filtering even within a partition.
    pub clustering_intrinsic: bool,
    /// Clustering restrictions that are filtering only because no partition is given.
    pub clustering_without_partition: bool,
    /// How many clustering columns are checked row by row (an index on one of them serves
    /// it; each other one is filtering).
    pub clustering_columns: usize,
    /// Regular and static columns restricted.
    pub regular_columns: usize,
    /// Restrictions beyond the first on the same column (`CONTAINS` twice, ...).
    pub extra_on_one_column: bool,
    /// Other restricted columns that storage-attached indexes serve alongside the chosen
    /// one (SAI intersects indexes instead of filtering).
    pub also_indexed: usize,
}

impl FilteringNeeds {
    /// Whether the query needs ALLOW FILTERING, reading `index` if any.
    pub(crate) fn needs_filtering(&self, index: Option<&IndexUse>) -> bool {
        match index {
            None => {
                self.partition_columns > 0
                    || self.clustering_intrinsic
                    || self.clustering_without_partition
                    || self.regular_columns > 0
            }
            Some(_) => {
                // Clustering restrictions without a partition, or out of prefix order, are
                // checked row by row on the index's results: filtering.
                let evaluated = self.partition_columns
                    + self.regular_columns.saturating_sub(self.also_indexed)
                    + self.clustering_columns;
                evaluated > 1 || self.extra_on_one_column
            }
        }
    }
}

/// How many restricted columns besides the chosen index's are served by storage-attached
/// indexes too, when the chosen index is one (0 otherwise).
pub(crate) fn also_indexed(
    def: &TableDef,
    by_column: &[ColumnRestriction],
    chosen: &IndexUse,
) -> usize {
    let is_sai = |index: &IndexDef| index.custom_class.is_some();
    if !def.indexes.iter().any(|i| i.id == chosen.id && is_sai(i)) {
        return 0;
    }
    by_column
        .iter()
        .enumerate()
        .filter(|(column, r)| *column != chosen.column && r.is_restricted())
        .filter(|(column, r)| {
            def.indexes.iter().any(|index| {
                is_sai(index)
                    && def
                        .column_by_id(index.column)
                        .is_some_and(|c| c.name == def.columns[*column].name)
                    && serve(def, index, *column, r).is_some()
            })
        })
        .count()
}

/// Whether `r` holds more than one relation (an index serves one; a slice's two bounds
/// are one range, which a storage-attached index serves whole).
pub(crate) fn several_relations(r: &ColumnRestriction) -> bool {
    let count = usize::from(r.eq.is_some())
        + usize::from(r.lower.is_some() || r.upper.is_some())
        + r.other.len()
        + r.elements.len();
    count > 1
}
