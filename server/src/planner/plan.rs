//! `StatementPlan`: what planning makes of one statement against one schema snapshot. PREPARE
//! makes it once and EXECUTE binds values into it (see [`crate::node::prepared`]); QUERY makes a
//! fresh one per request. `USE`, `TRUNCATE` and `DESCRIBE` are planned too, as what they
//! name: the keyspace, table or schema elements are looked up when they run, where Cassandra
//! checks them. Statements that are not planned ahead (DDL, role and permission statements,
//! batches of text) are `Unplanned` and run from their AST.
//!
//! DDL is planned too, but at execution: `executor::ddl` takes the DDL lock and calls
//! [`crate::planner::ddl::plan_schema_change`] against the catalog current under that lock,
//! as Cassandra's schema statements compute their change against the schema current when
//! they execute. A plan made here, at PREPARE or against a QUERY's snapshot, would be wrong:
//! a concurrent (or later) schema change would make its checks stale (`IF NOT EXISTS`, a
//! name taken, a column dropped meanwhile) and its resulting catalog would undo that change
//! when installed. So there is no `StatementPlan` variant for DDL: `plan_statement` answers
//! `Unplanned` for it, and a prepared schema statement keeps only its AST.
//!
//! Role and permission statements (`CREATE/ALTER/DROP ROLE`, `GRANT`, `REVOKE`, `LIST
//! ROLES`, `LIST PERMISSIONS`) are planned at execution in the same way, for the same
//! reason: `executor::roles` and `executor::permissions` take the DDL lock and call
//! [`crate::planner::access::plan_access`] against the catalog current under it, as
//! Cassandra's role manager and authorizer validate at execution. Their plan is a change to
//! the roles, or the rows of a `LIST` read from that catalog; they too are `Unplanned` here.

use std::sync::Arc;

use cql::statement::ast::{Describe, QualifiedName, Statement};

use crate::error::CqlResult;
use crate::planner::modify::delete::plan_delete;
use crate::planner::modify::{plan_insert, plan_update, ModifyPlan};
use crate::planner::select::{plan_select, SelectPlan};
use crate::schema::Schema;

/// A planned statement; cheap to clone (the plans are shared).
#[derive(Debug, Clone)]
pub(crate) enum StatementPlan {
    /// A SELECT.
    Select(Arc<SelectPlan>),
    /// An INSERT, UPDATE or DELETE.
    Modify(Arc<ModifyPlan>),
    /// `EXPLAIN [ANALYZE]` (our extension) of a SELECT, INSERT, UPDATE or DELETE.
    Explain {
        /// Whether the statement also runs (`EXPLAIN ANALYZE`).
        analyze: bool,
        /// The explained statement's plan.
        inner: Box<StatementPlan>,
    },
    /// `USE ks`: the keyspace the session switches to, once it exists.
    Use(Arc<str>),
    /// `TRUNCATE`: the table to empty.
    Truncate(Arc<NamedTable>),
    /// `DESCRIBE`: what to describe.
    Describe(Arc<DescribePlan>),
    /// Any other statement: executed from its AST (DDL, role and permission statements:
    /// planned at execution, under the DDL lock; see the module documentation).
    Unplanned,
}

/// A table as a statement names it, with the keyspace an unqualified name resolves in; it
/// is looked up when the statement runs.
#[derive(Debug)]
pub(crate) struct NamedTable {
    /// The name as written.
    pub name: QualifiedName,
    /// The keyspace in use when the statement was planned.
    pub keyspace: Option<String>,
}

/// What a `DESCRIBE` describes, with the keyspace unqualified names resolve in; the schema
/// it is read from is the one the statement runs against.
#[derive(Debug)]
pub(crate) struct DescribePlan {
    /// The statement as written.
    pub describe: Describe,
    /// The keyspace in use when the statement was planned.
    pub keyspace: Option<String>,
}

impl StatementPlan {
    /// The table a planned SELECT, INSERT, UPDATE or DELETE addresses.
    pub(crate) fn table(&self) -> Option<&crate::schema::TableRef> {
        match self {
            StatementPlan::Select(plan) => Some(&plan.table),
            StatementPlan::Modify(plan) => Some(&plan.table),
            StatementPlan::Explain { inner, .. } => inner.table(),
            StatementPlan::Use(_)
            | StatementPlan::Truncate(_)
            | StatementPlan::Describe(_)
            | StatementPlan::Unplanned => None,
        }
    }
}

/// Plans `statement` against `schema`, with the errors Cassandra gives when preparing it.
///
/// # Errors
/// Unknown keyspaces, tables or columns, and refused restrictions or operations.
pub(crate) fn plan_statement(
    schema: &Schema,
    statement: &Statement,
    keyspace: Option<&str>,
) -> CqlResult<StatementPlan> {
    Ok(match statement {
        Statement::Select(stmt) => {
            StatementPlan::Select(Arc::new(plan_select(schema, stmt, keyspace)?))
        }
        Statement::Insert(stmt) => {
            StatementPlan::Modify(Arc::new(plan_insert(schema, stmt, keyspace)?))
        }
        Statement::Update(stmt) => {
            StatementPlan::Modify(Arc::new(plan_update(schema, stmt, keyspace)?))
        }
        Statement::Delete(stmt) => {
            StatementPlan::Modify(Arc::new(plan_delete(schema, stmt, keyspace)?))
        }
        Statement::Explain(explain) => StatementPlan::Explain {
            analyze: explain.analyze,
            inner: Box::new(plan_statement(schema, &explain.statement, keyspace)?),
        },
        Statement::Use(name) => StatementPlan::Use(name.name.as_str().into()),
        Statement::Truncate(name) => StatementPlan::Truncate(Arc::new(NamedTable {
            name: name.clone(),
            keyspace: keyspace.map(str::to_string),
        })),
        Statement::Describe(describe) => StatementPlan::Describe(Arc::new(DescribePlan {
            describe: describe.clone(),
            keyspace: keyspace.map(str::to_string),
        })),
        _ => StatementPlan::Unplanned,
    })
}
