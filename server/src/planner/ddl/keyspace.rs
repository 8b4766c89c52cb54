//! `CREATE`, `ALTER` and `DROP KEYSPACE`, with Cassandra's checks and messages
//! (`CreateKeyspaceStatement`, `AlterKeyspaceStatement`, `DropKeyspaceStatement`).

use cql::frame::response::{SchemaChangeTarget, SchemaChangeType};
use cql::statement::ast::{AlterKeyspace, CreateKeyspace};
use storage::{Catalog, CatalogOp, KeyspaceDef};

use crate::error::{AlreadyExists, CqlResult, DdlError, SchemaError};
use crate::planner::ddl::change::{event, valid_name, SchemaChangePlan, NAME_LENGTH};
use crate::planner::ddl::system_guard::SchemaPermission::{Alter, Drop};
use crate::planner::ddl::system_guard::{check as guard, SchemaResource};
use crate::schema::is_system_keyspace;
use crate::schema::table_def::options::keyspace_params;

/// `CREATE KEYSPACE`; `None` when `IF NOT EXISTS` makes it a no-op.
pub(crate) fn create_keyspace(
    current: &Catalog,
    stmt: &CreateKeyspace,
    datacenters: &[&str],
) -> CqlResult<Option<SchemaChangePlan>> {
    let name = &stmt.name.name;
    if !valid_name(name) {
        return Err(DdlError::InvalidKeyspaceName {
            keyspace: name.clone(),
            max_length: NAME_LENGTH,
        }
        .into());
    }
    let (replication, durable_writes) = keyspace_params(
        name,
        &stmt.properties,
        Default::default(),
        true,
        datacenters,
    )?;
    if current.keyspaces.contains_key(name) || is_system_keyspace(name) {
        if stmt.if_not_exists {
            return Ok(None);
        }
        return Err(AlreadyExists::Keyspace {
            keyspace: name.clone(),
        }
        .into());
    }
    let ks = KeyspaceDef {
        name: name.clone(),
        replication,
        durable_writes,
        tables: Default::default(),
        types: Default::default(),
    };
    Ok(Some(put_keyspace(current, ks, SchemaChangeType::Created)))
}

/// `ALTER KEYSPACE`: its replication and durable writes, checked as Cassandra does.
pub(crate) fn alter_keyspace(
    current: &Catalog,
    stmt: &AlterKeyspace,
    datacenters: &[&str],
) -> CqlResult<Option<SchemaChangePlan>> {
    let name = &stmt.name.name;
    guard(Alter, &SchemaResource::Keyspace(name.clone()))?;
    if is_system_keyspace(name) {
        return Err(DdlError::SystemKeyspaceNotModifiable {
            keyspace: name.clone(),
        }
        .into());
    }
    match current.keyspaces.get(name) {
        None if stmt.if_exists => Ok(None),
        None => Err(SchemaError::UnknownKeyspace {
            keyspace: name.clone(),
        }
        .into()),
        Some(ks) => {
            let (replication, durable_writes) = keyspace_params(
                name,
                &stmt.properties,
                ks.replication.clone(),
                ks.durable_writes,
                datacenters,
            )?;
            let mut new = ks.clone();
            new.replication = replication;
            new.durable_writes = durable_writes;
            Ok(Some(put_keyspace(current, new, SchemaChangeType::Updated)))
        }
    }
}

/// `DROP KEYSPACE`; `None` when `IF EXISTS` makes it a no-op.
pub(crate) fn drop_keyspace(
    current: &Catalog,
    name: &str,
    if_exists: bool,
) -> CqlResult<Option<SchemaChangePlan>> {
    guard(Drop, &SchemaResource::Keyspace(name.to_string()))?;
    match current.keyspaces.get(name) {
        None if if_exists => Ok(None),
        None => Err(SchemaError::UnknownKeyspace {
            keyspace: name.to_string(),
        }
        .into()),
        Some(_) => {
            let mut catalog = current.clone();
            catalog.keyspaces.remove(name);
            let target = SchemaChangeTarget::Keyspace {
                keyspace: name.to_string(),
            };
            Ok(Some(SchemaChangePlan::new(
                vec![CatalogOp::DropKeyspace(name.to_string())],
                catalog,
                event(SchemaChangeType::Dropped, target),
            )))
        }
    }
}

/// `ks` written into a copy of `current` (its record without its tables, which are records
/// of their own).
fn put_keyspace(current: &Catalog, ks: KeyspaceDef, change: SchemaChangeType) -> SchemaChangePlan {
    let mut catalog = current.clone();
    let name = ks.name.clone();
    let mut record = ks.clone();
    record.tables.clear();
    catalog.keyspaces.insert(name.clone(), ks);
    SchemaChangePlan::new(
        vec![CatalogOp::PutKeyspace(record)],
        catalog,
        event(change, SchemaChangeTarget::Keyspace { keyspace: name }),
    )
}
