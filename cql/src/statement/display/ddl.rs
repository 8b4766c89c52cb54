//! `Display` for schema statements: keyspaces, tables, materialized views, indexes and user
//! types with their `WITH` properties, DESCRIBE, and the refused DDL (functions, aggregates,
//! triggers).

use std::fmt::{self, Display, Formatter};

use super::clause::{
    comma, drop_object, if_exists, if_not_exists, quote_string, where_clause, with_properties,
};
use crate::statement::ast::{
    AlterKeyspace, AlterTable, AlterTableAction, AlterType, ColumnDefinition, CreateIndex,
    CreateKeyspace, CreateTable, CreateType, CreateView, Describe, DescribeTarget, DisabledDdl,
    IndexTarget, Property, PropertyValue, QualifiedName,
};
use crate::types::maybe_quote;

impl Display for PropertyValue {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            PropertyValue::Constant(lit) => write!(f, "{lit}"),
            PropertyValue::Identifier(word) => f.write_str(word),
            PropertyValue::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    let sep = if i > 0 { ", " } else { "" };
                    write!(f, "{sep}{}: {v}", quote_string(k))?;
                }
                f.write_str("}")
            }
        }
    }
}

impl Display for Property {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}", maybe_quote(&self.name), self.value)
    }
}

impl Display for CreateKeyspace {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("CREATE KEYSPACE")?;
        if_not_exists(f, self.if_not_exists)?;
        write!(f, " {}", self.name)?;
        with_properties(f, &self.properties)
    }
}

impl Display for AlterKeyspace {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("ALTER KEYSPACE")?;
        if_exists(f, self.if_exists)?;
        write!(f, " {}", self.name)?;
        with_properties(f, &self.properties)
    }
}

impl Display for ColumnDefinition {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.name, self.ty)?;
        if self.is_static {
            f.write_str(" STATIC")?;
        }
        if self.primary_key {
            f.write_str(" PRIMARY KEY")?;
        }
        Ok(())
    }
}

impl Display for CreateTable {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("CREATE TABLE")?;
        if_not_exists(f, self.if_not_exists)?;
        write!(f, " {} (", self.name)?;
        comma(f, &self.columns)?;
        if !self.partition_key.is_empty() {
            if !self.columns.is_empty() {
                f.write_str(", ")?;
            }
            f.write_str("PRIMARY KEY (")?;
            if let [single] = self.partition_key.as_slice() {
                write!(f, "{single}")?;
            } else {
                f.write_str("(")?;
                comma(f, &self.partition_key)?;
                f.write_str(")")?;
            }
            for c in &self.clustering_key {
                write!(f, ", {c}")?;
            }
            f.write_str(")")?;
        }
        f.write_str(")")?;
        let mut first = true;
        let mut sep = |f: &mut Formatter<'_>| {
            let s = if first { " WITH " } else { " AND " };
            first = false;
            f.write_str(s)
        };
        if !self.clustering_order.is_empty() {
            sep(f)?;
            f.write_str("CLUSTERING ORDER BY (")?;
            for (i, (c, o)) in self.clustering_order.iter().enumerate() {
                let s = if i > 0 { ", " } else { "" };
                write!(f, "{s}{c} {o}")?;
            }
            f.write_str(")")?;
        }
        if self.compact_storage {
            sep(f)?;
            f.write_str("COMPACT STORAGE")?;
        }
        for p in &self.properties {
            sep(f)?;
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl Display for AlterTable {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("ALTER TABLE")?;
        if_exists(f, self.if_exists)?;
        write!(f, " {} {}", self.name, self.action)
    }
}

impl Display for AlterTableAction {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            AlterTableAction::Add {
                if_not_exists: e,
                columns,
            } => {
                f.write_str("ADD")?;
                if_not_exists(f, *e)?;
                match columns.as_slice() {
                    [single] => write!(f, " {single}"),
                    _ => {
                        f.write_str(" (")?;
                        comma(f, columns)?;
                        f.write_str(")")
                    }
                }
            }
            AlterTableAction::Drop {
                if_exists: e,
                columns,
                timestamp,
            } => {
                f.write_str("DROP")?;
                if_exists(f, *e)?;
                match columns.as_slice() {
                    [single] => write!(f, " {single}")?,
                    _ => {
                        f.write_str(" (")?;
                        comma(f, columns)?;
                        f.write_str(")")?;
                    }
                }
                if let Some(ts) = timestamp {
                    write!(f, " USING TIMESTAMP {ts}")?;
                }
                Ok(())
            }
            AlterTableAction::Rename {
                if_exists: e,
                renames,
            } => {
                f.write_str("RENAME")?;
                if_exists(f, *e)?;
                for (i, (from, to)) in renames.iter().enumerate() {
                    let sep = if i > 0 { " AND" } else { "" };
                    write!(f, "{sep} {from} TO {to}")?;
                }
                Ok(())
            }
            AlterTableAction::AlterType { column, ty } => write!(f, "ALTER {column} TYPE {ty}"),
            AlterTableAction::With(props) => {
                for (i, p) in props.iter().enumerate() {
                    f.write_str(if i == 0 { "WITH " } else { " AND " })?;
                    write!(f, "{p}")?;
                }
                Ok(())
            }
        }
    }
}

impl Display for IndexTarget {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            IndexTarget::Simple(c) => write!(f, "{c}"),
            IndexTarget::Keys(c) => write!(f, "KEYS({c})"),
            IndexTarget::Values(c) => write!(f, "VALUES({c})"),
            IndexTarget::Entries(c) => write!(f, "ENTRIES({c})"),
            IndexTarget::Full(c) => write!(f, "FULL({c})"),
        }
    }
}

impl Display for CreateIndex {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let custom = if self.custom_class.is_some() {
            "CUSTOM "
        } else {
            ""
        };
        write!(f, "CREATE {custom}INDEX")?;
        if_not_exists(f, self.if_not_exists)?;
        if let Some(name) = &self.name {
            write!(f, " {name}")?;
        }
        write!(f, " ON {} (", self.table)?;
        comma(f, &self.targets)?;
        f.write_str(")")?;
        if let Some(class) = &self.custom_class {
            write!(f, " USING {}", quote_string(class))?;
        }
        if !self.options.is_empty() {
            f.write_str(" WITH OPTIONS = {")?;
            for (i, (k, v)) in self.options.iter().enumerate() {
                let sep = if i > 0 { ", " } else { "" };
                write!(f, "{sep}{}: {}", quote_string(k), quote_string(v))?;
            }
            f.write_str("}")?;
        }
        Ok(())
    }
}

impl Display for CreateType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("CREATE TYPE")?;
        if_not_exists(f, self.if_not_exists)?;
        write!(f, " {} (", self.name)?;
        for (i, (field, ty)) in self.fields.iter().enumerate() {
            let sep = if i > 0 { ", " } else { "" };
            write!(f, "{sep}{field} {ty}")?;
        }
        f.write_str(")")
    }
}

impl Display for AlterType {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            AlterType::Add { name, field, ty } => write!(f, "ALTER TYPE {name} ADD {field} {ty}"),
            AlterType::Rename { name, renames } => {
                write!(f, "ALTER TYPE {name} RENAME")?;
                for (i, (from, to)) in renames.iter().enumerate() {
                    let sep = if i > 0 { " AND" } else { "" };
                    write!(f, "{sep} {from} TO {to}")?;
                }
                Ok(())
            }
        }
    }
}

/// `ALTER MATERIALIZED VIEW [IF EXISTS] name WITH ...` (a struct variant of `Statement`).
pub(super) fn alter_view(
    f: &mut Formatter<'_>,
    name: &QualifiedName,
    exists: bool,
    properties: &[Property],
) -> fmt::Result {
    f.write_str("ALTER MATERIALIZED VIEW")?;
    if_exists(f, exists)?;
    write!(f, " {name}")?;
    with_properties(f, properties)
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

impl Display for Describe {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "DESCRIBE {}", self.target)?;
        if self.with_internals {
            f.write_str(" WITH INTERNALS")?;
        }
        Ok(())
    }
}

impl Display for DescribeTarget {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            DescribeTarget::Cluster => f.write_str("CLUSTER"),
            DescribeTarget::Schema { full } => {
                f.write_str(if *full { "FULL SCHEMA" } else { "SCHEMA" })
            }
            DescribeTarget::Keyspaces => f.write_str("KEYSPACES"),
            DescribeTarget::Keyspace { name, only } => {
                f.write_str(if *only { "ONLY KEYSPACE" } else { "KEYSPACE" })?;
                match name {
                    Some(n) => write!(f, " {n}"),
                    None => Ok(()),
                }
            }
            DescribeTarget::Tables => f.write_str("TABLES"),
            DescribeTarget::Table(n) => write!(f, "TABLE {n}"),
            DescribeTarget::Index(n) => write!(f, "INDEX {n}"),
            DescribeTarget::MaterializedView(n) => write!(f, "MATERIALIZED VIEW {n}"),
            DescribeTarget::Types => f.write_str("TYPES"),
            DescribeTarget::Type(n) => write!(f, "TYPE {n}"),
            DescribeTarget::Functions => f.write_str("FUNCTIONS"),
            DescribeTarget::Function(n) => write!(f, "FUNCTION {n}"),
            DescribeTarget::Aggregates => f.write_str("AGGREGATES"),
            DescribeTarget::Aggregate(n) => write!(f, "AGGREGATE {n}"),
            DescribeTarget::Name(n) => write!(f, "{n}"),
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
                drop_object(f, kind(*aggregate), *if_exists, name)?;
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
