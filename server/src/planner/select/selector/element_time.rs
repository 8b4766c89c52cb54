//! `writetime(c[k])`, `ttl(c[k])`, `writetime(u.f)` and `ttl(u.f)` (Cassandra 5.0,
//! CASSANDRA-8877): the write time or TTL of one element of a map or set, or one field of a
//! UDT. In a non-frozen column each element is a cell of its own; in a frozen one the element
//! shares the column's cell.

use cql::statement::ast::{QualifiedName, SelectExpr};
use cql::types::ColumnType;
use storage::{ColumnKind, TableDef};

use super::{prepare, ElementKey, Planned, Precedence, Scalar};
use crate::error::{CqlResult, SelectError};
use crate::planner::column_index;

/// The plan of `name(args)` when it is `writetime` or `ttl` of an element or field of a
/// column; `None` for any other call.
pub(super) fn plan(
    def: &TableDef,
    name: &QualifiedName,
    args: &[SelectExpr],
) -> CqlResult<Option<Planned>> {
    if name.keyspace.is_some() || name.name.quoted {
        return Ok(None);
    }
    let writetime = match name.name.name.as_str() {
        "writetime" => true,
        "ttl" => false,
        _ => return Ok(None),
    };
    let [arg] = args else { return Ok(None) };
    let (SelectExpr::Element(inner, _) | SelectExpr::Field(inner, _)) = arg else {
        return Ok(None);
    };
    let SelectExpr::Column(column) = &**inner else {
        return Ok(None);
    };
    let i = column_index(def, column)?;
    let col = &def.columns[i];
    if matches!(col.kind, ColumnKind::PartitionKey | ColumnKind::Clustering) {
        let function = if writetime { "writetime" } else { "ttl" };
        return Err(SelectError::CellTimeOnPrimaryKey {
            function,
            column: col.name.clone(),
        }
        .into());
    }
    // Plans (and so checks) the element or field selection itself.
    let selected = prepare(def, arg)?.finish(None)?;
    let key = match selected.scalar {
        Scalar::Element { key, .. } => ElementKey::Key(key),
        Scalar::Field { index, .. } => ElementKey::Field(index),
        _ => return Ok(None),
    };
    let (ty, label) = if writetime {
        (ColumnType::Bigint, "writetime")
    } else {
        (ColumnType::Int, "ttl")
    };
    Ok(Some(Planned {
        scalar: Scalar::ElementTime {
            column: i,
            key,
            ty: col.ty.clone(),
            ttl: !writetime,
        },
        ty,
        name: format!("{label}({})", selected.name),
        precedence: Precedence::Atom,
    }))
}
