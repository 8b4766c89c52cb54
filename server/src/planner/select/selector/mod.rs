//! Selector expressions below the aggregates: columns, terms, native function calls, casts,
//! arithmetic and UDT field selection, planned into a [`Scalar`] tree with the result type
//! and the column name Cassandra gives them (`system.textasblob(v)`, `cast(v as text)`,
//! `a + 1`, `u.f`). Arguments whose type is only known from the function they are passed to
//! (literals, bind markers) are typed by the resolved signature, as in Cassandra's
//! `Selectable` preparation.

use bytes::Bytes;
use cql::statement::ast::{ArithOp, BindMarker, CqlType, Ident, QualifiedName, SelectExpr, Term};
use cql::types::ColumnType;
use storage::{ColumnKind, TableDef};

use crate::error::{CqlResult, FunctionError, SelectError};
use crate::eval::functions::assign::{type_fit, Fit, Provided};
use crate::eval::functions::collection_fcts::CollectionFn;
use crate::eval::functions::masking_fcts::MaskFn;
use crate::eval::functions::registry::{candidates, lookup, resolve, validate, written_name};
use crate::eval::functions::vector_fcts::Similarity;
use crate::eval::functions::{cast_function_name, term, ArithKind, Body, NativeFunction, NEGATION};
use crate::planner::column_index;

mod cast;
use cast::{cast, type_hint};

/// A value computed for each row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar {
    /// A table column, by index.
    Column(usize),
    /// `token(partition key)`.
    Token,
    /// A literal or bind marker, typed by where it stands; bound once per execution.
    Term { term: Term, ty: ColumnType },
    /// A value fixed for the execution (a bound term).
    Const(Option<Bytes>),
    /// The result of aggregate number `k` of the selector that applies functions to
    /// aggregates (`max(t)` in `todate(max(t))`); only in an aggregate's `then`, replaced by
    /// the group's result.
    Aggregated(usize),
    /// A native function applied to the values of its arguments.
    Call {
        function: &'static NativeFunction,
        args: Vec<Scalar>,
    },
    /// Field `index` of a UDT value.
    Field { value: Box<Scalar>, index: usize },
    /// `c[k]`: the value of map `c` at key `k`, or set `c`'s element `k` if present.
    Element {
        collection: Box<Scalar>,
        key: Box<Scalar>,
        /// The collection's type.
        ty: ColumnType,
    },
    /// `c[from..to]`: the entries of map or set `c` between inclusive bounds (open if absent).
    Slice {
        collection: Box<Scalar>,
        from: Option<Box<Scalar>>,
        to: Option<Box<Scalar>>,
        /// The collection's type.
        ty: ColumnType,
    },
    /// `writetime(c)`: the write timestamp of column `c`'s cell, by index.
    WriteTime(usize),
    /// `writetime(c)` / `ttl(c)` of a non-frozen collection or UDT (a list, one entry per
    /// live element or field) and `maxwritetime(c)` of any column (Cassandra 5.0).
    CellTimes { column: usize, kind: CellTimeKind },
    /// `ttl(c)`: the seconds left before column `c`'s cell expires, by index.
    Ttl(usize),
    /// `writetime(c[k])` / `ttl(c[k])` / `writetime(u.f)` / `ttl(u.f)`: of one element or
    /// field of column `column` (of type `ty`).
    ElementTime {
        column: usize,
        key: ElementKey,
        ty: ColumnType,
        /// `ttl` rather than `writetime`.
        ttl: bool,
    },
}

/// What [`Scalar::CellTimes`] reads of a column's cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CellTimeKind {
    /// Each live cell's write timestamp (`list<bigint>`).
    WriteTimes,
    /// Each live cell's remaining TTL, null without one (`list<int>`).
    Ttls,
    /// The latest write timestamp of the column's live cells (`bigint`).
    MaxWriteTime,
}

/// Which element of a column [`Scalar::ElementTime`] reads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ElementKey {
    /// A map key or set element.
    Key(Box<Scalar>),
    /// A UDT field, by position.
    Field(usize),
}

impl Scalar {
    /// The table columns this expression reads, in order of appearance.
    pub(crate) fn columns(&self, out: &mut Vec<usize>) {
        match self {
            Scalar::Column(i)
            | Scalar::WriteTime(i)
            | Scalar::Ttl(i)
            | Scalar::CellTimes { column: i, .. } => out.push(*i),
            Scalar::Call { args, .. } => args.iter().for_each(|a| a.columns(out)),
            Scalar::Field { value, .. } => value.columns(out),
            Scalar::Token | Scalar::Term { .. } | Scalar::Const(_) | Scalar::Aggregated(_) => {}
            Scalar::Element { .. } | Scalar::Slice { .. } => {
                self.children().into_iter().for_each(|c| c.columns(out));
            }
            Scalar::ElementTime { column, .. } => {
                out.push(*column);
                self.children().into_iter().for_each(|c| c.columns(out));
            }
        }
    }

    /// The sub-expressions of an element or slice selection, in order.
    fn children(&self) -> Vec<&Scalar> {
        match self {
            Scalar::Element {
                collection, key, ..
            } => vec![collection, key],
            Scalar::Slice {
                collection,
                from,
                to,
                ..
            } => std::iter::once(&**collection)
                .chain(from.as_deref())
                .chain(to.as_deref())
                .collect(),
            Scalar::ElementTime {
                key: ElementKey::Key(key),
                ..
            } => vec![key],
            _ => Vec::new(),
        }
    }

    /// Whether this expression reads cells' write timestamps or TTLs.
    pub(crate) fn reads_write_times(&self) -> bool {
        match self {
            Scalar::WriteTime(_)
            | Scalar::Ttl(_)
            | Scalar::ElementTime { .. }
            | Scalar::CellTimes { .. } => true,
            Scalar::Call { args, .. } => args.iter().any(Scalar::reads_write_times),
            Scalar::Field { value, .. } => value.reads_write_times(),
            Scalar::Element { .. } | Scalar::Slice { .. } => {
                self.children().into_iter().any(Scalar::reads_write_times)
            }
            Scalar::Column(_)
            | Scalar::Token
            | Scalar::Term { .. }
            | Scalar::Const(_)
            | Scalar::Aggregated(_) => false,
        }
    }

    /// The bind markers in this expression with the types they receive.
    pub(crate) fn markers(&self, out: &mut Vec<(BindMarker, ColumnType)>) {
        match self {
            Scalar::Term {
                term: Term::Bind(marker),
                ty,
            } => out.push((marker.clone(), ty.clone())),
            Scalar::Call { args, .. } => args.iter().for_each(|a| a.markers(out)),
            Scalar::Field { value, .. } => value.markers(out),
            Scalar::Element { .. } | Scalar::Slice { .. } | Scalar::ElementTime { .. } => {
                self.children().into_iter().for_each(|c| c.markers(out));
            }
            _ => {}
        }
    }
}

/// A planned selector: its value, type and result column name.
#[derive(Debug, Clone)]
pub(crate) struct Planned {
    pub scalar: Scalar,
    pub ty: ColumnType,
    pub name: String,
    /// How tightly the name binds, to parenthesise it as an operand.
    precedence: Precedence,
}

/// Binding strength of a selector's name, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Precedence {
    Additive,
    Multiplicative,
    Unary,
    Atom,
}

impl Precedence {
    fn of(function: &NativeFunction) -> Precedence {
        match &function.body {
            Body::Operation(ArithKind::Add | ArithKind::Sub) | Body::Temporal(_) | Body::Concat => {
                Precedence::Additive
            }
            Body::Operation(_) => Precedence::Multiplicative,
            Body::Negation => Precedence::Unary,
            _ => Precedence::Atom,
        }
    }
}

/// The names of a call's arguments, parenthesised where the operator binds tighter than an
/// operand (the parentheses Cassandra keeps from the statement text).
fn operand_names(function: &NativeFunction, args: &[Planned]) -> Vec<String> {
    let own = Precedence::of(function);
    args.iter()
        .enumerate()
        .map(|(i, arg)| {
            let wrap = match own {
                Precedence::Atom => false,
                Precedence::Unary => arg.precedence < Precedence::Unary,
                // Operators associate to the left: an equal right operand needs parentheses.
                _ if i == 0 => arg.precedence < own,
                _ => arg.precedence <= own,
            };
            if wrap {
                format!("({})", arg.name)
            } else {
                arg.name.clone()
            }
        })
        .collect()
}

/// A selector before its type is settled: planned, or a term waiting for the type of the
/// place it is passed to.
enum Prepared {
    Ready(Planned),
    Term(Term),
}

impl Prepared {
    /// How resolution sees this argument.
    fn provided(&self) -> Provided {
        match self {
            Prepared::Ready(p) => Provided::Typed {
                ty: p.ty.clone(),
                text: p.name.clone(),
            },
            Prepared::Term(t) => term::provided(t),
        }
    }

    /// Settles the type: a term takes `expected`, which must exist and fit it.
    fn finish(self, expected: Option<&ColumnType>) -> CqlResult<Planned> {
        match self {
            Prepared::Ready(p) => Ok(p),
            Prepared::Term(t) => {
                let Some(ty) = expected else {
                    return Err(SelectError::UntypedTerm {
                        term: t.to_string(),
                    }
                    .into());
                };
                if term::provided(&t).fit(ty) == Fit::Not {
                    return Err(SelectError::TermNotOfType {
                        term: t.to_string(),
                        ty: ty.to_string(),
                    }
                    .into());
                }
                Ok(Planned {
                    name: t.to_string(),
                    precedence: Precedence::Atom,
                    scalar: Scalar::Term {
                        term: t,
                        ty: ty.clone(),
                    },
                    ty: ty.clone(),
                })
            }
        }
    }
}

/// Plans a scalar selector whose type must be known on its own (a top-level selector or an
/// aggregate's argument).
///
/// # Errors
///
/// Unknown columns or functions, argument type errors, untyped terms.
pub(crate) fn plan_scalar(def: &TableDef, expr: &SelectExpr) -> CqlResult<Planned> {
    prepare(def, expr)?.finish(None)
}

fn prepare(def: &TableDef, expr: &SelectExpr) -> CqlResult<Prepared> {
    let planned = match expr {
        SelectExpr::Column(ident) => column(def, ident)?,
        SelectExpr::Term(Term::TypeCast(CqlType::Native(ty), inner)) => {
            let hinted = Prepared::Term((**inner).clone()).finish(Some(ty))?;
            Planned {
                name: format!("({ty}){}", hinted.name),
                precedence: Precedence::Unary,
                ..hinted
            }
        }
        SelectExpr::Term(t) => return Ok(Prepared::Term(t.clone())),
        SelectExpr::Function { name, args } => function(def, name, args)?,
        SelectExpr::Cast(inner, ty) => cast(def, inner, ty)?,
        SelectExpr::Arith(op, left, right) => operation(def, *op, left, right)?,
        SelectExpr::Negate(inner) => call(
            def,
            &format!("system.{NEGATION}"),
            candidates(NEGATION),
            std::slice::from_ref(&**inner),
        )?,
        SelectExpr::Field(inner, field) => field_of(def, inner, field)?,
        SelectExpr::TypeHint(CqlType::Native(ty), inner) => type_hint(def, ty, inner)?,
        SelectExpr::Element(selected, element) => elements::element_of(def, selected, element)?,
        SelectExpr::Slice(selected, from, to) => {
            elements::slice_of(def, selected, from.as_deref(), to.as_deref())?
        }
        SelectExpr::WriteTime(ident) => write_time_or_ttl(def, ident, true)?,
        SelectExpr::Ttl(ident) => write_time_or_ttl(def, ident, false)?,
        other => {
            return Err(SelectError::UnsupportedSelector {
                selector: other.to_string(),
            }
            .into())
        }
    };
    Ok(Prepared::Ready(planned))
}

fn column(def: &TableDef, ident: &Ident) -> CqlResult<Planned> {
    let i = column_index(def, ident)?;
    let col = &def.columns[i];
    Ok(Planned {
        scalar: Scalar::Column(i),
        ty: col.ty.clone(),
        name: col.name.clone(),
        precedence: Precedence::Atom,
    })
}

/// `writetime(c)` (a `bigint`) or `ttl(c)` (an `int`) of a column's cell; of a non-frozen
/// collection or UDT, a list with one entry per live element or field (Cassandra 5.0's
/// `Selectable.WritetimeOrTTL`).
fn write_time_or_ttl(def: &TableDef, ident: &Ident, writetime: bool) -> CqlResult<Planned> {
    let function = if writetime { "writetime" } else { "ttl" };
    let i = cell_time_column(def, ident, function)?;
    let col = &def.columns[i];
    let (scalar, ty) = match (writetime, col.ty.is_multi_cell()) {
        (true, false) => (Scalar::WriteTime(i), ColumnType::Bigint),
        (false, false) => (Scalar::Ttl(i), ColumnType::Int),
        (true, true) => (
            cell_times(i, CellTimeKind::WriteTimes),
            list_of(ColumnType::Bigint),
        ),
        (false, true) => (cell_times(i, CellTimeKind::Ttls), list_of(ColumnType::Int)),
    };
    Ok(Planned {
        scalar,
        ty,
        name: format!("{function}({})", col.name),
        precedence: Precedence::Atom,
    })
}

/// `maxwritetime(c)`: the latest write timestamp of column `c`'s live cells, a `bigint`.
fn max_write_time(def: &TableDef, args: &[SelectExpr]) -> CqlResult<Planned> {
    let [SelectExpr::Column(ident)] = args else {
        return Err(SelectError::ArgumentCount {
            function: "maxwritetime",
            required: 1,
            provided: args.len(),
        }
        .into());
    };
    let i = cell_time_column(def, ident, "maxwritetime")?;
    Ok(Planned {
        scalar: cell_times(i, CellTimeKind::MaxWriteTime),
        ty: ColumnType::Bigint,
        name: format!("maxwritetime({})", def.columns[i].name),
        precedence: Precedence::Atom,
    })
}

/// The column a write-time or TTL selector reads: never a primary key column.
fn cell_time_column(def: &TableDef, ident: &Ident, function: &'static str) -> CqlResult<usize> {
    let i = column_index(def, ident)?;
    let col = &def.columns[i];
    if matches!(col.kind, ColumnKind::PartitionKey | ColumnKind::Clustering) {
        return Err(SelectError::CellTimeOnPrimaryKey {
            function,
            column: col.name.clone(),
        }
        .into());
    }
    Ok(i)
}

fn cell_times(column: usize, kind: CellTimeKind) -> Scalar {
    Scalar::CellTimes { column, kind }
}

fn list_of(element: ColumnType) -> ColumnType {
    ColumnType::List {
        element: Box::new(element),
        frozen: false,
    }
}

fn function(def: &TableDef, name: &QualifiedName, args: &[SelectExpr]) -> CqlResult<Planned> {
    if let Some(planned) = element_time::plan(def, name, args)? {
        return Ok(planned);
    }
    let system = name.keyspace.as_ref().is_none_or(|ks| ks.name == "system");
    if system && name.name.name == "token" {
        crate::planner::common::token::check_selector(def, args)?;
        let names: Vec<String> = args.iter().map(ToString::to_string).collect();
        return Ok(Planned {
            scalar: Scalar::Token,
            ty: ColumnType::Bigint,
            name: format!("system.token({})", names.join(", ")),
            precedence: Precedence::Atom,
        });
    }
    if system && name.name.name == "maxwritetime" {
        return max_write_time(def, args);
    }
    if let Some(kind) = system
        .then(|| Similarity::from_function_name(&name.name.name))
        .flatten()
    {
        return similarity::plan(def, kind, args);
    }
    if let Some(kind) = system
        .then(|| CollectionFn::from_name(&name.name.name))
        .flatten()
    {
        return collection_call(def, kind, args);
    }
    if let Some(kind) = system.then(|| MaskFn::from_name(&name.name.name)).flatten() {
        return masking_call(def, kind, args);
    }
    // fromJson has a signature only for a receiving column: a selector has none.
    crate::eval::functions::registry::made_for_receiver(name, None)?;
    let found = lookup(name);
    if found.is_empty() {
        return Err(SelectError::UnknownFunction {
            function: written_name(name),
        }
        .into());
    }
    call(def, &written_name(name), found, args)
}

/// A collection function's call: its signature made for the argument's type, which must
/// be known (a column or an expression; a literal needs a cast or hint).
fn collection_call(def: &TableDef, kind: CollectionFn, args: &[SelectExpr]) -> CqlResult<Planned> {
    let [arg] = args else {
        return Err(FunctionError::FactoryArgumentCount {
            factory: kind.factory_text(),
        }
        .into());
    };
    let prepared = prepare(def, arg)?;
    let Prepared::Ready(planned) = &prepared else {
        return Err(FunctionError::FactoryUntyped {
            arg: arg.to_string(),
            factory: kind.factory_text(),
        }
        .into());
    };
    let function = kind.for_argument(&planned.name, &planned.ty)?;
    apply(function, vec![prepared])
}

/// A masking function's call: its signature made for the arguments' types, then each
/// argument checked against it as for any single signature.
fn masking_call(def: &TableDef, kind: MaskFn, args: &[SelectExpr]) -> CqlResult<Planned> {
    let prepared = args
        .iter()
        .map(|a| prepare(def, a))
        .collect::<CqlResult<Vec<_>>>()?;
    let provided: Vec<Provided> = prepared.iter().map(Prepared::provided).collect();
    let function = validate(kind.for_arguments(&provided)?, &provided)?;
    apply(function, prepared)
}

/// Resolves a call among `found` for `args`, then types the arguments by the signature.
fn call(
    def: &TableDef,
    name: &str,
    found: &'static [NativeFunction],
    args: &[SelectExpr],
) -> CqlResult<Planned> {
    let prepared = args
        .iter()
        .map(|a| prepare(def, a))
        .collect::<CqlResult<Vec<_>>>()?;
    let provided: Vec<Provided> = prepared.iter().map(Prepared::provided).collect();
    let function =
        resolve(name, found, &provided, None)?.ok_or_else(|| SelectError::UnknownFunction {
            function: name.to_string(),
        })?;
    apply(function, prepared)
}

fn apply(function: &'static NativeFunction, prepared: Vec<Prepared>) -> CqlResult<Planned> {
    let args = prepared
        .into_iter()
        .zip(&function.args)
        .map(|(p, ty)| p.finish(Some(ty)))
        .collect::<CqlResult<Vec<_>>>()?;
    let names = operand_names(function, &args);
    Ok(Planned {
        name: function.column_name(&names),
        precedence: Precedence::of(function),
        ty: function.ret.clone(),
        scalar: Scalar::Call {
            function,
            args: args.into_iter().map(|a| a.scalar).collect(),
        },
    })
}

fn operation(
    def: &TableDef,
    op: ArithOp,
    left: &SelectExpr,
    right: &SelectExpr,
) -> CqlResult<Planned> {
    let name = ArithKind::of(op).function_name();
    call(
        def,
        &format!("system.{name}"),
        candidates(name),
        &[left.clone(), right.clone()],
    )
}

/// `u.field`.
fn field_of(def: &TableDef, inner: &SelectExpr, field: &Ident) -> CqlResult<Planned> {
    let udt = prepare(def, inner)?.finish(None)?;
    let ColumnType::Udt { fields, .. } = &udt.ty else {
        return Err(SelectError::FieldOfNonUdt {
            selector: udt.name,
            ty: udt.ty.to_string(),
        }
        .into());
    };
    let Some(index) = fields.iter().position(|(name, _)| *name == field.name) else {
        return Err(SelectError::UnknownField {
            selector: udt.name,
            ty: udt.ty.to_string(),
            field: field.name.clone(),
        }
        .into());
    };
    let ty = fields[index].1.clone();
    Ok(Planned {
        name: format!("{}.{}", udt.name, field.name),
        precedence: Precedence::Atom,
        ty,
        scalar: Scalar::Field {
            value: Box::new(udt.scalar),
            index,
        },
    })
}

mod element_time;
mod elements;
mod similarity;
#[cfg(test)]
mod tests;
