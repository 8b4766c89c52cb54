//! Element and slice selection on collections (`m[k]`, `s[e]`, `m[a..b]`, `s[..e]`), planned
//! as Cassandra 5.0's `Selectable.WithElementSelection` / `WithSliceSelection` plan them: only
//! maps and sets, the subscript typed by the map's key or the set's element.

use cql::statement::ast::{SelectExpr, Term};
use cql::types::ColumnType;
use storage::TableDef;

use super::{prepare, Planned, Precedence, Prepared, Scalar};
use crate::error::{CqlError, CqlResult};

/// The type a subscript of `collection` takes (`Element` or `Slice` for the messages).
fn subscript_type(collection: &Planned, selection: &str) -> CqlResult<ColumnType> {
    match &collection.ty {
        ColumnType::Map { key, .. } => Ok((**key).clone()),
        ColumnType::Set { element, .. } => Ok((**element).clone()),
        ColumnType::List { .. } => Err(CqlError::invalid(format!(
            "{selection} selection is only allowed on sets and maps, but {} is a list",
            collection.name
        ))),
        other => Err(CqlError::invalid(match selection {
            "Element" => format!(
                "Invalid element selection: {} is of type {other} is not a collection",
                collection.name
            ),
            _ => format!(
                "Invalid slice selection: {} of type {other} is not a collection",
                collection.name
            ),
        })),
    }
}

/// A subscript term typed as `ty` (bound once per execution).
fn subscript(expr: &Term, ty: &ColumnType) -> CqlResult<Planned> {
    Prepared::Term(expr.clone()).finish(Some(ty))
}

/// `selected[element]`: a map's value, or a set's element when present.
pub(super) fn element_of(
    def: &TableDef,
    selected: &SelectExpr,
    element: &Term,
) -> CqlResult<Planned> {
    let collection = prepare(def, selected)?.finish(None)?;
    let key_type = subscript_type(&collection, "Element")?;
    let key = subscript(element, &key_type)?;
    let ty = match &collection.ty {
        ColumnType::Map { value, .. } => (**value).clone(),
        _ => key_type,
    };
    Ok(Planned {
        name: format!("{}[{}]", collection.name, key.name),
        precedence: Precedence::Atom,
        scalar: Scalar::Element {
            collection: Box::new(collection.scalar),
            key: Box::new(key.scalar),
            ty: collection.ty,
        },
        ty,
    })
}

/// `selected[from..to]`: the entries of a map or set between two inclusive bounds, either of
/// which may be open.
pub(super) fn slice_of(
    def: &TableDef,
    selected: &SelectExpr,
    from: Option<&Term>,
    to: Option<&Term>,
) -> CqlResult<Planned> {
    let collection = prepare(def, selected)?.finish(None)?;
    let bound_type = subscript_type(&collection, "Slice")?;
    let from = from.map(|t| subscript(t, &bound_type)).transpose()?;
    let to = to.map(|t| subscript(t, &bound_type)).transpose()?;
    let name_of =
        |bound: &Option<Planned>| bound.as_ref().map_or(String::new(), |b| b.name.clone());
    Ok(Planned {
        name: format!("{}[{}..{}]", collection.name, name_of(&from), name_of(&to)),
        precedence: Precedence::Atom,
        ty: collection.ty.clone(),
        scalar: Scalar::Slice {
            collection: Box::new(collection.scalar),
            from: from.map(|b| Box::new(b.scalar)),
            to: to.map(|b| Box::new(b.scalar)),
            ty: collection.ty,
        },
    })
}
