//! Evaluating a clustering plan: the `=`/`IN` prefix combinations as storage
//! [`ClusteringPrefix`]es, the slice as a [`ClusteringRange`] under each prefix, and — for
//! slices over columns of mixed direction — the tuple comparison applied to each row.

use std::cmp::Ordering;
use std::ops::Bound;

use bytes::Bytes;
use cql::statement::ast::Term;
use cql::types::{codec, ordering, ColumnType, CqlValue};
use storage::{ClusteringOrder, ClusteringPrefix, ClusteringRange, TableDef};

use crate::error::{CqlResult, RestrictionError};
use crate::eval::values::{EvalContext, Receiver};
use crate::executor::keys;
use crate::executor::read::odometer::Odometer;
use crate::guardrails;
use crate::guardrails::Threshold;
use crate::planner::common::clustering::{ClusteringPlan, MultiValues, PrefixPart, SliceBound};

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
        .ok_or(RestrictionError::TooManyValuesForClustering)?;
    Ok((def.columns[i].name.as_str(), &def.columns[i].ty))
}

fn value_of(term: &Term, name: &str, ty: &ColumnType, ctx: &EvalContext<'_>) -> CqlResult<Bytes> {
    crate::executor::keys::key_value(term, Receiver { name, ty }, ctx)
}

fn tuple_type(def: &TableDef, start: usize, width: usize) -> CqlResult<ColumnType> {
    let types = (start..start + width)
        .map(|p| column_receiver(def, p).map(|(_, ty)| ty.clone()))
        .collect::<CqlResult<Vec<_>>>()?;
    Ok(ColumnType::Tuple(types))
}

fn split_tuple(value: CqlValue, def: &TableDef, start: usize) -> CqlResult<Vec<Bytes>> {
    let CqlValue::Tuple(items) = value else {
        return Err(RestrictionError::ExpectedTuple.into());
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
                let column = column_receiver(def, start + n)
                    .map(|(name, _)| name.to_string())
                    .unwrap_or_default();
                Err(RestrictionError::NullKeyValue { column }.into())
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
                return Err(RestrictionError::TupleArity {
                    expected: width,
                    got: items.len(),
                    value: term.to_string(),
                }
                .into());
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
            let value =
                codec::deserialize_value(&ty, &bytes).map_err(RestrictionError::MalformedValue)?;
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
                .ok_or(RestrictionError::TooManyClusteringValues)?;
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
                .map_err(RestrictionError::MalformedValue)?
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

/// The clustering rows an UPDATE names: every combination of the per-column values in
/// `values` (one list per clustering column given), the columns of `tuples` taking the rows
/// of its tuples together instead.
pub(crate) fn update_rows(
    def: &TableDef,
    values: Vec<Vec<Bytes>>,
    tuples: Option<&crate::planner::modify::ClusteringTuples>,
    ctx: &EvalContext<'_>,
) -> CqlResult<Vec<Vec<Bytes>>> {
    let Some(tuples) = tuples else {
        return Ok(keys::cartesian(values));
    };
    let (start, end) = (tuples.start, tuples.start + tuples.width);
    let part = PrefixPart::Multi {
        width: tuples.width,
        values: match &tuples.values {
            cql::statement::ast::InValues::List(terms) => MultiValues::Tuples(terms.clone()),
            cql::statement::ast::InValues::Bind(marker) => MultiValues::Bind(marker.clone()),
        },
    };
    let rows = part_choices(&part, def, start, ctx)?;
    let before = keys::cartesian(values.get(..start).unwrap_or_default().to_vec());
    let after = keys::cartesian(values.get(end..).unwrap_or_default().to_vec());
    let mut out = Vec::with_capacity(before.len() * rows.len() * after.len());
    for b in &before {
        for row in &rows {
            for a in &after {
                out.push([b.as_slice(), row, a].concat());
            }
        }
    }
    Ok(out)
}

fn part_width(part: &PrefixPart) -> usize {
    match part {
        PrefixPart::Single(_) => 1,
        PrefixPart::Multi { width, .. } => *width,
    }
}

/// Each prefix part's choices, encoded, sorted and distinct, as ranges without a slice.
/// Components are prefix-free, so walking the parts' combinations in order gives
/// the prefixes in byte order.
fn encoded_parts(
    plan: &ClusteringPlan,
    def: &TableDef,
    ctx: &EvalContext<'_>,
    guard: Threshold,
) -> CqlResult<SuffixRanges> {
    let mut parts = Vec::with_capacity(plan.prefix.len());
    let mut spans = Vec::with_capacity(plan.prefix.len());
    let mut combinations = 1u64;
    let mut start = 0;
    for part in &plan.prefix {
        let choices = part_choices(part, def, start, ctx)?;
        if choices.len() > 1 {
            // Checked before any combination is read, as Cassandra's MultiCBuilder does.
            combinations = combinations.saturating_mul(choices.len() as u64);
            guardrails::in_select_cartesian_product(guard, "clustering key", combinations)?;
        }
        let mut encoded = choices
            .iter()
            .map(|choice| encode_values(def, start, choice))
            .collect::<CqlResult<Vec<_>>>()?;
        encoded.sort();
        encoded.dedup();
        parts.push(encoded);
        spans.push((start, part_width(part)));
        start += part_width(part);
    }
    Ok(SuffixRanges {
        parts,
        spans,
        slice: None,
    })
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

/// The encoding of `values` for the clustering columns from `start`; more values than
/// columns is Cassandra's error, checked before any value is encoded.
fn encode_values(def: &TableDef, start: usize, values: &[Bytes]) -> CqlResult<ClusteringPrefix> {
    if !values.is_empty() && start + values.len() > def.clustering_key.len() {
        return Err(RestrictionError::TooManyClusteringValues.into());
    }
    Ok(ClusteringPrefix::encode(def, start, values)?)
}

/// A slice's bounds, encoded as they follow a clustering prefix, and the sliced columns'
/// direction.
struct EncodedSlice {
    lower: Bound<ClusteringPrefix>,
    upper: Bound<ClusteringPrefix>,
    order: ClusteringOrder,
}

/// The clustering ranges of a plan, one per combination of its `=`/`IN` choices in key order,
/// built one at a time: a product of IN lists is never held whole.
pub(crate) struct SuffixRanges {
    /// Each prefix part's encoded choices, sorted and distinct.
    parts: Vec<Vec<ClusteringPrefix>>,
    /// Each part's first clustering column and width.
    spans: Vec<(usize, usize)>,
    slice: Option<EncodedSlice>,
}

impl SuffixRanges {
    /// How many choices each prefix part has.
    pub(crate) fn sizes(&self) -> impl Iterator<Item = usize> + '_ {
        self.parts.iter().map(Vec::len)
    }

    /// The clustering prefix of the combination taking choice `indexes[p]` of each part `p`:
    /// a whole row's clustering when every column is restricted by `=`/`IN`.
    pub(crate) fn prefix(&self, indexes: &[usize]) -> ClusteringPrefix {
        let mut prefix = ClusteringPrefix::default();
        for (choices, &i) in self.parts.iter().zip(indexes) {
            prefix.append(&choices[i]);
        }
        prefix
    }

    /// The clustering range of the combination taking choice `indexes[p]` of each part `p`.
    pub(crate) fn range(&self, indexes: &[usize]) -> ClusteringRange {
        let prefix = self.prefix(indexes);
        match &self.slice {
            None => ClusteringRange::prefix(prefix),
            Some(slice) => ClusteringRange::slice(
                &prefix,
                slice.lower.as_ref(),
                slice.upper.as_ref(),
                slice.order,
            ),
        }
    }

    /// The choice of each part that a row with these clustering values falls under, if any.
    pub(crate) fn choices_of(&self, def: &TableDef, clustering: &[Bytes]) -> Option<Vec<usize>> {
        self.parts
            .iter()
            .zip(&self.spans)
            .map(|(choices, &(start, width))| {
                let values = clustering.get(start..start + width)?;
                let encoded = encode_values(def, start, values).ok()?;
                choices.binary_search(&encoded).ok()
            })
            .collect()
    }

    /// Every range, in key order (for writes, which apply them all at once, and row checks).
    pub(crate) fn all(&self) -> Vec<ClusteringRange> {
        let sizes: Vec<usize> = self.sizes().collect();
        let mut odometer = Odometer::new(sizes.clone(), vec![false; sizes.len()]);
        let mut out = Vec::new();
        let mut indexes = vec![0; sizes.len()];
        while !odometer.done() {
            for (d, index) in indexes.iter_mut().enumerate() {
                *index = odometer.index(d);
            }
            out.push(self.range(&indexes));
            odometer.advance();
        }
        out
    }
}

/// Clustering ranges (as suffixes after a partition prefix) and an optional per-row check.
/// `guard` is the `in_select_cartesian_product` guardrail on the IN lists' product.
pub(crate) fn suffix_ranges(
    plan: &ClusteringPlan,
    def: &TableDef,
    ctx: &EvalContext<'_>,
    guard: Threshold,
) -> CqlResult<(SuffixRanges, Option<TupleCheck>)> {
    let mut ranges = encoded_parts(plan, def, ctx, guard)?;
    let Some(slice) = &plan.slice else {
        return Ok((ranges, None));
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
        return Ok((ranges, Some(check)));
    }
    let encode = |b: Option<(Vec<Bytes>, bool)>| -> CqlResult<Bound<ClusteringPrefix>> {
        Ok(match b {
            Some((values, true)) => Bound::Included(encode_values(def, slice.start, &values)?),
            Some((values, false)) => Bound::Excluded(encode_values(def, slice.start, &values)?),
            None => Bound::Unbounded,
        })
    };
    ranges.slice = Some(EncodedSlice {
        lower: encode(lower)?,
        upper: encode(upper)?,
        order: if slice.desc {
            ClusteringOrder::Desc
        } else {
            ClusteringOrder::Asc
        },
    });
    Ok((ranges, None))
}
