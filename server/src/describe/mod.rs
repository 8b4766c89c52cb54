//! Server-side `DESCRIBE` (Cassandra 4.0+, `DescribeStatement`): listings return
//! `keyspace_name, type, name`; element descriptions add `create_statement`, whose text is
//! CQL that creates the object again.

pub(crate) mod internals;
pub(crate) mod table;
pub(crate) mod text;
pub(crate) mod view;

use bytes::Bytes;
use cql::frame::response::{ColumnSpec, ResultBody, ResultMetadata, Rows};
use cql::statement::ast::{Describe, DescribeTarget, Ident, QualifiedName};
use cql::types::{maybe_quote, ColumnType};
use storage::{KeyspaceDef, TableDef};

use crate::describe::text::{quoted_map, type_text, Element};
use crate::error::{CqlResult, DescribeError};
use crate::schema::system_keyspaces::VIRTUAL_KEYSPACES;
use crate::schema::Schema;

/// Runs a DESCRIBE.
pub(crate) fn execute(
    schema: &Schema,
    describe: &Describe,
    session_keyspace: Option<&str>,
) -> CqlResult<ResultBody> {
    let scope = Scope {
        schema,
        session_keyspace,
        internals: describe.with_internals,
    };
    let listed = |elements| Ok(rows(elements, false));
    let described = |elements| Ok(rows(elements, true));
    match &describe.target {
        DescribeTarget::Cluster => Ok(cluster()),
        DescribeTarget::Keyspaces => listed(scope.keyspace_listing()),
        DescribeTarget::Tables => listed(scope.table_listing()?),
        DescribeTarget::Types => listed(scope.type_listing()?),
        DescribeTarget::Functions | DescribeTarget::Aggregates => listed(Vec::new()),
        DescribeTarget::Schema { full } => described(scope.schema_elements(*full)),
        DescribeTarget::Keyspace { name, only } => described(scope.keyspace(name.as_ref(), *only)?),
        DescribeTarget::Table(name) => described(scope.table(name)?),
        DescribeTarget::MaterializedView(name) => described(scope.view(name)?),
        DescribeTarget::Index(name) => described(scope.index(name)?),
        DescribeTarget::Name(name) => described(scope.named(name)?),
        DescribeTarget::Type(name) => described(scope.user_type(name)?),
        // No user functions or aggregates exist here (UDFs are disabled).
        DescribeTarget::Function(name) => {
            let keyspace = scope.find_keyspace(&keyspace_name(name, session_keyspace)?)?;
            Err(DescribeError::FunctionNotFound {
                name: name.name.name.clone(),
                keyspace: keyspace.name.clone(),
            }
            .into())
        }
        DescribeTarget::Aggregate(name) => {
            let keyspace = scope.find_keyspace(&keyspace_name(name, session_keyspace)?)?;
            Err(DescribeError::AggregateNotFound {
                name: name.name.name.clone(),
                keyspace: keyspace.name.clone(),
            }
            .into())
        }
    }
}

/// What a DESCRIBE looks in: the schema, the session's keyspace, and whether it shows
/// internals.
struct Scope<'a> {
    schema: &'a Schema,
    session_keyspace: Option<&'a str>,
    internals: bool,
}

impl<'a> Scope<'a> {
    fn keyspace_listing(&self) -> Vec<Element> {
        sorted_keyspaces(self.schema)
            .into_iter()
            .map(|ks| listing(&ks.name, "keyspace", &ks.name))
            .collect()
    }

    fn table_listing(&self) -> CqlResult<Vec<Element>> {
        let mut out = Vec::new();
        for ks in listed_keyspaces(self.schema, self.session_keyspace)? {
            let tables = sorted_tables(ks);
            out.extend(tables.iter().map(|t| listing(&ks.name, "table", &t.name)));
        }
        Ok(out)
    }

    fn type_listing(&self) -> CqlResult<Vec<Element>> {
        let mut out = Vec::new();
        for ks in listed_keyspaces(self.schema, self.session_keyspace)? {
            let mut types: Vec<&String> = ks.types.keys().collect();
            types.sort_by(|a, b| by_name(a, b));
            out.extend(types.into_iter().map(|t| listing(&ks.name, "type", t)));
        }
        Ok(out)
    }

    fn schema_elements(&self, full: bool) -> Vec<Element> {
        let mut out = Vec::new();
        for ks in sorted_keyspaces(self.schema) {
            if full || !crate::schema::is_system_keyspace(&ks.name) {
                out.extend(keyspace_elements(ks, false, self.internals));
            }
        }
        out
    }

    /// The keyspace named, else the session's.
    fn keyspace(&self, name: Option<&Ident>, only: bool) -> CqlResult<Vec<Element>> {
        let name = match (name, self.session_keyspace) {
            (Some(n), _) => n.name.clone(),
            (None, Some(ks)) => ks.to_string(),
            (None, None) => return Err(DescribeError::NoKeyspace.into()),
        };
        Ok(keyspace_elements(
            self.find_keyspace(&name)?,
            only,
            self.internals,
        ))
    }

    fn find_keyspace(&self, name: &str) -> CqlResult<&'a KeyspaceDef> {
        self.schema.keyspace(name).ok_or_else(|| {
            DescribeError::KeyspaceNotFound {
                keyspace: name.to_string(),
            }
            .into()
        })
    }

    fn table(&self, name: &QualifiedName) -> CqlResult<Vec<Element>> {
        let (ks, table) = find_table(self.schema, name, self.session_keyspace)?;
        let mut out = vec![table_element(ks, table, self.internals)];
        out.extend(index_elements(table));
        out.extend(crate::describe::view::view_elements(ks, table));
        Ok(out)
    }

    fn view(&self, name: &QualifiedName) -> CqlResult<Vec<Element>> {
        let ks = self.find_keyspace(&keyspace_name(name, self.session_keyspace)?)?;
        Ok(vec![crate::describe::view::find_view(ks, &name.name.name)?])
    }

    /// DESCRIBE INDEX: the keyspace must exist, then the index (5.0's `DescribeStatement
    /// .index` looks for the index's table first, hence its message).
    fn index(&self, name: &QualifiedName) -> CqlResult<Vec<Element>> {
        let ks = self.find_keyspace(&keyspace_name(name, self.session_keyspace)?)?;
        let index = &name.name.name;
        ks.tables
            .values()
            .find_map(|t| t.index(index).map(|i| vec![index_element(t, i)]))
            .ok_or_else(|| {
                DescribeError::IndexNotFound {
                    index: index.clone(),
                    keyspace: ks.name.clone(),
                }
                .into()
            })
    }

    /// A bare name: a keyspace, else a table or view, else an index, as Cassandra's generic
    /// DESCRIBE looks.
    fn named(&self, name: &QualifiedName) -> CqlResult<Vec<Element>> {
        if name.keyspace.is_none() {
            if let Some(ks) = self.schema.keyspace(&name.name.name) {
                return Ok(keyspace_elements(ks, false, self.internals));
            }
        }
        let keyspace = keyspace_name(name, self.session_keyspace)?;
        let ks = self.find_keyspace(&keyspace)?;
        match ks.tables.get(&name.name.name) {
            Some(view) if view.is_view() => Ok(vec![crate::describe::view::view_element(ks, view)]),
            Some(table) => {
                let mut out = vec![table_element(ks, table, self.internals)];
                out.extend(index_elements(table));
                Ok(out)
            }
            None => ks
                .tables
                .values()
                .find_map(|t| t.index(&name.name.name).map(|i| vec![index_element(t, i)]))
                .ok_or_else(|| {
                    DescribeError::NotFoundInKeyspace {
                        name: name.name.name.clone(),
                        keyspace,
                    }
                    .into()
                }),
        }
    }

    fn user_type(&self, name: &QualifiedName) -> CqlResult<Vec<Element>> {
        let keyspace = keyspace_name(name, self.session_keyspace)?;
        let found = self
            .schema
            .keyspace(&keyspace)
            .and_then(|ks| ks.types.get(&name.name.name));
        found.map(|t| vec![type_element(t)]).ok_or_else(|| {
            DescribeError::TypeNotFound {
                keyspace,
                name: name.name.name.clone(),
            }
            .into()
        })
    }
}

/// Cassandra's order for described elements: by name, ignoring case
/// (`SchemaElement.NAME_COMPARATOR`).
fn by_name(a: &str, b: &str) -> std::cmp::Ordering {
    a.to_lowercase().cmp(&b.to_lowercase())
}

/// Every keyspace, system ones included, in name order.
fn sorted_keyspaces(schema: &Schema) -> Vec<&KeyspaceDef> {
    let mut keyspaces: Vec<&KeyspaceDef> = schema.all_keyspaces().collect();
    keyspaces.sort_by(|a, b| by_name(&a.name, &b.name));
    keyspaces
}

/// A keyspace's tables (views apart) in name order.
fn sorted_tables(ks: &KeyspaceDef) -> Vec<&TableDef> {
    let mut tables: Vec<&TableDef> = ks
        .tables
        .values()
        .map(|t| t.as_ref())
        .filter(|t| !t.is_view())
        .collect();
    tables.sort_by(|a, b| by_name(&a.name, &b.name));
    tables
}

/// The keyspaces `DESCRIBE TABLES` and `DESCRIBE TYPES` list: the session's keyspace when
/// one is in use, else every keyspace (Cassandra's `DescribeStatement.Listing`).
fn listed_keyspaces<'a>(
    schema: &'a Schema,
    session_keyspace: Option<&str>,
) -> CqlResult<Vec<&'a KeyspaceDef>> {
    match session_keyspace {
        None => Ok(sorted_keyspaces(schema)),
        Some(name) => match schema.keyspace(name) {
            Some(ks) => Ok(vec![ks]),
            None => Err(DescribeError::KeyspaceNotFound {
                keyspace: name.to_string(),
            }
            .into()),
        },
    }
}

fn keyspace_name(name: &QualifiedName, session_keyspace: Option<&str>) -> CqlResult<String> {
    match (&name.keyspace, session_keyspace) {
        (Some(ks), _) => Ok(ks.name.clone()),
        (None, Some(ks)) => Ok(ks.to_string()),
        (None, None) => Err(DescribeError::NoKeyspace.into()),
    }
}

fn find_table<'a>(
    schema: &'a Schema,
    name: &QualifiedName,
    session_keyspace: Option<&str>,
) -> CqlResult<(&'a KeyspaceDef, &'a TableDef)> {
    let keyspace = keyspace_name(name, session_keyspace)?;
    let ks = schema
        .keyspace(&keyspace)
        .ok_or_else(|| DescribeError::KeyspaceNotFound {
            keyspace: keyspace.clone(),
        })?;
    let table = ks.tables.get(&name.name.name).filter(|t| !t.is_view());
    let table = table.ok_or_else(|| DescribeError::TableNotFound {
        keyspace,
        table: name.name.name.clone(),
    })?;
    Ok((ks, table))
}

fn listing(keyspace: &str, kind: &'static str, name: &str) -> Element {
    Element {
        keyspace: keyspace.to_string(),
        kind,
        name: name.to_string(),
        statement: None,
    }
}

fn keyspace_elements(ks: &KeyspaceDef, only: bool, internals: bool) -> Vec<Element> {
    let mut out = vec![Element {
        keyspace: ks.name.clone(),
        kind: "keyspace",
        name: ks.name.clone(),
        statement: Some(create_keyspace(ks)),
    }];
    if !only {
        out.extend(types_in_dependency_order(ks).into_iter().map(type_element));
        for t in sorted_tables(ks) {
            out.push(table_element(ks, t, internals));
            out.extend(index_elements(t));
            out.extend(crate::describe::view::view_elements(ks, t));
        }
    }
    out
}

/// The keyspace's types, each after the types its fields use (so the output replays).
fn types_in_dependency_order(ks: &KeyspaceDef) -> Vec<&storage::UserTypeDef> {
    let mut out: Vec<&storage::UserTypeDef> = Vec::new();
    let mut pending: Vec<&storage::UserTypeDef> = ks.types.values().map(|t| t.as_ref()).collect();
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|t| {
            let ready = pending_free(t, &out, ks);
            if ready {
                out.push(t);
            }
            !ready
        });
        if pending.len() == before {
            out.append(&mut pending);
        }
    }
    out
}

/// Whether every type `t` uses is already in `done`.
fn pending_free(
    t: &storage::UserTypeDef,
    done: &[&storage::UserTypeDef],
    ks: &KeyspaceDef,
) -> bool {
    ks.types.values().all(|other| {
        other.name == t.name
            || !t
                .fields
                .iter()
                .any(|(_, f)| storage::references_type(f, &ks.name, &other.name))
            || done.iter().any(|d| d.name == other.name)
    })
}

fn type_element(t: &storage::UserTypeDef) -> Element {
    let fields: Vec<String> = t
        .fields
        .iter()
        .map(|(name, ty)| format!("    {} {}", maybe_quote(name), type_text(ty)))
        .collect();
    Element {
        keyspace: t.keyspace.clone(),
        kind: "type",
        name: t.name.clone(),
        statement: Some(format!(
            "CREATE TYPE {}.{} (\n{}\n);",
            maybe_quote(&t.keyspace),
            maybe_quote(&t.name),
            fields.join(",\n")
        )),
    }
}

fn table_element(ks: &KeyspaceDef, table: &TableDef, internals: bool) -> Element {
    Element {
        keyspace: ks.name.clone(),
        kind: "table",
        name: table.name.clone(),
        statement: Some(create_table_with(ks, table, internals)),
    }
}

/// The indexes of `table`, each as its `CREATE INDEX` statement (Cassandra's
/// `IndexMetadata.toCqlString`).
fn index_elements(table: &TableDef) -> Vec<Element> {
    table
        .indexes
        .iter()
        .map(|index| index_element(table, index))
        .collect()
}

fn index_element(table: &TableDef, index: &storage::IndexDef) -> Element {
    let target = table
        .column_by_id(index.column)
        .map(|c| index.target_text(c))
        .unwrap_or_default();
    let on = format!(
        "{}.{}",
        cql::types::maybe_quote(&table.keyspace),
        cql::types::maybe_quote(&table.name)
    );
    let name = cql::types::maybe_quote(&index.name);
    let statement = match &index.custom_class {
        None => format!("CREATE INDEX {name} ON {on} ({target});"),
        Some(class) => {
            let mut text = format!("CREATE CUSTOM INDEX {name} ON {on} ({target}) USING '{class}'");
            let options: Vec<(&String, &String)> = index
                .options
                .iter()
                .filter(|(k, _)| k.as_str() != "class_name" && k.as_str() != "target")
                .collect();
            if !options.is_empty() {
                text.push_str(" WITH OPTIONS = ");
                text.push_str(&quoted_map(options));
            }
            text.push(';');
            text
        }
    };
    Element {
        keyspace: table.keyspace.clone(),
        kind: "index",
        name: index.name.clone(),
        statement: Some(statement),
    }
}

/// `CREATE KEYSPACE` text as `KeyspaceMetadata.toCqlString` writes it.
pub(crate) fn create_keyspace(ks: &KeyspaceDef) -> String {
    if VIRTUAL_KEYSPACES.contains(&ks.name.as_str()) {
        let name = maybe_quote(&ks.name);
        return format!(
            "/*\nWarning: Keyspace {name} is a virtual keyspace and cannot be recreated with CQL.\n\
             Structure, for reference:\nVIRTUAL KEYSPACE {name};\n*/"
        );
    }
    format!(
        "CREATE KEYSPACE {} WITH replication = {}  AND durable_writes = {};",
        maybe_quote(&ks.name),
        quoted_map(&ks.replication),
        ks.durable_writes
    )
}

pub(crate) use crate::describe::table::create_table_with;

fn text_bytes(s: &str) -> Option<Bytes> {
    Some(Bytes::copy_from_slice(s.as_bytes()))
}

fn spec(name: &str) -> ColumnSpec {
    ColumnSpec {
        keyspace: "system".into(),
        table: "describe".into(),
        name: name.into(),
        ty: ColumnType::Text,
    }
}

fn rows(elements: Vec<Element>, with_statement: bool) -> ResultBody {
    let mut columns = vec![spec("keyspace_name"), spec("type"), spec("name")];
    if with_statement {
        columns.push(spec("create_statement"));
    }
    let rows = elements
        .into_iter()
        .map(|e| {
            // Names as CQL writes them (`DescribeStatement`'s `...QuotedIfNeeded`).
            let mut row = vec![
                text_bytes(&maybe_quote(&e.keyspace)),
                text_bytes(e.kind),
                text_bytes(&maybe_quote(&e.name)),
            ];
            if with_statement {
                row.push(e.statement.as_deref().and_then(text_bytes));
            }
            row
        })
        .collect();
    ResultBody::Rows(Rows {
        metadata: ResultMetadata::describing(columns.into()),
        rows,
    })
}

fn cluster() -> ResultBody {
    let columns = vec![spec("cluster"), spec("partitioner"), spec("snitch")];
    let row = vec![
        text_bytes("Test Cluster"),
        text_bytes("Murmur3Partitioner"),
        text_bytes("SimpleSnitch"),
    ];
    ResultBody::Rows(Rows {
        metadata: ResultMetadata::describing(columns.into()),
        rows: vec![row],
    })
}
