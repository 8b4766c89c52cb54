//! `Display` for the AST: canonical CQL (upper-case keywords, identifiers through
//! `maybe_quote`, quoted identifiers always quoted so they round-trip, strings with `''`
//! escaping) that parses back to an equal node.
//!
//! The printers follow the `ast` families: `term`, `relation`, `dml`, `ddl` and `auth`, with
//! the shared clause writers in `clause`. [`Statement`] and the statements that hold
//! statements (BATCH, EXPLAIN) print here, each variant through its node's `Display` or a
//! named writer.

use std::fmt::{self, Display, Formatter};

use super::ast::{Batch, BatchKind, Explain, Statement};
pub use clause::comma;
use clause::drop_object;

mod auth;
mod clause;
mod ddl;
mod dml;
mod relation;
mod term;

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
            Statement::CreateKeyspace(s) => write!(f, "{s}"),
            Statement::AlterKeyspace(s) => write!(f, "{s}"),
            Statement::DropKeyspace { name, if_exists } => {
                drop_object(f, "KEYSPACE", *if_exists, name)
            }
            Statement::CreateTable(s) => write!(f, "{s}"),
            Statement::AlterTable(s) => write!(f, "{s}"),
            Statement::DropTable { name, if_exists } => drop_object(f, "TABLE", *if_exists, name),
            Statement::CreateIndex(s) => write!(f, "{s}"),
            Statement::DropIndex { name, if_exists } => drop_object(f, "INDEX", *if_exists, name),
            Statement::CreateView(s) => write!(f, "{s}"),
            Statement::AlterView {
                name,
                if_exists,
                properties,
            } => ddl::alter_view(f, name, *if_exists, properties),
            Statement::DropView { name, if_exists } => {
                drop_object(f, "MATERIALIZED VIEW", *if_exists, name)
            }
            Statement::CreateType(s) => write!(f, "{s}"),
            Statement::AlterType(s) => write!(f, "{s}"),
            Statement::DropType { name, if_exists } => drop_object(f, "TYPE", *if_exists, name),
            Statement::Disabled(d) => write!(f, "{d}"),
            Statement::Describe(d) => write!(f, "{d}"),
            Statement::Role(r) => write!(f, "{r}"),
            Statement::Permission(p) => write!(f, "{p}"),
            Statement::Explain(e) => write!(f, "{e}"),
        }
    }
}

impl Display for Explain {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let analyze = if self.analyze { " ANALYZE" } else { "" };
        write!(f, "EXPLAIN{analyze} {}", self.statement)
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
