//! Bind-marker metadata for PREPARED results: the receiver (name and type) of every marker,
//! named as Cassandra names them (`col`, `in(col)`, `[limit]`, `[ttl]`, `[timestamp]`), and
//! the v4 partition-key indexes.

use cql::frame::response::ColumnSpec;
use cql::statement::ast::{
    Assignment, BindMarker, Delete, Ident, InValues, Insert, InsertValues, Operator, QualifiedName,
    Relation, Select, Statement, Term, Update, UsingClause,
};
use cql::types::ColumnType;
use storage::TableDef;

use crate::error::{CqlError, CqlResult, RestrictionError};
use crate::eval::functions::{term as function_term, NativeFunction};
use crate::planner::resolve_table;
use crate::planner::select::selection::plan_selection;
use crate::schema::{Schema, TableRef};

/// Marker receivers and partition-key indexes of a statement.
#[derive(Debug, Clone, Default)]
pub(crate) struct BindInfo {
    /// One spec per marker, by marker index.
    pub specs: Vec<ColumnSpec>,
    /// For each partition key column, the index of the marker giving it (empty if any is not
    /// a plain marker).
    pub pk_indexes: Vec<u16>,
}

struct Collector<'a> {
    def: &'a TableDef,
    specs: Vec<Option<ColumnSpec>>,
    /// Marker index giving each partition key column by `=`.
    pk_markers: Vec<Option<u16>>,
    /// The first error met typing a function call, reported instead of the metadata.
    error: Option<CqlError>,
}

fn marker_index(marker: &BindMarker) -> usize {
    match marker {
        BindMarker::Anonymous(i) | BindMarker::Named(_, i) => *i,
    }
}

impl Collector<'_> {
    /// A SELECT's markers: selectors, WHERE, ANN vector, limits.
    fn select(&mut self, table: &TableRef, s: &Select) -> CqlResult<()> {
        for (marker, ty) in plan_selection(table, s)?.markers() {
            self.put(&marker, "[selection]".into(), ty);
        }
        for r in &s.where_clause {
            self.relation(r);
        }
        for (column, vector, _) in &s.ann {
            if let Some(ty) = self.column_type(&column.name) {
                self.term(vector, &column.name, &ty);
            }
        }
        if let Some(Term::Bind(m)) = &s.per_partition_limit {
            self.put(m, "[per_partition_limit]".into(), ColumnType::Int);
        }
        if let Some(Term::Bind(m)) = &s.limit {
            self.put(m, "[limit]".into(), ColumnType::Int);
        }
        Ok(())
    }

    /// An INSERT's markers: values (or the JSON object) and USING.
    fn insert(&mut self, s: &Insert) {
        if let InsertValues::Json {
            json: Term::Bind(m),
            ..
        } = &s.values
        {
            self.put(m, crate::eval::json::JSON_COLUMN.into(), ColumnType::Text);
        }
        if let InsertValues::Columns { columns, values } = &s.values {
            for (col, value) in columns.iter().zip(values) {
                if let Some(ty) = self.column_type(&col.name) {
                    self.term(value, &col.name, &ty);
                    if let Term::Bind(m) = value {
                        self.note_pk(&col.name, m);
                    }
                }
            }
        }
        self.using(&s.using);
    }

    /// An UPDATE's markers: USING, assignments, WHERE, IF.
    fn update(&mut self, s: &Update) {
        self.using(&s.using);
        for a in &s.assignments {
            match a {
                Assignment::Modify {
                    column,
                    value,
                    op: cql::statement::ast::ArithOp::Sub,
                } => {
                    // Removing from a map takes a set of its keys.
                    let ty = match self.column_type(&column.name) {
                        Some(ColumnType::Map { key, .. }) => Some(ColumnType::Set {
                            element: key,
                            frozen: false,
                        }),
                        other => other,
                    };
                    if let Some(ty) = ty {
                        self.term(value, &column.name, &ty);
                    }
                }
                Assignment::Set { column, value }
                | Assignment::Modify { column, value, .. }
                | Assignment::Prepend { column, value } => {
                    if let Some(ty) = self.column_type(&column.name) {
                        self.term(value, &column.name, &ty);
                    }
                }
                Assignment::Element { column, key, value } => {
                    self.element(&column.name, key, Some(value));
                }
                Assignment::Field {
                    column,
                    field,
                    value,
                } => self.field(&column.name, &field.name, value),
            }
        }
        for r in &s.where_clause {
            self.relation(r);
        }
        self.condition(&s.condition);
    }

    /// A DELETE's markers: element keys, USING, WHERE, IF.
    fn delete(&mut self, s: &Delete) {
        for target in &s.columns {
            if let cql::statement::ast::DeleteTarget::Element(column, key) = target {
                self.element(&column.name, key, None);
            }
        }
        self.using(&s.using);
        for r in &s.where_clause {
            self.relation(r);
        }
        self.condition(&s.condition);
    }
}

impl Collector<'_> {
    fn spec(&self, name: String, ty: ColumnType) -> ColumnSpec {
        ColumnSpec {
            keyspace: self.def.keyspace.clone(),
            table: self.def.name.clone(),
            name,
            ty,
        }
    }

    fn put(&mut self, marker: &BindMarker, name: String, ty: ColumnType) {
        let name = match marker {
            BindMarker::Named(ident, _) => ident.name.clone(),
            BindMarker::Anonymous(_) => name,
        };
        self.put_index(marker_index(marker), name, ty);
    }

    /// Records the receiver of marker `i`.
    fn put_index(&mut self, i: usize, name: String, ty: ColumnType) {
        if i >= self.specs.len() {
            self.specs.resize(i + 1, None);
        }
        self.specs[i] = Some(self.spec(name, ty));
    }

    fn column_type(&self, name: &str) -> Option<ColumnType> {
        self.def.column(name).map(|c| c.ty.clone())
    }

    /// Records markers inside a term whose receiver is column `name`.
    fn term(&mut self, term: &Term, name: &str, ty: &ColumnType) {
        match term {
            Term::Bind(marker) => self.put(marker, name.to_string(), ty.clone()),
            Term::List(items) | Term::Set(items) => self.collection_items(items, name, ty),
            Term::Map(entries) => {
                if let ColumnType::Map { key, value, .. } = ty {
                    for (k, v) in entries {
                        self.term(k, name, key);
                        self.term(v, name, value);
                    }
                }
            }
            Term::TypeCast(_, inner) => self.term(inner, name, ty),
            Term::Tuple(items) if items.len() == 1 && !matches!(ty, ColumnType::Tuple(_)) => {
                self.term(&items[0], name, ty);
            }
            Term::Function { name: fname, args } => self.function_call(fname, args, ty),
            Term::Arith(op, left, right) => {
                let resolved = function_term::resolve_operation(*op, left, right, Some(ty));
                self.call_args(resolved, vec![&**left, &**right]);
            }
            Term::Negate(inner) => {
                let resolved = function_term::resolve_negation(inner, Some(ty));
                self.call_args(resolved, vec![&**inner]);
            }
            Term::Cast(inner, cast) => {
                let resolved = function_term::resolve_cast(inner, cast);
                self.call_args(resolved, vec![&**inner]);
            }
            Term::Udt(fields) => self.udt_fields(fields, name, ty),
            Term::Tuple(items) => {
                if let ColumnType::Tuple(types) = ty {
                    for (i, (item, item_type)) in items.iter().zip(types).enumerate() {
                        self.term(item, &format!("{name}[{i}]"), item_type);
                    }
                }
            }
            _ => {}
        }
    }

    /// Markers among a list, set or vector literal's items: each receives the element type.
    fn collection_items(&mut self, items: &[Term], name: &str, ty: &ColumnType) {
        let element = match ty {
            ColumnType::List { element, .. }
            | ColumnType::Set { element, .. }
            | ColumnType::Vector { element, .. } => element,
            _ => return,
        };
        for item in items {
            self.term(item, name, element);
        }
    }

    /// Markers in a function call's arguments, named and typed by the signature the call
    /// resolves to for the receiver (`arg0(system.fromjson)` text for `fromJson(?)`).
    /// `toJson(?)` takes a blob (`arg0(system.tojson)`): it resolves nowhere outside a
    /// selection clause, which planning the statement refuses.
    fn function_call(&mut self, fname: &QualifiedName, args: &[Term], ty: &ColumnType) {
        if fname.name.name.eq_ignore_ascii_case("tojson") {
            if let [Term::Bind(marker)] = args {
                self.put(marker, "arg0(system.tojson)".into(), ColumnType::Blob);
            }
        } else {
            let resolved = function_term::resolve_call(fname, args, Some(ty));
            self.call_args(resolved, args.iter().collect());
        }
    }

    /// Markers in a UDT literal's fields, each named `column.field` with the field's type.
    fn udt_fields(&mut self, fields: &[(Ident, Term)], name: &str, ty: &ColumnType) {
        if let ColumnType::Udt { fields: types, .. } = ty {
            for (field, value) in fields {
                if let Some((_, field_type)) = types.iter().find(|(n, _)| *n == field.name) {
                    self.term(value, &format!("{name}.{}", field.name), field_type);
                }
            }
        }
    }

    /// Records markers inside the arguments of a resolved call; a call that does not resolve
    /// keeps its error for the PREPARE answer.
    fn call_args(&mut self, resolved: CqlResult<&'static NativeFunction>, args: Vec<&Term>) {
        match resolved {
            Ok(function) => {
                for (i, (arg, ty)) in args.into_iter().zip(&function.args).enumerate() {
                    self.term(arg, &function_term::arg_name(function, i), ty);
                }
            }
            Err(err) => {
                self.error.get_or_insert(err);
            }
        }
    }

    /// Markers of `c[key]` (assignment or deletion) and of the assigned value.
    fn element(&mut self, column: &str, key: &Term, value: Option<&Term>) {
        let Some(ty) = self.column_type(column) else {
            return;
        };
        let (key_name, key_type, value_type) = match &ty {
            ColumnType::List { element, .. } => ("idx", ColumnType::Int, element.as_ref().clone()),
            ColumnType::Map { key, value, .. } => {
                ("key", key.as_ref().clone(), value.as_ref().clone())
            }
            ColumnType::Set { element, .. } => {
                ("value", element.as_ref().clone(), element.as_ref().clone())
            }
            _ => return,
        };
        self.term(key, &format!("{key_name}({column})"), &key_type);
        if let Some(value) = value {
            self.term(value, &format!("value({column})"), &value_type);
        }
    }

    /// Markers of `c CONTAINS v` (`value(c)`, the element type) and `c CONTAINS KEY k`
    /// (`key(c)`), as Cassandra's collection receivers name them.
    fn contains(&mut self, column: &str, value: &Term, key: bool) {
        let Some(ty) = self.column_type(column) else {
            return;
        };
        let (name, receiver) = match (&ty, key) {
            (ColumnType::Map { key, .. }, true) => (format!("key({column})"), key.as_ref()),
            (ColumnType::Map { value, .. }, false) => (format!("value({column})"), value.as_ref()),
            (ColumnType::List { element, .. } | ColumnType::Set { element, .. }, _) => {
                (format!("value({column})"), element.as_ref())
            }
            _ => (column.to_string(), &ty),
        };
        let receiver = receiver.clone();
        self.term(value, &name, &receiver);
    }

    /// Markers of `c.field = value`.
    fn field(&mut self, column: &str, field: &str, value: &Term) {
        if let Some(ColumnType::Udt { fields, .. }) = self.column_type(column) {
            if let Some((_, ty)) = fields.iter().find(|(n, _)| n == field) {
                self.term(value, &format!("{column}.{field}"), ty);
            }
        }
    }

    /// Markers of one WHERE relation, each receiving its column's (or collection element's,
    /// tuple's, token's) type.
    fn relation(&mut self, relation: &Relation) {
        match relation {
            Relation::Single {
                column,
                value,
                op: op @ (Operator::Contains | Operator::ContainsKey),
            } => self.contains(&column.name, value, *op == Operator::ContainsKey),
            Relation::Element {
                column, key, value, ..
            } => self.element(&column.name, key, Some(value)),
            Relation::Single { column, value, op } => {
                if let Some(ty) = self.column_type(&column.name) {
                    self.term(value, &column.name, &ty);
                    if let (Term::Bind(m), Operator::Eq) = (value, op) {
                        self.note_pk(&column.name, m);
                    }
                }
            }
            Relation::In { column, values, .. } => self.in_values(&column.name, values),
            Relation::Multi { columns, value, .. } => self.tuple(columns, value),
            Relation::MultiIn { columns, values } => self.tuples_in(columns, values),
            Relation::Token {
                value: Term::Bind(marker),
                ..
            } => {
                self.put(marker, "partition key token".into(), ColumnType::Bigint);
            }
            Relation::Token {
                value: Term::Function { name, args },
                ..
            } if name.name.name.eq_ignore_ascii_case("token") => self.token_args(args),
            _ => {}
        }
    }

    /// Markers of `c IN ?` (one list, named `in(c)`) or `c IN (..)` (each of the column's type).
    fn in_values(&mut self, column: &str, values: &InValues) {
        let Some(ty) = self.column_type(column) else {
            return;
        };
        match values {
            InValues::Bind(marker) => self.put(
                marker,
                format!("in({column})"),
                ColumnType::List {
                    element: Box::new(ty),
                    frozen: false,
                },
            ),
            InValues::List(terms) => {
                for t in terms {
                    self.term(t, column, &ty);
                }
            }
        }
    }

    /// Markers of `(a, b) IN ?` (a list of tuples, named `in((a,b))`) or `(a, b) IN (..)`.
    fn tuples_in(&mut self, columns: &[Ident], values: &InValues) {
        match values {
            InValues::Bind(marker) => {
                if let Some(ty) = self.tuple_type(columns) {
                    let name = format!("in({})", tuple_name(columns));
                    let list = ColumnType::List {
                        element: Box::new(ty),
                        frozen: false,
                    };
                    self.put(marker, name, list);
                }
            }
            InValues::List(terms) => {
                for term in terms {
                    self.tuple(columns, term);
                }
            }
        }
    }

    /// Arguments of `token(...)` take the partition key columns' types.
    fn token_args(&mut self, args: &[Term]) {
        let key_types: Vec<ColumnType> = self
            .def
            .partition_key
            .iter()
            .map(|&i| self.def.columns[i].ty.clone())
            .collect();
        for (n, (arg, ty)) in args.iter().zip(key_types).enumerate() {
            self.term(arg, &format!("arg{n}(system.token)"), &ty);
        }
    }

    fn tuple_type(&self, columns: &[Ident]) -> Option<ColumnType> {
        columns
            .iter()
            .map(|c| self.column_type(&c.name))
            .collect::<Option<Vec<_>>>()
            .map(ColumnType::Tuple)
    }

    /// Markers in a multi-column relation's value: a tuple of terms or one tuple marker.
    fn tuple(&mut self, columns: &[Ident], value: &Term) {
        match value {
            Term::Tuple(items) if items.len() != columns.len() => {
                self.error.get_or_insert_with(|| {
                    RestrictionError::TupleArity {
                        expected: columns.len(),
                        got: items.len(),
                        value: value.to_string(),
                    }
                    .into()
                });
            }
            Term::Tuple(items) => {
                for (column, item) in columns.iter().zip(items) {
                    if let Some(ty) = self.column_type(&column.name) {
                        self.term(item, &column.name, &ty);
                    }
                }
            }
            Term::Bind(marker) => {
                if let Some(ty) = self.tuple_type(columns) {
                    self.put(marker, tuple_name(columns), ty);
                }
            }
            _ => {}
        }
    }

    fn note_pk(&mut self, column: &str, marker: &BindMarker) {
        let position = self
            .def
            .partition_key
            .iter()
            .position(|&i| self.def.columns[i].name == column);
        if let Some(p) = position {
            self.pk_markers[p] = u16::try_from(marker_index(marker)).ok();
        }
    }

    /// Markers of an LWT `IF` clause, named as `ColumnCondition.Raw.prepare` names them.
    fn condition(&mut self, condition: &Option<cql::statement::ast::Condition>) {
        let Some(cql::statement::ast::Condition::Columns(conditions)) = condition else {
            return;
        };
        for condition in conditions {
            self.column_condition(condition);
        }
    }

    fn column_condition(&mut self, condition: &cql::statement::ast::ColumnCondition) {
        let column = condition.column.name.as_str();
        let Some(ty) = self.column_type(column) else {
            return;
        };
        let (name, value_type) = if let Some(element) = &condition.element {
            let (key_name, key_type, value_type) = match &ty {
                ColumnType::List { element, .. } => ("idx", ColumnType::Int, element.as_ref()),
                ColumnType::Map { key, value, .. } => ("key", key.as_ref().clone(), value.as_ref()),
                _ => return,
            };
            self.term(element, &format!("{key_name}({column})"), &key_type);
            (format!("value({column})"), value_type.clone())
        } else if let Some(field) = &condition.field {
            let ColumnType::Udt { fields, .. } = &ty else {
                return;
            };
            let Some((_, field_type)) = fields.iter().find(|(n, _)| *n == field.name) else {
                return;
            };
            (format!("{column}.{}", field.name), field_type.clone())
        } else {
            match (condition.op, &ty) {
                (Operator::ContainsKey, ColumnType::Map { key, .. }) => {
                    (format!("key({column})"), key.as_ref().clone())
                }
                (
                    Operator::Contains,
                    ColumnType::List { element, .. } | ColumnType::Set { element, .. },
                ) => (format!("value({column})"), element.as_ref().clone()),
                (Operator::Contains, ColumnType::Map { value, .. }) => {
                    (format!("value({column})"), value.as_ref().clone())
                }
                _ => (column.to_string(), ty.clone()),
            }
        };
        match (&condition.value, condition.op) {
            (Term::Bind(marker), Operator::In) => self.put(
                marker,
                format!("in({name})"),
                ColumnType::List {
                    element: Box::new(value_type),
                    frozen: false,
                },
            ),
            (Term::Tuple(items), Operator::In) => {
                for item in items {
                    self.term(item, &name, &value_type);
                }
            }
            (value, _) => self.term(value, &name, &value_type),
        }
    }

    fn using(&mut self, using: &UsingClause) {
        if let Some(Term::Bind(m)) = &using.ttl {
            self.put(m, "[ttl]".into(), ColumnType::Int);
        }
        if let Some(Term::Bind(m)) = &using.timestamp {
            self.put(m, "[timestamp]".into(), ColumnType::Bigint);
        }
    }
}

/// Cassandra's name for a multi-column receiver: `(a,b)`.
fn tuple_name(columns: &[Ident]) -> String {
    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    format!("({})", names.join(","))
}

/// Marker receivers found in one statement (`None` where it has none), and the marker of
/// each partition key column given by `=`.
pub(crate) type PartialSpecs = (Vec<Option<ColumnSpec>>, Vec<Option<u16>>);

/// The receivers of the markers of one SELECT, INSERT, UPDATE or DELETE.
pub(crate) fn collect(
    schema: &Schema,
    statement: &Statement,
    bind_count: usize,
    session_keyspace: Option<&str>,
) -> CqlResult<PartialSpecs> {
    let table_name = match statement {
        Statement::Select(s) => &s.table,
        Statement::Insert(s) => &s.table,
        Statement::Update(s) => &s.table,
        Statement::Delete(s) => &s.table,
        _ => return Err(RestrictionError::BindMarkersUnsupportedStatement.into()),
    };
    let table = resolve_table(schema, table_name, session_keyspace)?;
    let mut c = Collector {
        def: &table.def,
        specs: vec![None; bind_count],
        pk_markers: vec![None; table.def.partition_key.len()],
        error: None,
    };
    match statement {
        Statement::Select(s) => c.select(&table, s)?,
        Statement::Insert(s) => c.insert(s),
        Statement::Update(s) => c.update(s),
        Statement::Delete(s) => c.delete(s),
        _ => {}
    }
    if let Some(err) = c.error {
        return Err(err);
    }
    Ok((c.specs, c.pk_markers))
}

#[cfg(test)]
#[path = "bind_tests.rs"]
mod tests;
