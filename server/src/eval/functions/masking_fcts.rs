//! Cassandra 5.0's masking functions (`MaskingFcts`, part of dynamic data masking):
//! `mask_null`, `mask_default`, `mask_replace`, `mask_inner`, `mask_outer` and `mask_hash`.
//! Like the collection functions, their signatures are made per call from the arguments'
//! types (Cassandra's `FunctionFactory` and `FunctionParameter`): the masked value may be of
//! any type (`mask_inner` and `mask_outer` take only `text` and `ascii`), the other
//! parameters are fixed (`int` positions, `text` padding and algorithm). Column masks
//! (`MASKED WITH`) are not built; these are the functions alone.

use std::sync::OnceLock;

use bytes::Bytes;
use cql::types::{codec, ColumnType, CqlValue};

use super::assign::{preferred_type, type_fit, Fit, Provided};
use super::{made_signature, Body, MadeSignatures, NativeFunction};
use crate::error::{CqlResult, FunctionError};

/// The padding `mask_inner` and `mask_outer` use when none is given.
const DEFAULT_PADDING: u16 = b'*' as u16;

/// The digest `mask_hash` uses when no algorithm is given.
const DEFAULT_ALGORITHM: &str = "SHA-256";

/// One of the masking functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum MaskFn {
    /// Always null.
    Null,
    /// The fixed masked value of the argument's type (`****`, zero, an empty collection...).
    Default,
    /// The second argument in place of the first.
    Replace,
    /// Masks all but the first `begin` and last `end` characters.
    Inner,
    /// Masks only the first `begin` and last `end` characters.
    Outer,
    /// The digest of the value's serialized bytes, a `blob`.
    Hash,
}

/// What one parameter of a masking function accepts (`FunctionParameter`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Param {
    /// Any type, which the argument must have on its own (`anyType`).
    Any,
    /// The first argument's type (`sameAsFirst`).
    SameAsFirst,
    /// `text`, `varchar` or `ascii` (`string()`).
    Strings,
    /// `int`.
    Int,
    /// `text`.
    Text,
}

impl Param {
    /// As `FunctionParameter.toString()` prints it.
    fn text(self) -> &'static str {
        match self {
            Param::Any => "any",
            Param::SameAsFirst => "same",
            Param::Strings => "[text|varchar|ascii]",
            Param::Int => "int",
            Param::Text => "text",
        }
    }

    /// The types a fixed parameter accepts, the first one taken when the argument has no
    /// type of its own; empty for the others.
    fn accepted(self) -> &'static [ColumnType] {
        match self {
            Param::Strings => &[ColumnType::Text, ColumnType::Ascii],
            Param::Int => &[ColumnType::Int],
            Param::Text => &[ColumnType::Text],
            Param::Any | Param::SameAsFirst => &[],
        }
    }
}

impl MaskFn {
    /// The function a name (as Cassandra spells it, in the `system` keyspace) calls.
    pub(crate) fn from_name(name: &str) -> Option<MaskFn> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Every masking function.
    const ALL: [MaskFn; 6] = [
        MaskFn::Null,
        MaskFn::Default,
        MaskFn::Replace,
        MaskFn::Inner,
        MaskFn::Outer,
        MaskFn::Hash,
    ];

    fn name(self) -> &'static str {
        match self {
            MaskFn::Null => "mask_null",
            MaskFn::Default => "mask_default",
            MaskFn::Replace => "mask_replace",
            MaskFn::Inner => "mask_inner",
            MaskFn::Outer => "mask_outer",
            MaskFn::Hash => "mask_hash",
        }
    }

    /// The parameters, each with whether it is optional.
    fn parameters(self) -> &'static [(Param, bool)] {
        match self {
            MaskFn::Null | MaskFn::Default => &[(Param::Any, false)],
            MaskFn::Replace => &[(Param::Any, false), (Param::SameAsFirst, false)],
            MaskFn::Inner | MaskFn::Outer => &[
                (Param::Strings, false),
                (Param::Int, false),
                (Param::Int, false),
                (Param::Text, true),
            ],
            MaskFn::Hash => &[(Param::Any, false), (Param::Text, true)],
        }
    }

    /// The factory as Cassandra prints it in messages (`FunctionFactory.toString()`):
    /// `system.mask_inner([text|varchar|ascii], int, int, [text])`.
    pub(crate) fn factory_text(self) -> String {
        let parameters: Vec<String> = self
            .parameters()
            .iter()
            .map(|(param, optional)| {
                if *optional {
                    format!("[{}]", param.text())
                } else {
                    param.text().to_owned()
                }
            })
            .collect();
        format!("system.{}({})", self.name(), parameters.join(", "))
    }

    /// The signature for a call with `args` (`FunctionFactory.getOrCreateFunction`), made
    /// once per argument types. The caller still checks each argument against it.
    ///
    /// # Errors
    /// A wrong number of arguments, an argument whose type cannot be inferred or that its
    /// parameter refuses, `mask_default` of a type without a masked value.
    pub(crate) fn for_arguments(self, args: &[Provided]) -> CqlResult<&'static NativeFunction> {
        let parameters = self.parameters();
        let mandatory = parameters.iter().filter(|(_, optional)| !optional).count();
        if args.len() < mandatory || args.len() > parameters.len() {
            return Err(FunctionError::FactoryArgumentCount {
                factory: self.factory_text(),
            }
            .into());
        }
        let first = args.first().and_then(known_type);
        let mut types = Vec::with_capacity(args.len());
        for (arg, (param, _)) in args.iter().zip(parameters) {
            types.push(self.infer(*param, arg, first.as_ref())?);
        }
        if self == MaskFn::Default {
            if let Some(ty) = types.first().filter(|ty| masked_value(ty).is_none()) {
                return Err(FunctionError::NoMaskedValue { ty: ty.to_string() }.into());
            }
        }
        let (args, ret) = self.signature(types);
        static MADE: MadeSignatures<(MaskFn, Vec<ColumnType>)> = OnceLock::new();
        Ok(made_signature(&MADE, (self, args.clone()), || {
            NativeFunction::new(self.name(), args, ret, Body::Masking(self))
        }))
    }

    /// The type of `arg` for `param` (`inferType`), once the parameter accepts it
    /// (`validateType`); `first` is the first argument's own type.
    fn infer(
        self,
        param: Param,
        arg: &Provided,
        first: Option<&ColumnType>,
    ) -> CqlResult<ColumnType> {
        let inferred = match param {
            Param::Any => known_type(arg),
            Param::SameAsFirst => first.cloned(),
            fixed => known_type(arg).or_else(|| fixed.accepted().first().cloned()),
        };
        let Some(ty) = inferred else {
            return Err(FunctionError::FactoryUntyped {
                arg: arg.to_string(),
                factory: self.factory_text(),
            }
            .into());
        };
        let accepted = param.accepted();
        if !accepted.is_empty() && accepted.iter().all(|t| type_fit(&ty, t) == Fit::Not) {
            return Err(FunctionError::FixedArgument {
                function: format!("system.{}", self.name()),
                expected: param.text(),
                arg: arg.to_string(),
                ty: ty.to_string(),
            }
            .into());
        }
        Ok(ty)
    }

    /// The argument and return types of the function made for arguments of `types`
    /// (`doGetOrCreateFunction`): the fixed parameters keep their own types.
    fn signature(self, types: Vec<ColumnType>) -> (Vec<ColumnType>, ColumnType) {
        let first = types.first().cloned().unwrap_or(ColumnType::Blob);
        match self {
            MaskFn::Null | MaskFn::Default => (vec![first.clone()], first),
            MaskFn::Replace => (vec![first.clone(), first.clone()], first),
            MaskFn::Inner | MaskFn::Outer => {
                let mut args = vec![first.clone(), ColumnType::Int, ColumnType::Int];
                if types.len() == 4 {
                    args.push(ColumnType::Text);
                }
                (args, first)
            }
            MaskFn::Hash => {
                let mut args = vec![first];
                if types.len() == 2 {
                    args.push(ColumnType::Text);
                }
                (args, ColumnType::Blob)
            }
        }
    }
}

/// The type an argument has on its own (`getCompatibleTypeIfKnown`): a typed selector's, a
/// literal's preferred type; none for a null, a marker or a call.
fn known_type(arg: &Provided) -> Option<ColumnType> {
    match arg {
        Provided::Typed { ty, .. } => Some(ty.clone()),
        Provided::Literal(lit) => preferred_type(lit),
        Provided::Marker(_) | Provided::Call { .. } | Provided::Opaque(_) => None,
    }
}

/// Runs `kind` on serialized arguments (`None` for null).
///
/// # Errors
/// A padding of other than one character; an unknown hash algorithm.
pub(crate) fn execute(
    function: &NativeFunction,
    kind: MaskFn,
    args: &[Option<Bytes>],
) -> CqlResult<Option<Bytes>> {
    let arg = |i: usize| args.get(i).and_then(Option::as_ref);
    match kind {
        MaskFn::Null => Ok(None),
        MaskFn::Default => Ok(masked_value(&function.ret).map(|v| serialized(&v))),
        MaskFn::Replace => Ok(arg(1).cloned()),
        MaskFn::Inner | MaskFn::Outer => partial(function, kind, arg(0), arg(1), arg(2), arg(3)),
        MaskFn::Hash => {
            let algorithm = match arg(1) {
                Some(name) => String::from_utf8_lossy(name).into_owned(),
                None => DEFAULT_ALGORITHM.to_owned(),
            };
            // The digest is looked up before the value is looked at, as in Cassandra.
            let digest =
                digester(&algorithm).ok_or(FunctionError::HashAlgorithmNotFound { algorithm })?;
            Ok(arg(0).map(|value| Bytes::from(digest(value))))
        }
    }
}

fn serialized(value: &CqlValue) -> Bytes {
    let mut out = Vec::new();
    codec::serialize_value(value, &mut out);
    Bytes::from(out)
}

/// `mask_inner` / `mask_outer` of `value`: a null position counts as zero, a null padding
/// as `*`.
fn partial(
    function: &NativeFunction,
    kind: MaskFn,
    value: Option<&Bytes>,
    begin: Option<&Bytes>,
    end: Option<&Bytes>,
    padding: Option<&Bytes>,
) -> CqlResult<Option<Bytes>> {
    let padding = match padding {
        Some(bytes) => padding_unit(function, bytes)?,
        None => DEFAULT_PADDING,
    };
    let Some(value) = value else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(value);
    let masked = mask(kind, &text, int(begin), int(end), padding);
    let ascii = function.ret == ColumnType::Ascii;
    Ok(Some(Bytes::from(encode(&masked, ascii))))
}

/// An `int` argument, zero when null or empty.
fn int(bytes: Option<&Bytes>) -> i32 {
    bytes
        .and_then(|b| <[u8; 4]>::try_from(&b[..]).ok())
        .map_or(0, i32::from_be_bytes)
}

/// The padding's single UTF-16 unit (a Java `char`).
fn padding_unit(function: &NativeFunction, bytes: &Bytes) -> CqlResult<u16> {
    let padding = String::from_utf8_lossy(bytes);
    let units: Vec<u16> = padding.encode_utf16().collect();
    match units.as_slice() {
        [unit] => Ok(*unit),
        _ => Err(FunctionError::PaddingLength {
            function: function.qualified_name(),
            padding: padding.into_owned(),
            length: units.len(),
        }
        .into()),
    }
}

/// Masks `value` character by character, counting as Java does (UTF-16 units, `int`
/// arithmetic that wraps): position `i` is masked by `Inner` when `begin <= i <= last`
/// and by `Outer` otherwise, `last` being `length - 1 - end`.
fn mask(kind: MaskFn, value: &str, begin: i32, end: i32, padding: u16) -> Vec<u16> {
    let units: Vec<u16> = value.encode_utf16().collect();
    let size = i32::try_from(units.len()).unwrap_or(i32::MAX);
    let last = size.wrapping_sub(1).wrapping_sub(end);
    units
        .iter()
        .zip(0..)
        .map(|(unit, i)| {
            let inside = i >= begin && i <= last;
            let masked = if kind == MaskFn::Inner {
                inside
            } else {
                !inside
            };
            if masked {
                padding
            } else {
                *unit
            }
        })
        .collect()
}

/// UTF-16 units back to bytes as Java's encoders write them: an unpaired surrogate, or a
/// non-ASCII character in an `ascii` value, becomes `?`.
fn encode(units: &[u16], ascii: bool) -> Vec<u8> {
    let text: String = char::decode_utf16(units.iter().copied())
        .map(|c| match c {
            Ok(c) if !ascii || c.is_ascii() => c,
            _ => '?',
        })
        .collect();
    text.into_bytes()
}

/// A digest function: the hash of its input.
type Digester = fn(&[u8]) -> Vec<u8>;

/// The digest Java's default providers know as `algorithm` (case aside); `None` for an
/// unknown one.
fn digester(algorithm: &str) -> Option<Digester> {
    use sha2::Digest as _;
    Some(match algorithm.to_ascii_uppercase().as_str() {
        "MD5" => |data| <md5::Md5 as md5::Digest>::digest(data).to_vec(),
        "SHA-1" | "SHA1" | "SHA" => |data| sha1::Sha1::digest(data).to_vec(),
        "SHA-224" | "SHA224" => |data| sha2::Sha224::digest(data).to_vec(),
        "SHA-256" | "SHA256" => |data| sha2::Sha256::digest(data).to_vec(),
        "SHA-384" | "SHA384" => |data| sha2::Sha384::digest(data).to_vec(),
        "SHA-512" | "SHA512" => |data| sha2::Sha512::digest(data).to_vec(),
        "SHA-512/224" | "SHA512/224" => |data| sha2::Sha512_224::digest(data).to_vec(),
        "SHA-512/256" | "SHA512/256" => |data| sha2::Sha512_256::digest(data).to_vec(),
        "SHA3-224" => |data| sha3::Sha3_224::digest(data).to_vec(),
        "SHA3-256" => |data| sha3::Sha3_256::digest(data).to_vec(),
        "SHA3-384" => |data| sha3::Sha3_384::digest(data).to_vec(),
        "SHA3-512" => |data| sha3::Sha3_512::digest(data).to_vec(),
        _ => return None,
    })
}

/// The fixed value `mask_default` returns for a type (`AbstractType.getMaskedValue`):
/// `****` for strings, `false`, zero for numbers, the epoch for dates and times, the nil
/// UUID, the smallest timeuuid of the epoch, `0.0.0.0`, empty blobs and collections, and
/// tuples, UDTs and vectors of their parts' masked values. `None` for a custom type.
pub(crate) fn masked_value(ty: &ColumnType) -> Option<CqlValue> {
    use ColumnType as T;
    Some(match ty {
        T::Custom(_) => return None,
        T::Ascii => CqlValue::Ascii("****".into()),
        T::Text => CqlValue::Text("****".into()),
        T::Blob => CqlValue::Blob(Vec::new()),
        T::Boolean => CqlValue::Boolean(false),
        T::Tinyint => CqlValue::Tinyint(0),
        T::Smallint => CqlValue::Smallint(0),
        T::Int => CqlValue::Int(0),
        T::Bigint => CqlValue::Bigint(0),
        T::Counter => CqlValue::Counter(0),
        T::Float => CqlValue::Float(0.0),
        T::Double => CqlValue::Double(0.0),
        T::Varint => CqlValue::Varint(vec![0]),
        T::Decimal => CqlValue::Decimal {
            unscaled: vec![0],
            scale: 0,
        },
        T::Timestamp => CqlValue::Timestamp(0),
        T::Date => CqlValue::Date(1 << 31),
        T::Time => CqlValue::Time(0),
        T::Duration => CqlValue::Duration {
            months: 0,
            days: 0,
            nanoseconds: 0,
        },
        T::Uuid => CqlValue::Uuid(uuid::Uuid::nil()),
        T::Timeuuid => CqlValue::Timeuuid(uuid::Uuid::from_u64_pair(
            0x1381_4000_1dd2_11b2,
            0x8080_8080_8080_8080,
        )),
        T::Inet => CqlValue::Inet(std::net::Ipv4Addr::UNSPECIFIED.into()),
        T::List { .. } => CqlValue::List(Vec::new()),
        T::Set { .. } => CqlValue::Set(Vec::new()),
        T::Map { .. } => CqlValue::Map(Vec::new()),
        T::Tuple(types) => CqlValue::Tuple(
            types
                .iter()
                .map(|t| masked_value(t).map(Some))
                .collect::<Option<_>>()?,
        ),
        T::Udt { fields, .. } => CqlValue::Udt(
            fields
                .iter()
                .map(|(name, t)| Some((name.clone(), Some(masked_value(t)?))))
                .collect::<Option<_>>()?,
        ),
        T::Vector { element, dimension } => {
            let one = masked_value(element)?;
            CqlValue::Vector(vec![one; usize::try_from(*dimension).ok()?])
        }
    })
}

#[cfg(test)]
#[path = "masking_fcts_tests.rs"]
mod tests;
