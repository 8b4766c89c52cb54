//! Role and permission statements planned: Cassandra's checks and messages, and the change
//! they make to the roles, computed from the catalog current under the DDL lock — as
//! Cassandra's `CassandraRoleManager` and `CassandraAuthorizer` validate at execution, not at
//! PREPARE (see [`crate::planner::plan`]). Pure and synchronous: a catalog, a statement and
//! an [`AccessContext`] in, an [`AccessPlan`] out — a change the executor commits
//! (`executor/roles.rs`, `executor/permissions.rs`), or the rows of a `LIST`.
//!
//! `roles` plans `CREATE/ALTER/DROP ROLE`, `GRANT/REVOKE role` and `LIST ROLES`;
//! `permissions` plans `GRANT/REVOKE/LIST` of permissions and the creator's grant;
//! `resource` holds the resources and the catalog queries on who holds what (which `authz`
//! re-exports); `password` the bcrypt hashes; `print` the plan's one-line form.

pub(crate) mod password;
mod permissions;
mod print;
pub(crate) mod resource;
mod roles;

use bytes::Bytes;
use cql::frame::response::{ColumnSpec, ResultBody, ResultMetadata, Rows};
use cql::statement::ast::{PermissionStatement, RoleStatement};
use cql::types::ColumnType;
use storage::{Catalog, CatalogOp};

use crate::error::CqlResult;

pub(crate) use permissions::{plan_creator_grant, plan_revoke_all_on};
use resource::Resource;

/// A role or permission statement.
#[derive(Debug, Clone, Copy)]
pub(crate) enum AccessStatement<'a> {
    /// `CREATE/ALTER/DROP ROLE|USER`, `LIST ROLES|USERS`, `GRANT/REVOKE role`.
    Role(&'a RoleStatement),
    /// `GRANT`, `REVOKE` and `LIST` of permissions.
    Permission(&'a PermissionStatement),
}

/// What planning a role or permission statement reads from the node and session besides
/// the catalog.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AccessContext<'a> {
    /// The role logged in on the session, which runs the statement.
    pub(crate) user: &'a str,
    /// Whether CassandraAuthorizer is in force (role statements then check permissions).
    pub(crate) authorizing: bool,
    /// The session's keyspace: qualifies a table resource named without one.
    pub(crate) session_keyspace: Option<&'a str>,
}

/// What a role or permission statement does.
#[derive(Debug, Clone)]
pub(crate) enum AccessPlan {
    /// A change to the roles: `ops` stored durably, then `catalog` (which holds them)
    /// installed; no `ops` for an `IF [NOT] EXISTS` that changes nothing. `grant_to_creator`:
    /// the resource (a created role) whose permissions the creator is granted afterwards.
    Change {
        /// The storage operations, in order.
        ops: Vec<CatalogOp>,
        /// The catalog with the change made.
        catalog: Catalog,
        /// What the statement's creator is then granted every permission on.
        grant_to_creator: Option<Resource>,
    },
    /// `LIST ROLES|USERS` or `LIST PERMISSIONS`: rows read from the catalog.
    Rows(AccessRows),
}

/// The rows a `LIST` answers, as Cassandra's `system_auth` tables describe them.
#[derive(Debug, Clone)]
pub(crate) struct AccessRows {
    /// The columns, all of `system_auth.{table}`.
    pub(crate) columns: Vec<ColumnSpec>,
    /// The serialized rows; none makes the answer VOID.
    pub(crate) rows: Vec<Vec<Option<Bytes>>>,
}

impl AccessRows {
    /// Rows of `system_auth.{table}` with these columns (name, type).
    fn new(table: &str, columns: Vec<(&str, ColumnType)>, rows: Vec<Vec<Option<Bytes>>>) -> Self {
        let columns = columns
            .into_iter()
            .map(|(name, ty)| ColumnSpec {
                keyspace: "system_auth".into(),
                table: table.into(),
                name: name.into(),
                ty,
            })
            .collect();
        AccessRows { columns, rows }
    }

    /// The answer: the rows, or VOID when there are none (as Cassandra answers).
    pub(crate) fn into_result(self) -> ResultBody {
        if self.rows.is_empty() {
            return ResultBody::Void;
        }
        ResultBody::Rows(Rows {
            metadata: ResultMetadata::describing(self.columns.into()),
            rows: self.rows,
        })
    }
}

/// Plans the role or permission statement `statement` for `context.user` against `current`,
/// the catalog current under the DDL lock.
///
/// # Errors
/// Cassandra's refusals, word for word and in Cassandra's order: missing permissions,
/// unknown or existing roles and resources, invalid options and passwords, grants that
/// would be circular or are already (or not) made.
pub(crate) fn plan_access(
    current: &Catalog,
    statement: AccessStatement<'_>,
    context: AccessContext<'_>,
) -> CqlResult<AccessPlan> {
    match statement {
        AccessStatement::Role(statement) => roles::plan(current, statement, context),
        AccessStatement::Permission(statement) => permissions::plan(current, statement, context),
    }
}

/// Text as a cell.
fn text_cell(text: &str) -> Option<Bytes> {
    Some(Bytes::copy_from_slice(text.as_bytes()))
}

/// A boolean as a cell.
fn boolean_cell(value: bool) -> Option<Bytes> {
    Some(Bytes::from(vec![u8::from(value)]))
}

#[cfg(test)]
mod tests;
