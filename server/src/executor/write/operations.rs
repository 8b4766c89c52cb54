//! Column operations turned into cells: plain values, and the element cells and collection
//! deletions of non-frozen collections and UDTs (Cassandra's `Lists`, `Sets`, `Maps` and
//! `UserTypes` setters, adders and discarders).

use std::collections::HashSet;

use bytes::Bytes;
use cql::statement::ast::Term;
use cql::types::ColumnType;
use storage::{Cell, CellValue, ColumnDef, ColumnId, Expiry};

use crate::error::{CqlResult, ModifyError};
use crate::eval::values::{evaluate, EvalContext, Evaluated, Receiver};
use crate::executor::write::multicell::Element;
use crate::executor::write::{guards, multicell};
use crate::node::Node;
use crate::planner::modify::operations::Operation;

/// Cassandra's cells are limited by the commit log segment; keep far below our frame limit.
const MAX_CELL: usize = 64 * 1024 * 1024;

/// The term of `op` when it sets a single-cell column (`c = term` on a column that is not a
/// non-frozen collection or UDT): its one cell, at most, has no path.
pub(crate) fn single_cell_term<'o>(col: &ColumnDef, op: &'o Operation) -> Option<&'o Term> {
    match op {
        Operation::Set(term) if !col.ty.is_multi_cell() => Some(term),
        _ => None,
    }
}

/// Everything the cells of one statement share.
pub(crate) struct CellWriter<'a> {
    pub(crate) node: &'a Node,
    pub(crate) ctx: &'a EvalContext<'a>,
    /// The write timestamp (microseconds).
    pub(crate) timestamp: i64,
    /// The TTL of live cells.
    pub(crate) expiry: Option<Expiry>,
    /// The local deletion time of tombstones (seconds).
    pub(crate) now_seconds: i64,
}

impl CellWriter<'_> {
    fn live(&self, path: Option<Bytes>, value: Bytes) -> Cell {
        Cell {
            timestamp: self.timestamp,
            expiry: self.expiry,
            path,
            value: CellValue::Live(value),
        }
    }

    fn tombstone_at(&self, timestamp: i64, path: Option<Bytes>) -> Cell {
        Cell {
            timestamp,
            expiry: None,
            path,
            value: CellValue::Tombstone {
                local_deletion_seconds: self.now_seconds,
            },
        }
    }

    fn tombstone(&self, path: Option<Bytes>) -> Cell {
        self.tombstone_at(self.timestamp, path)
    }

    fn eval(&self, term: &Term, name: &str, ty: &ColumnType) -> CqlResult<Evaluated> {
        let value = evaluate(term, Receiver { name, ty }, self.ctx)?;
        if let Evaluated::Value(bytes) = &value {
            if bytes.len() > MAX_CELL {
                return Err(ModifyError::ValueTooLarge {
                    column: name.to_string(),
                    size: bytes.len(),
                }
                .into());
            }
        }
        Ok(value)
    }

    fn positions(&self, count: usize, prepend: bool) -> Vec<i64> {
        let stamps: Vec<i64> = (0..count).map(|_| self.node.next_timestamp()).collect();
        if prepend {
            stamps.iter().rev().map(|s| -s).collect()
        } else {
            stamps
        }
    }

    fn elements(&self, ty: &ColumnType, bytes: &[u8], prepend: bool) -> CqlResult<Vec<Element>> {
        if !matches!(ty, ColumnType::List { .. }) {
            return multicell::elements_of(ty, bytes, &mut || 0);
        }
        // List positions depend on the element count (prepends count down), so split first.
        let values = multicell::collection_elements(bytes)?;
        let positions = self.positions(values.len(), prepend);
        Ok(positions
            .into_iter()
            .zip(values)
            .map(|(position, value)| (multicell::list_path(position), value))
            .collect())
    }

    fn live_elements(&self, elements: Vec<Element>, out: &mut Vec<Cell>) {
        out.extend(
            elements
                .into_iter()
                .map(|(path, value)| self.live(Some(path), value)),
        );
    }

    /// The cells of `op` on `col`. `current` gives the column's live elements, for the list
    /// operations that need them ([`Operation::requires_read`]).
    pub(crate) fn cells(
        &self,
        col: &ColumnDef,
        op: &Operation,
        current: &dyn Fn() -> CqlResult<Vec<Element>>,
        out: &mut Vec<(ColumnId, Cell)>,
    ) -> CqlResult<()> {
        if let Some(term) = single_cell_term(col, op) {
            if let Some(cell) = self.single_cell(col, op, term)? {
                out.push((col.id, cell));
            }
            return Ok(());
        }
        let mut cells = Vec::new();
        match op {
            // A multi-cell column (single-cell ones took `single_cell` above).
            Operation::Set(term) => self.replace_elements(col, term, &mut cells)?,
            Operation::Add(term) | Operation::Prepend(term) => {
                let prepend = matches!(op, Operation::Prepend(_));
                self.add_elements(col, term, prepend, &mut cells)?;
            }
            Operation::Remove(term) => self.remove(col, term, current, &mut cells)?,
            Operation::SetElement { key, value } => {
                self.set_element(col, key, value, current, &mut cells)?;
            }
            Operation::SetField { field, value } => {
                self.set_field(col, *field, value, &mut cells)?;
            }
            Operation::Delete => cells.push(self.tombstone(None)),
            Operation::DeleteElement(key) => match self.element_tombstone(col, key, current)? {
                Some(cell) => cells.push(cell),
                // An unset list index deletes nothing (Cassandra's `DiscarderByIndex`).
                None => return Ok(()),
            },
            Operation::DeleteField(field) => {
                cells.push(self.tombstone(Some(multicell::field_path(*field))));
            }
        }
        guards::check(self.node.config(), col, op, &cells)?;
        out.extend(cells.into_iter().map(|c| (col.id, c)));
        Ok(())
    }

    /// The one cell of `col = term` on a single-cell column (see [`single_cell_term`]), the
    /// common case; none for an unset value.
    pub(crate) fn single_cell(
        &self,
        col: &ColumnDef,
        op: &Operation,
        term: &Term,
    ) -> CqlResult<Option<Cell>> {
        let cell = match self.eval(term, &col.name, &col.ty)? {
            Evaluated::Unset => return Ok(None),
            Evaluated::Null => self.tombstone(None),
            Evaluated::Value(bytes) => self.live(None, bytes),
        };
        guards::check(self.node.config(), col, op, std::slice::from_ref(&cell))?;
        Ok(Some(cell))
    }

    /// `c = term` on a multi-cell column: a null deletes it, a value overwrites it (a
    /// tombstone just before this write, then the value's elements).
    fn replace_elements(&self, col: &ColumnDef, term: &Term, out: &mut Vec<Cell>) -> CqlResult<()> {
        match self.eval(term, &col.name, &col.ty)? {
            Evaluated::Unset => {}
            Evaluated::Null => out.push(self.tombstone(None)),
            Evaluated::Value(bytes) => {
                // Overwrite: clear what was there just before this write.
                out.push(self.tombstone_at(self.timestamp - 1, None));
                let elements = self.elements(&col.ty, &bytes, false)?;
                self.live_elements(elements, out);
            }
        }
        Ok(())
    }

    /// `c = c + term` (or `c = term + c` when `prepend`): the value's elements, added.
    fn add_elements(
        &self,
        col: &ColumnDef,
        term: &Term,
        prepend: bool,
        out: &mut Vec<Cell>,
    ) -> CqlResult<()> {
        if let Evaluated::Value(bytes) = self.eval(term, &col.name, &col.ty)? {
            let elements = self.elements(&col.ty, &bytes, prepend)?;
            self.live_elements(elements, out);
        }
        Ok(())
    }

    /// `c[key] = value` on a list or map.
    fn set_element(
        &self,
        col: &ColumnDef,
        key: &Term,
        value: &Term,
        current: &dyn Fn() -> CqlResult<Vec<Element>>,
        out: &mut Vec<Cell>,
    ) -> CqlResult<()> {
        let path = self.element_path(col, key, current, "set an element on")?;
        let value_type = match &col.ty {
            ColumnType::List { element, .. } => element.as_ref(),
            ColumnType::Map { value, .. } => value.as_ref(),
            ty => ty,
        };
        let value_name = format!("value({})", col.name);
        match self.eval(value, &value_name, value_type)? {
            Evaluated::Unset => {}
            Evaluated::Null => out.push(self.tombstone(Some(path))),
            Evaluated::Value(bytes) => out.push(self.live(Some(path), bytes)),
        }
        Ok(())
    }

    /// `c.field = value` on a non-frozen UDT.
    fn set_field(
        &self,
        col: &ColumnDef,
        field: usize,
        value: &Term,
        out: &mut Vec<Cell>,
    ) -> CqlResult<()> {
        let name = col.name.as_str();
        let ColumnType::Udt { fields, .. } = &col.ty else {
            return Err(ModifyError::NotUdtColumn {
                column: name.to_string(),
            }
            .into());
        };
        let (field_name, field_type) = &fields[field];
        let receiver = format!("{name}.{field_name}");
        let path = Some(multicell::field_path(field));
        match self.eval(value, &receiver, field_type)? {
            Evaluated::Unset => {}
            Evaluated::Null => out.push(self.tombstone(path)),
            Evaluated::Value(bytes) => out.push(self.live(path, bytes)),
        }
        Ok(())
    }

    /// `DELETE c[key]`: the tombstone of a set element, map key or list position; `None`
    /// for an unset list index.
    fn element_tombstone(
        &self,
        col: &ColumnDef,
        key: &Term,
        current: &dyn Fn() -> CqlResult<Vec<Element>>,
    ) -> CqlResult<Option<Cell>> {
        let name = col.name.as_str();
        let ty = &col.ty;
        let list_index = || self.eval(key, &format!("idx({name})"), &ColumnType::Int);
        if matches!(ty, ColumnType::List { .. }) && matches!(list_index()?, Evaluated::Unset) {
            return Ok(None);
        }
        let path = match ty {
            ColumnType::Set { element, .. } => self.key_bytes(key, name, element)?,
            _ => self.element_path(col, key, current, "delete an element from")?,
        };
        Ok(Some(self.tombstone(Some(path))))
    }

    /// `c = c - term`: list values (every occurrence), set elements or map keys.
    fn remove(
        &self,
        col: &ColumnDef,
        term: &Term,
        current: &dyn Fn() -> CqlResult<Vec<Element>>,
        out: &mut Vec<Cell>,
    ) -> CqlResult<()> {
        let receiver = match &col.ty {
            ColumnType::Map { key, .. } => ColumnType::Set {
                element: key.clone(),
                frozen: false,
            },
            other => other.clone(),
        };
        let Evaluated::Value(bytes) = self.eval(term, &col.name, &receiver)? else {
            return Ok(());
        };
        let removed = multicell::collection_elements(&bytes)?;
        match &col.ty {
            ColumnType::List { .. } => {
                // Cassandra's `Lists.Discarder` compares values by their bytes; a hash set
                // keeps a long list minus many values linear.
                let removed: HashSet<Bytes> = removed.into_iter().collect();
                for (path, value) in current()? {
                    if removed.contains(&value) {
                        out.push(self.tombstone(Some(path)));
                    }
                }
            }
            _ => out.extend(removed.into_iter().map(|e| self.tombstone(Some(e)))),
        }
        Ok(())
    }

    fn key_bytes(&self, key: &Term, name: &str, ty: &ColumnType) -> CqlResult<Bytes> {
        match self.eval(key, &format!("key({name})"), ty)? {
            Evaluated::Value(bytes) => Ok(bytes),
            Evaluated::Null => Err(ModifyError::NullMapKey.into()),
            Evaluated::Unset => Err(ModifyError::UnsetMapKey.into()),
        }
    }

    /// The path addressed by `c[key]`: a map key, or the position of list index `key`.
    fn element_path(
        &self,
        col: &ColumnDef,
        key: &Term,
        current: &dyn Fn() -> CqlResult<Vec<Element>>,
        action: &'static str,
    ) -> CqlResult<Bytes> {
        match &col.ty {
            ColumnType::Map { key: key_type, .. } => self.key_bytes(key, &col.name, key_type),
            _ => {
                let index = match self.eval(key, &format!("idx({})", col.name), &ColumnType::Int)? {
                    Evaluated::Value(b) => b
                        .as_ref()
                        .try_into()
                        .map(i32::from_be_bytes)
                        .map_err(|_| ModifyError::InvalidListIndex)?,
                    Evaluated::Null => return Err(ModifyError::NullListIndex.into()),
                    Evaluated::Unset => return Err(ModifyError::UnsetListIndex.into()),
                };
                let elements = current()?;
                if elements.is_empty() {
                    return Err(ModifyError::ElementOfNullList { action }.into());
                }
                usize::try_from(index)
                    .ok()
                    .and_then(|i| elements.get(i))
                    .map(|(path, _)| path.clone())
                    .ok_or_else(|| {
                        ModifyError::ListIndexOutOfBound {
                            index,
                            size: elements.len(),
                        }
                        .into()
                    })
            }
        }
    }
}
