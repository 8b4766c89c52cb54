//! One fault rule ([`FaultRule`]) as either door gives it: the body of `POST /faults`, or a
//! row written to `test_control.faults`; and the rule as both list it.

use serde_json::{json, Map, Value};

use super::facts::{Facts, Message};
use super::spec::{float_field, int_field, only_known, text_field};
use super::then::{ErrorName, Outcome, Then};
use super::when::{KindFilter, When};
use crate::control::cql::ControlRow;
use crate::control::ControlError;
use cql::types::CqlValue;

/// A fault rule: which requests (`when`), what they get (`then`), how many times at most
/// and how likely.
#[derive(Debug, Clone)]
pub(crate) struct FaultRule {
    /// The id asked for (the CQL door's key; optional over HTTP, where one is made up).
    pub(crate) id: Option<String>,
    pub(crate) when: When,
    pub(crate) then: Then,
    /// Fires this many times, then retires; `None`: until removed.
    pub(crate) times: Option<u32>,
    /// The chance that a matching request fires the rule, in [0, 1].
    pub(crate) probability: f64,
}

/// The fields of `POST /faults`.
const FIELDS: &[&str] = &["id", "when", "then", "times", "probability"];

/// The columns an INSERT into `test_control.faults` may set.
const COLUMNS: &[&str] = &[
    "id",
    "keyspace_name",
    "table_name",
    "kind",
    "query",
    "consistency",
    "client",
    "error",
    "error_details",
    "delay_ms",
    "no_answer",
    "close_connection",
    "times",
    "probability",
];

impl FaultRule {
    /// A rule from the body of `POST /faults`.
    ///
    /// # Errors
    /// The body is not an object with a `then`; a field is unknown or not what it should
    /// be; the rule asks for UNPREPARED of requests that cannot carry it.
    pub(crate) fn from_json(body: Value) -> Result<FaultRule, ControlError> {
        let Value::Object(fields) = body else {
            return Err(ControlError::BadRequest(
                "a fault must be a JSON object".into(),
            ));
        };
        only_known(&fields, FIELDS, "a fault")?;
        let then = fields
            .get("then")
            .ok_or_else(|| ControlError::BadRequest("a fault needs \"then\"".into()))?;
        let rule = FaultRule {
            id: text_field(&fields, "id")?,
            when: When::from_json(fields.get("when"))?,
            then: Then::from_json(then)?,
            times: int_field(&fields, "times", 1, i64::from(u32::MAX))?
                .and_then(|n| u32::try_from(n).ok()),
            probability: probability(&fields)?,
        };
        rule.check_unprepared()?;
        Ok(rule)
    }

    /// A rule from a row written to `test_control.faults`: the columns as the fields of
    /// `POST /faults` (`error_details` beside `error`, `no_answer` as `drop`,
    /// `close_connection` as `close`).
    ///
    /// # Errors
    /// As [`FaultRule::from_json`]; a column the table does not take (`fired`).
    pub(crate) fn from_row(row: &ControlRow) -> Result<FaultRule, ControlError> {
        if let Some(column) = row.values.keys().find(|c| !COLUMNS.contains(&c.as_str())) {
            return Err(ControlError::BadRequest(format!(
                "{column} is not set by an INSERT: the server counts it"
            )));
        }
        let mut when = Map::new();
        for (column, field) in [
            ("keyspace_name", "keyspace"),
            ("table_name", "table"),
            ("kind", "kind"),
            ("query", "query"),
            ("consistency", "consistency"),
            ("client", "client"),
        ] {
            if let Some(text) = row.text(column) {
                when.insert(field.into(), json!(text));
            }
        }
        let mut then = details(row)?;
        if let Some(error) = row.text("error") {
            then.insert("error".into(), json!(error));
        }
        if let Some(delay) = row.number("delay_ms") {
            then.insert("delay_ms".into(), json!(delay));
        }
        for (column, field) in [("no_answer", "drop"), ("close_connection", "close")] {
            if let Some(CqlValue::Boolean(flag)) = row.values.get(column) {
                then.insert(field.into(), json!(flag));
            }
        }
        let mut body = json!({"id": row.text("id"), "when": when, "then": then});
        if let Some(times) = row.number("times") {
            body["times"] = json!(times);
        }
        if let Some(probability) = row.number("probability") {
            body["probability"] = json!(probability);
        }
        FaultRule::from_json(body)
    }

    /// The rule as `GET /faults` lists it, without its id and counts.
    pub(crate) fn to_json(&self) -> Map<String, Value> {
        let mut out = Map::new();
        out.insert("when".into(), self.when.to_json());
        out.insert("then".into(), self.then.to_json());
        out.insert("times".into(), json!(self.times));
        out.insert("probability".into(), json!(self.probability));
        out
    }

    /// Whether the rule applies to a request with `facts`: its `when` matches, and an
    /// UNPREPARED rule applies to EXECUTEs alone (see [`FaultRule::check_unprepared`]).
    pub(crate) fn applies_to(&self, facts: &Facts) -> bool {
        let unprepared = matches!(
            &self.then.outcome,
            Outcome::Error(spec) if spec.error == ErrorName::Unprepared
        );
        self.when.matches(facts) && (!unprepared || facts.message == Message::Execute)
    }

    /// UNPREPARED names a prepared id, so only an EXECUTE can carry it: a rule for any
    /// kind, or a statement kind, applies to EXECUTEs alone; one for BATCH or PREPARE
    /// means nothing and is refused.
    fn check_unprepared(&self) -> Result<(), ControlError> {
        let Outcome::Error(spec) = &self.then.outcome else {
            return Ok(());
        };
        if spec.error == ErrorName::Unprepared
            && matches!(self.when.kind, KindFilter::Batch | KindFilter::Prepare)
        {
            return Err(ControlError::BadRequest(format!(
                "an unprepared error names a prepared statement's id: only EXECUTE carries one, \
                 not {}",
                self.when.kind.name()
            )));
        }
        Ok(())
    }
}

/// `probability`, 1 when absent.
fn probability(fields: &Map<String, Value>) -> Result<f64, ControlError> {
    let p = float_field(fields, "probability")?.unwrap_or(1.0);
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(ControlError::BadRequest(format!(
            "\"probability\" must be from 0 to 1, not {p}"
        )))
    }
}

/// The `error_details` map of a row, as fields beside `error`.
fn details(row: &ControlRow) -> Result<Map<String, Value>, ControlError> {
    let mut out = Map::new();
    match row.values.get("error_details") {
        None => {}
        Some(CqlValue::Map(entries)) => {
            for (key, value) in entries {
                match (key, value) {
                    (CqlValue::Text(key), CqlValue::Text(value)) => {
                        out.insert(key.clone(), json!(value));
                    }
                    _ => {
                        return Err(ControlError::BadRequest(
                            "error_details holds text keys and values".into(),
                        ))
                    }
                }
            }
        }
        Some(_) => {
            return Err(ControlError::BadRequest(
                "error_details must be a map of text".into(),
            ))
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "rule_tests.rs"]
mod tests;
