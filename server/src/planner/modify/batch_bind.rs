//! Bind metadata of a prepared `BEGIN BATCH ... APPLY BATCH`: markers are numbered across the
//! whole text, each typed by the statement it sits in; the batch's own `USING TIMESTAMP ?`
//! is `[timestamp]` of keyspace and table `[batch]`, as Cassandra names it
//! (`attrs.prepare("[batch]", "[batch]")`). Partition-key indexes are reported only when
//! every statement writes the same table (`BatchStatement.getPartitionKeyBindVariableIndexes`),
//! taken from the first statement.

use cql::frame::response::ColumnSpec;
use cql::statement::ast::{Batch, BindMarker, Term};
use cql::types::ColumnType;

use crate::error::CqlResult;
use crate::planner::common::bind::{collect as collect_statement, PartialSpecs};
use crate::planner::resolve_table;
use crate::schema::Schema;

/// The receivers of every marker of `batch`.
pub(crate) fn collect(
    schema: &Schema,
    batch: &Batch,
    bind_count: usize,
    session_keyspace: Option<&str>,
) -> CqlResult<PartialSpecs> {
    let mut specs: Vec<Option<ColumnSpec>> = vec![None; bind_count];
    let mut pk_markers = Vec::new();
    let mut tables = Vec::new();
    for (n, statement) in batch.statements.iter().enumerate() {
        let (found, pks) = collect_statement(schema, statement, bind_count, session_keyspace)?;
        for (slot, spec) in specs.iter_mut().zip(found) {
            if spec.is_some() {
                *slot = spec;
            }
        }
        if n == 0 {
            pk_markers = pks;
        }
        if let Some(name) = table_of(statement) {
            tables.push(resolve_table(schema, name, session_keyspace)?.def.id);
        }
    }
    let attributes = [
        (&batch.using.timestamp, "[timestamp]", ColumnType::Bigint),
        (&batch.using.ttl, "[ttl]", ColumnType::Int),
    ];
    for (term, name, ty) in attributes {
        let Some(Term::Bind(marker)) = term else {
            continue;
        };
        let (index, name) = match marker {
            BindMarker::Anonymous(i) => (*i, name.to_string()),
            BindMarker::Named(ident, i) => (*i, ident.name.clone()),
        };
        if let Some(slot) = specs.get_mut(index) {
            *slot = Some(ColumnSpec {
                keyspace: "[batch]".into(),
                table: "[batch]".into(),
                name,
                ty,
            });
        }
    }
    if tables.windows(2).any(|w| w[0] != w[1]) {
        // Several tables: no partition-key indexes (an empty list).
        pk_markers = Vec::new();
    }
    Ok((specs, pk_markers))
}

fn table_of(
    statement: &cql::statement::ast::Statement,
) -> Option<&cql::statement::ast::QualifiedName> {
    use cql::statement::ast::Statement;
    match statement {
        Statement::Insert(s) => Some(&s.table),
        Statement::Update(s) => Some(&s.table),
        Statement::Delete(s) => Some(&s.table),
        _ => None,
    }
}
