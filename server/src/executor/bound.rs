//! A statement bound for one request: where it comes from (a prepared statement or a
//! QUERY's text), its values in marker order, its options, and its plan with the schema
//! snapshot the plan was made against. The handler binds each statement once; it is
//! authorized here ([`Authorized::new`], the one place statements are authorized) and
//! planned once ([`Authorized::plan`]), and the executor runs that same value
//! ([`crate::executor::run`]), inline or later, without binding, authorizing or planning it
//! again.

use std::sync::Arc;

use cql::frame::request::Value;
use cql::statement::ast::{BatchKind, Statement};

use crate::error::{CqlResult, RequestError};
use crate::eval::values::EvalContext;
use crate::executor::{consistency, not_planned, ExecOptions};
use crate::node::prepared::PreparedStatement;
use crate::node::Node;
use crate::planner::modify::ModifyPlan;
use crate::planner::plan::{plan_statement, StatementPlan};
use crate::schema::Schema;
use crate::transport::session::Session;

/// Where a statement comes from.
pub(crate) enum Source {
    /// A prepared statement (EXECUTE, or an id in a BATCH), whose cached plan it uses.
    Prepared(Arc<PreparedStatement>),
    /// A statement parsed from text (QUERY, or text in a BATCH), planned when bound.
    Text {
        /// The parsed statement.
        statement: Arc<Statement>,
        /// The keyspace unqualified names resolve in (the request's, else the session's).
        keyspace: Option<String>,
    },
}

impl Source {
    /// The statement.
    pub(crate) fn statement(&self) -> &Statement {
        match self {
            Source::Prepared(prepared) => &prepared.statement,
            Source::Text { statement, .. } => statement,
        }
    }

    /// The keyspace unqualified names resolve in.
    pub(crate) fn keyspace(&self) -> Option<&str> {
        match self {
            Source::Prepared(prepared) => prepared.keyspace.as_deref(),
            Source::Text { keyspace, .. } => keyspace.as_deref(),
        }
    }

    /// The statement's plan against `schema`: a prepared statement's cached one while the
    /// schema is the one it was made against.
    fn plan(&self, schema: &Arc<Schema>) -> CqlResult<StatementPlan> {
        match self {
            Source::Prepared(prepared) => prepared.plan_for(schema),
            Source::Text {
                statement,
                keyspace,
            } => plan_statement(schema, statement, keyspace.as_deref()),
        }
    }
}

/// A statement with its values in marker order, whose permissions were checked: planning
/// is next.
pub(crate) struct Authorized {
    source: Source,
    values: Vec<Value>,
}

impl Authorized {
    /// Checks every permission the statement needs, its names resolved in its own keyspace,
    /// else in `default_keyspace` (a BATCH's, for its prepared statements).
    ///
    /// # Errors
    /// [`crate::error::UnauthorizedError`] for the first permission the role lacks; a table
    /// named without a keyspace when there is none.
    pub(crate) fn new(
        node: &Node,
        session: &Session,
        source: Source,
        values: Vec<Value>,
        default_keyspace: Option<&str>,
    ) -> CqlResult<Authorized> {
        let keyspace = source.keyspace().or(default_keyspace);
        crate::auth::authorizer::authorize(node, session, source.statement(), keyspace)?;
        Ok(Authorized { source, values })
    }

    /// Plans the statement against the current schema, run with `options`. A read's
    /// consistency level is checked first, as Cassandra checks it before the read's plan.
    ///
    /// # Errors
    /// A consistency level reads refuse; the planner's errors.
    pub(crate) fn plan(self, node: &Node, options: ExecOptions) -> CqlResult<BoundStatement> {
        let now_micros = node.clock().now_micros();
        if let Statement::Select(_) = self.source.statement() {
            consistency::check_read(options.consistency)?;
        }
        let schema = node.schema();
        let plan = self.source.plan(&schema)?;
        Ok(BoundStatement {
            source: self.source,
            values: self.values,
            options,
            now_micros,
            schema,
            plan,
        })
    }
}

/// A statement ready to run: bound, authorized and planned.
pub(crate) struct BoundStatement {
    source: Source,
    values: Vec<Value>,
    pub(crate) options: ExecOptions,
    /// The request's clock reading: its `now`, and its write timestamp unless one is given.
    now_micros: i64,
    /// The schema snapshot `plan` was made against.
    pub(crate) schema: Arc<Schema>,
    pub(crate) plan: StatementPlan,
}

impl BoundStatement {
    /// The statement.
    pub(crate) fn statement(&self) -> &Statement {
        self.source.statement()
    }

    /// The keyspace unqualified names resolve in.
    pub(crate) fn keyspace(&self) -> Option<&str> {
        self.source.keyspace()
    }

    /// What the statement's terms are evaluated with: its values and the request's clock.
    pub(crate) fn ctx(&self) -> EvalContext<'_> {
        EvalContext {
            binds: &self.values,
            now_micros: self.now_micros,
        }
    }
}

/// A BATCH message ready to run: its statements authorized, then planned together.
pub(crate) struct BoundBatch {
    pub(crate) kind: BatchKind,
    pub(crate) options: ExecOptions,
    /// The request's clock reading, shared by every statement.
    pub(crate) now_micros: i64,
    /// Each statement with its values and its plan.
    pub(crate) entries: Vec<(Authorized, Arc<ModifyPlan>)>,
}

impl BoundBatch {
    /// Plans every statement of a batch, once all were authorized.
    ///
    /// # Errors
    /// A statement that is not an INSERT, UPDATE or DELETE; the planner's errors.
    pub(crate) fn new(
        node: &Node,
        kind: BatchKind,
        statements: Vec<Authorized>,
        options: ExecOptions,
    ) -> CqlResult<BoundBatch> {
        let now_micros = node.clock().now_micros();
        let schema = node.schema();
        let entries = statements
            .into_iter()
            .map(|statement| {
                let source = &statement.source;
                let plan = modification_plan(source.statement(), || source.plan(&schema))?;
                Ok((statement, plan))
            })
            .collect::<CqlResult<Vec<_>>>()?;
        Ok(BoundBatch {
            kind,
            options,
            now_micros,
            entries,
        })
    }
}

impl Authorized {
    /// The statement's values, evaluated at `now_micros`.
    pub(crate) fn ctx(&self, now_micros: i64) -> EvalContext<'_> {
        EvalContext {
            binds: &self.values,
            now_micros,
        }
    }
}

/// The plan of an INSERT, UPDATE or DELETE of a batch, made by `plan`; any other statement
/// is refused with Cassandra's message for batches.
pub(crate) fn modification_plan(
    statement: &Statement,
    plan: impl FnOnce() -> CqlResult<StatementPlan>,
) -> CqlResult<Arc<ModifyPlan>> {
    if !matches!(
        statement,
        Statement::Insert(_) | Statement::Update(_) | Statement::Delete(_)
    ) {
        return Err(RequestError::NotAModification.into());
    }
    match plan()? {
        StatementPlan::Modify(plan) if plan.table.kind == crate::schema::TableKind::Virtual => {
            Err(crate::control::ControlError::BadRequest(format!(
                "{} tables cannot be written in a BATCH",
                crate::control::KEYSPACE
            ))
            .into())
        }
        StatementPlan::Modify(plan) => Ok(plan),
        _ => Err(not_planned()),
    }
}
