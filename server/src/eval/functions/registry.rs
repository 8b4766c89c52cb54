//! The native function registry and call resolution (Cassandra's `NativeFunctions` and
//! `FunctionResolver`): candidates by name, then the signature whose argument types fit the
//! provided arguments — an exact match wins, a single weak match is taken, several are
//! ambiguous — with Cassandra's messages for each failure.
//!
//! `fromJson` is not declared here: its return type is the receiver's, so
//! [`made_for_receiver`] makes its signature for the receiving type (Cassandra's
//! `FunctionResolver.collectCandidates` adding `FromJsonFct.getInstance(receiverType)`), and
//! it then resolves like any single candidate.

use std::collections::HashMap;
use std::sync::OnceLock;

use cql::statement::ast::QualifiedName;
use cql::types::ColumnType;

use super::assign::{type_fit, Fit, Provided};
use super::operation::{ArithKind, NEGATION};
use super::{bytes_fcts, cast, json_fcts, math_fcts, operation, temporal, time, NativeFunction};
use crate::error::{CqlResult, FunctionError, SelectError};

/// Every native function signature, grouped by name.
struct Registry {
    by_name: HashMap<String, Vec<NativeFunction>>,
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut by_name: HashMap<String, Vec<NativeFunction>> = HashMap::new();
        let families = [
            time::all(),
            bytes_fcts::all(),
            cast::all(),
            operation::all(),
            temporal::all(),
            math_fcts::all(),
        ];
        for function in families.into_iter().flatten() {
            let alias = snake_case_name(&function.name).map(|name| NativeFunction {
                name,
                ..function.clone()
            });
            for function in std::iter::once(function).chain(alias) {
                by_name
                    .entry(function.name.clone())
                    .or_default()
                    .push(function);
            }
        }
        Registry { by_name }
    })
}

/// The name Cassandra 5.0 gives a function whose legacy name breaks its snake-case
/// convention (CASSANDRA-18037): `min_timeuuid` for `mintimeuuid`, `blob_as_int` for
/// `blobasint`, `int_as_blob` for `intasblob`, `cast_as_int` for `castAsInt`. Both names
/// stay callable, each one naming its own result column (a cast's is `cast(v as int)`
/// whichever name called it).
fn snake_case_name(legacy: &str) -> Option<String> {
    const TIME: [(&str, &str); 9] = [
        ("currentdate", "current_date"),
        ("currenttime", "current_time"),
        ("currenttimestamp", "current_timestamp"),
        ("currenttimeuuid", "current_timeuuid"),
        ("mintimeuuid", "min_timeuuid"),
        ("maxtimeuuid", "max_timeuuid"),
        ("todate", "to_date"),
        ("totimestamp", "to_timestamp"),
        ("tounixtimestamp", "to_unix_timestamp"),
    ];
    if let Some((_, name)) = TIME.iter().find(|(old, _)| *old == legacy) {
        return Some((*name).to_owned());
    }
    if let Some(ty) = legacy.strip_prefix("castAs").filter(|t| !t.is_empty()) {
        return Some(format!("cast_as_{}", ty.to_ascii_lowercase()));
    }
    if let Some(ty) = legacy.strip_prefix("blobas").filter(|t| !t.is_empty()) {
        return Some(format!("blob_as_{ty}"));
    }
    legacy
        .strip_suffix("asblob")
        .filter(|t| !t.is_empty())
        .map(|ty| format!("{ty}_as_blob"))
}

/// The native signatures named `name` (exactly as Cassandra spells it).
pub(crate) fn candidates(name: &str) -> &'static [NativeFunction] {
    registry()
        .by_name
        .get(name)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The native signatures a name written in a statement can reach: unqualified or in the
/// `system` keyspace. Unquoted names arrive lower-cased from the parser.
pub(crate) fn lookup(name: &QualifiedName) -> &'static [NativeFunction] {
    if in_system(name) {
        candidates(&name.name.name)
    } else {
        &[]
    }
}

/// Whether `name` is written unqualified or in the `system` keyspace.
fn in_system(name: &QualifiedName) -> bool {
    name.keyspace.as_ref().is_none_or(|ks| ks.name == "system")
}

/// Whether `name`, as written, names the native function `native` (Cassandra's
/// `FunctionName.equalsNativeFunction`).
pub(crate) fn is_native(name: &QualifiedName, native: &str) -> bool {
    in_system(name) && name.name.name == native
}

/// The signature Cassandra makes for the receiving type instead of declaring it: `fromJson`
/// returning `receiver`; `Ok(None)` for every other name.
///
/// # Errors
///
/// `fromJson() cannot be used in the selection clause of a SELECT statement` when there is
/// no receiver (a selector).
pub(crate) fn made_for_receiver(
    name: &QualifiedName,
    receiver: Option<&ColumnType>,
) -> CqlResult<Option<&'static NativeFunction>> {
    if !is_native(name, json_fcts::FROM_JSON) {
        return Ok(None);
    }
    match receiver {
        Some(ty) => Ok(Some(json_fcts::for_receiver(ty))),
        None => Err(SelectError::FromJsonInSelection.into()),
    }
}

/// How Cassandra prints a name as written (`FunctionName.toString()`): `ks.f` or `f`.
pub(crate) fn written_name(name: &QualifiedName) -> String {
    match &name.keyspace {
        Some(ks) => format!("{}.{}", ks.name, name.name.name),
        None => name.name.name.clone(),
    }
}

/// Picks the signature among `candidates` for `args` (`FunctionResolver.get`); `Ok(None)`
/// when there is no candidate at all. `name` is the call's name as Cassandra prints it in
/// messages; `receiver` is the type the result is assigned to, when known.
///
/// # Errors
///
/// Wrong argument count or types, no matching signature, or an ambiguous call.
pub(crate) fn resolve(
    name: &str,
    candidates: &'static [NativeFunction],
    args: &[Provided],
    receiver: Option<&ColumnType>,
) -> CqlResult<Option<&'static NativeFunction>> {
    match candidates {
        [] => Ok(None),
        [only] => validate(only, args).map(Some),
        _ => best_match(name, candidates, args, receiver).map(Some),
    }
}

/// The single-candidate path, with its precise messages.
///
/// # Errors
///
/// A wrong argument count, or an argument that does not fit its parameter's type.
pub(crate) fn validate(
    function: &'static NativeFunction,
    args: &[Provided],
) -> CqlResult<&'static NativeFunction> {
    if args.len() != function.args.len() {
        return Err(FunctionError::ArgumentCount {
            function: function.qualified_name(),
            required: function.args.len(),
            provided: args.len(),
        }
        .into());
    }
    for (i, (arg, ty)) in args.iter().zip(&function.args).enumerate() {
        if arg.fit(ty) == Fit::Not {
            return Err(FunctionError::ArgumentType {
                arg: arg.to_string(),
                index: i,
                function: function.qualified_name(),
                ty: ty.clone().into(),
            }
            .into());
        }
    }
    Ok(function)
}

/// How well all of `args` fit `function`'s signature.
fn arguments_fit(function: &NativeFunction, args: &[Provided]) -> Fit {
    if args.len() != function.args.len() {
        return Fit::Not;
    }
    args.iter()
        .zip(&function.args)
        .map(|(arg, ty)| arg.fit(ty))
        .min()
        .unwrap_or(Fit::Exact)
}

/// The signatures as Cassandra lists them in messages.
fn signatures<'a>(functions: impl IntoIterator<Item = &'a NativeFunction>) -> Vec<String> {
    functions.into_iter().map(ToString::to_string).collect()
}

fn best_match(
    name: &str,
    candidates: &'static [NativeFunction],
    args: &[Provided],
    receiver: Option<&ColumnType>,
) -> CqlResult<&'static NativeFunction> {
    let operation = candidates
        .first()
        .and_then(|f| ArithKind::from_function_name(&f.name));
    let mut compatible: Vec<&'static NativeFunction> = Vec::new();
    for function in candidates {
        if receiver.is_some_and(|r| type_fit(&function.ret, r) == Fit::Not) {
            continue;
        }
        match arguments_fit(function, args) {
            Fit::Exact => return Ok(function),
            Fit::Weak => compatible.push(function),
            Fit::Not => {}
        }
    }
    let arg = |i: usize| args.get(i).map(ToString::to_string).unwrap_or_default();
    match (compatible.as_slice(), operation) {
        ([only], _) => Ok(only),
        ([], Some(kind)) => Err(FunctionError::UnsupportedOperation {
            operator: kind.symbol(),
            left: arg(0),
            right: arg(1),
        }
        .into()),
        ([], None) => Err(FunctionError::NoMatchingSignature {
            function: name.to_string(),
            signatures: signatures(candidates),
        }
        .into()),
        (_, Some(kind)) => {
            if let Some(r) = receiver.filter(|_| !args.iter().any(Provided::is_marker)) {
                if let Some(f) = compatible.iter().find(|f| f.args.iter().all(|a| a == r)) {
                    return Ok(f);
                }
            }
            Err(FunctionError::AmbiguousOperation {
                operator: kind.symbol(),
                left: arg(0),
                right: arg(1),
            }
            .into())
        }
        (_, None) if candidates.first().is_some_and(|f| f.name == NEGATION) => {
            Err(FunctionError::AmbiguousNegation.into())
        }
        (_, None) => Err(FunctionError::AmbiguousCall {
            function: name.to_string(),
            signatures: signatures(compatible.iter().copied()),
        }
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cql::statement::ast::{Ident, Literal};

    fn typed(ty: ColumnType, text: &str) -> Provided {
        Provided::Typed {
            ty,
            text: text.into(),
        }
    }

    fn name(ks: Option<&str>, n: &str) -> QualifiedName {
        let ident = |s: &str| Ident {
            name: s.into(),
            quoted: false,
        };
        QualifiedName {
            keyspace: ks.map(ident),
            name: ident(n),
        }
    }

    #[test]
    fn names_resolve_in_the_system_keyspace_only() {
        assert!(!lookup(&name(None, "textasblob")).is_empty());
        assert!(!lookup(&name(Some("system"), "textasblob")).is_empty());
        assert!(lookup(&name(Some("ks"), "textasblob")).is_empty());
        assert!(lookup(&name(None, "nosuchfunction")).is_empty());
        assert_eq!(written_name(&name(Some("ks"), "f")), "ks.f");
    }

    #[test]
    fn from_json_is_made_for_the_receiver_not_declared() {
        assert!(lookup(&name(None, "fromjson")).is_empty());
        let int = made_for_receiver(&name(None, "fromjson"), Some(&ColumnType::Int))
            .expect("made")
            .expect("fromjson");
        assert_eq!(int.ret, ColumnType::Int);
        assert_eq!(int.args, vec![ColumnType::Text]);
        let system = made_for_receiver(&name(Some("system"), "fromjson"), Some(&ColumnType::Int))
            .expect("made")
            .expect("fromjson");
        assert!(std::ptr::eq(int, system));
        let other = made_for_receiver(&name(Some("ks"), "fromjson"), Some(&ColumnType::Int));
        assert!(other.expect("not native").is_none());
        assert!(made_for_receiver(&name(None, "now"), None)
            .expect("declared")
            .is_none());
        let err = made_for_receiver(&name(None, "fromjson"), None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "fromJson() cannot be used in the selection clause of a SELECT statement"
        );
        assert!(is_native(&name(Some("system"), "tojson"), "tojson"));
        assert!(!is_native(&name(Some("ks"), "tojson"), "tojson"));
    }

    #[test]
    fn overloads_resolve_by_argument_type() {
        let f = resolve(
            "totimestamp",
            candidates("totimestamp"),
            &[typed(ColumnType::Date, "d")],
            None,
        )
        .expect("resolves")
        .expect("exists");
        assert_eq!(f.to_string(), "system.totimestamp : (date) -> timestamp");
        let by_literal = resolve(
            "totimestamp",
            candidates("totimestamp"),
            &[Provided::Literal(Literal::String("2015-05-21".into()))],
            None,
        )
        .expect("a string is only a date here")
        .expect("exists");
        assert_eq!(by_literal.args, vec![ColumnType::Date]);
    }

    #[test]
    fn single_candidates_report_type_errors() {
        let err = resolve(
            "mintimeuuid",
            candidates("mintimeuuid"),
            &[typed(ColumnType::Int, "i")],
            None,
        )
        .expect_err("int is not a timestamp");
        assert_eq!(
            err.to_string(),
            "Type error: i cannot be passed as argument 0 of function system.mintimeuuid of type timestamp"
        );
        let err = resolve(
            "now",
            candidates("now"),
            &[typed(ColumnType::Int, "i")],
            None,
        )
        .expect_err("now takes nothing");
        assert_eq!(
            err.to_string(),
            "Invalid number of arguments in call to function system.now: 0 required but 1 provided"
        );
    }

    #[test]
    fn no_matching_overload_lists_the_signatures() {
        let err = resolve(
            "tounixtimestamp",
            candidates("tounixtimestamp"),
            &[typed(ColumnType::Int, "i")],
            None,
        )
        .expect_err("no int overload");
        assert_eq!(
            err.to_string(),
            "Invalid call to function tounixtimestamp, none of its type signatures match (known type signatures: system.tounixtimestamp : (timeuuid) -> bigint, system.tounixtimestamp : (timestamp) -> bigint, system.tounixtimestamp : (date) -> bigint)"
        );
    }

    #[test]
    fn operations_pick_exact_types_or_report_ambiguity() {
        let one = || Provided::Literal(Literal::Integer("1".into()));
        let f = resolve("system._add", candidates("_add"), &[one(), one()], None)
            .expect("resolves")
            .expect("exists");
        assert_eq!(f.ret, ColumnType::Int);
        let err = resolve(
            "system._add",
            candidates("_add"),
            &[Provided::Marker("?".into()), one()],
            Some(&ColumnType::Int),
        )
        .expect_err("ambiguous");
        assert_eq!(
            err.to_string(),
            "Ambiguous '+' operation with args ? and 1: use type hint to disambiguate, example '(int) ?'"
        );
        let err = resolve(
            "system._add",
            candidates("_add"),
            &[typed(ColumnType::Text, "t"), one()],
            None,
        )
        .expect_err("text is not numeric");
        assert_eq!(
            err.to_string(),
            "the '+' operation is not supported between t and 1"
        );
        let tiny = resolve(
            "system._add",
            candidates("_add"),
            &[typed(ColumnType::Tinyint, "a"), one()],
            Some(&ColumnType::Tinyint),
        )
        .expect("receiver disambiguates")
        .expect("exists");
        assert_eq!(tiny.args, vec![ColumnType::Tinyint, ColumnType::Tinyint]);
    }

    /// Cassandra 5.0's snake-case names reach the same functions as the legacy ones.
    #[test]
    fn snake_case_names_alias_the_legacy_ones() {
        assert_eq!(
            snake_case_name("mintimeuuid").as_deref(),
            Some("min_timeuuid")
        );
        assert_eq!(snake_case_name("blobasint").as_deref(), Some("blob_as_int"));
        assert_eq!(
            snake_case_name("varcharasblob").as_deref(),
            Some("varchar_as_blob")
        );
        assert_eq!(snake_case_name("castAsInt").as_deref(), Some("cast_as_int"));
        assert_eq!(
            snake_case_name("castAsVarchar").as_deref(),
            Some("cast_as_varchar")
        );
        assert_eq!(
            candidates("cast_as_int").len(),
            candidates("castAsInt").len()
        );
        assert!(!candidates("cast_as_int").is_empty());
        assert_eq!(snake_case_name("now"), None);
        for (legacy, new) in [
            ("tounixtimestamp", "to_unix_timestamp"),
            ("currenttimeuuid", "current_timeuuid"),
            ("textasblob", "text_as_blob"),
            ("blobasbigint", "blob_as_bigint"),
        ] {
            let old: Vec<_> = candidates(legacy)
                .iter()
                .map(|f| (&f.args, &f.ret))
                .collect();
            let renamed: Vec<_> = candidates(new).iter().map(|f| (&f.args, &f.ret)).collect();
            assert!(!old.is_empty(), "{legacy}");
            assert_eq!(old, renamed, "{new}");
        }
    }
}
