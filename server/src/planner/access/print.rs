//! `Display` for [`AccessPlan`]: one line saying what the executor commits or answers, for
//! tests and debug logs, in the style of the other plans'. A password hash never prints.

use std::fmt;

use bytes::Bytes;
use cql::types::ColumnType;
use storage::{CatalogOp, RoleDef};

use super::resource::Resource;
use super::{AccessPlan, AccessRows};

/// A one-line description, for tests and debug logs:
/// - a change: its storage operations in order, `; `-separated, or `no change`:
///   `put role {r} (login|nologin, superuser={bool}[, password][, member of {a, b}][,
///   {resource} {PERMISSION ..}]..)` (the role as stored afterwards; resources as Cassandra
///   shows them, `<table ks.t>`) and `drop role {r}`; then ` then grant creator all on
///   {resource}` when the creator is granted the created role's permissions;
/// - a listing: `list system_auth.{table} ({column}, ..): {cell} {cell} ..; ..`, cells as
///   text, booleans and `{}` (the always empty role options), or `list system_auth.{table}:
///   none`.
impl fmt::Display for AccessPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessPlan::Change {
                ops,
                grant_to_creator,
                ..
            } => {
                if ops.is_empty() {
                    f.write_str("no change")?;
                }
                for (n, op) in ops.iter().enumerate() {
                    if n > 0 {
                        f.write_str("; ")?;
                    }
                    write_op(f, op)?;
                }
                match grant_to_creator {
                    Some(resource) => write!(f, " then grant creator all on {resource}"),
                    None => Ok(()),
                }
            }
            AccessPlan::Rows(rows) => write_rows(f, rows),
        }
    }
}

fn write_op(f: &mut fmt::Formatter<'_>, op: &CatalogOp) -> fmt::Result {
    match op {
        CatalogOp::PutRole(role) => write_role(f, role),
        CatalogOp::DropRole(name) => write!(f, "drop role {name}"),
        _ => f.write_str("(not a role operation)"),
    }
}

/// `put role {r} (..)`: the role's flags, whether it has a password (never the hash), the
/// roles granted to it and its permissions.
fn write_role(f: &mut fmt::Formatter<'_>, role: &RoleDef) -> fmt::Result {
    let login = if role.can_login { "login" } else { "nologin" };
    write!(
        f,
        "put role {} ({login}, superuser={}",
        role.name, role.is_superuser
    )?;
    if role.salted_hash.is_some() {
        f.write_str(", password")?;
    }
    if !role.member_of.is_empty() {
        let granted: Vec<&str> = role.member_of.iter().map(String::as_str).collect();
        write!(f, ", member of {{{}}}", granted.join(", "))?;
    }
    for (name, held) in &role.permissions {
        match Resource::from_name(name) {
            Some(resource) => write!(f, ", {resource}")?,
            None => write!(f, ", {name}")?,
        }
        for permission in held {
            write!(f, " {permission}")?;
        }
    }
    f.write_str(")")
}

fn write_rows(f: &mut fmt::Formatter<'_>, rows: &AccessRows) -> fmt::Result {
    let table = rows.columns.first().map_or("", |c| c.table.as_str());
    write!(f, "list system_auth.{table}")?;
    if rows.rows.is_empty() {
        return f.write_str(": none");
    }
    let names: Vec<&str> = rows.columns.iter().map(|c| c.name.as_str()).collect();
    write!(f, " ({}): ", names.join(", "))?;
    for (n, row) in rows.rows.iter().enumerate() {
        if n > 0 {
            f.write_str("; ")?;
        }
        for (i, (cell, column)) in row.iter().zip(&rows.columns).enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write_cell(f, cell.as_ref(), &column.ty)?;
        }
    }
    Ok(())
}

fn write_cell(f: &mut fmt::Formatter<'_>, cell: Option<&Bytes>, ty: &ColumnType) -> fmt::Result {
    match (cell, ty) {
        (None, _) => f.write_str("null"),
        (Some(bytes), ColumnType::Text) => f.write_str(&String::from_utf8_lossy(bytes)),
        (Some(bytes), ColumnType::Boolean) => write!(f, "{}", bytes.iter().any(|b| *b != 0)),
        (Some(_), _) => f.write_str("{}"),
    }
}
