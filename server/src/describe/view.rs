//! `DESCRIBE` of materialized views: `CREATE MATERIALIZED VIEW` text as Cassandra 5.0's
//! `ViewMetadata.appendCqlTo` writes it, listed after their base table.

use cql::types::maybe_quote;
use storage::{KeyspaceDef, TableDef};

use crate::describe::text::{table_options, Element};
use crate::error::{CqlResult, DescribeError};

/// The views of `base`, each as its element.
pub(crate) fn view_elements(ks: &KeyspaceDef, base: &TableDef) -> Vec<Element> {
    ks.tables
        .values()
        .filter(|t| t.view.as_ref().is_some_and(|v| v.base_id == base.id))
        .map(|view| view_element(ks, view))
        .collect()
}

/// The view `name` of `ks`, or Cassandra's message.
pub(crate) fn find_view(ks: &KeyspaceDef, name: &str) -> CqlResult<Element> {
    match ks.tables.get(name).filter(|t| t.is_view()) {
        Some(view) => Ok(view_element(ks, view)),
        None => Err(DescribeError::ViewNotFound {
            keyspace: ks.name.clone(),
            view: name.to_string(),
        }
        .into()),
    }
}

/// One view as a DESCRIBE element.
pub(crate) fn view_element(ks: &KeyspaceDef, view: &TableDef) -> Element {
    Element {
        keyspace: ks.name.clone(),
        kind: "materialized_view",
        name: view.name.clone(),
        statement: Some(create_view(view)),
    }
}

/// `CREATE MATERIALIZED VIEW ks.v AS SELECT ... FROM ks.t WHERE ... PRIMARY KEY (...) WITH
/// ...;`
pub(crate) fn create_view(view: &TableDef) -> String {
    let Some(def) = &view.view else {
        return String::new();
    };
    let keyspace = maybe_quote(&view.keyspace);
    let selection = if def.include_all_columns {
        "*".to_string()
    } else {
        let names: Vec<String> = view.columns.iter().map(|c| maybe_quote(&c.name)).collect();
        names.join(", ")
    };
    let names = |idx: &[usize]| -> Vec<String> {
        idx.iter()
            .map(|&i| maybe_quote(&view.columns[i].name))
            .collect()
    };
    let pk = names(&view.partition_key);
    let mut key = vec![if pk.len() == 1 {
        pk[0].clone()
    } else {
        format!("({})", pk.join(", "))
    }];
    key.extend(names(&view.clustering_key));
    format!(
        "CREATE MATERIALIZED VIEW {keyspace}.{} AS\n    SELECT {selection}\n    FROM {keyspace}.{}\n    WHERE {}\n    PRIMARY KEY ({})\n WITH {};",
        maybe_quote(&view.name),
        maybe_quote(&def.base_name),
        def.where_clause,
        key.join(", "),
        table_options(view).join("\n    AND ")
    )
}
