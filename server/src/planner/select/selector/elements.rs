//! Element and slice selection on collections (`m[k]`, `s[e]`, `m[a..b]`, `s[..e]`), planned
//! as Cassandra 5.0's `Selectable.WithElementSelection` / `WithSliceSelection` plan them: only
//! maps and sets, the subscript typed by the map's key or the set's element.

use cql::statement::ast::{SelectExpr, Term};
use cql::types::ColumnType;
use storage::TableDef;

use super::{prepare, Planned, Precedence, Prepared, Scalar};
use crate::error::{CqlResult, SelectError};

/// Which subscript a selection takes, for the messages.
#[derive(Clone, Copy)]
enum Selection {
    /// `c[k]`.
    Element,
    /// `c[a..b]`.
    Slice,
}

/// The type a subscript of `collection` takes.
fn subscript_type(collection: &Planned, selection: Selection) -> CqlResult<ColumnType> {
    let column = || collection.name.clone();
    let err = match (&collection.ty, selection) {
        (ColumnType::Map { key, .. }, _) => return Ok((**key).clone()),
        (ColumnType::Set { element, .. }, _) => return Ok((**element).clone()),
        (ColumnType::List { .. }, Selection::Element) => {
            SelectError::ElementOfList { column: column() }
        }
        (ColumnType::List { .. }, Selection::Slice) => {
            SelectError::SliceOfList { column: column() }
        }
        (other, Selection::Element) => SelectError::ElementOfNonCollection {
            column: column(),
            ty: other.to_string(),
        },
        (other, Selection::Slice) => SelectError::SliceOfNonCollection {
            column: column(),
            ty: other.to_string(),
        },
    };
    Err(err.into())
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
    let key_type = subscript_type(&collection, Selection::Element)?;
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
    let bound_type = subscript_type(&collection, Selection::Slice)?;
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
