//! `CREATE TYPE`, `ALTER TYPE` and `DROP TYPE`, with Cassandra's checks and messages
//! (`CreateTypeStatement`, `AlterTypeStatement`, `DropTypeStatement`). Altering a type
//! rewrites every table column that uses it, in the same schema write.

use std::collections::HashSet;
use std::sync::Arc;

use cql::frame::response::{SchemaChange, SchemaChangeTarget, SchemaChangeType};
use cql::statement::ast::{AlterType, CqlType, CreateType, Ident, QualifiedName};
use cql::types::ColumnType;
use storage::{references_type, replace_type, Catalog, CatalogOp, KeyspaceDef, UserTypeDef};

use crate::error::{CqlResult, DdlError, SchemaError, UserTypeError};
use crate::planner::ddl::change::SchemaChangePlan;
use crate::planner::ddl::system_guard::{SchemaPermission, SchemaResource};
use crate::planner::ddl::view::refresh_views;
use crate::planner::keyspace_of;
use crate::schema::is_system_keyspace;
use crate::schema::table_def::types::{resolve_type, TypeScope};

/// The user keyspace `name`, for a type statement needing `permission` on it.
fn keyspace<'a>(
    current: &'a Catalog,
    name: &str,
    permission: SchemaPermission,
) -> CqlResult<&'a KeyspaceDef> {
    crate::planner::ddl::system_guard::check(
        permission,
        &SchemaResource::Keyspace(name.to_string()),
    )?;
    if is_system_keyspace(name) {
        return Err(DdlError::SystemKeyspaceNotModifiable {
            keyspace: name.to_string(),
        }
        .into());
    }
    current.keyspaces.get(name).ok_or_else(|| {
        SchemaError::UnknownKeyspace {
            keyspace: name.to_string(),
        }
        .into()
    })
}

fn type_event(change: SchemaChangeType, keyspace: &str, name: &str) -> SchemaChange {
    SchemaChange {
        change,
        target: SchemaChangeTarget::Type {
            keyspace: keyspace.to_string(),
            name: name.to_string(),
        },
    }
}

/// A field type as `CREATE TYPE`/`ALTER TYPE ADD` allow it: no counters, no non-frozen UDTs.
fn field_type(ty: &CqlType, scope: TypeScope<'_>) -> CqlResult<ColumnType> {
    let resolved = resolve_type(ty, scope, true)?;
    if resolved.is_counter() {
        return Err(UserTypeError::CounterField.into());
    }
    if matches!(resolved, ColumnType::Udt { frozen: false, .. }) {
        return Err(UserTypeError::NonFrozenUdtField.into());
    }
    Ok(resolved)
}

/// `CREATE TYPE`.
pub(crate) fn create_type(
    current: &Catalog,
    stmt: &CreateType,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<SchemaChangePlan>> {
    let ks_name = keyspace_of(&stmt.name, session_keyspace)?;
    let ks = keyspace(current, &ks_name, SchemaPermission::Create)?;
    let name = &stmt.name.name.name;
    if ks.types.contains_key(name) {
        if stmt.if_not_exists {
            return Ok(None);
        }
        return Err(UserTypeError::TypeExists { name: name.clone() }.into());
    }
    let mut seen = HashSet::new();
    for (field, _) in &stmt.fields {
        if !seen.insert(field.name.as_str()) {
            return Err(UserTypeError::DuplicateField {
                field: field.name.clone(),
                name: name.clone(),
            }
            .into());
        }
    }
    let scope = TypeScope {
        keyspace: &ks_name,
        types: &ks.types,
    };
    let fields = stmt
        .fields
        .iter()
        .map(|(field, ty)| Ok((field.name.clone(), field_type(ty, scope)?)))
        .collect::<CqlResult<Vec<_>>>()?;
    let def = UserTypeDef {
        keyspace: ks_name.clone(),
        name: name.clone(),
        fields,
    };
    Ok(Some(put_type(
        current,
        def,
        Vec::new(),
        SchemaChangeType::Created,
    )))
}

/// `ALTER TYPE ... ADD` / `RENAME`.
pub(crate) fn alter_type(
    current: &Catalog,
    stmt: &AlterType,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<SchemaChangePlan>> {
    let type_name = match stmt {
        AlterType::Add { name, .. } | AlterType::Rename { name, .. } => name,
    };
    let ks_name = keyspace_of(type_name, session_keyspace)?;
    let name = &type_name.name.name;
    let existing = current
        .keyspaces
        .get(&ks_name)
        .and_then(|ks| ks.types.get(name))
        .ok_or_else(|| UserTypeError::UnknownType {
            keyspace: ks_name.clone(),
            name: name.clone(),
        })?;
    let ks = keyspace(current, &ks_name, SchemaPermission::Alter)?;
    let mut def = UserTypeDef::clone(existing);
    match stmt {
        AlterType::Add { field, ty, .. } => add_field(ks, &mut def, field, ty)?,
        AlterType::Rename { renames, .. } => rename_fields(&mut def, renames)?,
    }
    let tables = tables_using(ks, &def);
    Ok(Some(put_type(
        current,
        def,
        tables,
        SchemaChangeType::Updated,
    )))
}

/// `ALTER TYPE ... ADD field ty`: a new field, neither existing, nor of the type itself,
/// nor in a type some table's partition key holds.
fn add_field(
    ks: &KeyspaceDef,
    def: &mut UserTypeDef,
    field: &Ident,
    ty: &CqlType,
) -> CqlResult<()> {
    let (ks_name, name) = (&def.keyspace, &def.name);
    if def.fields.iter().any(|(n, _)| *n == field.name) {
        return Err(UserTypeError::FieldExists {
            field: field.name.clone(),
            keyspace: ks_name.clone(),
            name: name.clone(),
        }
        .into());
    }
    let scope = TypeScope {
        keyspace: ks_name,
        types: &ks.types,
    };
    let resolved = field_type(ty, scope)?;
    if references_type(&resolved, ks_name, name) {
        return Err(UserTypeError::CircularField {
            field: field.name.clone(),
            ty: Box::new(ty.clone()),
            keyspace: ks_name.clone(),
            name: name.clone(),
        }
        .into());
    }
    let in_partition_key: Vec<String> = ks
        .tables
        .values()
        // Cassandra looks at tables only: a view keyed by the type does not block it.
        .filter(|t| {
            t.view.is_none()
                && t.partition_key_columns()
                    .any(|c| references_type(&c.ty, ks_name, name))
        })
        .map(|t| format!("{}.{}", t.keyspace, t.name))
        .collect();
    if !in_partition_key.is_empty() {
        return Err(UserTypeError::UsedInPartitionKey {
            field: field.name.clone(),
            ty: Box::new(ty.clone()),
            keyspace: ks_name.clone(),
            name: name.clone(),
            tables: in_partition_key,
        }
        .into());
    }
    def.fields.push((field.name.clone(), resolved));
    Ok(())
}

/// `ALTER TYPE ... RENAME a TO b [AND ...]`: existing fields, no two alike afterwards.
fn rename_fields(def: &mut UserTypeDef, renames: &[(Ident, Ident)]) -> CqlResult<()> {
    for (from, to) in renames {
        let Some(slot) = def.fields.iter_mut().find(|(n, _)| *n == from.name) else {
            return Err(UserTypeError::UnknownField {
                field: from.name.clone(),
                keyspace: def.keyspace.clone(),
                name: def.name.clone(),
            }
            .into());
        };
        slot.0 = to.name.clone();
    }
    let mut seen = HashSet::new();
    if let Some((dup, _)) = def.fields.iter().find(|(n, _)| !seen.insert(n.as_str())) {
        return Err(UserTypeError::DuplicateFieldAfterRename {
            field: dup.clone(),
            keyspace: def.keyspace.clone(),
            name: def.name.clone(),
        }
        .into());
    }
    Ok(())
}

/// Every table of `ks` using the type, rewritten to see its new definition `def`.
fn tables_using(ks: &KeyspaceDef, def: &UserTypeDef) -> Vec<Arc<storage::TableDef>> {
    let mut tables = Vec::new();
    for table in ks.tables.values() {
        if table
            .columns
            .iter()
            .any(|c| references_type(&c.ty, &def.keyspace, &def.name))
        {
            let mut new = storage::TableDef::clone(table);
            for column in &mut new.columns {
                column.ty = replace_type(&column.ty, def);
            }
            tables.push(Arc::new(new));
        }
    }
    tables
}

fn put_type(
    current: &Catalog,
    def: UserTypeDef,
    tables: Vec<Arc<storage::TableDef>>,
    change: SchemaChangeType,
) -> SchemaChangePlan {
    let def = Arc::new(def);
    let mut catalog = current.clone();
    let mut ops = vec![CatalogOp::PutType(def.clone())];
    if let Some(ks) = catalog.keyspaces.get_mut(&def.keyspace) {
        // Other types nesting this one see the new definition too.
        for other in ks.types.values_mut() {
            if other.name != def.name
                && other
                    .fields
                    .iter()
                    .any(|(_, t)| references_type(t, &def.keyspace, &def.name))
            {
                let mut updated = UserTypeDef::clone(other);
                for (_, t) in &mut updated.fields {
                    *t = replace_type(t, &def);
                }
                *other = Arc::new(updated);
                ops.push(CatalogOp::PutType(other.clone()));
            }
        }
        ks.types.insert(def.name.clone(), def.clone());
        for table in &tables {
            ks.tables.insert(table.name.clone(), table.clone());
            ops.push(CatalogOp::PutTable(table.clone()));
        }
    }
    // Key layouts of views may hold the type: the writer gets them anew.
    ops.extend(refresh_views(&catalog, &tables));
    SchemaChangePlan::new(ops, catalog, type_event(change, &def.keyspace, &def.name))
}

/// `DROP TYPE`.
pub(crate) fn drop_type(
    current: &Catalog,
    name: &QualifiedName,
    if_exists: bool,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<SchemaChangePlan>> {
    let ks_name = keyspace_of(name, session_keyspace)?;
    let type_name = &name.name.name;
    let Some(ks) = current
        .keyspaces
        .get(&ks_name)
        .filter(|ks| ks.types.contains_key(type_name))
    else {
        if if_exists {
            return Ok(None);
        }
        return Err(UserTypeError::UnknownTypeToDrop {
            keyspace: ks_name,
            name: type_name.clone(),
        }
        .into());
    };
    keyspace(current, &ks_name, SchemaPermission::Drop)?;
    check_unused(ks, &ks_name, type_name)?;
    let mut catalog = current.clone();
    if let Some(ks) = catalog.keyspaces.get_mut(&ks_name) {
        ks.types.remove(type_name);
    }
    let op = CatalogOp::DropType {
        keyspace: ks_name.clone(),
        name: type_name.clone(),
    };
    let event = type_event(SchemaChangeType::Dropped, &ks_name, type_name);
    Ok(Some(SchemaChangePlan::new(vec![op], catalog, event)))
}

/// Cassandra's refusal to drop a type other types or tables of its keyspace still use.
fn check_unused(ks: &KeyspaceDef, ks_name: &str, type_name: &str) -> CqlResult<()> {
    let users: Vec<String> = ks
        .types
        .values()
        .filter(|t| {
            t.name != *type_name
                && t.fields
                    .iter()
                    .any(|(_, f)| references_type(f, ks_name, type_name))
        })
        .map(|t| t.name.clone())
        .collect();
    if !users.is_empty() {
        return Err(UserTypeError::UsedByTypes {
            keyspace: ks_name.to_string(),
            name: type_name.to_string(),
            types: users,
        }
        .into());
    }
    let tables: Vec<String> = ks
        .tables
        .values()
        .filter(|t| {
            t.columns
                .iter()
                .any(|c| references_type(&c.ty, ks_name, type_name))
        })
        .map(|t| t.name.clone())
        .collect();
    if !tables.is_empty() {
        return Err(UserTypeError::UsedByTables {
            keyspace: ks_name.to_string(),
            name: type_name.to_string(),
            tables,
        }
        .into());
    }
    Ok(())
}
