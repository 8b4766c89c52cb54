//! `CREATE`/`DROP` `FUNCTION`, `AGGREGATE` and `TRIGGER`: this server runs no Java (or
//! JavaScript) code, so it answers as a Cassandra 5.0 node where user-defined functions are
//! disabled (`user_defined_functions_enabled: false`, the default) and no trigger class can
//! be loaded. Nothing can be created, so nothing exists to drop: the drops say so, with
//! Cassandra's messages, and `IF EXISTS` makes them no-ops.

use cql::statement::ast::DisabledDdl;
use storage::Catalog;

use crate::error::{CqlResult, DdlError, SchemaError};
use crate::planner::ddl::change::SchemaChangePlan;
use crate::planner::keyspace_of;

/// Refuses (or, for a drop with `IF EXISTS`, accepts as a no-op: `None`) `statement`; never
/// a change.
///
/// # Errors
///
/// Always, except for a drop with `IF EXISTS`.
pub(crate) fn refuse(
    catalog: &Catalog,
    statement: &DisabledDdl,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<SchemaChangePlan>> {
    match statement {
        DisabledDdl::CreateFunction { .. } => Err(DdlError::UdfsDisabled.into()),
        DisabledDdl::DropFunction {
            name,
            aggregate,
            args,
            if_exists,
        } => {
            let keyspace = keyspace_of(name, session_keyspace)?;
            if *if_exists {
                return Ok(None);
            }
            let function = name.name.name.clone();
            let args = args
                .as_ref()
                .map(|args| args.iter().map(ToString::to_string).collect());
            Err(if *aggregate {
                DdlError::AggregateNotFound {
                    keyspace,
                    function,
                    args,
                }
            } else {
                DdlError::FunctionNotFound {
                    keyspace,
                    function,
                    args,
                }
            }
            .into())
        }
        DisabledDdl::CreateTrigger { table, class, .. } => {
            let keyspace = keyspace_of(table, session_keyspace)?;
            let Some(ks) = catalog.keyspaces.get(&keyspace) else {
                return Err(SchemaError::UnknownKeyspace { keyspace }.into());
            };
            if !ks.tables.contains_key(&table.name.name) {
                return Err(DdlError::TriggerTableNotFound {
                    table: table.name.name.clone(),
                }
                .into());
            }
            Err(DdlError::TriggerClassNotLoaded {
                class: class.clone(),
            }
            .into())
        }
        DisabledDdl::DropTrigger {
            name,
            table,
            if_exists,
        } => {
            let keyspace = keyspace_of(table, session_keyspace)?;
            if *if_exists {
                return Ok(None);
            }
            Err(DdlError::TriggerNotFound {
                trigger: name.name.clone(),
                keyspace,
                table: table.name.name.clone(),
            }
            .into())
        }
    }
}
