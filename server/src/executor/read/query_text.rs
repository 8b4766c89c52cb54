//! The text a read's warnings name it by, shaped as Cassandra's `ReadCommand.toCQLString`:
//! `SELECT <queried regular and static columns, or *> FROM ks.t [WHERE ...] [LIMIT n]
//! [PER PARTITION LIMIT m] ALLOW FILTERING`, where the limit is the page's. Unlike Cassandra,
//! which rebuilds the WHERE clause from the read command with the bound values, the
//! relations are shown as written (bind markers stay markers).

use std::fmt::Write;

use cql::statement::ast::{Literal, Select, Term};
use cql::types::maybe_quote;
use storage::ColumnKind;

use crate::planner::select::selection::output_columns;
use crate::planner::select::SelectPlan;

/// The read's text; `page_size` is the request's (`None`: unpaged).
pub(crate) fn query_text(
    statement: &Select,
    plan: &SelectPlan,
    page_size: Option<usize>,
) -> String {
    let def = &plan.table.def;
    let mut columns: Vec<usize> = Vec::new();
    if !statement.selectors.is_empty() {
        for i in output_columns(&plan.outputs) {
            let kind = def.columns[i].kind;
            if matches!(kind, ColumnKind::Regular | ColumnKind::Static) && !columns.contains(&i) {
                columns.push(i);
            }
        }
    }
    let selected = if columns.is_empty() {
        "*".to_string()
    } else {
        let names: Vec<String> = columns
            .iter()
            .map(|&i| maybe_quote(&def.columns[i].name))
            .collect();
        names.join(", ")
    };
    let mut text = format!(
        "SELECT {selected} FROM {}.{}",
        maybe_quote(&def.keyspace),
        maybe_quote(&def.name)
    );
    for (n, relation) in statement.where_clause.iter().enumerate() {
        let _ = write!(
            text,
            "{}{relation}",
            if n == 0 { " WHERE " } else { " AND " }
        );
    }
    let page = page_size.map(|n| n as u64);
    let limit = match (literal_count(statement.limit.as_ref()), page) {
        (Some(limit), Some(page)) => Some(limit.min(page)),
        (limit, page) => limit.or(page),
    };
    if let Some(limit) = limit {
        let _ = write!(text, " LIMIT {limit}");
    }
    if let Some(limit) = literal_count(statement.per_partition_limit.as_ref()) {
        let _ = write!(text, " PER PARTITION LIMIT {limit}");
    }
    text.push_str(" ALLOW FILTERING");
    text
}

/// A LIMIT written as a number (a bound one is not known here).
fn literal_count(term: Option<&Term>) -> Option<u64> {
    match term {
        Some(Term::Literal(Literal::Integer(n))) => n.parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use cql::statement::ast::Statement;

    use super::*;
    use crate::planner::select::plan_select;
    use crate::planner::select::tests::schema;

    fn text(query: &str, page_size: Option<usize>) -> String {
        let schema =
            schema(&["CREATE TABLE t (k int, c int, v int, s int static, PRIMARY KEY (k, c))"]);
        let Ok(Statement::Select(select)) = cql::statement::parse_statement(query) else {
            panic!("not a SELECT: {query}");
        };
        let plan = plan_select(&schema, &select, Some("ks")).expect("a plan");
        query_text(&select, &plan, page_size)
    }

    #[test]
    fn the_text_is_shaped_as_cassandras_read_command() {
        assert_eq!(
            text("SELECT * FROM t WHERE k = 1", None),
            "SELECT * FROM ks.t WHERE k = 1 ALLOW FILTERING"
        );
        assert_eq!(
            text(
                "SELECT k, c, v, s, v FROM t WHERE k = ? AND c > 2 LIMIT 10",
                Some(5000)
            ),
            "SELECT v, s FROM ks.t WHERE k = ? AND c > 2 LIMIT 10 ALLOW FILTERING"
        );
        assert_eq!(
            text(
                "SELECT k FROM t WHERE v = 7 PER PARTITION LIMIT 2 ALLOW FILTERING",
                Some(100)
            ),
            "SELECT * FROM ks.t WHERE v = 7 LIMIT 100 PER PARTITION LIMIT 2 ALLOW FILTERING"
        );
        assert_eq!(
            text("SELECT count(*) FROM t", None),
            "SELECT * FROM ks.t ALLOW FILTERING"
        );
    }
}
