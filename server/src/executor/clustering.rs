//! Evaluating a clustering plan: the `=`/`IN` prefix combinations, the slice as byte ranges
//! under each prefix, and — for slices over columns of mixed direction — the tuple comparison
//! applied to each row.

use std::cmp::Ordering;

use bytes::Bytes;
use cql::statement::ast::Term;
use cql::types::{codec, ordering, ColumnType, CqlValue};
use storage::TableDef;

use crate::error::{CqlError, CqlResult};
use crate::executor::keys::{self, SliceBound as KeyBound};
use crate::executor::source::KeyRange;
use crate::guardrails::{self, Threshold};
use crate::planner::clustering::{ClusteringPlan, MultiValues, PrefixPart, SliceBound};
use crate::values::{evaluate, EvalContext, Evaluated, Receiver};

/// A tuple bound checked row by row (slices over mixed-direction columns).
pub(crate) struct TupleCheck {
    start: usize,
    lower: Option<(Vec<Bytes>, bool)>,
    upper: Option<(Vec<Bytes>, bool)>,
}

impl TupleCheck {
    /// Whether a row's clustering values satisfy the bounds (in CQL value order).
    pub(crate) fn passes(&self, def: &TableDef, clustering: &[Bytes]) -> bool {
        let cmp = |bound: &[Bytes]| -> Ordering {
            for (n, value) in bound.iter().enumerate() {
                let position = self.start + n;
                let (Some(&col), Some(row_value)) =
                    (def.clustering_key.get(position), clustering.get(position))
                else {
                    return Ordering::Equal;
                };
                match ordering::compare(&def.columns[col].ty, row_value, value) {
                    Ordering::Equal => continue,
                    other => return other,
                }
            }
            Ordering::Equal
        };
        let lower_ok = self.lower.as_ref().is_none_or(|(b, incl)| match cmp(b) {
            Ordering::Greater => true,
            Ordering::Equal => *incl,
            Ordering::Less => false,
        });
        let upper_ok = self.upper.as_ref().is_none_or(|(b, incl)| match cmp(b) {
            Ordering::Less => true,
            Ordering::Equal => *incl,
            Ordering::Greater => false,
        });
        lower_ok && upper_ok
    }
}

fn column_receiver(def: &TableDef, position: usize) -> CqlResult<(&str, &ColumnType)> {
    let &i = def
        .clustering_key
        .get(position)
        .ok_or_else(|| CqlError::invalid("Too many values for the clustering columns"))?;
    Ok((def.columns[i].name.as_str(), &def.columns[i].ty))
}

fn value_of(term: &Term, name: &str, ty: &ColumnType, ctx: &EvalContext<'_>) -> CqlResult<Bytes> {
    match evaluate(term, Receiver { name, ty }, ctx)? {
        Evaluated::Value(b) => Ok(b),
        Evaluated::Null => Err(CqlError::invalid(format!(
            "Invalid null value in condition for column {name}"
        ))),
        Evaluated::Unset => Err(CqlError::invalid(format!(
            "Invalid unset value for column {name}"
        ))),
    }
}

fn tuple_type(def: &TableDef, start: usize, width: usize) -> CqlResult<ColumnType> {
    let types = (start..start + width)
        .map(|p| column_receiver(def, p).map(|(_, ty)| ty.clone()))
        .collect::<CqlResult<Vec<_>>>()?;
    Ok(ColumnType::Tuple(types))
}

fn split_tuple(value: CqlValue, def: &TableDef, start: usize) -> CqlResult<Vec<Bytes>> {
    let CqlValue::Tuple(items) = value else {
        return Err(CqlError::invalid("Expected a tuple value"));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(n, item)| match item {
            Some(v) => {
                let mut out = Vec::new();
                codec::serialize_value(&v, &mut out);
                Ok(Bytes::from(out))
            }
            None => {
                let name = column_receiver(def, start + n)
                    .map(|(name, _)| name.to_string())
                    .unwrap_or_default();
                Err(CqlError::invalid(format!(
                    "Invalid null value in condition for column {name}"
                )))
            }
        })
        .collect()
}

/// Values of a tuple term for the `width` columns from `start`.
fn tuple_values(
    term: &Term,
    def: &TableDef,
    start: usize,
    width: usize,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Bytes>> {
    match term {
        Term::Tuple(items) => {
            if items.len() != width {
                return Err(CqlError::invalid(format!(
                    "Expected {width} elements in value tuple, but got {}: {term}",
                    items.len()
                )));
            }
            items
                .iter()
                .enumerate()
                .map(|(n, item)| {
                    let (name, ty) = column_receiver(def, start + n)?;
                    value_of(item, name, ty, ctx)
                })
                .collect()
        }
        other => {
            let ty = tuple_type(def, start, width)?;
            let bytes = value_of(other, "tuple", &ty, ctx)?;
            let value = codec::deserialize_value(&ty, &bytes)
                .map_err(|e| CqlError::invalid(e.to_string()))?;
            split_tuple(value, def, start)
        }
    }
}

/// The choices one prefix part offers (each a run of column values).
fn part_choices(
    part: &PrefixPart,
    def: &TableDef,
    start: usize,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Vec<Bytes>>> {
    match part {
        PrefixPart::Single(set) => {
            let &column = def
                .clustering_key
                .get(start)
                .ok_or_else(|| CqlError::invalid("Too many clustering values"))?;
            Ok(keys::key_values(set, def, column, ctx)?
                .into_iter()
                .map(|v| vec![v])
                .collect())
        }
        PrefixPart::Multi {
            width,
            values: MultiValues::Tuples(terms),
        } => terms
            .iter()
            .map(|t| tuple_values(t, def, start, *width, ctx))
            .collect(),
        PrefixPart::Multi {
            width,
            values: MultiValues::Bind(marker),
        } => {
            let list = ColumnType::List {
                element: Box::new(tuple_type(def, start, *width)?),
                frozen: false,
            };
            let bytes = value_of(&Term::Bind(marker.clone()), "in", &list, ctx)?;
            match codec::deserialize_value(&list, &bytes)
                .map_err(|e| CqlError::invalid(e.to_string()))?
            {
                CqlValue::List(items) => items
                    .into_iter()
                    .map(|t| split_tuple(t, def, start))
                    .collect(),
                _ => Ok(Vec::new()),
            }
        }
    }
}

fn part_width(part: &PrefixPart) -> usize {
    match part {
        PrefixPart::Single(_) => 1,
        PrefixPart::Multi { width, .. } => *width,
    }
}

/// Encoded clustering prefixes: every combination of the parts' choices, sorted, distinct.
fn prefixes(
    plan: &ClusteringPlan,
    def: &TableDef,
    ctx: &EvalContext<'_>,
    guard: Threshold,
) -> CqlResult<Vec<Vec<u8>>> {
    let mut combos: Vec<Vec<Bytes>> = vec![Vec::new()];
    let mut start = 0;
    for part in &plan.prefix {
        let choices = part_choices(part, def, start, ctx)?;
        if choices.len() > 1 {
            // Checked before the product is built, as Cassandra's MultiCBuilder does.
            let size = (combos.len() as u64).saturating_mul(choices.len() as u64);
            guardrails::in_select_cartesian_product(guard, "clustering key", size)?;
        }
        let mut next = Vec::with_capacity(combos.len() * choices.len());
        for combo in &combos {
            for choice in &choices {
                let mut joined = combo.clone();
                joined.extend(choice.iter().cloned());
                next.push(joined);
            }
        }
        combos = next;
        start += part_width(part);
    }
    let mut out = combos
        .iter()
        .map(|c| keys::clustering_bytes(def, c))
        .collect::<CqlResult<Vec<_>>>()?;
    out.sort();
    out.dedup();
    Ok(out)
}

fn bound_values(
    bound: &SliceBound,
    def: &TableDef,
    start: usize,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Bytes>> {
    if bound.multi {
        tuple_values(&bound.term, def, start, bound.width, ctx)
    } else {
        let (name, ty) = column_receiver(def, start)?;
        Ok(vec![value_of(&bound.term, name, ty, ctx)?])
    }
}

/// Appends the encoding of `values` for the clustering columns from `start` to `prefix`.
fn encode_after(
    prefix: &[u8],
    def: &TableDef,
    start: usize,
    values: &[Bytes],
) -> CqlResult<Vec<u8>> {
    let typed: Vec<(&ColumnType, storage::ClusteringOrder, &[u8])> = values
        .iter()
        .enumerate()
        .map(|(n, v)| {
            let &i = def
                .clustering_key
                .get(start + n)
                .ok_or_else(|| CqlError::invalid("Too many clustering values"))?;
            Ok((&def.columns[i].ty, def.columns[i].order, v.as_ref()))
        })
        .collect::<CqlResult<Vec<_>>>()?;
    let mut key = prefix.to_vec();
    storage::encoding::key::encode_clustering(&typed, &mut key)?;
    Ok(key)
}

/// Clustering ranges (as suffixes after a partition prefix) and an optional per-row check.
/// `guard` is the `in_select_cartesian_product` guardrail on the IN lists' product.
pub(crate) fn suffix_ranges(
    plan: &ClusteringPlan,
    def: &TableDef,
    ctx: &EvalContext<'_>,
    guard: Threshold,
) -> CqlResult<(Vec<KeyRange>, Option<TupleCheck>)> {
    let prefixes = prefixes(plan, def, ctx, guard)?;
    let Some(slice) = &plan.slice else {
        return Ok((prefixes.into_iter().map(keys::prefix_range).collect(), None));
    };
    let lower = slice
        .lower
        .as_ref()
        .map(|b| bound_values(b, def, slice.start, ctx).map(|v| (v, b.inclusive)))
        .transpose()?;
    let upper = slice
        .upper
        .as_ref()
        .map(|b| bound_values(b, def, slice.start, ctx).map(|v| (v, b.inclusive)))
        .transpose()?;
    if !slice.exact {
        let check = TupleCheck {
            start: slice.start,
            lower,
            upper,
        };
        return Ok((
            prefixes.into_iter().map(keys::prefix_range).collect(),
            Some(check),
        ));
    }
    let mut ranges: Vec<KeyRange> = Vec::with_capacity(prefixes.len());
    for prefix in prefixes {
        let key_bound = |b: &Option<(Vec<Bytes>, bool)>| -> CqlResult<Option<KeyBound>> {
            b.as_ref()
                .map(|(values, inclusive)| {
                    Ok(KeyBound {
                        key: encode_after(&prefix, def, slice.start, values)?,
                        inclusive: *inclusive,
                    })
                })
                .transpose()
        };
        ranges.push(keys::slice_range(
            &prefix,
            key_bound(&lower)?,
            key_bound(&upper)?,
            slice.desc,
        ));
    }
    Ok((ranges, None))
}
