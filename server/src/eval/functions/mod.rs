//! Cassandra's native scalar functions (the `system` keyspace): the time functions, the blob
//! conversions, the casts behind `CAST(x AS t)` and the operators behind `+ - * / %` and unary
//! `-`. Each family lives in its own file and contributes [`NativeFunction`]s to the
//! `registry`, which resolves a call by name and argument types with Cassandra's
//! `FunctionResolver` rules and messages. `fromJson` and the vector similarities are made
//! on demand instead, per receiving type (`json_fcts`) or vector dimension (`vector_fcts`).
//!
//! Aggregates (`count`, `min`, ...) and `token()` are planned elsewhere (`planner::selection`,
//! `planner::token`); this module only evaluates scalar functions over serialized values.

pub(crate) mod assign;
mod bytes_fcts;
mod cast;
pub(crate) mod collection_fcts;
pub(crate) mod decimal;
mod json_fcts;
pub(crate) mod masking_fcts;
mod math_fcts;
pub(crate) mod numeric;
mod operation;

pub(crate) use operation::NUMERIC;
pub(crate) mod registry;
mod temporal;
pub(crate) mod term;
pub(crate) mod text;
pub(crate) mod time;
pub(crate) mod vector_fcts;

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::sync::{Mutex, OnceLock};

use bytes::Bytes;
use cql::types::ColumnType;

use crate::error::CqlResult;

pub(crate) use cast::function_name as cast_function_name;
pub(crate) use operation::{ArithKind, NEGATION};

/// What a function needs besides its arguments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallContext {
    /// The request's time in microseconds since the epoch (`now()` and friends).
    pub(crate) now_micros: i64,
}

/// How a function computes its result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Body {
    Time(time::TimeFn),
    /// `<type>AsBlob`: the bytes unchanged.
    ToBlob,
    /// `blobAs<type>`: the bytes, once checked to be a valid value of the return type.
    FromBlob,
    Cast(cast::Cast),
    /// A binary operator on numbers.
    Operation(ArithKind),
    /// Unary minus on a number.
    Negation,
    /// `timestamp ± duration`, `date ± duration`.
    Temporal(ArithKind),
    /// `text + text`.
    Concat,
    /// `similarity_<kind>(vector<float, n>, vector<float, n>)`.
    Similarity(vector_fcts::Similarity),
    /// `fromJson(text)`: the JSON text decoded as the return type (the receiver's).
    FromJson,
    /// `abs`, `exp`, `log`, `log10`, `round`.
    Math(math_fcts::MathFn),
    /// `map_keys`, `collection_count`, `collection_sum`, ... over one collection.
    Collection(collection_fcts::CollectionFn),
    /// `mask_null`, `mask_default`, `mask_hash`, ... over one value.
    Masking(masking_fcts::MaskFn),
}

/// One native function signature.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NativeFunction {
    /// The name in the `system` keyspace, as Cassandra spells it (`textasblob`, `_add`,
    /// `castAsInt`).
    pub(crate) name: String,
    pub(crate) args: Vec<ColumnType>,
    pub(crate) ret: ColumnType,
    pub(crate) body: Body,
}

impl NativeFunction {
    fn new(name: impl Into<String>, args: Vec<ColumnType>, ret: ColumnType, body: Body) -> Self {
        NativeFunction {
            name: name.into(),
            args,
            ret,
            body,
        }
    }

    /// `system.<name>`, Cassandra's `FunctionName.toString()`.
    pub(crate) fn qualified_name(&self) -> String {
        format!("system.{}", self.name)
    }

    /// The result column name of a call whose arguments are named `args` (Cassandra's
    /// `Function.columnName`): `system.f(a, b)`, `cast(a as int)`, `a + b`, `-a`.
    pub(crate) fn column_name(&self, args: &[String]) -> String {
        match (&self.body, args) {
            (Body::Cast(_), [arg]) => format!("cast({arg} as {})", self.ret),
            (Body::Operation(kind) | Body::Temporal(kind), [left, right]) => {
                format!("{left} {} {right}", kind.symbol())
            }
            (Body::Concat, [left, right]) => format!("{left} + {right}"),
            (Body::Negation, [arg]) => format!("-{arg}"),
            _ => format!("{}({})", self.qualified_name(), args.join(", ")),
        }
    }

    /// Runs the function on serialized arguments (`None` for null).
    ///
    /// # Errors
    ///
    /// Cassandra's messages: an invalid blob for `blobAs<type>`, a failed operation (division
    /// by zero), a value out of a conversion's range, JSON text `fromJson` cannot decode.
    pub(crate) fn execute(
        &self,
        args: &[Option<Bytes>],
        ctx: &CallContext,
    ) -> CqlResult<Option<Bytes>> {
        match &self.body {
            Body::Time(kind) => time::execute(self, *kind, args, ctx),
            Body::ToBlob => Ok(args.first().cloned().flatten()),
            Body::FromBlob => bytes_fcts::from_blob(self, args),
            Body::Cast(cast) => cast.execute(self, args),
            Body::Operation(kind) => operation::execute(self, *kind, args),
            Body::Negation => operation::negate(self, args),
            Body::Concat => Ok(operation::concat(args)),
            Body::Similarity(kind) => vector_fcts::execute(self, *kind, args),
            Body::FromJson => json_fcts::execute(self, args),
            Body::Math(kind) => math_fcts::execute(self, *kind, args),
            Body::Collection(kind) => collection_fcts::execute(self, *kind, args),
            Body::Masking(kind) => masking_fcts::execute(self, *kind, args),
            Body::Temporal(kind) => temporal::execute(self, *kind, args)
                .map_err(|e| operation::failure(self, *kind, &e.to_string())),
        }
    }
}

impl fmt::Display for NativeFunction {
    /// Cassandra's `AbstractFunction.toString()`: `system.f : (int, text) -> blob`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let args: Vec<String> = self.args.iter().map(ToString::to_string).collect();
        write!(
            f,
            "{} : ({}) -> {}",
            self.qualified_name(),
            args.join(", "),
            self.ret
        )
    }
}

/// Signatures made on demand (one per receiving type, per vector dimension...), each made
/// once and kept for the life of the process, so resolution hands out `&'static` functions.
type MadeSignatures<K> = OnceLock<Mutex<HashMap<K, &'static NativeFunction>>>;

/// The signature `cache` holds for `key`, made by `make` the first time.
fn made_signature<K: Hash + Eq>(
    cache: &'static MadeSignatures<K>,
    key: K,
    make: impl FnOnce() -> NativeFunction,
) -> &'static NativeFunction {
    let made = cache.get_or_init(Default::default);
    let mut made = made.lock().unwrap_or_else(|e| e.into_inner());
    made.entry(key)
        .or_insert_with(|| Box::leak(Box::new(make())))
}

/// The first argument, when present and not null.
fn first(args: &[Option<Bytes>]) -> Option<&Bytes> {
    args.first().and_then(Option::as_ref)
}
