//! `Display` for schema-statement nodes: CREATE TABLE, ALTER TABLE actions, index targets,
//! ALTER TYPE and DESCRIBE.

use std::fmt::{self, Display, Formatter};

use super::ast::{
    AlterTableAction, AlterType, ColumnDefinition, CreateTable, Describe, DescribeTarget,
    IndexTarget,
};
use super::display::comma;
use super::display_stmt::{if_exists, if_not_exists};

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
