//! How a SELECT of a virtual table reads: which keyspaces a `system_schema` read asks for
//! (a driver's metadata refresh after a schema change reads one keyspace, one table), so
//! only their rows are generated, and whether the read is small enough to run on the
//! runtime's thread rather than the blocking pool.

use storage::TableDef;

use crate::error::CqlResult;
use crate::eval::values::EvalContext;
use crate::executor::keys;
use crate::planner::select::{PartitionSelection, SelectPlan};
use crate::schema::{Schema, TableKind};

/// The most tables the keyspaces of a keyspace-restricted schema read may hold for the read
/// to run inline: ~15 columns a table makes a few hundred generated rows at most, well
/// under the cost of the blocking pool's hand-off (tens of microseconds of wake-ups).
const INLINE_TABLES: usize = 16;

/// The keyspaces a read of a `system_schema` or `system_virtual_schema` table restricts its
/// partition key (`keyspace_name`) to; `None` for every other read.
///
/// # Errors
/// A bound value does not evaluate.
pub(in crate::executor) fn keyspaces(
    plan: &SelectPlan,
    def: &TableDef,
    ctx: &EvalContext<'_>,
) -> CqlResult<Option<Vec<String>>> {
    let schema_table = matches!(
        def.keyspace.as_str(),
        "system_schema" | "system_virtual_schema"
    );
    let (PartitionSelection::Keys(sets), [column]) = (&plan.partitions, &def.partition_key[..])
    else {
        return Ok(None);
    };
    if plan.table.kind != TableKind::Virtual || !schema_table || sets.len() != 1 {
        return Ok(None);
    }
    let values = keys::key_values(&sets[0], def, *column, ctx)?;
    Ok(Some(
        values
            .iter()
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect(),
    ))
}

/// Whether a read of the virtual table `def` (restricted to `keyspaces`) is small enough to
/// run inline: `system.local` and the empty `system.peers` tables (a driver's schema
/// agreement check), and schema reads of a few keyspaces holding few tables.
pub(in crate::executor) fn inline(
    schema: &Schema,
    def: &TableDef,
    keyspaces: Option<&[String]>,
) -> bool {
    if def.keyspace == "system" {
        return matches!(def.name.as_str(), "local" | "peers" | "peers_v2");
    }
    let Some(names) = keyspaces else {
        return false;
    };
    let tables: usize = names
        .iter()
        .filter_map(|name| schema.keyspace(name))
        .map(|ks| ks.tables.len())
        .sum();
    names.len() <= 4 && tables <= INLINE_TABLES
}

#[cfg(test)]
mod tests {
    use cql::statement::ast::Statement;

    use super::*;
    use crate::planner::select::plan_select;
    use crate::planner::select::tests::schema;

    /// The keyspaces `query` restricts its read to, and whether it runs inline, against a
    /// keyspace `ks` of `tables` tables.
    fn read_of(query: &str, tables: usize) -> (Option<Vec<String>>, bool) {
        let creates: Vec<String> = (0..tables)
            .map(|n| format!("CREATE TABLE t{n} (k int PRIMARY KEY)"))
            .collect();
        let creates: Vec<&str> = creates.iter().map(String::as_str).collect();
        let schema = schema(&creates);
        let Ok(Statement::Select(select)) = cql::statement::parse_statement(query) else {
            panic!("not a SELECT: {query}");
        };
        let plan = plan_select(&schema, &select, None).expect("a plan");
        let ctx = EvalContext {
            binds: &[],
            now_micros: 0,
        };
        let def = &plan.table.def;
        let names = keyspaces(&plan, def, &ctx).expect("bound");
        let inline = inline(&schema, def, names.as_deref());
        (names, inline)
    }

    fn names(names: &[&str]) -> Option<Vec<String>> {
        Some(names.iter().map(|n| n.to_string()).collect())
    }

    #[test]
    fn a_metadata_refresh_reads_one_keyspace_inline() {
        let query =
            "SELECT * FROM system_schema.columns WHERE keyspace_name = 'ks' AND table_name = 't0'";
        assert_eq!(read_of(query, 3), (names(&["ks"]), true));
        let query = "SELECT * FROM system_schema.tables WHERE keyspace_name IN ('ks', 'system')";
        assert_eq!(read_of(query, 1), (names(&["ks", "system"]), true));
        let together = read_of(query, INLINE_TABLES);
        assert_eq!(together, (names(&["ks", "system"]), false));
        let query =
            "SELECT * FROM system_virtual_schema.tables WHERE keyspace_name = 'system_views'";
        assert_eq!(read_of(query, 0), (names(&["system_views"]), true));
    }

    #[test]
    fn a_keyspace_of_many_tables_goes_to_the_blocking_pool() {
        let query = "SELECT * FROM system_schema.columns WHERE keyspace_name = 'ks'";
        assert_eq!(read_of(query, INLINE_TABLES), (names(&["ks"]), true));
        assert_eq!(read_of(query, INLINE_TABLES + 1), (names(&["ks"]), false));
    }

    #[test]
    fn whole_tables_and_other_virtual_tables_are_not_restricted() {
        assert_eq!(
            read_of("SELECT * FROM system_schema.tables", 1),
            (None, false)
        );
        let query = "SELECT * FROM system_schema.tables WHERE token(keyspace_name) > 0";
        assert_eq!(read_of(query, 1), (None, false));
        let local = "SELECT schema_version FROM system.local WHERE key = 'local'";
        assert_eq!(read_of(local, 1), (None, true));
        assert_eq!(read_of("SELECT * FROM system.peers", 1), (None, true));
        let traces = "SELECT * FROM system_traces.sessions";
        assert_eq!(read_of(traces, 1), (None, false));
        assert_eq!(read_of("SELECT * FROM ks.t0 WHERE k = 1", 1), (None, false));
    }
}
