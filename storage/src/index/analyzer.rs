//! The text analysis of a storage-attached index (Cassandra 5.0's `NonTokenizingAnalyzer`):
//! with `case_sensitive: false` a value is lower-cased, with `normalize: true` put in Unicode
//! NFC, with `ascii: true` folded to ASCII, in that order. An index keys the analyzed text,
//! and a query value is analyzed the same way before it is looked up, so `'Hello'` and
//! `'hello'` meet under `case_sensitive: false`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::ascii_fold::fold_to_ascii;

/// The analysis options of one index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analyzer {
    /// `case_sensitive` (default `true`): `false` lower-cases.
    pub case_sensitive: bool,
    /// `normalize` (default `false`): `true` applies NFC.
    pub normalize: bool,
    /// `ascii` (default `false`): `true` folds to ASCII.
    pub ascii: bool,
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer {
            case_sensitive: true,
            normalize: false,
            ascii: false,
        }
    }
}

/// The option names the analyzer reads.
pub const ANALYZER_OPTIONS: [&str; 3] = ["case_sensitive", "normalize", "ascii"];

/// Why an analysis option value was refused (Cassandra's `NonTokenizingOptions` messages).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalyzerOptionError {
    /// The value is empty.
    #[error("Empty value for boolean option '{0}'")]
    Empty(String),
    /// The value is neither `true` nor `false` (any case).
    #[error("Illegal value for boolean option '{0}': {1}")]
    Illegal(String, String),
}

impl Analyzer {
    /// The analyzer an index's `options` describe. Unparsable values fall back to the
    /// default: options are validated when the index is created ([`Analyzer::validate`]).
    pub fn from_options(options: &BTreeMap<String, String>) -> Self {
        let flag = |name: &str, default: bool| {
            options
                .get(name)
                .map_or(default, |v| v.eq_ignore_ascii_case("true"))
        };
        Analyzer {
            case_sensitive: flag("case_sensitive", true),
            normalize: flag("normalize", false),
            ascii: flag("ascii", false),
        }
    }

    /// Checks the values of the analysis options in `options`.
    ///
    /// # Errors
    /// An empty value or one other than `true`/`false`.
    pub fn validate(options: &BTreeMap<String, String>) -> Result<(), AnalyzerOptionError> {
        for name in ANALYZER_OPTIONS {
            let Some(value) = options.get(name) else {
                continue;
            };
            if value.is_empty() {
                return Err(AnalyzerOptionError::Empty(name.into()));
            }
            if !value.eq_ignore_ascii_case("true") && !value.eq_ignore_ascii_case("false") {
                return Err(AnalyzerOptionError::Illegal(name.into(), value.clone()));
            }
        }
        Ok(())
    }

    /// Whether the analyzer changes values at all (Cassandra's `transformValue`).
    pub fn transforms(&self) -> bool {
        !self.case_sensitive || self.normalize || self.ascii
    }

    /// The analyzed form of `text`.
    pub fn analyze(&self, text: &str) -> String {
        let mut out = if self.case_sensitive {
            text.to_string()
        } else {
            text.to_lowercase()
        };
        if self.normalize {
            out = out.nfc().collect();
        }
        if self.ascii {
            out = fold_to_ascii(&out);
        }
        out
    }

    /// The analyzed form of a serialized text value; bytes that are not UTF-8 stay as
    /// they are (Cassandra validates text on write, so they do not occur).
    pub fn analyze_bytes(&self, value: &[u8]) -> Vec<u8> {
        match std::str::from_utf8(value) {
            Ok(text) => self.analyze(text).into_bytes(),
            Err(_) => value.to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_leave_text_alone() {
        let a = Analyzer::from_options(&BTreeMap::new());
        assert!(!a.transforms());
        assert_eq!(a.analyze("Héllo"), "Héllo");
    }

    #[test]
    fn options_lower_normalize_and_fold() {
        let lower = Analyzer::from_options(&options(&[("case_sensitive", "False")]));
        assert_eq!(lower.analyze("HeLLo ÄÖ"), "hello äö");
        let nfc = Analyzer::from_options(&options(&[("normalize", "true")]));
        assert_eq!(nfc.analyze("e\u{301}"), "\u{e9}");
        let ascii = Analyzer::from_options(&options(&[("ascii", "true")]));
        assert_eq!(ascii.analyze("Crème Brûlée"), "Creme Brulee");
    }

    #[test]
    fn option_values_are_checked_with_cassandras_messages() {
        let err = |pairs| Analyzer::validate(&options(pairs)).unwrap_err().to_string();
        assert_eq!(
            err(&[("case_sensitive", "")]),
            "Empty value for boolean option 'case_sensitive'"
        );
        assert_eq!(
            err(&[("ascii", "yes")]),
            "Illegal value for boolean option 'ascii': yes"
        );
        assert!(Analyzer::validate(&options(&[("normalize", "TRUE")])).is_ok());
    }
}
