//! Executing `ORDER BY v ANN OF [...] LIMIT n` (see [`crate::planner::select::ann`]): the query
//! vector bound once, each row scored as the scan accepts it, and the best `n` kept, ties in
//! read order.

use cql::statement::ast::Term;
use storage::TableDef;

use crate::error::{CqlResult, SelectError};
use crate::eval::functions::vector_fcts::{floats, Similarity};
use crate::eval::values::{evaluate, EvalContext, Evaluated, Receiver};
use crate::executor::read::shaping::ResultRow;
use crate::planner::select::ann::{null_vector, AnnPlan};

/// The ANN ordering of one execution.
#[derive(Debug, Clone)]
pub(crate) struct BoundAnn {
    /// The ordered column, by index.
    pub(crate) column: usize,
    /// The column's SAI index.
    pub(crate) index: uuid::Uuid,
    query: Vec<f32>,
    similarity: Similarity,
}

impl BoundAnn {
    /// Evaluates the query vector of `plan` for this execution.
    ///
    /// # Errors
    ///
    /// A null or unset vector, or one that does not fit the column (wrong dimension or type).
    pub(crate) fn bind(plan: &AnnPlan, def: &TableDef, ctx: &EvalContext<'_>) -> CqlResult<Self> {
        let name = &def.columns[plan.column].name;
        let receiver = Receiver { name, ty: &plan.ty };
        let bytes = match evaluate(&plan.vector, receiver, ctx)? {
            Evaluated::Value(bytes) => bytes,
            Evaluated::Null | Evaluated::Unset => return Err(null_vector(name)),
        };
        let query = floats(&bytes)
            .filter(|q| !q.is_empty())
            .ok_or_else(|| null_vector(name))?;
        if matches!(plan.vector, Term::Bind(_)) {
            cql::types::codec::validate_value(&plan.ty, &bytes)
                .map_err(SelectError::InvalidVector)?;
        }
        Ok(BoundAnn {
            column: plan.column,
            index: plan.index,
            query,
            similarity: plan.similarity,
        })
    }

    /// The query vector.
    pub(crate) fn query(&self) -> &[f32] {
        &self.query
    }

    /// The index's similarity function.
    pub(crate) fn similarity(&self) -> Similarity {
        self.similarity
    }

    /// The score of a row whose vector is `value` (higher ranks first); `None` when the row
    /// cannot be ranked (a malformed vector, or an all-zero one under cosine).
    pub(crate) fn score(&self, value: &[u8]) -> Option<f32> {
        let vector = floats(value)?;
        if vector.len() != self.query.len() {
            return None;
        }
        self.similarity
            .score(&vector, &self.query)
            .filter(|s| !s.is_nan())
    }
}

/// The `limit` best rows by score, best first; rows of equal score keep their read order.
pub(crate) fn top(rows: Vec<ResultRow>, scores: &[f32], limit: Option<usize>) -> Vec<ResultRow> {
    let mut ranked: Vec<(f32, ResultRow)> = scores.iter().copied().zip(rows).collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    ranked
        .into_iter()
        .take(limit.unwrap_or(usize::MAX))
        .map(|(_, row)| row)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: u8) -> ResultRow {
        ResultRow {
            values: vec![Some(bytes::Bytes::from(vec![n]))],
            clustering: Vec::new(),
        }
    }

    #[test]
    fn best_scores_first_and_ties_in_read_order() {
        let rows = vec![row(0), row(1), row(2), row(3)];
        let top = top(rows, &[0.5, 0.9, 0.5, 0.1], Some(3));
        let order: Vec<u8> = top
            .iter()
            .map(|r| r.values[0].as_ref().map_or(255, |b| b[0]))
            .collect();
        assert_eq!(order, vec![1, 0, 2]);
    }
}
