//! Read-side warnings. Judged on a read's [`ReadStats`]: Cassandra 5.0's
//! `tombstone_warn_threshold` and `tombstone_failure_threshold` (its words, `ReadCommand`'s
//! `MetricRecording`), and our `filtering_examined_warn_*` warning for queries that examine
//! far more rows than they return, naming the key design that would serve them. Judged on the
//! plan: Cassandra's warnings on aggregates over many partitions (`SelectStatement`).

use std::net::IpAddr;

use cql::types::maybe_quote;
use storage::TableDef;

use crate::config::ReadThresholds;
use crate::error::{CqlError, ReadFailure};
use crate::executor::read::stats::ReadStats;
use crate::planner::select::grouping::Grouping;
use crate::planner::select::{PartitionSelection, SelectPlan};
use crate::planner::ValueSet;
use crate::telemetry::warnings;

impl ReadThresholds {
    /// The guard a read of a user table (or a virtual one, never aborted) counts its
    /// tombstones against.
    pub(crate) fn tombstone_guard(
        &self,
        user_table: bool,
        consistency: u16,
        node: IpAddr,
    ) -> TombstoneGuard {
        let limit = match u64::try_from(self.tombstone_failure) {
            Ok(limit) if user_table => limit,
            _ => u64::MAX,
        };
        TombstoneGuard {
            limit,
            consistency,
            node,
        }
    }
}

/// `tombstone_failure_threshold` applied during one read: past it the read stops.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TombstoneGuard {
    /// The tombstones a read may meet (`u64::MAX` when off).
    limit: u64,
    /// The request's consistency level, echoed in the failure.
    consistency: u16,
    /// This node's address, named in the failure.
    node: IpAddr,
}

impl TombstoneGuard {
    /// Counts `n` tombstones met by the read of `def`.
    ///
    /// # Errors
    /// Cassandra's read failure once the count passes the limit.
    pub(crate) fn add(
        &self,
        stats: &mut ReadStats,
        n: u64,
        def: &TableDef,
    ) -> Result<(), CqlError> {
        stats.tombstones += n;
        if stats.tombstones > self.limit {
            return Err(tombstone_failure(def, stats, self.consistency, self.node));
        }
        Ok(())
    }
}

/// The read failure Cassandra answers when a read meets more than
/// `tombstone_failure_threshold` tombstones (its `TombstoneOverwhelmingException`, turned into
/// a `ReadFailureException` with reason `READ_TOO_MANY_TOMBSTONES` from this node).
fn tombstone_failure(
    def: &TableDef,
    stats: &ReadStats,
    consistency: u16,
    node: IpAddr,
) -> CqlError {
    tracing::warn!(
        keyspace = %def.keyspace,
        table = %def.name,
        tombstones = stats.tombstones,
        token = ?stats.last_token,
        "Scanned over tombstone_failure_threshold tombstones; query aborted"
    );
    ReadFailure::TooManyTombstones { node, consistency }.into()
}

/// Cassandra's warnings on aggregates and GROUP BY (`SelectStatement.execute`): over no
/// partition-key restriction at all, or over an IN on the partition key, the fold reads
/// many partitions.
pub(crate) fn warn_aggregation(plan: &SelectPlan) {
    if plan.grouping == Grouping::None {
        return;
    }
    let def = &plan.table.def;
    match &plan.partitions {
        PartitionSelection::All
            if !plan
                .filters
                .iter()
                .any(|(i, _)| def.partition_key.contains(i)) =>
        {
            warnings::warn("Aggregation query used without partition key".into());
        }
        PartitionSelection::Keys(sets) if sets.iter().any(|s| matches!(s, ValueSet::In(_))) => {
            warnings::warn(
                "Aggregation query used on multiple partition keys (IN restriction)".into(),
            );
        }
        _ => {}
    }
}

/// Adds the warnings a finished read of a user table earned; `query` renders the statement
/// (only called when a warning is sent).
pub(crate) fn warn_after_read(
    thresholds: &ReadThresholds,
    plan: &SelectPlan,
    stats: &ReadStats,
    query: impl Fn() -> String,
) {
    if u64::try_from(thresholds.tombstone_warn).is_ok_and(|limit| stats.tombstones > limit) {
        let token = stats
            .last_token
            .map_or_else(|| "null".to_string(), |t| t.to_string());
        warnings::warn(format!(
            "Read {} live rows and {} tombstone cells for query {:.512}; token {token} (see tombstone_warn_threshold)",
            stats.live_rows,
            stats.tombstones,
            query()
        ));
    }
    if examines_too_much(thresholds, plan, stats) {
        warnings::warn(format!(
            "Examined {} rows to return {} for query {:.512} ({}); {} (see filtering_examined_warn_ratio)",
            stats.rows_examined,
            stats.rows_returned,
            query(),
            scope(plan, stats),
            suggested_key(plan),
        ));
    }
}

/// Whether a filtering read examined at least `filtering_ratio` rows per row returned (and at
/// least `filtering_min_rows`). Index reads and reads without filters are judged by their
/// keys, not here.
fn examines_too_much(thresholds: &ReadThresholds, plan: &SelectPlan, stats: &ReadStats) -> bool {
    thresholds.filtering_ratio > 0
        && !plan.filters.is_empty()
        && plan.index.is_none()
        && stats.rows_examined >= thresholds.filtering_min_rows
        && stats.rows_examined
            >= thresholds
                .filtering_ratio
                .saturating_mul(stats.rows_returned.max(1))
}

/// Where the filtering read looked.
fn scope(plan: &SelectPlan, stats: &ReadStats) -> String {
    match &plan.partitions {
        PartitionSelection::All => "ALLOW FILTERING over the whole table".to_string(),
        PartitionSelection::Tokens(_) => "ALLOW FILTERING over a token range".to_string(),
        PartitionSelection::Keys(_) if stats.partitions == 1 => {
            "ALLOW FILTERING within one partition".to_string()
        }
        PartitionSelection::Keys(_) => {
            format!("ALLOW FILTERING within {} partitions", stats.partitions)
        }
    }
}

/// The primary key that would turn the filter into a key lookup: the filtered columns
/// compared by `=`/`IN` as the partition key (or, inside given partitions, as the first
/// clustering columns), sliced ones as clustering columns after them, then the rest of the
/// table's key to keep rows unique (GeminiDB's left-to-right key use, seed 003).
pub(crate) fn suggested_key(plan: &SelectPlan) -> String {
    let def = &plan.table.def;
    let name = |i: usize| maybe_quote(&def.columns[i].name);
    let filtered = |slice: bool| -> Vec<usize> {
        plan.filters
            .iter()
            .filter(|(_, r)| {
                if slice {
                    r.eq.is_none() && r.is_slice()
                } else {
                    r.eq.is_some()
                }
            })
            .map(|(i, _)| *i)
            .collect()
    };
    let (eq, sliced) = (filtered(false), filtered(true));
    let key_columns = def.partition_key.iter().chain(&def.clustering_key);
    let rest = |taken: &[usize]| -> Vec<String> {
        key_columns
            .clone()
            .filter(|i| !taken.contains(i))
            .map(|&i| name(i))
            .collect()
    };
    let list = |columns: &[usize]| columns.iter().map(|&i| name(i)).collect::<Vec<_>>();
    let key = match (&plan.partitions, eq.is_empty(), sliced.is_empty()) {
        (_, true, true) => {
            return "an index table keyed by the filtered values would read these rows directly"
                .to_string()
        }
        (PartitionSelection::Keys(_), _, _) => {
            let partition = list(&def.partition_key);
            let mut clustering = list(&eq);
            clustering.extend(list(&sliced));
            let taken: Vec<usize> = def
                .partition_key
                .iter()
                .chain(&eq)
                .chain(&sliced)
                .copied()
                .collect();
            clustering.extend(rest(&taken).into_iter().filter(|c| !partition.contains(c)));
            key_text(&partition, &clustering)
        }
        (_, false, _) => {
            let mut clustering = list(&sliced);
            let taken: Vec<usize> = eq.iter().chain(&sliced).copied().collect();
            clustering.extend(rest(&taken));
            key_text(&list(&eq), &clustering)
        }
        (_, true, false) => {
            let mut clustering = list(&sliced);
            clustering.extend(rest(&sliced));
            return format!(
                "a table keyed by {}, with bucket a coarse part of {}, would read these rows as slices of a few partitions",
                key_text(&["bucket".to_string()], &clustering),
                list(&sliced).join(", ")
            );
        }
    };
    format!("a table keyed by {key} would read these rows directly")
}

/// `((p1, p2), c1, c2)`, or `((p))` without clustering columns.
fn key_text(partition: &[String], clustering: &[String]) -> String {
    let mut text = format!("(({})", partition.join(", "));
    for column in clustering {
        text.push_str(", ");
        text.push_str(column);
    }
    text.push(')');
    text
}

#[cfg(test)]
mod tests {
    use cql::statement::ast::Statement;

    use super::*;
    use crate::planner::select::plan_select;
    use crate::planner::select::tests::schema;

    fn plan(query: &str) -> SelectPlan {
        let schema = schema(&[
            "CREATE TABLE t (k int, c int, v int, w text, tags set<int>, PRIMARY KEY (k, c))",
            "CREATE TABLE s (id int PRIMARY KEY, ts timestamp, v int)",
        ]);
        let Ok(Statement::Select(select)) = cql::statement::parse_statement(query) else {
            panic!("not a SELECT: {query}");
        };
        plan_select(&schema, &select, Some("ks")).expect("a plan")
    }

    fn stats(examined: u64, returned: u64, tombstones: u64) -> ReadStats {
        ReadStats {
            partitions: 1,
            rows_examined: examined,
            live_rows: examined.saturating_sub(tombstones),
            tombstones,
            rows_returned: returned,
            last_token: Some(-42),
        }
    }

    #[test]
    fn the_suggested_key_reads_the_filtered_rows_directly() {
        let key = |q: &str| suggested_key(&plan(q));
        assert_eq!(
            key("SELECT * FROM t WHERE v = 1 ALLOW FILTERING"),
            "a table keyed by ((v), k, c) would read these rows directly"
        );
        assert_eq!(
            key("SELECT * FROM t WHERE v = 1 AND w > 'a' ALLOW FILTERING"),
            "a table keyed by ((v), w, k, c) would read these rows directly"
        );
        assert_eq!(
            key("SELECT * FROM t WHERE k = 1 AND v = 2 ALLOW FILTERING"),
            "a table keyed by ((k), v, c) would read these rows directly"
        );
        assert_eq!(
            key("SELECT * FROM s WHERE ts > '2020-01-01' ALLOW FILTERING"),
            "a table keyed by ((bucket), ts, id), with bucket a coarse part of ts, would read these rows as slices of a few partitions"
        );
        assert_eq!(
            key("SELECT * FROM t WHERE tags CONTAINS 1 ALLOW FILTERING"),
            "an index table keyed by the filtered values would read these rows directly"
        );
    }

    #[tokio::test]
    async fn warnings_fire_past_their_thresholds_only() {
        let thresholds = ReadThresholds {
            tombstone_warn: 5,
            tombstone_failure: 10,
            filtering_ratio: 10,
            filtering_min_rows: 100,
        };
        let filtering = plan("SELECT * FROM t WHERE v = 1 ALLOW FILTERING");
        let query = || "SELECT * FROM ks.t WHERE v = 1 ALLOW FILTERING".to_string();
        let ((), warned) = warnings::collect(async {
            warn_after_read(&thresholds, &filtering, &stats(1000, 3, 6), query);
        })
        .await;
        assert_eq!(
            warned,
            [
                "Read 994 live rows and 6 tombstone cells for query SELECT * FROM ks.t WHERE v = 1 ALLOW FILTERING; token -42 (see tombstone_warn_threshold)",
                "Examined 1000 rows to return 3 for query SELECT * FROM ks.t WHERE v = 1 ALLOW FILTERING (ALLOW FILTERING over the whole table); a table keyed by ((v), k, c) would read these rows directly (see filtering_examined_warn_ratio)",
            ]
        );
        let ((), quiet) = warnings::collect(async {
            warn_after_read(&thresholds, &filtering, &stats(99, 0, 5), query);
            warn_after_read(&thresholds, &filtering, &stats(1000, 101, 0), query);
            let keyed = plan("SELECT * FROM t WHERE k = 1");
            warn_after_read(&thresholds, &keyed, &stats(5000, 1, 0), query);
        })
        .await;
        assert!(quiet.is_empty(), "{quiet:?}");
        let node = IpAddr::from([127, 0, 0, 1]);
        let def = &filtering.table.def;
        let mut counted = ReadStats::default();
        let guard = thresholds.tombstone_guard(true, 1, node);
        assert!(guard.add(&mut counted, 10, def).is_ok());
        assert!(guard.add(&mut counted, 1, def).is_err());
        let unguarded = thresholds.tombstone_guard(false, 1, node);
        assert!(unguarded.add(&mut counted, 1 << 40, def).is_ok());
    }

    #[tokio::test]
    async fn aggregates_over_many_partitions_warn_as_cassandra() {
        let ((), warned) = warnings::collect(async {
            for query in [
                "SELECT count(*) FROM t",
                "SELECT max(v) FROM t WHERE k IN (1, 2)",
                "SELECT k, count(*) FROM t GROUP BY k",
                "SELECT count(*) FROM t WHERE k = 1",
                "SELECT count(*) FROM t WHERE token(k) > 0",
                "SELECT v FROM t",
            ] {
                warn_aggregation(&plan(query));
            }
        })
        .await;
        assert_eq!(
            warned,
            [
                "Aggregation query used without partition key",
                "Aggregation query used on multiple partition keys (IN restriction)",
                "Aggregation query used without partition key",
            ]
        );
    }

    #[test]
    fn the_failure_is_cassandras_read_failure() {
        let filtering = plan("SELECT * FROM t WHERE v = 1 ALLOW FILTERING");
        let err = tombstone_failure(
            &filtering.table.def,
            &stats(1, 0, 11),
            1,
            IpAddr::from([127, 0, 0, 1]),
        );
        assert_eq!(
            err.to_string(),
            "Operation failed - received 0 responses and 1 failures: READ_TOO_MANY_TOMBSTONES from /127.0.0.1:7000"
        );
        let body = err.error_body();
        assert_eq!(body.code, cql::frame::response::error_code::READ_FAILURE);
    }
}
