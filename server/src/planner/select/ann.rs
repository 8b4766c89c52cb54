//! `ORDER BY v ANN OF [...] LIMIT n` (Cassandra 5.0 vector search): the checks Cassandra
//! makes when it prepares such a query, with its messages, and the plan the executor follows.
//!
//! Every row the scan reads is scored with the similarity function of the column's SAI
//! index, the best `n` are returned, and rows of equal score keep the read order (token, then
//! clustering order). The scan reads every row the other restrictions select (exact and
//! deterministic) unless that set is large, when the index's graph proposes the rows to read
//! (`executor::ann_graph`).

use cql::statement::ast::{Literal, Order, Select, Term};
use cql::types::ColumnType;
use storage::{ColumnKind, TableDef};

use crate::error::{CqlError, CqlResult, RestrictionError, SelectError};
use crate::eval::functions::vector_fcts::Similarity;
use crate::planner::column_index;
use crate::planner::common::restrictions::ColumnRestriction;
use crate::planner::ddl::sai_options;
use crate::planner::select::grouping::Grouping;

/// The largest LIMIT an ANN query takes (Cassandra's `MAX_TOP_K`).
pub(crate) const MAX_TOP_K: usize = 1000;

/// What an ANN ordering asks of the executor.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AnnPlan {
    /// The ordered vector column, by index.
    pub column: usize,
    /// The query vector as written (a literal or a bind marker).
    pub vector: Term,
    /// The column's type, which the query vector takes.
    pub ty: ColumnType,
    /// How rows are scored: the similarity function of the column's index.
    pub similarity: Similarity,
    /// The column's SAI index (whose graph may propose the candidates).
    pub index: uuid::Uuid,
}

/// Cassandra's `ANN_LIMIT_ERROR` for a LIMIT above [`MAX_TOP_K`].
pub(crate) fn limit_error(limit: usize) -> CqlError {
    SelectError::AnnLimit {
        limit,
        max: MAX_TOP_K,
    }
    .into()
}

/// The id and similarity of the SAI index on `column`, if it has one.
fn vector_index(def: &TableDef, column: usize) -> Option<(uuid::Uuid, Similarity)> {
    let id = def.columns[column].id;
    def.indexes
        .iter()
        .find(|i| {
            i.column == id
                && i.custom_class
                    .as_deref()
                    .is_some_and(sai_options::is_sai_class)
        })
        .map(|i| (i.id, sai_options::similarity_of(&i.options)))
}

/// Plans the ANN ordering of `stmt`, if it has one. `by_column` are the WHERE restrictions
/// per column and `pk_full` whether they give the whole partition key.
///
/// # Errors
///
/// Cassandra 5.0's messages for the ANN queries it refuses.
pub(crate) fn plan(
    def: &TableDef,
    stmt: &Select,
    by_column: &[ColumnRestriction],
    pk_full: bool,
    grouping: Grouping,
) -> CqlResult<Option<AnnPlan>> {
    let (ident, vector, order) = match stmt.ann.as_slice() {
        [] => return Ok(None),
        [one] => one,
        _ => return Err(SelectError::MultipleAnnOrderings.into()),
    };
    if !stmt.order_by.is_empty() {
        return Err(SelectError::AnnWithOtherOrdering.into());
    }
    if *order == Order::Desc {
        return Err(SelectError::DescendingAnn.into());
    }
    let column = column_index(def, ident)?;
    let ty = def.columns[column].ty.clone();
    if !matches!(&ty, ColumnType::Vector { element, .. } if **element == ColumnType::Float) {
        return Err(SelectError::AnnNotFloatVector.into());
    }
    let Some((index, similarity)) = vector_index(def, column) else {
        return Err(SelectError::AnnColumnNotIndexed.into());
    };
    check_restrictions(def, by_column, pk_full)?;
    if matches!(vector, Term::Literal(Literal::Null)) {
        return Err(null_vector(&def.columns[column].name));
    }
    if stmt.limit.is_none() {
        return Err(SelectError::TopKWithoutLimit.into());
    }
    if grouping != Grouping::None {
        return Err(SelectError::TopKWithAggregation.into());
    }
    if stmt.per_partition_limit.is_some() {
        return Err(SelectError::TopKWithPerPartitionLimit.into());
    }
    Ok(Some(AnnPlan {
        column,
        vector: vector.clone(),
        ty,
        similarity,
        index,
    }))
}

/// Refuses WHERE restrictions on a column with a vector index: such an index only ranks
/// (Cassandra 5.0's SAI vector index answers no equality or range).
///
/// # Errors
///
/// `Vector indexes only support ANN queries` for the first such restriction.
pub(crate) fn check_vector_restrictions(
    def: &TableDef,
    by_column: &[ColumnRestriction],
) -> CqlResult<()> {
    let restricted_vector = by_column.iter().enumerate().any(|(i, r)| {
        r.is_restricted()
            && matches!(def.columns[i].ty, ColumnType::Vector { .. })
            && vector_index(def, i).is_some()
    });
    if restricted_vector {
        return Err(SelectError::VectorRestrictionWithoutAnn.into());
    }
    Ok(())
}

/// The refusal of a null query vector.
pub(crate) fn null_vector(column: &str) -> CqlError {
    RestrictionError::NullFilterValue {
        column: column.to_string(),
    }
    .into()
}

/// Cassandra's `ANN_REQUIRES_INDEXED_FILTERING_MESSAGE`: beside an ANN ordering, only the
/// partition key (and clustering columns under it) or indexed columns may be restricted.
fn check_restrictions(
    def: &TableDef,
    by_column: &[ColumnRestriction],
    pk_full: bool,
) -> CqlResult<()> {
    for (i, restriction) in by_column.iter().enumerate() {
        if !restriction.is_restricted() {
            continue;
        }
        let kind = def.columns[i].kind;
        let keyed = pk_full && matches!(kind, ColumnKind::PartitionKey | ColumnKind::Clustering);
        let indexed = def.indexes.iter().any(|x| x.column == def.columns[i].id);
        if !keyed && !indexed {
            return Err(SelectError::AnnUnindexedRestriction.into());
        }
    }
    Ok(())
}
