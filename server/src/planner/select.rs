//! SELECT planning: which partitions, which clustering range, what is filtered, what is
//! returned. Enforces Cassandra's primary-key rules with its messages.

use std::fmt;

use cql::statement::ast::{Order, Relation, Select, SelectExpr, Term};
use cql::types::ColumnType;
use storage::{ClusteringOrder, ColumnKind};

use crate::error::{CqlError, CqlResult};
use crate::planner::clustering::{self, ClusteringPlan};
use crate::planner::restrictions::{self, ColumnRestriction, ValueSet};
use crate::planner::token::{self, TokenRange};
use crate::planner::{column_index, resolve_table};
use crate::schema::{Schema, TableRef};

/// Cassandra's message when a query needs ALLOW FILTERING.
pub const ALLOW_FILTERING_MESSAGE: &str = "Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING";

/// A planned SELECT.
#[derive(Debug, Clone)]
pub struct SelectPlan {
    pub table: TableRef,
    pub outputs: Vec<Output>,
    pub partitions: PartitionSelection,
    /// The clustering prefix and slice.
    pub clustering: ClusteringPlan,
    /// Restrictions checked row by row (ALLOW FILTERING).
    pub filters: Vec<(usize, ColumnRestriction)>,
    pub limit: Option<Term>,
    /// Whether rows come in the reverse of the table's clustering order.
    pub reversed: bool,
    /// Whether the outputs aggregate all rows into one.
    pub aggregate: bool,
}

/// Which partitions a SELECT reads.
#[derive(Debug, Clone)]
pub enum PartitionSelection {
    /// Every partition, in token order.
    All,
    /// The partitions whose key columns take these values (one set per key column).
    Keys(Vec<ValueSet>),
    /// Partitions whose token lies in a range, in token order.
    Tokens(TokenRange),
}

/// One result column.
#[derive(Debug, Clone)]
pub struct Output {
    /// The column name in result metadata (alias if given).
    pub name: String,
    pub ty: ColumnType,
    pub source: OutputSource,
}

/// Where a result column's value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputSource {
    /// A table column, by index.
    Column(usize),
    /// `count(*)`.
    CountAll,
    /// `token(partition key)`.
    Token,
}

/// Plans `stmt` against `schema`.
pub fn plan_select(
    schema: &Schema,
    stmt: &Select,
    session_keyspace: Option<&str>,
) -> CqlResult<SelectPlan> {
    let table = resolve_table(schema, &stmt.table, session_keyspace)?;
    let def = &table.def;
    let (outputs, aggregate) = outputs(&table, stmt)?;
    let (by_column, rest) = restrictions::collect(def, &stmt.where_clause)?;
    let token_relations: Vec<&Relation> = rest
        .iter()
        .filter(|r| matches!(r, Relation::Token { .. }))
        .collect();
    let supported = |r: &&Relation| {
        matches!(
            r,
            Relation::Token { .. } | Relation::Multi { .. } | Relation::MultiIn { .. }
        )
    };
    if let Some(relation) = rest.iter().find(|r| !supported(r)) {
        return Err(CqlError::invalid(format!(
            "Unsupported restriction: {relation:?}"
        )));
    }
    let token = token::token_range(def, &token_relations)?;
    if token.is_some() {
        if let Some(&i) = def
            .partition_key
            .iter()
            .find(|&&i| by_column[i].is_restricted())
        {
            return Err(CqlError::invalid(format!(
                "Columns \"{}\" cannot be restricted by both a normal relation and a token relation",
                def.columns[i].name
            )));
        }
    }
    let mut filters = Vec::new();
    let mut needs_filtering = false;

    // Partition key: every component restricted by = or IN, nothing else.
    let pk_full = def.partition_key.iter().all(|&i| {
        let r = &by_column[i];
        r.eq.is_some() && !r.is_slice() && r.other.is_empty()
    });
    let partitions = if pk_full {
        PartitionSelection::Keys(
            def.partition_key
                .iter()
                .filter_map(|&i| by_column[i].eq.clone())
                .collect(),
        )
    } else {
        for &i in &def.partition_key {
            if by_column[i].is_restricted() {
                needs_filtering = true;
                filters.push((i, by_column[i].clone()));
            }
        }
        match token {
            Some(range) => PartitionSelection::Tokens(range),
            None => PartitionSelection::All,
        }
    };

    // Clustering columns: an =/IN prefix, then at most one slice.
    let multi: Vec<&Relation> = rest
        .iter()
        .filter(|r| matches!(r, Relation::Multi { .. } | Relation::MultiIn { .. }))
        .collect();
    let mut clustering = clustering::plan(def, &by_column, &multi, stmt.allow_filtering)?;
    needs_filtering |= clustering.needs_filtering;
    filters.append(&mut clustering.filters);
    if !pk_full && (!clustering.prefix.is_empty() || clustering.slice.is_some()) {
        // Without a partition key, clustering restrictions are filtering, row by row.
        if !multi.is_empty() {
            return Err(CqlError::invalid(
                "Multi-column slice restrictions cannot be used for filtering.",
            ));
        }
        needs_filtering = true;
        let restricted: Vec<usize> = def
            .clustering_key
            .iter()
            .copied()
            .filter(|&i| by_column[i].eq.is_some() || by_column[i].is_slice())
            .filter(|i| !filters.iter().any(|(f, _)| f == i))
            .collect();
        for i in restricted {
            filters.push((i, by_column[i].clone()));
        }
        clustering.prefix.clear();
        clustering.slice = None;
    }

    // Regular and static columns can only be filtered.
    for (i, col) in def.columns.iter().enumerate() {
        if matches!(col.kind, ColumnKind::Regular | ColumnKind::Static)
            && by_column[i].is_restricted()
        {
            needs_filtering = true;
            filters.push((i, by_column[i].clone()));
        }
    }
    if needs_filtering && !stmt.allow_filtering {
        return Err(CqlError::invalid(ALLOW_FILTERING_MESSAGE));
    }
    let reversed = order_by(&table, stmt, pk_full)?;
    Ok(SelectPlan {
        table,
        outputs,
        partitions,
        clustering,
        filters,
        limit: stmt.limit.clone(),
        reversed,
        aggregate,
    })
}

fn outputs(table: &TableRef, stmt: &Select) -> CqlResult<(Vec<Output>, bool)> {
    let def = &table.def;
    if stmt.selectors.is_empty() {
        let all = def
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| Output {
                name: c.name.clone(),
                ty: c.ty.clone(),
                source: OutputSource::Column(i),
            })
            .collect();
        return Ok((all, false));
    }
    let mut outputs = Vec::with_capacity(stmt.selectors.len());
    let mut aggregate = false;
    for selector in &stmt.selectors {
        let alias = selector.alias.as_ref().map(|a| a.name.clone());
        match &selector.expr {
            SelectExpr::Column(ident) => {
                let i = column_index(def, ident)?;
                let col = &def.columns[i];
                outputs.push(Output {
                    name: alias.unwrap_or_else(|| col.name.clone()),
                    ty: col.ty.clone(),
                    source: OutputSource::Column(i),
                });
            }
            SelectExpr::Function { name, args }
                if name.keyspace.is_none() && name.name.name.eq_ignore_ascii_case("token") =>
            {
                token::check_selector(def, args)?;
                let names: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                outputs.push(Output {
                    name: alias.unwrap_or_else(|| format!("system.token({})", names.join(", "))),
                    ty: ColumnType::Bigint,
                    source: OutputSource::Token,
                });
            }
            SelectExpr::CountAll => {
                aggregate = true;
                outputs.push(Output {
                    name: alias.unwrap_or_else(|| "count".into()),
                    ty: ColumnType::Bigint,
                    source: OutputSource::CountAll,
                });
            }
            other => {
                return Err(CqlError::invalid(format!(
                    "Unsupported selector: {other:?}"
                )));
            }
        }
    }
    if aggregate && outputs.iter().any(|o| o.source != OutputSource::CountAll) {
        return Err(CqlError::invalid(
            "Aggregates mixed with plain columns are not supported yet",
        ));
    }
    Ok((outputs, aggregate))
}

/// Validates ORDER BY and returns whether the scan runs in reverse clustering order.
fn order_by(table: &TableRef, stmt: &Select, pk_restricted: bool) -> CqlResult<bool> {
    let def = &table.def;
    let mut reversed: Option<bool> = None;
    for (n, (ident, order)) in stmt.order_by.iter().enumerate() {
        let i = column_index(def, ident)?;
        let col = &def.columns[i];
        if col.kind != ColumnKind::Clustering {
            return Err(CqlError::invalid(format!(
                "Order by is currently only supported on the clustered columns of the PRIMARY KEY, got {}",
                col.name
            )));
        }
        if def.clustering_key.get(n) != Some(&i) {
            return Err(CqlError::invalid(
                "Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY",
            ));
        }
        let declared_desc = col.order == ClusteringOrder::Desc;
        let this_reversed = (*order == Order::Desc) != declared_desc;
        match reversed {
            Some(r) if r != this_reversed => {
                return Err(CqlError::invalid("Unsupported order by relation"))
            }
            _ => reversed = Some(this_reversed),
        }
    }
    if reversed.is_some() && !pk_restricted {
        return Err(CqlError::invalid(
            "ORDER BY is only supported when the partition key is restricted by an EQ or an IN.",
        ));
    }
    Ok(reversed.unwrap_or(false))
}

impl fmt::Display for SelectPlan {
    /// A one-line description, for tests and debug logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let def = &self.table.def;
        write!(f, "Select {}.{}", def.keyspace, def.name)?;
        match &self.partitions {
            PartitionSelection::All => f.write_str(" scan")?,
            PartitionSelection::Tokens(range) => {
                f.write_str(" tokens")?;
                if let Some(b) = &range.lower {
                    write!(f, " {} {}", if b.inclusive { ">=" } else { ">" }, b.term)?;
                }
                if let Some(b) = &range.upper {
                    write!(f, " {} {}", if b.inclusive { "<=" } else { "<" }, b.term)?;
                }
            }
            PartitionSelection::Keys(sets) => {
                f.write_str(" partitions[")?;
                for (n, (set, &i)) in sets.iter().zip(&def.partition_key).enumerate() {
                    if n > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{} {set}", def.columns[i].name)?;
                }
                f.write_str("]")?;
            }
        }
        for part in &self.clustering.prefix {
            write!(f, " clustering {part}")?;
        }
        if let Some(slice) = &self.clustering.slice {
            if let Some(&i) = def.clustering_key.get(slice.start) {
                let name = &def.columns[i].name;
                if let Some(b) = &slice.lower {
                    write!(
                        f,
                        " {name} {} {}",
                        if b.inclusive { ">=" } else { ">" },
                        b.term
                    )?;
                }
                if let Some(b) = &slice.upper {
                    write!(
                        f,
                        " {name} {} {}",
                        if b.inclusive { "<=" } else { "<" },
                        b.term
                    )?;
                }
                if !slice.exact {
                    f.write_str(" (tuple-filtered)")?;
                }
            }
        }
        if !self.filters.is_empty() {
            f.write_str(" filter[")?;
            for (n, (i, _)) in self.filters.iter().enumerate() {
                if n > 0 {
                    f.write_str(", ")?;
                }
                f.write_str(&def.columns[*i].name)?;
            }
            f.write_str("]")?;
        }
        if self.reversed {
            f.write_str(" reversed")?;
        }
        if let Some(limit) = &self.limit {
            write!(f, " limit {limit}")?;
        }
        Ok(())
    }
}
