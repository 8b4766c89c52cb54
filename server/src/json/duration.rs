//! `duration` values from their text: Cassandra's unit form (`1y2mo3w4d5h6m7s8ms9us10ns`,
//! `µs` too) and the ISO 8601 forms `PnW` and `PnYnMnDTnHnMnS`.

use cql::types::CqlValue;

use super::decode::DecodeError;

/// Months, days and nanoseconds accumulated while reading units.
#[derive(Default)]
struct Parts {
    months: i64,
    days: i64,
    nanos: i64,
}

impl Parts {
    fn add(&mut self, value: i64, unit: &str) -> Option<()> {
        const NS: [(&str, i64); 7] = [
            ("h", 3_600_000_000_000),
            ("m", 60_000_000_000),
            ("s", 1_000_000_000),
            ("ms", 1_000_000),
            ("us", 1_000),
            ("µs", 1_000),
            ("ns", 1),
        ];
        match unit {
            "y" => self.months = self.months.checked_add(value.checked_mul(12)?)?,
            "mo" => self.months = self.months.checked_add(value)?,
            "w" => self.days = self.days.checked_add(value.checked_mul(7)?)?,
            "d" => self.days = self.days.checked_add(value)?,
            _ => {
                let (_, per) = NS.iter().find(|(u, _)| *u == unit)?;
                self.nanos = self.nanos.checked_add(value.checked_mul(*per)?)?;
            }
        }
        Some(())
    }

    fn value(self, negative: bool) -> Option<CqlValue> {
        let sign = if negative { -1 } else { 1 };
        Some(CqlValue::Duration {
            months: i32::try_from(self.months * sign).ok()?,
            days: i32::try_from(self.days * sign).ok()?,
            nanoseconds: self.nanos.checked_mul(sign)?,
        })
    }
}

/// Reads `<digits><unit>` pairs; `iso_time` maps ISO's `M` (after `T`) to minutes.
fn units(text: &str, parts: &mut Parts, iso: Option<bool>) -> Option<()> {
    let mut rest = text;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let value: i64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .char_indices()
            .find(|(_, c)| c.is_ascii_digit())
            .map_or(rest.len(), |(i, _)| i);
        let unit = rest[..unit_len].to_lowercase();
        rest = &rest[unit_len..];
        let unit = match (iso, unit.as_str()) {
            (Some(false), "m") => "mo",
            (Some(_), "y" | "w" | "d" | "h" | "m" | "s") | (None, _) => unit.as_str(),
            (Some(_), _) => return None,
        };
        parts.add(value, unit)?;
    }
    Some(())
}

/// Parses a duration's text.
///
/// # Errors
/// Cassandra's message for text that is not a duration.
pub(crate) fn parse_duration(text: &str) -> Result<CqlValue, DecodeError> {
    let bad = || DecodeError(format!("Unable to convert '{text}' to a duration"));
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut parts = Parts::default();
    let ok = match body.strip_prefix(['P', 'p']) {
        Some(iso) => match iso.split_once(['T', 't']) {
            Some((date, time)) => {
                (date.is_empty() || units(date, &mut parts, Some(false)).is_some())
                    && units(time, &mut parts, Some(true)).is_some()
            }
            None => units(iso, &mut parts, Some(false)).is_some(),
        },
        None => units(body, &mut parts, None).is_some(),
    };
    if !ok {
        return Err(bad());
    }
    parts.value(negative).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(months: i32, days: i32, nanoseconds: i64) -> CqlValue {
        CqlValue::Duration {
            months,
            days,
            nanoseconds,
        }
    }

    #[test]
    fn unit_and_iso_forms() {
        assert_eq!(parse_duration("53us").unwrap(), d(0, 0, 53_000));
        assert_eq!(parse_duration("12µs").unwrap(), d(0, 0, 12_000));
        assert_eq!(
            parse_duration("1y1mo2d10h5m").unwrap(),
            d(13, 2, 36_300_000_000_000)
        );
        assert_eq!(parse_duration("-2w").unwrap(), d(0, -14, 0));
        assert_eq!(parse_duration("P2W").unwrap(), d(0, 14, 0));
        assert_eq!(
            parse_duration("P1Y1M2DT10H5M").unwrap(),
            d(13, 2, 36_300_000_000_000)
        );
        assert_eq!(parse_duration("PT1S").unwrap(), d(0, 0, 1_000_000_000));
    }

    #[test]
    fn rejects_other_text() {
        for bad in ["xyz", "", "1", "P", "1q", "PT"] {
            assert_eq!(
                parse_duration(bad).unwrap_err().0,
                format!("Unable to convert '{bad}' to a duration")
            );
        }
    }
}
