//! Cassandra 5.0's vector similarity functions (`cql3/functions/VectorFcts`):
//! `similarity_cosine`, `similarity_euclidean` and `similarity_dot_product` over two
//! `vector<float, n>` of the same `n`, returning a `float` with jvector's formulas:
//!
//! - cosine: `(1 + a·b / (|a| |b|)) / 2`, refused for an all-zero vector;
//! - euclidean: `1 / (1 + |a - b|²)`;
//! - dot product: `(1 + a·b) / 2`.
//!
//! The functions are generic over `n`: a signature is made for each dimension a statement
//! uses and kept for the life of the process (a few dozen bytes per dimension and function).

use std::sync::OnceLock;

use bytes::Bytes;
use cql::types::ColumnType;

use super::{made_signature, Body, MadeSignatures, NativeFunction};
use crate::error::{CqlResult, FunctionError};

/// Which similarity a function or a vector index computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Similarity {
    Cosine,
    Euclidean,
    DotProduct,
}

impl Similarity {
    /// The function for `similarity_<name>` (lower-case, as the parser gives it).
    pub(crate) fn from_function_name(name: &str) -> Option<Similarity> {
        match name {
            "similarity_cosine" => Some(Similarity::Cosine),
            "similarity_euclidean" => Some(Similarity::Euclidean),
            "similarity_dot_product" => Some(Similarity::DotProduct),
            _ => None,
        }
    }

    /// The index option value (`'similarity_function'`), case-insensitively.
    pub(crate) fn from_option(value: &str) -> Option<Similarity> {
        match value.to_ascii_lowercase().as_str() {
            "cosine" => Some(Similarity::Cosine),
            "euclidean" => Some(Similarity::Euclidean),
            "dot_product" => Some(Similarity::DotProduct),
            _ => None,
        }
    }

    /// The option value as Cassandra spells it.
    pub(crate) fn option_name(self) -> &'static str {
        match self {
            Similarity::Cosine => "cosine",
            Similarity::Euclidean => "euclidean",
            Similarity::DotProduct => "dot_product",
        }
    }

    /// `similarity_<kind>`.
    pub(crate) fn function_name(self) -> String {
        format!("similarity_{}", self.option_name())
    }

    /// The score of `a` against `b` (higher is more similar); `None` for cosine when either
    /// vector is all zeros. Sums run in `f64` and the result is rounded to `f32`.
    pub(crate) fn score(self, a: &[f32], b: &[f32]) -> Option<f32> {
        let pairs = a.iter().zip(b).map(|(x, y)| (f64::from(*x), f64::from(*y)));
        let score = match self {
            Similarity::Euclidean => {
                let distance: f64 = pairs.map(|(x, y)| (x - y) * (x - y)).sum();
                1.0 / (1.0 + distance)
            }
            Similarity::DotProduct => (1.0 + pairs.map(|(x, y)| x * y).sum::<f64>()) / 2.0,
            Similarity::Cosine => {
                let (mut dot, mut na, mut nb) = (0.0, 0.0, 0.0);
                for (x, y) in pairs {
                    dot += x * y;
                    na += x * x;
                    nb += y * y;
                }
                if na == 0.0 || nb == 0.0 {
                    return None;
                }
                (1.0 + dot / (na * nb).sqrt()) / 2.0
            }
        };
        Some(score as f32)
    }
}

/// `vector<float, dimension>`.
pub(crate) fn float_vector(dimension: u32) -> ColumnType {
    ColumnType::Vector {
        element: Box::new(ColumnType::Float),
        dimension,
    }
}

/// The signature of `kind` for vectors of `dimension` floats.
pub(crate) fn function(kind: Similarity, dimension: u32) -> &'static NativeFunction {
    static MADE: MadeSignatures<(Similarity, u32)> = OnceLock::new();
    made_signature(&MADE, (kind, dimension), || {
        let vector = float_vector(dimension);
        NativeFunction::new(
            kind.function_name(),
            vec![vector.clone(), vector],
            ColumnType::Float,
            Body::Similarity(kind),
        )
    })
}

/// The floats of a serialized `vector<float, n>`; `None` when it is not a whole number of
/// floats.
pub(crate) fn floats(bytes: &[u8]) -> Option<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// Runs a similarity function: null when either argument is null.
pub(crate) fn execute(
    function: &NativeFunction,
    kind: Similarity,
    args: &[Option<Bytes>],
) -> CqlResult<Option<Bytes>> {
    let (Some(Some(a)), Some(Some(b))) = (args.first(), args.get(1)) else {
        return Ok(None);
    };
    let (Some(a), Some(b)) = (floats(a), floats(b)) else {
        return Err(FunctionError::NotAFloatVector {
            function: function.qualified_name(),
        }
        .into());
    };
    if a.len() != b.len() {
        return Err(FunctionError::VectorDimensionsDiffer.into());
    }
    let score = kind
        .score(&a, &b)
        .ok_or_else(|| FunctionError::ZeroVector {
            function: function.qualified_name(),
        })?;
    Ok(Some(Bytes::copy_from_slice(&score.to_be_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_match_cassandras_documentation() {
        let v = [0.1, 0.2];
        let close = |a: Option<f32>, b: f32| (a.unwrap() - b).abs() < 1e-6;
        assert!(close(Similarity::Cosine.score(&v, &[0.1, 0.2]), 1.0));
        assert!(close(Similarity::Cosine.score(&v, &[-0.1, -0.2]), 0.0));
        assert!(close(Similarity::Cosine.score(&v, &[0.9, 0.8]), 0.964_238));
        assert!(close(
            Similarity::Euclidean.score(&v, &[-0.1, -0.2]),
            0.833_333
        ));
        assert!(close(Similarity::Euclidean.score(&v, &[0.9, 0.8]), 0.5));
        assert!(close(Similarity::DotProduct.score(&v, &[0.1, 0.2]), 0.525));
        assert!(close(Similarity::DotProduct.score(&v, &[0.9, 0.8]), 0.625));
        assert_eq!(Similarity::Cosine.score(&v, &[0.0, 0.0]), None);
    }

    #[test]
    fn signatures_are_made_once_per_dimension() {
        let a = function(Similarity::Euclidean, 3);
        let b = function(Similarity::Euclidean, 3);
        assert!(std::ptr::eq(a, b));
        assert_eq!(
            a.to_string(),
            "system.similarity_euclidean : (vector<float, 3>, vector<float, 3>) -> float"
        );
    }
}
