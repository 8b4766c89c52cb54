//! What a result column of a SELECT carries: the vocabulary that `selection` (the SELECT
//! clause), `aggregate` (native aggregate calls) and `applied_aggregate` (functions of
//! aggregates) share. It sits below all three so that none of them imports another back:
//! `selection` plans a selector by handing aggregates to the other two, and they only need
//! these types, not `selection` itself.

use std::fmt;

use cql::types::ColumnType;

use crate::planner::select::selector::Scalar;

/// One result column.
#[derive(Debug, Clone)]
pub(crate) struct Output {
    /// The column name in result metadata (alias if given).
    pub name: String,
    pub ty: ColumnType,
    pub source: OutputSource,
}

/// Where a result column's value comes from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OutputSource {
    /// A table column, by index.
    Column(usize),
    /// `token(partition key)`.
    Token,
    /// An aggregate over the rows of a group.
    Aggregate(Aggregate),
    /// A computed value: function calls, casts, arithmetic, field selection.
    Scalar(Scalar),
}

/// An aggregate function applied to a selector (or to rows, for `count(*)`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Aggregate {
    pub function: AggregateFunction,
    /// What is aggregated and its type; `None` for `count(*)`.
    pub input: Option<(Scalar, ColumnType)>,
    /// Functions applied to this aggregate's result and to others' (`todate(max(t))`,
    /// `max(v) - min(v)`); the output is their value.
    pub then: Option<Box<Applied>>,
}

/// The expression a selector applies to aggregates: it reads this aggregate's result as
/// `Scalar::Aggregated(0)` and `others[k]`'s as `Scalar::Aggregated(k + 1)`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Applied {
    pub scalar: Scalar,
    pub others: Vec<Aggregate>,
}

impl Aggregate {
    /// This aggregate, then the others its selector combines with it, in result order.
    pub(crate) fn all(&self) -> impl Iterator<Item = &Aggregate> {
        std::iter::once(self).chain(self.then.iter().flat_map(|t| t.others.iter()))
    }
}

/// Cassandra's native aggregates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AggregateFunction {
    /// `count(*)` / `count(1)`: rows.
    CountRows,
    /// `count(col)`: non-null values.
    Count,
    Min,
    Max,
    Sum,
    Avg,
}

impl AggregateFunction {
    /// The aggregate a function name (any case) denotes, if any.
    pub(crate) fn from_name(name: &str) -> Option<AggregateFunction> {
        Some(match name.to_ascii_lowercase().as_str() {
            "count" => AggregateFunction::Count,
            "min" => AggregateFunction::Min,
            "max" => AggregateFunction::Max,
            "sum" => AggregateFunction::Sum,
            "avg" => AggregateFunction::Avg,
            _ => return None,
        })
    }

    /// The function's name in `system`, as result column names and messages spell it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AggregateFunction::CountRows | AggregateFunction::Count => "count",
            AggregateFunction::Min => "min",
            AggregateFunction::Max => "max",
            AggregateFunction::Sum => "sum",
            AggregateFunction::Avg => "avg",
        }
    }
}

impl fmt::Display for OutputSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputSource::Column(i) => write!(f, "column {i}"),
            OutputSource::Token => f.write_str("token"),
            OutputSource::Aggregate(a) => match &a.input {
                Some((Scalar::Column(i), _)) => write!(f, "{}(column {i})", a.function.name()),
                Some(_) => write!(f, "{}(expression)", a.function.name()),
                None => f.write_str("count(*)"),
            },
            OutputSource::Scalar(_) => f.write_str("expression"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregate_names_follow_cassandra() {
        assert_eq!(
            AggregateFunction::from_name("MAX"),
            Some(AggregateFunction::Max)
        );
        assert_eq!(AggregateFunction::from_name("median"), None);
        assert_eq!(AggregateFunction::CountRows.name(), "count");
    }
}
