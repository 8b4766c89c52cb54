//! The approximate path of `ORDER BY v ANN OF [...] LIMIT n`: when the rows the query could
//! rank are many, the index's HNSW graph ([`crate::vector`]) proposes the nearest rows and only
//! those are read, scored and ranked by the same code as the exact path.
//!
//! The exact path stays for small sets, so small tables keep exact, deterministic results:
//! - a restricted partition key (the rows of a few partitions) is always searched exactly;
//! - otherwise the graph is used when it holds more than `Config::vector_search_exact_rows`
//!   live vectors, and, with another SAI restriction, when that index also selects more rows
//!   than that; while a large graph is being built, the search is exact.
//!
//! Candidates are taken from the graph nearest first and each is read and checked as the scan
//! will check it (live row, live vector, the restrictions, the key ranges) until `n` pass; the
//! search widens (4x) until they do, and once it asks for the whole graph falls back to the
//! exact scan (fewer than `n` rows pass, or the graph cannot reach them). The passing rows go to the scan as point ranges in key order, so
//! rows of equal score keep the exact path's tie order.

use std::collections::HashSet;

use storage::{ColumnKind, KeyRange, RangeTombstone, TableDef};

use crate::error::CqlResult;
use crate::executor::read::ann_rank::BoundAnn;
use crate::executor::read::row::{LiveRow, Liveness};
use crate::executor::read::source::RowSource;
use crate::node::Node;
use crate::vector::IndexSpec;

/// Of the graph's candidates (nearest first by the 8-bit codes the search walks with), this
/// many per row asked for are re-ranked by their exact distance before rows are read: the
/// rows read are the nearest of those, and the rest follow in the codes' order. Re-ranking
/// the whole beam (`vector_search_ef` nodes) instead returned the same rows on
/// `scripts/vector-bench.py` (recall@10 0.974 either way) and read 600 random vectors per
/// query. Cassandra's jvector likewise re-ranks a small multiple of the limit.
const RERANK_PER_ROW: usize = 5;

/// One ANN query's view of its rows.
pub(crate) struct AnnScope<'a> {
    /// The table read.
    pub(crate) def: &'a TableDef,
    /// The rows read.
    pub(crate) source: &'a RowSource,
    /// The bound ordering.
    pub(crate) ann: &'a BoundAnn,
    /// The LIMIT.
    pub(crate) limit: usize,
    /// The key ranges the query reads (its partition or token restriction).
    pub(crate) ranges: &'a [KeyRange],
    /// The rows another SAI restriction selects, if any.
    pub(crate) indexed: Option<&'a [KeyRange]>,
    /// The read's moment, for liveness.
    pub(crate) liveness: &'a Liveness,
}

/// The candidate rows the graph proposes, as point ranges in key order; `None` when the
/// query is to be answered by the exact scan.
///
/// # Errors
/// Storage errors, and the errors of `accept`.
pub(crate) fn graph_ranges(
    node: &Node,
    scope: &AnnScope<'_>,
    accept: &dyn Fn(&LiveRow) -> bool,
) -> CqlResult<Option<Vec<KeyRange>>> {
    let exact_max = node.config().vector_search_exact_rows;
    let RowSource::Stored(_, _) = scope.source else {
        return Ok(None);
    };
    let column = &scope.def.columns[scope.ann.column];
    let few_indexed = scope
        .indexed
        .is_some_and(|c| c.len() <= exact_max || c.iter().any(|r| r.exact_key().is_none()));
    if column.kind != ColumnKind::Regular || few_indexed {
        return Ok(None);
    }
    let spec = IndexSpec {
        id: scope.ann.index,
        similarity: scope.ann.similarity(),
        dim: scope.ann.query().len(),
    };
    let indexed: Option<HashSet<&[u8]>> = scope
        .indexed
        .map(|ranges| ranges.iter().filter_map(KeyRange::exact_key).collect());
    let found = node
        .vectors()
        .with_graph(node.store(), spec, |graph| -> CqlResult<_> {
            if graph.live() <= exact_max {
                return Ok(None);
            }
            let mut k = (scope.limit * 2).max(node.config().vector_search_ef);
            let mut rerank = scope.limit * RERANK_PER_ROW;
            loop {
                let nearest = graph.search(scope.ann.query(), k, k, rerank);
                let mut kept = Vec::with_capacity(scope.limit);
                for key in &nearest {
                    if kept.len() == scope.limit {
                        break;
                    }
                    let allowed = indexed.as_ref().is_none_or(|set| set.contains(key))
                        && scope.ranges.iter().any(|r| r.contains(key));
                    if allowed && passes(scope, key, accept)? {
                        kept.push(key.to_vec());
                    }
                }
                if kept.len() == scope.limit {
                    return Ok(Some(kept));
                }
                // Asked for every node: whatever the graph missed, the exact scan finds.
                if k >= graph.live() {
                    return Ok(None);
                }
                k = k.saturating_mul(4);
                rerank = rerank.saturating_mul(4);
            }
        })?;
    let Some(mut keys) = found.transpose()?.flatten() else {
        return Ok(None);
    };
    keys.sort();
    Ok(Some(keys.into_iter().map(KeyRange::point).collect()))
}

/// Whether the row under `key` is live, has a vector the query can score, and passes
/// `accept` (the query's restrictions), as the scan will find it.
fn passes(scope: &AnnScope<'_>, key: &[u8], accept: &dyn Fn(&LiveRow) -> bool) -> CqlResult<bool> {
    let Some(stored) = scope.source.get(key)? else {
        return Ok(false);
    };
    let decoded = storage::decode_row_key(scope.def, key)?;
    let (prefix, suffix) = decoded.split(key);
    let tombstones = scope.source.range_tombstones(prefix)?;
    let deleted_at = RangeTombstone::shadowing(&tombstones, suffix);
    let Some(row) = LiveRow::new(scope.def, decoded, stored, scope.liveness, deleted_at)? else {
        return Ok(false);
    };
    let scored = row
        .value(scope.def, scope.ann.column)
        .and_then(|v| scope.ann.score(v))
        .is_some();
    Ok(scored && accept(&row))
}
