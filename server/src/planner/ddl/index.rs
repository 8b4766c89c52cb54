//! `CREATE [CUSTOM] INDEX` and `DROP INDEX`: validation with Cassandra's messages
//! (`CreateIndexStatement`, `IndexTarget`, `DropIndexStatement`), default names, and the
//! table change that carries the index (storage builds or deletes its entries in the same
//! transaction). Both answer `SCHEMA_CHANGE UPDATED TABLE`, as Cassandra does.

use std::collections::BTreeMap;

use cql::frame::response::SchemaChangeType;
use cql::statement::ast::{CreateIndex, Ident, IndexTarget, QualifiedName};
use cql::types::{maybe_quote, ColumnType};
use storage::{Catalog, ColumnDef, ColumnKind, IndexDef, IndexTargetKind, KeyspaceDef, TableDef};
use uuid::Uuid;

use crate::error::{CqlResult, DdlError, IndexError, OptionsError, SchemaError};
use crate::planner::ddl::change::{put_table, SchemaChangePlan};
use crate::planner::ddl::sai_options;
use crate::planner::ddl::system_guard::{check as guard, SchemaPermission, SchemaResource};
use crate::planner::{column_index, keyspace_of};

/// The SASI class, disabled by default in Cassandra 5.
const SASI_CLASS: &str = "org.apache.cassandra.index.sasi.sasiindex";

/// Plans `CREATE INDEX`; `None` when `IF NOT EXISTS` makes it a no-op.
pub(crate) fn create_index(
    current: &Catalog,
    stmt: &CreateIndex,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<SchemaChangePlan>> {
    let stmt = &builtin_named(stmt);
    let keyspace = keyspace_of(&stmt.table, session_keyspace)?;
    let resource = SchemaResource::Table(keyspace.clone(), stmt.table.name.name.clone());
    guard(SchemaPermission::Alter, &resource)?;
    if let Some(class) = &stmt.custom_class {
        if class.eq_ignore_ascii_case(SASI_CLASS) {
            return Err(IndexError::SasiDisabled.into());
        }
    }
    let (ks, table) = indexed_table(current, keyspace, stmt)?;
    if named_index_exists(ks, stmt)? {
        return Ok(None);
    }
    let (index, column) = new_index(ks, table, stmt)?;
    if let Some(equal) = duplicate_of(table, &index) {
        if stmt.if_not_exists {
            return Ok(None);
        }
        return Err(IndexError::DuplicateIndex {
            index: index.name,
            existing: equal.name.clone(),
        }
        .into());
    }
    let mut warnings = Vec::new();
    if index.custom_class.is_some() {
        warnings = validate_sai(table, &index, &table.columns[column])?;
    }
    let mut def = TableDef::clone(table);
    def.indexes.push(index);
    let mut plan = put_table(current, def, SchemaChangeType::Updated);
    plan.warnings = warnings;
    Ok(Some(plan))
}

/// The keyspace and table the index is on, with Cassandra's messages when either is unknown.
fn indexed_table<'c>(
    current: &'c Catalog,
    keyspace: String,
    stmt: &CreateIndex,
) -> CqlResult<(&'c KeyspaceDef, &'c TableDef)> {
    let Some(ks) = current.keyspaces.get(&keyspace) else {
        return Err(SchemaError::UnknownKeyspace { keyspace }.into());
    };
    let table_name = &stmt.table.name.name;
    let Some(table) = ks.tables.get(table_name) else {
        return Err(DdlError::TriggerTableNotFound {
            table: table_name.clone(),
        }
        .into());
    };
    Ok((ks, table))
}

/// Whether an index of the statement's name exists already and `IF NOT EXISTS` makes the
/// statement a no-op; without `IF NOT EXISTS`, Cassandra's error.
fn named_index_exists(ks: &KeyspaceDef, stmt: &CreateIndex) -> CqlResult<bool> {
    let Some(name) = &stmt.name else {
        return Ok(false);
    };
    if !has_index(ks, &name.name) {
        return Ok(false);
    }
    if stmt.if_not_exists {
        return Ok(true);
    }
    Err(IndexError::IndexExists {
        index: name.name.clone(),
    }
    .into())
}

/// The index the statement defines (its target checked, its name given or the default),
/// with the position of its column in the table.
fn new_index(
    ks: &KeyspaceDef,
    table: &TableDef,
    stmt: &CreateIndex,
) -> CqlResult<(IndexDef, usize)> {
    check_indexable(table)?;
    let (column, kind) = single_target(table, stmt)?;
    let column_def = &table.columns[column];
    validate_target(table, column_def, kind)?;
    if let Some(class) = &stmt.custom_class {
        if !sai_options::is_sai_class(class) {
            return Err(OptionsError::UnknownIndexClass {
                class: class.clone(),
            }
            .into());
        }
    }
    let name = match &stmt.name {
        Some(name) => name.name.clone(),
        None => available_name(ks, &default_name(&table.name, &column_def.name)),
    };
    let mut options: BTreeMap<String, String> = stmt.options.iter().cloned().collect();
    if let Some(class) = &stmt.custom_class {
        options.insert("class_name".into(), class.clone());
    }
    let index = IndexDef {
        id: Uuid::new_v4(),
        name,
        column: column_def.id,
        target: kind,
        custom_class: stmt.custom_class.clone(),
        options,
    };
    Ok((index, column))
}

/// The statement with `USING 'legacy_local_table'`, which names the built-in secondary
/// index, read as no class at all.
fn builtin_named(stmt: &CreateIndex) -> std::borrow::Cow<'_, CreateIndex> {
    let legacy = stmt
        .custom_class
        .as_deref()
        .is_some_and(|c| c.eq_ignore_ascii_case("legacy_local_table"));
    if !legacy {
        return std::borrow::Cow::Borrowed(stmt);
    }
    std::borrow::Cow::Owned(CreateIndex {
        custom_class: None,
        ..stmt.clone()
    })
}

/// An index of the table equal to `index` but for its name.
fn duplicate_of<'t>(table: &'t TableDef, index: &IndexDef) -> Option<&'t IndexDef> {
    table.indexes.iter().find(|i| {
        i.column == index.column
            && i.target == index.target
            && i.custom_class == index.custom_class
            && i.options == index.options
    })
}

/// Tables that cannot be indexed: counter tables and materialized views.
fn check_indexable(table: &TableDef) -> CqlResult<()> {
    if table.is_counter_table() {
        return Err(IndexError::CounterTable.into());
    }
    if table.is_view() {
        return Err(IndexError::MaterializedView.into());
    }
    Ok(())
}

/// The one column (and what of it) the index targets; CUSTOM or not, indexes here take
/// exactly one target, with Cassandra's messages for none and several.
fn single_target(table: &TableDef, stmt: &CreateIndex) -> CqlResult<(usize, IndexTargetKind)> {
    let targets = stmt
        .targets
        .iter()
        .map(|t| prepare_target(table, t))
        .collect::<CqlResult<Vec<_>>>()?;
    let custom = stmt.custom_class.is_some();
    match targets.as_slice() {
        [] if custom => Err(IndexError::CustomWithoutTarget.into()),
        [] => Err(IndexError::NoTarget.into()),
        [one] => Ok(*one),
        _ if !custom => Err(IndexError::MultipleTargets.into()),
        _ => Err(IndexError::CustomMultipleTargets {
            targets: stmt.targets.iter().map(target_cql).collect(),
        }
        .into()),
    }
}

/// A target as 5.0's `IndexTarget.asCqlString` writes it into the index's `target` option:
/// the column (quoted where CQL needs it), wrapped in its lower-case kind.
fn target_cql(target: &IndexTarget) -> String {
    let (kind, column) = match target {
        IndexTarget::Simple(c) => return maybe_quote(&c.name),
        IndexTarget::Keys(c) => ("keys", c),
        IndexTarget::Values(c) => ("values", c),
        IndexTarget::Entries(c) => ("entries", c),
        IndexTarget::Full(c) => ("full", c),
    };
    format!("{kind}({})", maybe_quote(&column.name))
}

/// `StorageAttachedIndex.validateOptions`, in its order; the warnings to send: 5.0's usage
/// warning for a vector index.
fn validate_sai(
    table: &TableDef,
    index: &IndexDef,
    column_def: &ColumnDef,
) -> CqlResult<Vec<String>> {
    sai_options::check_known(&index.options)?;
    check_one_sai_per_target(table, index, &column_def.name)?;
    sai_options::validate(&index.name, column_def, index.target, &index.options)?;
    if matches!(column_def.ty, ColumnType::Vector { .. }) {
        return Ok(vec![sai_options::VECTOR_USAGE_WARNING.into()]);
    }
    Ok(Vec::new())
}

/// Cassandra 5.0 allows one storage-attached index per column and target.
fn check_one_sai_per_target(table: &TableDef, index: &IndexDef, column: &str) -> CqlResult<()> {
    let is_sai = |i: &IndexDef| i.custom_class.is_some();
    let same = |i: &&IndexDef| is_sai(i) && i.column == index.column && i.target == index.target;
    if is_sai(index) && table.indexes.iter().any(|i| same(&i)) {
        return Err(IndexError::SecondSaiOnColumn {
            column: column.to_string(),
        }
        .into());
    }
    Ok(())
}

/// Plans `DROP INDEX`; `None` when `IF EXISTS` makes it a no-op.
pub(crate) fn drop_index(
    current: &Catalog,
    name: &QualifiedName,
    if_exists: bool,
    session_keyspace: Option<&str>,
) -> CqlResult<Option<SchemaChangePlan>> {
    let keyspace = keyspace_of(name, session_keyspace)?;
    let index = &name.name.name;
    let table = current
        .keyspaces
        .get(&keyspace)
        .and_then(|ks| ks.tables.values().find(|t| t.index(index).is_some()));
    let Some(table) = table else {
        if if_exists {
            return Ok(None);
        }
        return Err(IndexError::UnknownIndex {
            keyspace,
            index: index.clone(),
        }
        .into());
    };
    let mut def = TableDef::clone(table);
    def.indexes.retain(|i| &i.name != index);
    Ok(Some(put_table(current, def, SchemaChangeType::Updated)))
}

/// Cassandra's refusal to drop a column that an index depends on.
pub(crate) fn check_no_dependent_indexes(table: &TableDef, column: &ColumnDef) -> CqlResult<()> {
    let indexes: Vec<String> = table
        .indexes
        .iter()
        .filter(|i| i.column == column.id)
        .map(|i| i.name.clone())
        .collect();
    if indexes.is_empty() {
        return Ok(());
    }
    Err(IndexError::DependentIndexes {
        column: column.name.clone(),
        indexes,
    }
    .into())
}

/// Whether any table of the keyspace has an index called `name`.
fn has_index(ks: &KeyspaceDef, name: &str) -> bool {
    ks.tables.values().any(|t| t.index(name).is_some())
}

/// The column and target kind of one index target (`IndexTarget.Raw.prepare`: a simple
/// target on a collection means its values).
fn prepare_target(table: &TableDef, target: &IndexTarget) -> CqlResult<(usize, IndexTargetKind)> {
    let (ident, kind): (&Ident, IndexTargetKind) = match target {
        IndexTarget::Simple(c) => (c, IndexTargetKind::Simple),
        IndexTarget::Keys(c) => (c, IndexTargetKind::Keys),
        IndexTarget::Values(c) => (c, IndexTargetKind::Values),
        IndexTarget::Entries(c) => (c, IndexTargetKind::Entries),
        IndexTarget::Full(c) => (c, IndexTargetKind::Full),
    };
    let column = column_index(table, ident)?;
    let is_collection = matches!(
        table.columns[column].ty,
        ColumnType::List { .. } | ColumnType::Set { .. } | ColumnType::Map { .. }
    );
    let kind = match kind {
        IndexTargetKind::Simple if is_collection => IndexTargetKind::Values,
        other => other,
    };
    Ok((column, kind))
}

/// `CreateIndexStatement.validateIndexTarget`.
fn validate_target(table: &TableDef, column: &ColumnDef, kind: IndexTargetKind) -> CqlResult<()> {
    let name = || column.name.clone();
    let ty = &column.ty;
    if references_duration(ty) {
        return Err(match ty {
            ColumnType::List { .. } | ColumnType::Set { .. } | ColumnType::Map { .. } => {
                IndexError::DurationInCollection
            }
            ColumnType::Tuple(_) => IndexError::DurationInTuple,
            ColumnType::Udt { .. } => IndexError::DurationInUdt,
            _ => IndexError::DurationColumn,
        }
        .into());
    }
    if column.kind == ColumnKind::PartitionKey && table.partition_key.len() == 1 {
        return Err(IndexError::OnlyPartitionKey { column: name() }.into());
    }
    let (is_collection, frozen_collection, multi_cell_map) = match ty {
        ColumnType::List { frozen, .. } | ColumnType::Set { frozen, .. } => (true, *frozen, false),
        ColumnType::Map { frozen, .. } => (true, *frozen, !*frozen),
        _ => (false, false, false),
    };
    if frozen_collection && kind != IndexTargetKind::Full {
        return Err(IndexError::FrozenNotFull {
            kind,
            column: name(),
        }
        .into());
    }
    if !frozen_collection && kind == IndexTargetKind::Full {
        return Err(IndexError::FullOnNonFrozen.into());
    }
    if !is_collection && kind != IndexTargetKind::Simple {
        return Err(IndexError::NonSimpleOnNonCollection {
            kind,
            column: name(),
        }
        .into());
    }
    if !multi_cell_map && matches!(kind, IndexTargetKind::Keys | IndexTargetKind::Entries) {
        return Err(IndexError::KeysOnNonMap {
            kind,
            column: name(),
        }
        .into());
    }
    if matches!(ty, ColumnType::Udt { frozen: false, .. }) {
        return Err(IndexError::NonFrozenUdt { column: name() }.into());
    }
    Ok(())
}

fn references_duration(ty: &ColumnType) -> bool {
    match ty {
        ColumnType::Duration => true,
        ColumnType::List { element, .. } | ColumnType::Set { element, .. } => {
            references_duration(element)
        }
        ColumnType::Map { key, value, .. } => {
            references_duration(key) || references_duration(value)
        }
        ColumnType::Tuple(items) => items.iter().any(references_duration),
        ColumnType::Udt { fields, .. } => fields.iter().any(|(_, t)| references_duration(t)),
        _ => false,
    }
}

/// `IndexMetadata.generateDefaultIndexName`: `<table>_<column>_idx` without non-word
/// characters.
fn default_name(table: &str, column: &str) -> String {
    format!("{table}_{column}_idx")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// `KeyspaceMetadata.findAvailableIndexName`: the base name, else `<base>_1`, `<base>_2`...
fn available_name(ks: &KeyspaceDef, base: &str) -> String {
    if !has_index(ks, base) {
        return base.to_string();
    }
    (1..)
        .map(|i| format!("{base}_{i}"))
        .find(|name| !has_index(ks, name))
        .unwrap_or_else(|| base.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_drop_non_word_characters() {
        assert_eq!(default_name("t", "v"), "t_v_idx");
        assert_eq!(default_name("t", "Odd Name"), "t_OddName_idx");
    }
}
