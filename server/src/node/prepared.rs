//! The prepared-statement cache, shared by all connections. Ids are Cassandra's: the MD5 of
//! the session keyspace followed by the query text, so every connection (and every driver
//! connection preparing the same text) gets the same id.
//!
//! A prepared statement keeps the plan PREPARE made, with the schema snapshot it was made
//! against; EXECUTE binds its values into that plan and plans again only when the schema
//! snapshot has been replaced since (any DDL), so errors stay where Cassandra gives them.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, RwLock};

use bytes::Bytes;
use cql::frame::response::ColumnSpec;
use cql::statement::ast::Statement;
use md5::{Digest, Md5};
use storage::SeededFastHasher;

use crate::error::CqlResult;
use crate::planner::common::bind::BindInfo;
use crate::planner::plan::{plan_statement, StatementPlan};
use crate::schema::Schema;

/// A prepared statement.
#[derive(Debug)]
pub(crate) struct PreparedStatement {
    /// The statement id (16 bytes).
    pub id: Bytes,
    /// The query text as prepared.
    pub query: String,
    /// Whether the text may carry a password (`crate::telemetry::redact`): the query log
    /// shows neither it nor its values. Found once, at PREPARE.
    pub may_carry_password: bool,
    /// The session keyspace at prepare time (for unqualified names).
    pub keyspace: Option<String>,
    /// The parsed statement.
    pub statement: Arc<Statement>,
    /// Bind marker receivers by index, and the v4 partition-key bind indexes.
    pub bind: BindInfo,
    /// `:name` of each marker, for EXECUTE with named values.
    pub bind_names: Vec<Option<String>>,
    /// The statement's plan and the schema it was made against.
    pub plan: PlanCache,
}

impl PreparedStatement {
    /// The statement's plan for `schema`: the one PREPARE (or an earlier EXECUTE) made if
    /// `schema` is the snapshot it was made against, else a new one, kept for the next
    /// executions.
    ///
    /// # Errors
    /// Planning errors when the schema changed under the statement (a dropped column...).
    pub(crate) fn plan_for(&self, schema: &Arc<Schema>) -> CqlResult<StatementPlan> {
        self.plan.get_or_replan(schema, || {
            plan_statement(schema, &self.statement, self.keyspace.as_deref())
        })
    }
}

/// A plan kept with the schema snapshot it was made against. A DDL installs a new snapshot
/// (a new `Arc`), so pointer identity says whether the plan still holds; the cache holds the
/// old snapshot's `Arc`, so its address cannot be reused by another snapshot meanwhile.
#[derive(Debug)]
pub(crate) struct PlanCache {
    inner: RwLock<(Arc<Schema>, StatementPlan)>,
}

impl PlanCache {
    /// A cache holding `plan`, made against `schema`.
    pub(crate) fn new(schema: Arc<Schema>, plan: StatementPlan) -> PlanCache {
        PlanCache {
            inner: RwLock::new((schema, plan)),
        }
    }

    /// The cached plan if it was made against `schema`; otherwise `replan()`'s, which
    /// replaces it when it succeeds.
    ///
    /// # Errors
    /// `replan`'s error; the cached plan is left as it was.
    pub(crate) fn get_or_replan(
        &self,
        schema: &Arc<Schema>,
        replan: impl FnOnce() -> CqlResult<StatementPlan>,
    ) -> CqlResult<StatementPlan> {
        {
            // Poisoning only means a panic while swapping two `Arc`s; the pair is intact.
            let cached = self.inner.read().unwrap_or_else(|p| p.into_inner());
            if Arc::ptr_eq(&cached.0, schema) {
                return Ok(cached.1.clone());
            }
        }
        let plan = replan()?;
        *self.inner.write().unwrap_or_else(|p| p.into_inner()) = (schema.clone(), plan.clone());
        Ok(plan)
    }
}

/// Cassandra's prepared id: MD5 of `keyspace + query`.
pub(crate) fn statement_id(keyspace: Option<&str>, query: &str) -> Bytes {
    let mut hasher = Md5::new();
    if let Some(ks) = keyspace {
        hasher.update(ks.as_bytes());
    }
    hasher.update(query.as_bytes());
    Bytes::copy_from_slice(&hasher.finalize())
}

/// The v5 result metadata id of a statement returning `columns` (an MD5 of their keyspaces,
/// tables, names and types, as Cassandra digests its `ResultMetadata`): EXECUTE compares the
/// id the client holds with it to tell the client when the columns changed.
pub(crate) fn result_metadata_id(columns: &[ColumnSpec]) -> Bytes {
    let mut hasher = Md5::new();
    for column in columns {
        for part in [&column.keyspace, &column.table, &column.name] {
            hasher.update(part.as_bytes());
            hasher.update([0]);
        }
        hasher.update(column.ty.to_string().as_bytes());
        hasher.update([0]);
    }
    Bytes::copy_from_slice(&hasher.finalize())
}

/// A bounded map from id to statement; the oldest entries are evicted first.
#[derive(Debug)]
pub(crate) struct PreparedCache {
    capacity: usize,
    inner: Mutex<CacheInner>,
}

#[derive(Debug, Default)]
struct CacheInner {
    /// Keyed by ids the server computed (MD5 digests), so a client cannot choose keys that
    /// collide; a seeded fast hash instead of SipHash (every EXECUTE looks its id up).
    map: HashMap<Bytes, Arc<PreparedStatement>, SeededFastHasher>,
    order: VecDeque<Bytes>,
}

impl PreparedCache {
    /// An empty cache holding up to `capacity` statements.
    pub(crate) fn new(capacity: usize) -> PreparedCache {
        PreparedCache {
            capacity: capacity.max(1),
            inner: Mutex::new(CacheInner::default()),
        }
    }

    /// Looks a statement up by id.
    pub(crate) fn get(&self, id: &[u8]) -> Option<Arc<PreparedStatement>> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.map.get(id).cloned()
    }

    /// Forgets every statement (a reset or restore replaced the schema): clients prepare
    /// again when EXECUTE answers UNPREPARED.
    pub(crate) fn clear(&self) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.map.clear();
        inner.order.clear();
    }

    /// Stores a statement (replacing one with the same id).
    pub(crate) fn insert(&self, statement: Arc<PreparedStatement>) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let id = statement.id.clone();
        if inner.map.insert(id.clone(), statement).is_none() {
            inner.order.push_back(id);
        }
        while inner.map.len() > self.capacity {
            match inner.order.pop_front() {
                Some(old) => {
                    inner.map.remove(&old);
                }
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::select::tests::schema;

    #[test]
    fn a_plan_is_reused_until_the_schema_changes() {
        let first = Arc::new(schema(&["CREATE TABLE t (k int PRIMARY KEY, v int)"]));
        let cache = PlanCache::new(first.clone(), StatementPlan::Unplanned);
        let replans = std::cell::Cell::new(0);
        let replan = || {
            replans.set(replans.get() + 1);
            Ok(StatementPlan::Unplanned)
        };
        cache.get_or_replan(&first, replan).unwrap();
        cache.get_or_replan(&first, replan).unwrap();
        assert_eq!(
            replans.get(),
            0,
            "the plan made against this snapshot is reused"
        );
        let altered = Arc::new(schema(&[
            "CREATE TABLE t (k int PRIMARY KEY, v int, w int)",
        ]));
        cache.get_or_replan(&altered, replan).unwrap();
        cache.get_or_replan(&altered, replan).unwrap();
        assert_eq!(
            replans.get(),
            1,
            "planned again once after the schema changed"
        );
        let failed = Arc::new(schema(&["CREATE TABLE t (k int PRIMARY KEY)"]));
        let error = cache.get_or_replan(&failed, || {
            Err(crate::error::SchemaError::TableNotFound { table: "t".into() }.into())
        });
        assert!(error.is_err());
        cache.get_or_replan(&altered, replan).unwrap();
        assert_eq!(replans.get(), 1, "a failed re-plan leaves the cached plan");
    }

    #[test]
    fn a_prepared_select_is_planned_again_after_alter_table() {
        let before = Arc::new(schema(&["CREATE TABLE t (k int PRIMARY KEY, v int)"]));
        let text = "SELECT * FROM t WHERE k = ?";
        let statement = Arc::new(cql::statement::parse(text).unwrap().statement);
        let plan = plan_statement(&before, &statement, Some("ks")).unwrap();
        let prepared = PreparedStatement {
            id: statement_id(Some("ks"), text),
            query: text.into(),
            may_carry_password: false,
            keyspace: Some("ks".into()),
            statement,
            bind: BindInfo::default(),
            bind_names: vec![None],
            plan: PlanCache::new(before.clone(), plan),
        };
        let outputs = |schema: &Arc<Schema>| match prepared.plan_for(schema).unwrap() {
            StatementPlan::Select(plan) => plan.outputs.len(),
            other => panic!("not a SELECT plan: {other:?}"),
        };
        let StatementPlan::Select(first) = prepared.plan_for(&before).unwrap() else {
            panic!("not a SELECT plan");
        };
        let StatementPlan::Select(again) = prepared.plan_for(&before).unwrap() else {
            panic!("not a SELECT plan");
        };
        assert!(
            Arc::ptr_eq(&first, &again),
            "the same plan serves both executions"
        );
        assert_eq!(outputs(&before), 2);
        let after = Arc::new(schema(&[
            "CREATE TABLE t (k int PRIMARY KEY, v int, w int)",
        ]));
        assert_eq!(outputs(&after), 3, "SELECT * sees the added column");
        let dropped = Arc::new(schema(&["CREATE TABLE u (k int PRIMARY KEY)"]));
        let error = prepared.plan_for(&dropped).unwrap_err();
        assert_eq!(error.to_string(), "table t does not exist");
    }

    #[test]
    fn ids_are_md5_of_keyspace_and_query() {
        let id = statement_id(None, "SELECT * FROM t");
        assert_eq!(id.len(), 16);
        assert_eq!(id, statement_id(None, "SELECT * FROM t"));
        assert_ne!(id, statement_id(Some("ks"), "SELECT * FROM t"));
    }
}
