//! The permissions each statement needs, on which resources, as each of Cassandra's
//! statements `authorize`s itself: reads and writes on their table (a view is read through
//! its base table; a write to a base table with views also reads it and writes each view; a
//! conditional write also reads), schema changes on the keyspace or table they change (a
//! view's or an index's on its base table). Role and permission statements check their own.

use cql::statement::ast::{AlterType, QualifiedName, Statement};
use storage::Catalog;

use crate::error::CqlResult;
use crate::planner::access::resource::Resource;
use crate::planner::keyspace_of;

/// What a statement needs: a permission on a resource, in the order Cassandra checks them.
pub(crate) type Needed = Vec<(&'static str, Resource)>;

fn table(name: &QualifiedName, keyspace: Option<&str>) -> CqlResult<Resource> {
    Ok(Resource::Table(
        keyspace_of(name, keyspace)?,
        name.name.name.clone(),
    ))
}

/// The base table of `resource` when it names a view of `catalog`.
fn base_of(catalog: &Catalog, resource: &Resource) -> Option<Resource> {
    let Resource::Table(ks, name) = resource else {
        return None;
    };
    let view = catalog.table(ks, name)?.view.as_ref()?;
    Some(Resource::Table(ks.clone(), view.base_name.clone()))
}

/// `SelectStatement.authorize`: SELECT on the table, or on a view's base table.
fn select(catalog: &Catalog, resource: Resource) -> Needed {
    vec![("SELECT", base_of(catalog, &resource).unwrap_or(resource))]
}

/// `ModificationStatement.authorize`: MODIFY on the table; SELECT too when conditional; and
/// for a table with views, SELECT on it and MODIFY on each view.
fn modify(catalog: &Catalog, resource: Resource, conditional: bool) -> Needed {
    let mut needed = vec![("MODIFY", resource.clone())];
    if conditional {
        needed.push(("SELECT", resource.clone()));
    }
    let Resource::Table(ks, name) = &resource else {
        return needed;
    };
    let Some(def) = catalog.table(ks, name) else {
        return needed;
    };
    let views = catalog.views_of(def.id);
    if !views.is_empty() {
        needed.push(("SELECT", resource.clone()));
        for view in views {
            needed.push(("MODIFY", Resource::Table(ks.clone(), view.name.clone())));
        }
    }
    needed
}

/// ALTER on the base table of the view `name`, when it exists (`DropViewStatement`,
/// `AlterViewStatement`).
fn alter_view(catalog: &Catalog, name: &QualifiedName, keyspace: Option<&str>) -> Needed {
    let Ok(view) = table(name, keyspace) else {
        return Vec::new();
    };
    base_of(catalog, &view)
        .map(|base| vec![("ALTER", base)])
        .unwrap_or_default()
}

/// ALTER on the table the index `name` is on, when it exists (`DropIndexStatement`).
fn drop_index(catalog: &Catalog, name: &QualifiedName, keyspace: Option<&str>) -> Needed {
    let Ok(ks) = keyspace_of(name, keyspace) else {
        return Vec::new();
    };
    let Some(def) = catalog.keyspaces.get(&ks) else {
        return Vec::new();
    };
    def.tables
        .values()
        .find(|t| t.indexes.iter().any(|i| i.name == name.name.name))
        .map(|t| vec![("ALTER", Resource::Table(ks.clone(), t.name.clone()))])
        .unwrap_or_default()
}

/// The permissions `statement` needs against `catalog` (the current schema), names resolved
/// in `keyspace`.
///
/// # Errors
/// A table named without a keyspace and no keyspace in use.
pub(crate) fn required(
    catalog: &Catalog,
    statement: &Statement,
    keyspace: Option<&str>,
) -> CqlResult<Needed> {
    let keyspace_resource = |name: &QualifiedName| -> CqlResult<Resource> {
        Ok(Resource::Keyspace(keyspace_of(name, keyspace)?))
    };
    Ok(match statement {
        Statement::Select(s) => select(catalog, table(&s.table, keyspace)?),
        Statement::Insert(s) => modify(catalog, table(&s.table, keyspace)?, s.if_not_exists),
        Statement::Update(s) => modify(catalog, table(&s.table, keyspace)?, s.condition.is_some()),
        Statement::Delete(s) => modify(catalog, table(&s.table, keyspace)?, s.condition.is_some()),
        Statement::Truncate(name) => vec![("MODIFY", table(name, keyspace)?)],
        Statement::Explain(explain) => required(catalog, &explain.statement, keyspace)?,
        Statement::Batch(batch) => {
            let mut out = Vec::new();
            for inner in &batch.statements {
                out.extend(required(catalog, inner, keyspace)?);
            }
            out
        }
        Statement::CreateKeyspace(_) => vec![("CREATE", Resource::AllKeyspaces)],
        Statement::AlterKeyspace(s) => vec![("ALTER", Resource::Keyspace(s.name.name.clone()))],
        Statement::DropKeyspace { name, .. } => {
            vec![("DROP", Resource::Keyspace(name.name.clone()))]
        }
        Statement::CreateTable(s) => vec![("CREATE", keyspace_resource(&s.name)?)],
        Statement::AlterTable(s) => vec![("ALTER", table(&s.name, keyspace)?)],
        Statement::DropTable { name, .. } => vec![("DROP", table(name, keyspace)?)],
        Statement::CreateIndex(s) => vec![("ALTER", table(&s.table, keyspace)?)],
        Statement::CreateView(s) => vec![("ALTER", table(&s.base, keyspace)?)],
        Statement::AlterView { name, .. } | Statement::DropView { name, .. } => {
            alter_view(catalog, name, keyspace)
        }
        Statement::DropIndex { name, .. } => drop_index(catalog, name, keyspace),
        Statement::CreateType(s) => vec![("CREATE", keyspace_resource(&s.name)?)],
        Statement::AlterType(AlterType::Add { name, .. } | AlterType::Rename { name, .. }) => {
            vec![("ALTER", keyspace_resource(name)?)]
        }
        Statement::DropType { name, .. } => vec![("DROP", keyspace_resource(name)?)],
        Statement::Disabled(_)
        | Statement::Use(_)
        | Statement::Describe(_)
        | Statement::Role(_)
        | Statement::Permission(_) => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needed(catalog: &Catalog, cql: &str) -> Vec<(String, String)> {
        let statement = cql::statement::parse_statement(cql).expect("parses");
        required(catalog, &statement, Some("ks"))
            .expect("resolves")
            .into_iter()
            .map(|(p, r)| (p.to_string(), r.to_string()))
            .collect()
    }

    #[test]
    fn plain_statements_need_their_table_or_keyspace() {
        let catalog = Catalog::default();
        let pair = |p: &str, r: &str| (p.to_string(), r.to_string());
        assert_eq!(
            needed(&catalog, "SELECT * FROM t"),
            [pair("SELECT", "<table ks.t>")]
        );
        assert_eq!(
            needed(&catalog, "UPDATE t SET v = 1 WHERE k = 0 IF v = 2"),
            [
                pair("MODIFY", "<table ks.t>"),
                pair("SELECT", "<table ks.t>")
            ]
        );
        assert_eq!(
            needed(&catalog, "CREATE TABLE t2 (k int PRIMARY KEY)"),
            [pair("CREATE", "<keyspace ks>")]
        );
        // An unknown view or index needs nothing here: the statement itself says it is
        // unknown.
        assert_eq!(needed(&catalog, "DROP MATERIALIZED VIEW v"), []);
        assert_eq!(needed(&catalog, "DROP INDEX i"), []);
    }
}
