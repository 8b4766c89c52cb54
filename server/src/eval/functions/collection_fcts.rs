//! Cassandra 5.0's collection functions (`CollectionFcts`): `map_keys`, `map_values`,
//! `collection_count`, `collection_min`, `collection_max`, `collection_sum` and
//! `collection_avg`. Their signatures are made for the argument's type when a call is
//! planned (Cassandra's `FunctionFactory`); min, max, sum and avg fold the elements with the
//! accumulators of the aggregates of the same names, so a collection and a column of rows
//! give the same answer (integer sums wrap, integer averages truncate, an empty
//! collection's sum and average are zero).

use std::sync::OnceLock;

use bytes::Bytes;
use cql::types::ColumnType;

use super::{first, made_signature, Body, MadeSignatures, NativeFunction};
use crate::error::{CqlResult, FunctionError};
use crate::executor::read::aggregate::Accumulator;
use crate::executor::write::multicell;
use crate::planner::select::AggregateFunction;

/// One of the collection functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum CollectionFn {
    MapKeys,
    MapValues,
    Count,
    Min,
    Max,
    Sum,
    Avg,
}

impl CollectionFn {
    /// The function a name (as Cassandra spells it, in the `system` keyspace) calls.
    pub(crate) fn from_name(name: &str) -> Option<CollectionFn> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Every collection function.
    const ALL: [CollectionFn; 7] = [
        CollectionFn::MapKeys,
        CollectionFn::MapValues,
        CollectionFn::Count,
        CollectionFn::Min,
        CollectionFn::Max,
        CollectionFn::Sum,
        CollectionFn::Avg,
    ];

    fn name(self) -> &'static str {
        match self {
            CollectionFn::MapKeys => "map_keys",
            CollectionFn::MapValues => "map_values",
            CollectionFn::Count => "collection_count",
            CollectionFn::Min => "collection_min",
            CollectionFn::Max => "collection_max",
            CollectionFn::Sum => "collection_sum",
            CollectionFn::Avg => "collection_avg",
        }
    }

    /// The factory as Cassandra prints it in messages (`FunctionFactory.toString()`), its
    /// parameter named by `FunctionParameter.toString()` (`setOrList` prints as
    /// `numeric_set_or_list` there too).
    pub(crate) fn factory_text(self) -> String {
        let parameter = match self {
            CollectionFn::MapKeys | CollectionFn::MapValues => "map",
            CollectionFn::Count => "collection",
            _ => "numeric_set_or_list",
        };
        format!("system.{}({parameter})", self.name())
    }

    /// The signature for an argument of type `ty` (written `arg`), made once per type.
    ///
    /// # Errors
    /// Cassandra's refusal of an argument the function does not take.
    pub(crate) fn for_argument(
        self,
        arg: &str,
        ty: &ColumnType,
    ) -> CqlResult<&'static NativeFunction> {
        let ret = self
            .return_type(ty)
            .ok_or_else(|| FunctionError::CollectionArgument {
                function: format!("system.{}", self.name()),
                requirement: self.requirement(),
                arg: arg.to_string(),
                ty: ty.to_string(),
            })?;
        static MADE: MadeSignatures<(CollectionFn, ColumnType)> = OnceLock::new();
        Ok(made_signature(&MADE, (self, ty.clone()), || {
            NativeFunction::new(self.name(), vec![ty.clone()], ret, Body::Collection(self))
        }))
    }

    /// What the argument must be, as `FunctionParameter.validateType` words it.
    fn requirement(self) -> &'static str {
        match self {
            CollectionFn::MapKeys | CollectionFn::MapValues => "a map argument",
            CollectionFn::Count => "a collection argument",
            CollectionFn::Min | CollectionFn::Max => "a set or list argument",
            CollectionFn::Sum | CollectionFn::Avg => "a numeric set/list argument",
        }
    }

    /// The result type for an argument of type `ty`; `None` when the function does not take
    /// it.
    fn return_type(self, ty: &ColumnType) -> Option<ColumnType> {
        let element = match ty {
            ColumnType::List { element, .. } | ColumnType::Set { element, .. } => Some(element),
            _ => None,
        };
        match (self, ty) {
            (CollectionFn::MapKeys, ColumnType::Map { key, .. }) => Some(ColumnType::Set {
                element: key.clone(),
                frozen: false,
            }),
            (CollectionFn::MapValues, ColumnType::Map { value, .. }) => Some(ColumnType::List {
                element: value.clone(),
                frozen: false,
            }),
            (CollectionFn::Count, ColumnType::List { .. })
            | (CollectionFn::Count, ColumnType::Set { .. })
            | (CollectionFn::Count, ColumnType::Map { .. }) => Some(ColumnType::Int),
            (CollectionFn::Min | CollectionFn::Max, _) => element.map(|e| (**e).clone()),
            (CollectionFn::Sum | CollectionFn::Avg, _) => {
                element.filter(|e| is_number(e)).map(|e| (**e).clone())
            }
            _ => None,
        }
    }
}

/// Cassandra's `NumberType`s.
fn is_number(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Tinyint
            | ColumnType::Smallint
            | ColumnType::Int
            | ColumnType::Bigint
            | ColumnType::Float
            | ColumnType::Double
            | ColumnType::Varint
            | ColumnType::Decimal
    )
}

/// Runs `kind` over the serialized collection (null for null), on the elements' bytes as
/// they are.
///
/// # Errors
/// A stored value that does not split into elements; a sum or average the accumulator
/// refuses.
pub(crate) fn execute(
    function: &NativeFunction,
    kind: CollectionFn,
    args: &[Option<Bytes>],
) -> CqlResult<Option<Bytes>> {
    let Some(bytes) = first(args) else {
        return Ok(None);
    };
    let elements = match function.args.first() {
        Some(ColumnType::Map { .. }) => {
            let entries = multicell::map_entries(bytes)?;
            match kind {
                CollectionFn::MapValues => entries.into_iter().map(|(_, v)| v).collect(),
                _ => entries.into_iter().map(|(k, _)| k).collect(),
            }
        }
        _ => multicell::collection_elements(bytes)?,
    };
    let aggregate = match kind {
        // A set and a list serialize alike: a count, then each element with its length.
        CollectionFn::MapKeys | CollectionFn::MapValues => {
            let elements: Vec<Option<Bytes>> = elements.into_iter().map(Some).collect();
            return Ok(Some(multicell::list_of_nullable(&elements)));
        }
        CollectionFn::Count => {
            let count = i32::try_from(elements.len()).unwrap_or(i32::MAX);
            return Ok(Some(Bytes::copy_from_slice(&count.to_be_bytes())));
        }
        CollectionFn::Min => AggregateFunction::Min,
        CollectionFn::Max => AggregateFunction::Max,
        CollectionFn::Sum => AggregateFunction::Sum,
        CollectionFn::Avg => AggregateFunction::Avg,
    };
    let mut accumulator = Accumulator::for_function(aggregate, &function.ret);
    for element in &elements {
        accumulator.add(Some(element))?;
    }
    accumulator.result()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cql::types::{codec, CqlValue};

    fn serialized(value: &CqlValue) -> Bytes {
        let mut out = Vec::new();
        codec::serialize_value(value, &mut out);
        Bytes::from(out)
    }

    fn list_of(element: ColumnType) -> ColumnType {
        ColumnType::List {
            element: Box::new(element),
            frozen: false,
        }
    }

    fn run(kind: CollectionFn, ty: &ColumnType, value: &CqlValue) -> Option<Bytes> {
        let function = kind.for_argument("c", ty).expect("a signature");
        execute(function, kind, &[Some(serialized(value))]).expect("runs")
    }

    #[test]
    fn integer_folds_wrap_and_truncate_as_the_aggregates_do() {
        let ty = list_of(ColumnType::Int);
        let ints = |v: &[i32]| CqlValue::List(v.iter().map(|n| CqlValue::Int(*n)).collect());
        let int =
            |b: Option<Bytes>| i32::from_be_bytes(b.expect("a value")[..].try_into().unwrap());
        assert_eq!(
            int(run(CollectionFn::Sum, &ty, &ints(&[i32::MAX, 1]))),
            i32::MIN
        );
        assert_eq!(int(run(CollectionFn::Avg, &ty, &ints(&[1, 2]))), 1);
        assert_eq!(int(run(CollectionFn::Min, &ty, &ints(&[3, -2, 7]))), -2);
        assert_eq!(int(run(CollectionFn::Max, &ty, &ints(&[3, -2, 7]))), 7);
        assert_eq!(int(run(CollectionFn::Count, &ty, &ints(&[3, 3]))), 2);
        assert_eq!(int(run(CollectionFn::Sum, &ty, &ints(&[]))), 0);
        assert_eq!(int(run(CollectionFn::Avg, &ty, &ints(&[]))), 0);
        assert_eq!(run(CollectionFn::Min, &ty, &ints(&[])), None);
    }

    #[test]
    fn map_keys_and_values_keep_the_map_order() {
        let ty = ColumnType::Map {
            key: Box::new(ColumnType::Text),
            value: Box::new(ColumnType::Int),
            frozen: false,
        };
        let map = CqlValue::Map(vec![
            (CqlValue::Text("a".into()), CqlValue::Int(2)),
            (CqlValue::Text("b".into()), CqlValue::Int(1)),
        ]);
        let keys = run(CollectionFn::MapKeys, &ty, &map).expect("keys");
        let set_ty = CollectionFn::MapKeys.return_type(&ty).expect("a set");
        assert_eq!(
            codec::deserialize_value(&set_ty, &keys).unwrap(),
            CqlValue::Set(vec![CqlValue::Text("a".into()), CqlValue::Text("b".into())])
        );
        let values = run(CollectionFn::MapValues, &ty, &map).expect("values");
        assert_eq!(
            codec::deserialize_value(&list_of(ColumnType::Int), &values).unwrap(),
            CqlValue::List(vec![CqlValue::Int(2), CqlValue::Int(1)])
        );
    }

    #[test]
    fn arguments_are_refused_with_cassandras_messages() {
        let err = CollectionFn::Sum
            .for_argument("l", &list_of(ColumnType::Text))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Function system.collection_sum requires a numeric set/list argument, but found \
             argument l of type list<text>"
        );
        let err = CollectionFn::MapKeys
            .for_argument("v", &ColumnType::Int)
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Function system.map_keys requires a map argument, but found argument v of type int"
        );
        assert_eq!(
            CollectionFn::Min.factory_text(),
            "system.collection_min(numeric_set_or_list)"
        );
    }
}
