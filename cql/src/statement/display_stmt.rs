//! `Display` for statements and clauses: the canonical CQL that parses back to an equal AST.

use std::fmt::{self, Display, Formatter};

use super::ast::{
    Assignment, AuthResource, Batch, BatchKind, ColumnCondition, Condition, CreateView, Delete,
    DeleteTarget, DisabledDdl, Insert, InsertValues, Operator, PermissionStatement, Property,
    Relation, RoleOptions, RoleStatement, Select, Statement, Update, UsingClause,
};
use super::display::{comma, quote_string};

/// Writes ` WITH p1 AND p2 ...` (nothing for an empty list).
pub(crate) fn with_properties(f: &mut Formatter<'_>, props: &[Property]) -> fmt::Result {
    for (i, p) in props.iter().enumerate() {
        f.write_str(if i == 0 { " WITH " } else { " AND " })?;
        write!(f, "{p}")?;
    }
    Ok(())
}

pub(crate) fn if_exists(f: &mut Formatter<'_>, yes: bool) -> fmt::Result {
    f.write_str(if yes { " IF EXISTS" } else { "" })
}

pub(crate) fn if_not_exists(f: &mut Formatter<'_>, yes: bool) -> fmt::Result {
    f.write_str(if yes { " IF NOT EXISTS" } else { "" })
}

fn where_clause(f: &mut Formatter<'_>, relations: &[Relation]) -> fmt::Result {
    for (i, r) in relations.iter().enumerate() {
        f.write_str(if i == 0 { " WHERE " } else { " AND " })?;
        write!(f, "{r}")?;
    }
    Ok(())
}

impl Display for Statement {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Statement::Select(s) => write!(f, "{s}"),
            Statement::Insert(s) => write!(f, "{s}"),
            Statement::Update(s) => write!(f, "{s}"),
            Statement::Delete(s) => write!(f, "{s}"),
            Statement::Batch(s) => write!(f, "{s}"),
            Statement::Use(ks) => write!(f, "USE {ks}"),
            Statement::Truncate(t) => write!(f, "TRUNCATE {t}"),
            Statement::CreateKeyspace(s) => {
                f.write_str("CREATE KEYSPACE")?;
                if_not_exists(f, s.if_not_exists)?;
                write!(f, " {}", s.name)?;
                with_properties(f, &s.properties)
            }
            Statement::AlterKeyspace(s) => {
                f.write_str("ALTER KEYSPACE")?;
                if_exists(f, s.if_exists)?;
                write!(f, " {}", s.name)?;
                with_properties(f, &s.properties)
            }
            Statement::DropKeyspace { name, if_exists: e } => drop(f, "KEYSPACE", *e, name),
            Statement::CreateTable(s) => write!(f, "{s}"),
            Statement::AlterTable(s) => {
                f.write_str("ALTER TABLE")?;
                if_exists(f, s.if_exists)?;
                write!(f, " {} {}", s.name, s.action)
            }
            Statement::DropTable { name, if_exists: e } => drop(f, "TABLE", *e, name),
            Statement::CreateIndex(s) => {
                let custom = if s.custom_class.is_some() {
                    "CUSTOM "
                } else {
                    ""
                };
                write!(f, "CREATE {custom}INDEX")?;
                if_not_exists(f, s.if_not_exists)?;
                if let Some(name) = &s.name {
                    write!(f, " {name}")?;
                }
                write!(f, " ON {} (", s.table)?;
                comma(f, &s.targets)?;
                f.write_str(")")?;
                if let Some(class) = &s.custom_class {
                    write!(f, " USING {}", quote_string(class))?;
                }
                if !s.options.is_empty() {
                    f.write_str(" WITH OPTIONS = {")?;
                    for (i, (k, v)) in s.options.iter().enumerate() {
                        let sep = if i > 0 { ", " } else { "" };
                        write!(f, "{sep}{}: {}", quote_string(k), quote_string(v))?;
                    }
                    f.write_str("}")?;
                }
                Ok(())
            }
            Statement::DropIndex { name, if_exists: e } => drop(f, "INDEX", *e, name),
            Statement::CreateView(s) => write!(f, "{s}"),
            Statement::AlterView {
                name,
                if_exists: e,
                properties,
            } => {
                f.write_str("ALTER MATERIALIZED VIEW")?;
                if_exists(f, *e)?;
                write!(f, " {name}")?;
                with_properties(f, properties)
            }
            Statement::DropView { name, if_exists: e } => drop(f, "MATERIALIZED VIEW", *e, name),
            Statement::CreateType(s) => {
                f.write_str("CREATE TYPE")?;
                if_not_exists(f, s.if_not_exists)?;
                write!(f, " {} (", s.name)?;
                for (i, (field, ty)) in s.fields.iter().enumerate() {
                    let sep = if i > 0 { ", " } else { "" };
                    write!(f, "{sep}{field} {ty}")?;
                }
                f.write_str(")")
            }
            Statement::AlterType(s) => write!(f, "{s}"),
            Statement::DropType { name, if_exists: e } => drop(f, "TYPE", *e, name),
            Statement::Disabled(d) => write!(f, "{d}"),
            Statement::Describe(d) => write!(f, "{d}"),
            Statement::Role(r) => write!(f, "{r}"),
            Statement::Permission(p) => write!(f, "{p}"),
            Statement::Explain(e) => {
                let analyze = if e.analyze { " ANALYZE" } else { "" };
                write!(f, "EXPLAIN{analyze} {}", e.statement)
            }
        }
    }
}

fn drop(f: &mut Formatter<'_>, what: &str, exists: bool, name: &dyn Display) -> fmt::Result {
    write!(f, "DROP {what}")?;
    if_exists(f, exists)?;
    write!(f, " {name}")
}

impl Display for Select {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("SELECT ")?;
        if self.json {
            f.write_str("JSON ")?;
        }
        if self.distinct {
            f.write_str("DISTINCT ")?;
        }
        if self.selectors.is_empty() {
            f.write_str("*")?;
        } else {
            comma(f, &self.selectors)?;
        }
        write!(f, " FROM {}", self.table)?;
        where_clause(f, &self.where_clause)?;
        if !self.group_by.is_empty() {
            f.write_str(" GROUP BY ")?;
            comma(f, &self.group_by)?;
        }
        for (i, (c, order)) in self.order_by.iter().enumerate() {
            f.write_str(if i == 0 { " ORDER BY " } else { ", " })?;
            write!(f, "{c} {order}")?;
        }
        for (i, (c, vector, order)) in self.ann.iter().enumerate() {
            let first = i == 0 && self.order_by.is_empty();
            f.write_str(if first { " ORDER BY " } else { ", " })?;
            write!(f, "{c} ANN OF {vector} {order}")?;
        }
        if let Some(n) = &self.per_partition_limit {
            write!(f, " PER PARTITION LIMIT {n}")?;
        }
        if let Some(n) = &self.limit {
            write!(f, " LIMIT {n}")?;
        }
        if self.allow_filtering {
            f.write_str(" ALLOW FILTERING")?;
        }
        Ok(())
    }
}

impl Display for CreateView {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("CREATE MATERIALIZED VIEW")?;
        if_not_exists(f, self.if_not_exists)?;
        write!(f, " {} AS SELECT ", self.name)?;
        if self.selectors.is_empty() {
            f.write_str("*")?;
        } else {
            comma(f, &self.selectors)?;
        }
        write!(f, " FROM {}", self.base)?;
        where_clause(f, &self.where_clause)?;
        f.write_str(" PRIMARY KEY ((")?;
        comma(f, &self.partition_key)?;
        f.write_str(")")?;
        for c in &self.clustering_key {
            write!(f, ", {c}")?;
        }
        f.write_str(")")?;
        for (i, (c, order)) in self.clustering_order.iter().enumerate() {
            let sep = if i == 0 {
                " WITH CLUSTERING ORDER BY ("
            } else {
                ", "
            };
            write!(f, "{sep}{c} {order}")?;
        }
        if !self.clustering_order.is_empty() {
            f.write_str(")")?;
        }
        for (i, p) in self.properties.iter().enumerate() {
            let first = i == 0 && self.clustering_order.is_empty();
            f.write_str(if first { " WITH " } else { " AND " })?;
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl Display for Relation {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Relation::Single { column, op, value } => match op {
                Operator::IsNot => write!(f, "{column} IS NOT NULL"),
                _ => write!(f, "{column} {op} {value}"),
            },
            Relation::In {
                column,
                values,
                negated,
            } => {
                let not = if *negated { "NOT " } else { "" };
                write!(f, "{column} {not}IN {values}")
            }
            Relation::Element {
                column,
                key,
                op,
                value,
            } => write!(f, "{column}[{key}] {op} {value}"),
            Relation::Multi { columns, op, value } => {
                f.write_str("(")?;
                comma(f, columns)?;
                write!(f, ") {op} {value}")
            }
            Relation::MultiIn { columns, values } => {
                f.write_str("(")?;
                comma(f, columns)?;
                write!(f, ") IN {values}")
            }
            Relation::Token { columns, op, value } => {
                f.write_str("TOKEN(")?;
                comma(f, columns)?;
                write!(f, ") {op} {value}")
            }
        }
    }
}

impl Display for UsingClause {
    /// ` USING TTL n AND TIMESTAMP n AND TIMEOUT d`, or nothing.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let parts = [
            ("TTL", &self.ttl),
            ("TIMESTAMP", &self.timestamp),
            ("TIMEOUT", &self.timeout),
        ];
        let mut first = true;
        for (name, value) in parts {
            if let Some(v) = value {
                f.write_str(if first { " USING " } else { " AND " })?;
                write!(f, "{name} {v}")?;
                first = false;
            }
        }
        Ok(())
    }
}

impl Display for Insert {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "INSERT INTO {}", self.table)?;
        match &self.values {
            InsertValues::Columns { columns, values } => {
                f.write_str(" (")?;
                comma(f, columns)?;
                f.write_str(") VALUES (")?;
                comma(f, values)?;
                f.write_str(")")?;
            }
            InsertValues::Json {
                json,
                default_unset,
            } => {
                write!(f, " JSON {json}")?;
                if *default_unset {
                    f.write_str(" DEFAULT UNSET")?;
                }
            }
        }
        if_not_exists(f, self.if_not_exists)?;
        write!(f, "{}", self.using)
    }
}

impl Display for Assignment {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Assignment::Set { column, value } => write!(f, "{column} = {value}"),
            Assignment::Modify { column, op, value } => {
                write!(f, "{column} = {column} {op} {value}")
            }
            Assignment::Prepend { column, value } => write!(f, "{column} = {value} + {column}"),
            Assignment::Element { column, key, value } => {
                write!(f, "{column}[{key}] = {value}")
            }
            Assignment::Field {
                column,
                field,
                value,
            } => write!(f, "{column}.{field} = {value}"),
        }
    }
}

impl Display for ColumnCondition {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.column)?;
        if let Some(e) = &self.element {
            write!(f, "[{e}]")?;
        }
        if let Some(field) = &self.field {
            write!(f, ".{field}")?;
        }
        // The candidates of `IN` are a `Term::Tuple`, which prints as `(a, b)`.
        write!(f, " {} {}", self.op, self.value)
    }
}

impl Display for Condition {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Exists => f.write_str(" IF EXISTS"),
            Condition::Columns(conds) => {
                for (i, c) in conds.iter().enumerate() {
                    f.write_str(if i == 0 { " IF " } else { " AND " })?;
                    write!(f, "{c}")?;
                }
                Ok(())
            }
        }
    }
}

impl Display for Update {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "UPDATE {}{} SET ", self.table, self.using)?;
        comma(f, &self.assignments)?;
        where_clause(f, &self.where_clause)?;
        if let Some(c) = &self.condition {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl Display for DeleteTarget {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            DeleteTarget::Column(c) => write!(f, "{c}"),
            DeleteTarget::Element(c, k) => write!(f, "{c}[{k}]"),
            DeleteTarget::Field(c, field) => write!(f, "{c}.{field}"),
        }
    }
}

impl Display for Delete {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("DELETE ")?;
        if !self.columns.is_empty() {
            comma(f, &self.columns)?;
            f.write_str(" ")?;
        }
        write!(f, "FROM {}{}", self.table, self.using)?;
        where_clause(f, &self.where_clause)?;
        if let Some(c) = &self.condition {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl Display for Batch {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            BatchKind::Logged => "",
            BatchKind::Unlogged => "UNLOGGED ",
            BatchKind::Counter => "COUNTER ",
        };
        write!(f, "BEGIN {kind}BATCH{}", self.using)?;
        for s in &self.statements {
            write!(f, " {s};")?;
        }
        f.write_str(" APPLY BATCH")
    }
}

/// Role statements print with their passwords hidden: statements reach logs, secrets never.
impl fmt::Display for RoleStatement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = |user: bool| if user { "USER" } else { "ROLE" };
        match self {
            RoleStatement::Create {
                name,
                if_not_exists,
                options,
                user,
            } => {
                write!(f, "CREATE {} ", noun(*user))?;
                if *if_not_exists {
                    f.write_str("IF NOT EXISTS ")?;
                }
                write!(
                    f,
                    "'{}'{}",
                    name.replace('\'', "''"),
                    RoleOptionsText(options)
                )
            }
            RoleStatement::Alter {
                name,
                if_exists,
                options,
                user,
            } => {
                write!(f, "ALTER {} ", noun(*user))?;
                if *if_exists {
                    f.write_str("IF EXISTS ")?;
                }
                write!(
                    f,
                    "'{}'{}",
                    name.replace('\'', "''"),
                    RoleOptionsText(options)
                )
            }
            RoleStatement::Drop {
                name,
                if_exists,
                user,
            } => {
                write!(f, "DROP {} ", noun(*user))?;
                if *if_exists {
                    f.write_str("IF EXISTS ")?;
                }
                write!(f, "'{}'", name.replace('\'', "''"))
            }
            RoleStatement::List { users: true, .. } => f.write_str("LIST USERS"),
            RoleStatement::List { of, recursive, .. } => {
                f.write_str("LIST ROLES")?;
                if let Some(of) = of {
                    write!(f, " OF '{}'", of.replace('\'', "''"))?;
                }
                if !recursive {
                    f.write_str(" NORECURSIVE")?;
                }
                Ok(())
            }
            RoleStatement::Grant { role, grantee } => write!(
                f,
                "GRANT '{}' TO '{}'",
                role.replace('\'', "''"),
                grantee.replace('\'', "''")
            ),
            RoleStatement::Revoke { role, revokee } => write!(
                f,
                "REVOKE '{}' FROM '{}'",
                role.replace('\'', "''"),
                revokee.replace('\'', "''")
            ),
        }
    }
}

/// ` WITH ...` for the options given, passwords as `'***'`.
struct RoleOptionsText<'a>(&'a RoleOptions);

impl fmt::Display for RoleOptionsText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = self.0;
        let mut parts = Vec::new();
        if o.password.is_some() {
            parts.push("PASSWORD = '***'".to_string());
        }
        if o.hashed_password.is_some() {
            parts.push("HASHED PASSWORD = '***'".to_string());
        }
        if let Some(login) = o.login {
            parts.push(format!("LOGIN = {login}"));
        }
        if let Some(superuser) = o.superuser {
            parts.push(format!("SUPERUSER = {superuser}"));
        }
        if let Some(options) = &o.options {
            let entries: Vec<String> = options
                .iter()
                .map(|(k, v)| format!("'{k}': '{v}'"))
                .collect();
            parts.push(format!("OPTIONS = {{{}}}", entries.join(", ")));
        }
        if parts.is_empty() {
            return Ok(());
        }
        write!(f, " WITH {}", parts.join(" AND "))
    }
}

impl fmt::Display for AuthResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthResource::AllKeyspaces => f.write_str("ALL KEYSPACES"),
            AuthResource::Keyspace(ks) => write!(f, "KEYSPACE {ks}"),
            AuthResource::Table(name) => write!(f, "TABLE {name}"),
            AuthResource::AllRoles => f.write_str("ALL ROLES"),
            AuthResource::Role(name) => write!(f, "ROLE '{}'", name.replace('\'', "''")),
        }
    }
}

impl fmt::Display for PermissionStatement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let perms = |p: &Option<Vec<String>>| match p {
            None => "ALL PERMISSIONS".to_string(),
            Some(names) => names.join(", "),
        };
        let quoted = |role: &str| role.replace('\'', "''");
        match self {
            PermissionStatement::Grant {
                permissions,
                resource,
                role,
            } => write!(
                f,
                "GRANT {} ON {resource} TO '{}'",
                perms(permissions),
                quoted(role)
            ),
            PermissionStatement::Revoke {
                permissions,
                resource,
                role,
            } => write!(
                f,
                "REVOKE {} ON {resource} FROM '{}'",
                perms(permissions),
                quoted(role)
            ),
            PermissionStatement::List {
                permissions,
                resource,
                of,
                recursive,
            } => {
                write!(f, "LIST {}", perms(permissions))?;
                if let Some(resource) = resource {
                    write!(f, " ON {resource}")?;
                }
                if let Some(of) = of {
                    write!(f, " OF '{}'", quoted(of))?;
                }
                if !recursive {
                    f.write_str(" NORECURSIVE")?;
                }
                Ok(())
            }
        }
    }
}

impl Display for DisabledDdl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let kind = |aggregate: bool| if aggregate { "AGGREGATE" } else { "FUNCTION" };
        match self {
            DisabledDdl::CreateFunction { name, aggregate } => {
                write!(f, "CREATE {} {name} (...)", kind(*aggregate))
            }
            DisabledDdl::DropFunction {
                name,
                aggregate,
                args,
                if_exists,
            } => {
                drop(f, kind(*aggregate), *if_exists, name)?;
                if let Some(args) = args {
                    f.write_str("(")?;
                    comma(f, args)?;
                    f.write_str(")")?;
                }
                Ok(())
            }
            DisabledDdl::CreateTrigger {
                name,
                table,
                class,
                if_not_exists: e,
            } => {
                f.write_str("CREATE TRIGGER")?;
                if_not_exists(f, *e)?;
                write!(
                    f,
                    " {name} ON {table} USING '{}'",
                    class.replace('\'', "''")
                )
            }
            DisabledDdl::DropTrigger {
                name,
                table,
                if_exists: e,
            } => {
                f.write_str("DROP TRIGGER")?;
                if *e {
                    f.write_str(" IF EXISTS")?;
                }
                write!(f, " {name} ON {table}")
            }
        }
    }
}
