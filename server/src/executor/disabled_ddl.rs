//! `CREATE`/`DROP` `FUNCTION`, `AGGREGATE` and `TRIGGER`: this server runs no Java (or
//! JavaScript) code, so it answers as a Cassandra 5.0 node where user-defined functions are
//! disabled (`user_defined_functions_enabled: false`, the default) and no trigger class can
//! be loaded. Nothing can be created, so nothing exists to drop: the drops say so, with
//! Cassandra's messages, and `IF EXISTS` makes them no-ops.

use cql::frame::response::ResultBody;
use cql::statement::ast::DisabledDdl;
use storage::Catalog;

use crate::error::{CqlError, CqlResult};
use crate::planner::keyspace_of;

/// `UDFunction.assertUdfsEnabled`'s message on a node with UDFs disabled.
pub(crate) const UDFS_DISABLED: &str =
    "User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable";

/// Refuses (or, for a drop with `IF EXISTS`, accepts as a no-op) `statement`.
///
/// # Errors
///
/// Always, except for a drop with `IF EXISTS`.
pub(crate) fn execute(
    catalog: &Catalog,
    statement: &DisabledDdl,
    session_keyspace: Option<&str>,
) -> CqlResult<ResultBody> {
    match statement {
        DisabledDdl::CreateFunction { .. } => Err(CqlError::invalid(UDFS_DISABLED)),
        DisabledDdl::DropFunction {
            name,
            aggregate,
            args,
            if_exists,
        } => {
            let keyspace = keyspace_of(name, session_keyspace)?;
            if *if_exists {
                return Ok(ResultBody::Void);
            }
            let mut shown = format!("{keyspace}.{}", name.name.name);
            if let Some(args) = args {
                let args: Vec<String> = args.iter().map(ToString::to_string).collect();
                shown = format!("{shown}({})", args.join(", "));
            }
            let what = if *aggregate { "Aggregate" } else { "Function" };
            Err(CqlError::invalid(format!("{what} '{shown}' doesn't exist")))
        }
        DisabledDdl::CreateTrigger { table, class, .. } => {
            let keyspace = keyspace_of(table, session_keyspace)?;
            let Some(ks) = catalog.keyspaces.get(&keyspace) else {
                return Err(CqlError::invalid(format!(
                    "Keyspace '{keyspace}' doesn't exist"
                )));
            };
            if !ks.tables.contains_key(&table.name.name) {
                return Err(CqlError::invalid(format!(
                    "Table '{}' doesn't exist",
                    table.name.name
                )));
            }
            Err(CqlError::invalid(format!(
                "Trigger class '{class}' couldn't be loaded"
            )))
        }
        DisabledDdl::DropTrigger {
            name,
            table,
            if_exists,
        } => {
            let keyspace = keyspace_of(table, session_keyspace)?;
            if *if_exists {
                return Ok(ResultBody::Void);
            }
            Err(CqlError::invalid(format!(
                "Trigger '{}' on '{keyspace}.{}' doesn't exist",
                name.name, table.name.name
            )))
        }
    }
}
