//! The batch size thresholds (`batch_size_warn_threshold`, `batch_size_fail_threshold`);
//! `crate::executor::write::batch_size` applies them to each batch.

use super::{parse_size, ConfigError};

/// The thresholds, in bytes of Cassandra's data size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchThresholds {
    /// `batch_size_warn_threshold`: a multi-partition batch past this gets Cassandra's warning.
    pub warn: usize,
    /// `batch_size_fail_threshold`: past this the batch is refused (`Batch too large`).
    pub fail: usize,
}

impl Default for BatchThresholds {
    /// Cassandra 5.0's defaults: 5 KiB and 50 KiB.
    fn default() -> Self {
        BatchThresholds {
            warn: 5 * 1024,
            fail: 50 * 1024,
        }
    }
}

impl BatchThresholds {
    /// Applies the YAML settings: the 5.0 names (`5KiB`) win over the old `_in_kb` ones.
    ///
    /// # Errors
    /// A size that does not parse, with the setting's name.
    pub(super) fn apply(
        &mut self,
        warn: (Option<String>, Option<u64>),
        fail: (Option<String>, Option<u64>),
    ) -> Result<(), ConfigError> {
        self.warn = size(warn, "batch_size_warn_threshold")?.unwrap_or(self.warn);
        self.fail = size(fail, "batch_size_fail_threshold")?.unwrap_or(self.fail);
        Ok(())
    }
}

/// One threshold: `name: 5KiB`, else `name_in_kb: 5`.
fn size(
    (text, kib): (Option<String>, Option<u64>),
    setting: &'static str,
) -> Result<Option<usize>, ConfigError> {
    match (text, kib) {
        (Some(text), _) => parse_size(&text).map(Some).ok_or(ConfigError::Value {
            setting,
            value: text,
        }),
        (None, Some(kib)) => Ok(Some(
            usize::try_from(kib)
                .unwrap_or(usize::MAX)
                .saturating_mul(1024),
        )),
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_and_old_names_set_the_thresholds() {
        let mut t = BatchThresholds::default();
        t.apply((Some("10KiB".into()), Some(1)), (None, Some(100)))
            .unwrap();
        assert_eq!(
            t,
            BatchThresholds {
                warn: 10_240,
                fail: 102_400
            }
        );
        let err = t
            .apply((Some("ten".into()), None), (None, None))
            .unwrap_err();
        assert!(matches!(
            err,
            ConfigError::Value {
                setting: "batch_size_warn_threshold",
                ..
            }
        ));
    }
}
