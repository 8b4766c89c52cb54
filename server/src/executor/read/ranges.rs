//! The key ranges a SELECT walks, in read order. IN restrictions on several key columns
//! multiply (300 values on each of three columns are 27 million combinations), so a read by
//! partition keys builds its ranges one at a time from the sorted value lists
//! ([`Odometer`]), and a resumed page finds its place by looking the last key's values up
//! in those lists. Only the current range is ever held.

use bytes::Bytes;
use cql::types::ordering;
use storage::{KeyRange, Order, PartitionKey, TableDef};

use crate::error::{CqlResult, RestrictionError};
use crate::executor::keys;
use crate::executor::read::clustering::SuffixRanges;
use crate::executor::read::odometer::Odometer;

/// The ranges of a read, listed or generated.
pub(crate) enum ReadRanges {
    /// A few ranges, held (a point key, a token range, every partition, index candidates).
    Listed(Vec<KeyRange>),
    /// Partitions chosen by key values, each with the clustering ranges.
    Product(Box<RangeProduct>),
}

/// Every partition given by the key values' product, and under each the clustering ranges.
pub(crate) struct RangeProduct {
    /// Each partition-key column's values, sorted in the column type's order and distinct:
    /// Cassandra reads IN partitions by key value, component by component (not by token).
    partitions: Vec<Vec<Bytes>>,
    /// Partitions outside this token range are passed over.
    token_range: Option<KeyRange>,
    clustering: SuffixRanges,
    /// Clustering ranges are walked backwards (partitions stay in key order).
    reversed: bool,
    /// Every clustering range holds one row: read each with a point lookup.
    points: bool,
}

impl RangeProduct {
    /// The product of `partitions` (one value list per partition-key column) and the
    /// clustering ranges.
    ///
    /// # Errors
    /// [`RestrictionError::EmptyKey`] for an empty value of a single-column partition key.
    pub(crate) fn new(
        def: &TableDef,
        mut partitions: Vec<Vec<Bytes>>,
        token_range: Option<KeyRange>,
        clustering: SuffixRanges,
        reversed: bool,
        points: bool,
    ) -> CqlResult<RangeProduct> {
        for (values, &column) in partitions.iter_mut().zip(&def.partition_key) {
            if keys::is_empty_key(def, values.iter()) {
                return Err(RestrictionError::EmptyKey.into());
            }
            let ty = &def.columns[column].ty;
            values.sort_by(|a, b| ordering::compare(ty, a, b));
            values.dedup_by(|a, b| ordering::compare(ty, a, b).is_eq());
        }
        Ok(RangeProduct {
            partitions,
            token_range,
            clustering,
            reversed,
            points,
        })
    }

    fn sizes(&self) -> Vec<usize> {
        self.partitions
            .iter()
            .map(Vec::len)
            .chain(self.clustering.sizes())
            .collect()
    }

    fn directions(&self) -> Vec<bool> {
        let partitions = self.partitions.len();
        (0..partitions)
            .map(|_| false)
            .chain(self.clustering.sizes().map(|_| self.reversed))
            .collect()
    }

    /// The list indexes of the range holding `key`, if the key's values are in the lists.
    fn indexes_of(&self, def: &TableDef, key: &[u8]) -> Option<Vec<usize>> {
        let decoded = storage::decode_row_key(def, key).ok()?;
        let mut indexes = Vec::with_capacity(self.sizes().len());
        for ((values, &column), value) in self
            .partitions
            .iter()
            .zip(&def.partition_key)
            .zip(&decoded.partition)
        {
            let ty = &def.columns[column].ty;
            let index = values
                .binary_search_by(|probe| ordering::compare(ty, probe, value))
                .ok()?;
            indexes.push(index);
        }
        indexes.extend(self.clustering.choices_of(def, &decoded.clustering)?);
        Some(indexes)
    }
}

impl ReadRanges {
    /// How many ranges there are at most (a token range may pass some partitions over).
    pub(crate) fn count(&self) -> u64 {
        match self {
            ReadRanges::Listed(ranges) => ranges.len() as u64,
            ReadRanges::Product(product) => Odometer::total(&product.sizes()),
        }
    }

    /// Whether every range holds one key, read with a point lookup.
    pub(crate) fn all_points(&self) -> bool {
        match self {
            ReadRanges::Listed(ranges) => ranges.iter().all(|r| r.exact_key().is_some()),
            ReadRanges::Product(product) => product.points,
        }
    }

    /// Every range, held (for index lookups, which check their candidates against them).
    ///
    /// # Errors
    /// As [`keys::partition_key`].
    pub(crate) fn to_vec(&self, def: &TableDef) -> CqlResult<Vec<KeyRange>> {
        match self {
            ReadRanges::Listed(ranges) => Ok(ranges.clone()),
            ReadRanges::Product(product) => Walk::new(
                def,
                product,
                Odometer::new(product.sizes(), product.directions()),
            )
            .collect(),
        }
    }

    /// The ranges in read order; when a page resumes after `resume`, starting with the range
    /// holding that key, narrowed to what comes after it (before it, `reversed`).
    pub(crate) fn walk<'a>(
        &'a self,
        def: &'a TableDef,
        resume: Option<&'a [u8]>,
        reversed: bool,
    ) -> RangeWalk<'a> {
        let inner = match (self, resume) {
            (ReadRanges::Listed(ranges), None) => Inner::Listed(ranges.iter()),
            (ReadRanges::Listed(ranges), Some(after)) => {
                let first = ranges
                    .iter()
                    .position(|r| r.contains(after))
                    .or_else(|| {
                        // An index candidate deleted since the last page: resume at the next.
                        ranges.iter().position(|r| r.lies_after(after))
                    })
                    .unwrap_or(ranges.len());
                Inner::Listed(ranges[first..].iter())
            }
            (ReadRanges::Product(product), None) => Inner::Product(Walk::new(
                def,
                product,
                Odometer::new(product.sizes(), product.directions()),
            )),
            (ReadRanges::Product(product), Some(after)) => {
                Inner::Product(Walk::resuming(def, product, after))
            }
        };
        RangeWalk {
            inner,
            resume: resume.map(|after| (after, Order::reversed_if(reversed))),
        }
    }
}

/// The ranges of a read in order, as [`ReadRanges::walk`] gives them.
pub(crate) struct RangeWalk<'a> {
    inner: Inner<'a>,
    /// The key a resumed page continues after and the read's order, until the first range
    /// is narrowed.
    resume: Option<(&'a [u8], Order)>,
}

enum Inner<'a> {
    Listed(std::slice::Iter<'a, KeyRange>),
    Product(Walk<'a>),
}

impl Iterator for RangeWalk<'_> {
    type Item = CqlResult<KeyRange>;

    fn next(&mut self) -> Option<CqlResult<KeyRange>> {
        loop {
            let range = match &mut self.inner {
                Inner::Listed(ranges) => ranges.next()?.clone(),
                Inner::Product(walk) => match walk.next()? {
                    Ok(range) => range,
                    Err(err) => return Some(Err(err)),
                },
            };
            match self.resume.take() {
                None => return Some(Ok(range)),
                Some((after, order)) => {
                    if let Some(range) = range.after(after, order) {
                        return Some(Ok(range));
                    }
                }
            }
        }
    }
}

/// Generates a product's ranges one at a time.
#[derive(Clone)]
struct Walk<'a> {
    def: &'a TableDef,
    product: &'a RangeProduct,
    odometer: Odometer,
    /// The key of the current partition, once built.
    partition: Option<PartitionKey>,
    /// The clustering part indexes of the current range (reused).
    choices: Vec<usize>,
    failed: bool,
}

impl<'a> Walk<'a> {
    fn new(def: &'a TableDef, product: &'a RangeProduct, odometer: Odometer) -> Walk<'a> {
        let choices = vec![0; product.clustering.sizes().count()];
        Walk {
            def,
            product,
            odometer,
            partition: None,
            choices,
            failed: false,
        }
    }

    /// A walk starting at the range holding `key`: found by looking its values up in the
    /// lists, or else (a paging state from another query) by walking to it.
    fn resuming(def: &'a TableDef, product: &'a RangeProduct, key: &[u8]) -> Walk<'a> {
        if let Some(indexes) = product.indexes_of(def, key) {
            let odometer = Odometer::at(product.sizes(), product.directions(), &indexes);
            return Walk::new(def, product, odometer);
        }
        let mut walk = Walk::new(
            def,
            product,
            Odometer::new(product.sizes(), product.directions()),
        );
        loop {
            let before = walk.clone();
            match walk.next() {
                Some(Ok(range)) if !range.contains(key) => continue,
                Some(Ok(_)) => return before,
                Some(Err(_)) | None => return walk,
            }
        }
    }
}

impl Iterator for Walk<'_> {
    type Item = CqlResult<KeyRange>;

    fn next(&mut self) -> Option<CqlResult<KeyRange>> {
        let product = self.product;
        let partition_columns = product.partitions.len();
        loop {
            if self.failed || self.odometer.done() {
                return None;
            }
            let partition = match self.partition.take() {
                Some(partition) => partition,
                None => match self.enter_partition() {
                    Ok(Some(partition)) => partition,
                    Ok(None) => {
                        self.odometer.advance_at(partition_columns - 1);
                        continue;
                    }
                    Err(err) => {
                        self.failed = true;
                        return Some(Err(err));
                    }
                },
            };
            for (n, choice) in self.choices.iter_mut().enumerate() {
                *choice = self.odometer.index(partition_columns + n);
            }
            let clustering = &product.clustering;
            let range = if product.points {
                KeyRange::row(&partition, &clustering.prefix(&self.choices))
            } else {
                KeyRange::slice(&partition, &clustering.range(&self.choices))
            };
            if self.odometer.advance() >= partition_columns {
                self.partition = Some(partition);
            }
            return Some(Ok(range));
        }
    }
}

impl Walk<'_> {
    /// The key of the partition the odometer points at; `None` when the token range passes
    /// it over.
    fn enter_partition(&self) -> CqlResult<Option<PartitionKey>> {
        let product = self.product;
        let values: Vec<Bytes> = product
            .partitions
            .iter()
            .enumerate()
            .map(|(d, values)| values[self.odometer.index(d)].clone())
            .collect();
        let partition = keys::partition_key(self.def, &values)?;
        let passed_over = product
            .token_range
            .as_ref()
            .is_some_and(|range| !range.contains_partition(&partition));
        Ok((!passed_over).then_some(partition))
    }
}
