//! Values from CQL text, before any evaluation: literals converted for a receiving column
//! ([`literal`], which sends a plain constant to `constant`, a tuple written as a string
//! to `tuple_string`, whose fields are constants again, and any constant for a composite
//! custom type to `composite_string`), and collections put in Cassandra's
//! canonical order ([`normalize`]). Below `values` (term evaluation), `json` and
//! `functions`, which all convert text this way.

mod composite_string;
mod constant;
pub(crate) mod literal;
pub(crate) mod normalize;
mod tuple_string;

use cql::types::ColumnType;

pub(crate) use constant::decimal;
pub(crate) use literal::{literal_value, sort_map, sort_set};

/// The receiving column of a term: its name (for messages) and type.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Receiver<'a> {
    /// The column's name, as messages quote it.
    pub name: &'a str,
    /// The column's type.
    pub ty: &'a ColumnType,
}
