//! The checks Cassandra makes as it adds clustering restrictions one by one, in WHERE-clause
//! order (`ClusteringColumnRestrictions.Builder.addRestriction`): which message a query
//! with restrictions out of key order or overlapping slices gets depends on that order, so
//! it is checked here on the relations as written, before the planner groups them.

use cql::statement::ast::{Operator, Relation};
use storage::TableDef;

use crate::error::{CqlResult, RestrictionError};

/// One clustering restriction: the positions of its columns and whether it is a slice.
struct Added {
    start: usize,
    end: usize,
    slice: bool,
}

/// Refuses, in Cassandra's order and words, two slices on one column that do not start at
/// the same column, and (without filtering) a restriction after a sliced column or a slice
/// before a restricted one.
pub(crate) fn check(def: &TableDef, relations: &[Relation], filtering: bool) -> CqlResult<()> {
    let mut added: Vec<Added> = Vec::new();
    for relation in relations {
        let Some(new) = restriction(def, relation) else {
            continue;
        };
        if let Some(overlap) = added
            .iter()
            .find(|a| a.start <= new.end && new.start <= a.end)
        {
            if overlap.slice && new.slice && overlap.start != new.start {
                let column = overlap.start.max(new.start);
                return Err(RestrictionError::TwoInequalities {
                    column: name(def, column).to_string(),
                }
                .into());
            }
            added.push(new);
            continue;
        }
        let last = added.iter().max_by_key(|a| a.start);
        if let (false, Some(last)) = (filtering, last) {
            if last.slice && new.start > last.start {
                return Err(RestrictionError::ClusteringKeyOrder {
                    column: name(def, new.start).to_string(),
                    preceding: name(def, last.start).to_string(),
                    preceding_non_eq: true,
                }
                .into());
            }
            if new.slice && new.start < last.start {
                return Err(RestrictionError::SliceBeforeRestricted {
                    column: name(def, last.start).to_string(),
                    sliced: name(def, new.start).to_string(),
                }
                .into());
            }
        }
        added.push(new);
    }
    Ok(())
}

fn name(def: &TableDef, position: usize) -> &str {
    &def.columns[def.clustering_key[position]].name
}

/// The clustering restriction `relation` adds, if it is an `=`, `IN` or slice on clustering
/// columns (other relations are checked elsewhere).
fn restriction(def: &TableDef, relation: &Relation) -> Option<Added> {
    let position = |column: &cql::statement::ast::Ident| {
        let i = crate::planner::column_index(def, column).ok()?;
        def.clustering_key.iter().position(|&c| c == i)
    };
    let (columns, op) = match relation {
        Relation::Single { column, op, .. } => (vec![position(column)?], *op),
        Relation::In {
            column,
            negated: false,
            ..
        } => (vec![position(column)?], Operator::In),
        Relation::Multi { columns, op, .. } => {
            (columns.iter().map(position).collect::<Option<_>>()?, *op)
        }
        Relation::MultiIn { columns, .. } => (
            columns.iter().map(position).collect::<Option<_>>()?,
            Operator::In,
        ),
        _ => return None,
    };
    let slice = match op {
        Operator::Gt | Operator::Gte | Operator::Lt | Operator::Lte => true,
        Operator::Eq | Operator::In => false,
        _ => return None,
    };
    Some(Added {
        start: *columns.iter().min()?,
        end: *columns.iter().max()?,
        slice,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cql::statement::ast::Statement;
    use cql::statement::parse_statement;

    fn check_where(clause: &str) -> Result<(), String> {
        let def = crate::planner::select::tests::table_from(
            "CREATE TABLE ks.t (a int, b int, c int, d int, PRIMARY KEY (a, b, c, d))",
        );
        let Ok(Statement::Select(select)) =
            parse_statement(&format!("SELECT * FROM ks.t WHERE a = 0 AND {clause}"))
        else {
            panic!("not a select");
        };
        check(&def, &select.where_clause, false).map_err(|e| e.to_string())
    }

    #[test]
    fn messages_follow_the_order_of_the_relations() {
        let two = "Column \"c\" cannot be restricted by two inequalities not starting with the same column";
        let after = "Clustering column \"c\" cannot be restricted (preceding column \"b\" is restricted by a non-EQ relation)";
        assert_eq!(
            check_where("(b, c) > (1, 1) AND (b) < (2) AND (c) < (3)").unwrap_err(),
            two
        );
        assert_eq!(
            check_where("(c) < (1) AND (b, c) > (1, 1)").unwrap_err(),
            two
        );
        assert_eq!(
            check_where("(b) < (1) AND c < 1 AND (b, c) > (1, 1)").unwrap_err(),
            after
        );
        assert_eq!(
            check_where("(c, d) > (1, 1) AND b > 1").unwrap_err(),
            "PRIMARY KEY column \"c\" cannot be restricted (preceding column \"b\" is restricted by a non-EQ relation)"
        );
        assert!(check_where("(b, c) > (1, 1) AND b < 3").is_ok());
        assert!(check_where("b = 1 AND c > 1").is_ok());
    }
}
