//! Cassandra's rules for statements on counter tables (`ModificationStatement.validate`,
//! `Operation.SetValue.prepare`): counters are only incremented, decremented or deleted, and
//! never with a custom TTL or timestamp.

use cql::statement::ast::UsingClause;
use storage::TableDef;

use crate::error::{CqlError, CqlResult, ModifyError};

/// Whether the table holds counters (then every non-key column is a counter).
pub(crate) fn is_counter_table(def: &TableDef) -> bool {
    def.columns.iter().any(|c| c.ty.is_counter())
}

/// Refuses `USING TIMESTAMP` and `USING TTL` on an UPDATE or DELETE of a counter table.
pub(crate) fn check_using(def: &TableDef, using: &UsingClause) -> CqlResult<()> {
    if !is_counter_table(def) {
        return Ok(());
    }
    if using.timestamp.is_some() {
        return Err(ModifyError::CounterTimestamp.into());
    }
    if using.ttl.is_some() {
        return Err(ModifyError::CounterTtl.into());
    }
    Ok(())
}

/// The error for `c = value` on a counter column.
pub(crate) fn set_refused(column: &str) -> CqlError {
    ModifyError::CounterSet {
        column: column.to_string(),
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cql::statement::ast::Statement;
    use cql::statement::parse_statement;

    fn using(text: &str) -> UsingClause {
        match parse_statement(text).unwrap() {
            Statement::Update(u) => u.using,
            Statement::Delete(d) => d.using,
            other => panic!("not a modification: {other:?}"),
        }
    }

    #[test]
    fn custom_timestamp_and_ttl_are_refused_on_counter_tables_only() {
        let counters = crate::planner::select::tests::table_from(
            "CREATE TABLE ks.c (k int PRIMARY KEY, c counter)",
        );
        let plain = crate::planner::select::tests::table_from(
            "CREATE TABLE ks.t (k int PRIMARY KEY, v int)",
        );
        let ts = using("UPDATE ks.c USING TIMESTAMP 5 SET c = c + 1 WHERE k = 0");
        let ttl = using("UPDATE ks.c USING TTL 5 SET c = c + 1 WHERE k = 0");
        let delete_ts = using("DELETE FROM ks.c USING TIMESTAMP 5 WHERE k = 0");
        assert_eq!(
            check_using(&counters, &ts).unwrap_err().to_string(),
            "Cannot provide custom timestamp for counter updates"
        );
        assert_eq!(
            check_using(&counters, &delete_ts).unwrap_err().to_string(),
            "Cannot provide custom timestamp for counter updates"
        );
        assert_eq!(
            check_using(&counters, &ttl).unwrap_err().to_string(),
            "Cannot provide custom TTL for counter updates"
        );
        assert!(check_using(&plain, &ts).is_ok());
        assert!(check_using(&plain, &ttl).is_ok());
    }
}
