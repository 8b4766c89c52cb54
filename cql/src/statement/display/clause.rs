//! Writers shared by the statement printers: lists, string literals, and the `WITH`,
//! `IF [NOT] EXISTS`, `WHERE` and `DROP` clauses.

use std::fmt::{self, Display, Formatter};

use crate::statement::ast::{Property, Relation};

/// Writes `items` separated by `", "`.
pub fn comma<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

/// A CQL string literal: `'...'` with `'` doubled.
pub(crate) fn quote_string(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Writes ` WITH p1 AND p2 ...` (nothing for an empty list).
pub(crate) fn with_properties(f: &mut Formatter<'_>, props: &[Property]) -> fmt::Result {
    for (i, p) in props.iter().enumerate() {
        f.write_str(if i == 0 { " WITH " } else { " AND " })?;
        write!(f, "{p}")?;
    }
    Ok(())
}

/// ` IF EXISTS` when `yes`.
pub(crate) fn if_exists(f: &mut Formatter<'_>, yes: bool) -> fmt::Result {
    f.write_str(if yes { " IF EXISTS" } else { "" })
}

/// ` IF NOT EXISTS` when `yes`.
pub(crate) fn if_not_exists(f: &mut Formatter<'_>, yes: bool) -> fmt::Result {
    f.write_str(if yes { " IF NOT EXISTS" } else { "" })
}

/// Writes ` WHERE r1 AND r2 ...` (nothing for no relations).
pub(crate) fn where_clause(f: &mut Formatter<'_>, relations: &[Relation]) -> fmt::Result {
    for (i, r) in relations.iter().enumerate() {
        f.write_str(if i == 0 { " WHERE " } else { " AND " })?;
        write!(f, "{r}")?;
    }
    Ok(())
}

/// `DROP what [IF EXISTS] name`.
pub(crate) fn drop_object(
    f: &mut Formatter<'_>,
    what: &str,
    exists: bool,
    name: &dyn Display,
) -> fmt::Result {
    write!(f, "DROP {what}")?;
    if_exists(f, exists)?;
    write!(f, " {name}")
}
