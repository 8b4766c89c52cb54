//! `CREATE`/`DROP` `FUNCTION`, `AGGREGATE` and `TRIGGER`: this server runs no Java (or
//! JavaScript) code, so CREATE FUNCTION and CREATE AGGREGATE say plainly that it does not
//! run them (whatever `user_defined_functions_enabled` says), and triggers are answered as a
//! Cassandra 5.0 node where no trigger class can be loaded. Nothing can be created, so nothing exists to drop: the drops say so, with
//! Cassandra's messages, and `IF EXISTS` makes them no-ops.

use cql::statement::ast::{CqlType, DisabledDdl, QualifiedName};
use storage::Catalog;

use crate::error::{CqlError, CqlResult, DdlError, SchemaError};
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
        DisabledDdl::CreateFunction { aggregate, .. } => Err(if *aggregate {
            DdlError::UdfsNotRun {
                what: "aggregates",
                statement: "AGGREGATE",
            }
        } else {
            DdlError::UdfsNotRun {
                what: "functions",
                statement: "FUNCTION",
            }
        }
        .into()),
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
            Err(function_not_found(
                keyspace,
                name,
                *aggregate,
                args.as_deref(),
            ))
        }
        DisabledDdl::CreateTrigger { table, class, .. } => {
            Err(trigger_refusal(catalog, table, class, session_keyspace))
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

/// `DROP FUNCTION`/`DROP AGGREGATE` of a function that cannot exist.
fn function_not_found(
    keyspace: String,
    name: &QualifiedName,
    aggregate: bool,
    args: Option<&[CqlType]>,
) -> CqlError {
    let function = name.name.name.clone();
    let args = args.map(|args| args.iter().map(ToString::to_string).collect());
    if aggregate {
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
    .into()
}

/// Why `CREATE TRIGGER` fails: no keyspace, an unknown keyspace or table, else the class
/// that cannot be loaded.
fn trigger_refusal(
    catalog: &Catalog,
    table: &QualifiedName,
    class: &str,
    session_keyspace: Option<&str>,
) -> CqlError {
    let keyspace = match keyspace_of(table, session_keyspace) {
        Ok(keyspace) => keyspace,
        Err(err) => return err,
    };
    let Some(ks) = catalog.keyspaces.get(&keyspace) else {
        return SchemaError::UnknownKeyspace { keyspace }.into();
    };
    if !ks.tables.contains_key(&table.name.name) {
        return DdlError::TriggerTableNotFound {
            table: table.name.name.clone(),
        }
        .into();
    }
    DdlError::TriggerClassNotLoaded {
        class: class.to_string(),
    }
    .into()
}
