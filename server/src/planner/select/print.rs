//! `Display` for [`SelectPlan`]: one line saying what the executor reads, for tests and debug
//! logs (`ModifyPlan` prints in the same style, through [`write_bounds`]).

use std::fmt;

use cql::statement::ast::Term;
use storage::TableDef;

use crate::planner::common::clustering::PrefixPart;
use crate::planner::common::token::TokenRange;
use crate::planner::select::{PartitionSelection, SelectPlan};

/// A one-line description, for tests and debug logs:
///
/// `Select {ks}.{table}`, then ` scan`, ` tokens > {t} <= {t}` or ` partitions[{pk} {set}, ..]`,
/// then in this order, each when present:
/// - ` token filter > {t} <= {t}` for a token range narrowing given partitions;
/// - ` clustering {c} {set}` per prefix part (` clustering ({c}, {d}) IN (..)` for a
///   multi-column one), then the slice as ` {c} > {lower} {c} <= {upper}` and
///   ` (tuple-filtered)` when it is not one byte range;
/// - ` index[{name}]`, ` filter[{column}, ..]`, ` clustering-filter`;
/// - ` reversed`, ` sort[{column} ASC|DESC, ..]`;
/// - ` distinct`, the grouping (` aggregate`, ` group by partition+{n}`);
/// - ` per partition limit {t}`, ` limit {t}`.
impl fmt::Display for SelectPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let def = &self.table.def;
        write!(f, "Select {}.{}", def.keyspace, def.name)?;
        self.write_partitions(f, def)?;
        self.write_clustering(f, def)?;
        self.write_filters(f, def)?;
        self.write_order(f, def)?;
        if self.distinct {
            f.write_str(" distinct")?;
        }
        write!(f, "{}", self.grouping)?;
        if let Some(limit) = &self.per_partition_limit {
            write!(f, " per partition limit {limit}")?;
        }
        if let Some(limit) = &self.limit {
            write!(f, " limit {limit}")?;
        }
        Ok(())
    }
}

impl SelectPlan {
    /// The partitions read (every one, a token range or given keys) and the token range
    /// that narrows given keys.
    fn write_partitions(&self, f: &mut fmt::Formatter<'_>, def: &TableDef) -> fmt::Result {
        match &self.partitions {
            PartitionSelection::All => f.write_str(" scan")?,
            PartitionSelection::Tokens(range) => {
                f.write_str(" tokens")?;
                write_token_range(f, range)?;
            }
            PartitionSelection::Keys(sets) => {
                let keys: Vec<String> = sets
                    .iter()
                    .zip(&def.partition_key)
                    .map(|(set, &i)| format!("{} {set}", def.columns[i].name))
                    .collect();
                f.write_str(" partitions[")?;
                cql::statement::comma(f, &keys)?;
                f.write_str("]")?;
            }
        }
        if let Some(range) = &self.token_filter {
            f.write_str(" token filter")?;
            write_token_range(f, range)?;
        }
        Ok(())
    }

    /// The clustering prefix, part by part under the names of the columns it covers, then
    /// the slice.
    fn write_clustering(&self, f: &mut fmt::Formatter<'_>, def: &TableDef) -> fmt::Result {
        let mut position = 0;
        for part in &self.clustering.prefix {
            let width = match part {
                PrefixPart::Single(_) => 1,
                PrefixPart::Multi { width, .. } => *width,
            };
            let names: Vec<&str> = def
                .clustering_key
                .iter()
                .skip(position)
                .take(width)
                .map(|&i| def.columns[i].name.as_str())
                .collect();
            position += width;
            match part {
                PrefixPart::Single(set) => write!(f, " clustering {} {set}", names.join(""))?,
                PrefixPart::Multi { .. } => write!(f, " clustering ({}) {part}", names.join(", "))?,
            }
        }
        let Some(slice) = &self.clustering.slice else {
            return Ok(());
        };
        if let Some(&i) = def.clustering_key.get(slice.start) {
            write_bounds(
                f,
                &format!(" {}", def.columns[i].name),
                slice.lower.as_ref().map(|b| (&b.term, b.inclusive)),
                slice.upper.as_ref().map(|b| (&b.term, b.inclusive)),
            )?;
            if !slice.exact {
                f.write_str(" (tuple-filtered)")?;
            }
        }
        Ok(())
    }

    /// The index read, the columns checked row by row, and whether clustering ranges are.
    fn write_filters(&self, f: &mut fmt::Formatter<'_>, def: &TableDef) -> fmt::Result {
        if let Some(index) = &self.index {
            write!(f, " index[{}]", index.name)?;
        }
        if !self.filters.is_empty() {
            let names: Vec<&str> = self
                .filters
                .iter()
                .map(|(i, _)| def.columns[*i].name.as_str())
                .collect();
            f.write_str(" filter[")?;
            cql::statement::comma(f, &names)?;
            f.write_str("]")?;
        }
        if self.clustering_filter.is_some() {
            f.write_str(" clustering-filter")?;
        }
        Ok(())
    }

    /// The row order: reversed clustering order, or a sort over several partitions.
    fn write_order(&self, f: &mut fmt::Formatter<'_>, def: &TableDef) -> fmt::Result {
        if self.reversed {
            f.write_str(" reversed")?;
        }
        if !self.post_order.is_empty() {
            let columns: Vec<String> = self
                .post_order
                .iter()
                .map(|(i, desc)| {
                    let order = if *desc { "DESC" } else { "ASC" };
                    format!("{} {order}", def.columns[*i].name)
                })
                .collect();
            f.write_str(" sort[")?;
            cql::statement::comma(f, &columns)?;
            f.write_str("]")?;
        }
        Ok(())
    }
}

/// Writes a token range's bounds: ` > {t} <= {t}`, each side when present.
fn write_token_range(f: &mut fmt::Formatter<'_>, range: &TokenRange) -> fmt::Result {
    write_bounds(
        f,
        "",
        range.lower.as_ref().map(|b| (&b.term, b.inclusive)),
        range.upper.as_ref().map(|b| (&b.term, b.inclusive)),
    )
}

/// Writes ` {subject} >= lower {subject} < upper`, each side when present.
pub(in crate::planner) fn write_bounds(
    f: &mut fmt::Formatter<'_>,
    subject: &str,
    lower: Option<(&Term, bool)>,
    upper: Option<(&Term, bool)>,
) -> fmt::Result {
    if let Some((term, inclusive)) = lower {
        write!(f, "{subject} {} {term}", if inclusive { ">=" } else { ">" })?;
    }
    if let Some((term, inclusive)) = upper {
        write!(f, "{subject} {} {term}", if inclusive { "<=" } else { "<" })?;
    }
    Ok(())
}
