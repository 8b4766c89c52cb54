//! A rule's `then`: what a matched request gets. One of an error (with its details, the
//! rest defaulted from the request), no answer (`drop`), a closed connection (`close`); and
//! or instead, a delay before it (or before the real answer).

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::facts::Facts;
use super::spec::{consistency_code, count_field, flag_field, int_field, only_known, text_field};
use crate::control::ControlError;
use crate::error::{failure_reason_name, CqlError, InjectedError, InjectedKind, FAILURE_REASONS};
use crate::telemetry::trace::consistency_name;

/// The errors a rule may answer with, by their JSON names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorName {
    Unavailable,
    ReadTimeout,
    WriteTimeout,
    ReadFailure,
    WriteFailure,
    Overloaded,
    IsBootstrapping,
    ServerError,
    Unprepared,
}

/// Each error's name and the details it takes beside `message`.
const ERRORS: &[(ErrorName, &str, &[&str])] = &[
    (
        ErrorName::Unavailable,
        "unavailable",
        &["consistency", "required", "alive"],
    ),
    (
        ErrorName::ReadTimeout,
        "read_timeout",
        &["consistency", "received", "block_for", "data_present"],
    ),
    (
        ErrorName::WriteTimeout,
        "write_timeout",
        &["consistency", "received", "block_for", "write_type"],
    ),
    (
        ErrorName::ReadFailure,
        "read_failure",
        &[
            "consistency",
            "received",
            "block_for",
            "num_failures",
            "reason",
            "data_present",
        ],
    ),
    (
        ErrorName::WriteFailure,
        "write_failure",
        &[
            "consistency",
            "received",
            "block_for",
            "num_failures",
            "reason",
            "write_type",
        ],
    ),
    (ErrorName::Overloaded, "overloaded", &[]),
    (ErrorName::IsBootstrapping, "is_bootstrapping", &[]),
    (ErrorName::ServerError, "server_error", &[]),
    (ErrorName::Unprepared, "unprepared", &[]),
];

/// The write types of Cassandra's `WriteType`.
const WRITE_TYPES: &[&str] = &[
    "SIMPLE",
    "BATCH",
    "UNLOGGED_BATCH",
    "COUNTER",
    "BATCH_LOG",
    "CAS",
    "VIEW",
    "CDC",
];

impl ErrorName {
    fn parse(name: &str) -> Result<ErrorName, ControlError> {
        ERRORS
            .iter()
            .find(|(_, n, _)| n.eq_ignore_ascii_case(name))
            .map(|(e, _, _)| *e)
            .ok_or_else(|| {
                let names: Vec<&str> = ERRORS.iter().map(|(_, n, _)| *n).collect();
                ControlError::BadRequest(format!(
                    "unknown error {name}: expected one of {}",
                    names.join(", ")
                ))
            })
    }

    fn entry(self) -> (&'static str, &'static [&'static str]) {
        ERRORS
            .iter()
            .find(|(e, _, _)| *e == self)
            .map_or(("", &[]), |(_, name, details)| (*name, *details))
    }

    /// The error's JSON name.
    pub(crate) fn name(self) -> &'static str {
        self.entry().0
    }
}

/// An error and the details the rule gave for it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ErrorSpec {
    pub(crate) error: ErrorName,
    consistency: Option<u16>,
    required: Option<i32>,
    alive: Option<i32>,
    received: Option<i32>,
    block_for: Option<i32>,
    data_present: Option<bool>,
    write_type: Option<String>,
    num_failures: Option<i32>,
    reason: Option<u16>,
    message: Option<String>,
}

/// What a matched request gets, besides any delay.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// The real answer (a rule with only a delay).
    Answer,
    Error(ErrorSpec),
    /// No answer, ever; the connection serves the others.
    Drop,
    /// The connection is closed.
    Close,
}

/// A rule's `then`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Then {
    pub(crate) delay: Option<Duration>,
    pub(crate) outcome: Outcome,
}

/// A day: the longest delay taken.
const MAX_DELAY_MS: i64 = 86_400_000;

impl Then {
    /// The outcome of a `then` object.
    ///
    /// # Errors
    /// Not an object; no outcome, or more than one of `error`, `drop` and `close`; details
    /// the error does not take, or that are not what they should be.
    pub(crate) fn from_json(then: &Value) -> Result<Then, ControlError> {
        let Value::Object(fields) = then else {
            return Err(ControlError::BadRequest(format!(
                "\"then\" must be an object, not {then}"
            )));
        };
        let delay = int_field(fields, "delay_ms", 0, MAX_DELAY_MS)?
            .map(|ms| Duration::from_millis(ms.unsigned_abs()));
        let error = text_field(fields, "error")?;
        let drop = flag_field(fields, "drop")? == Some(true);
        let close = flag_field(fields, "close")? == Some(true);
        let outcome = match (error, drop, close) {
            (None, false, false) => Outcome::Answer,
            (Some(name), false, false) => Outcome::Error(ErrorSpec::from_json(&name, fields)?),
            (None, true, false) => Outcome::Drop,
            (None, false, true) => Outcome::Close,
            _ => {
                return Err(ControlError::BadRequest(
                    "\"then\" takes one of \"error\", \"drop\" and \"close\"".into(),
                ))
            }
        };
        if !matches!(outcome, Outcome::Error(_)) {
            only_known(fields, &["delay_ms", "drop", "close"], "\"then\"")?;
        }
        if outcome == Outcome::Answer && delay.is_none() {
            return Err(ControlError::BadRequest(
                "\"then\" needs \"error\", \"delay_ms\", \"drop\" or \"close\"".into(),
            ));
        }
        Ok(Then { delay, outcome })
    }

    /// The outcome as JSON, as `POST /faults` takes it.
    pub(crate) fn to_json(&self) -> Value {
        let mut out = match &self.outcome {
            Outcome::Answer => Map::new(),
            Outcome::Error(spec) => spec.to_json(),
            Outcome::Drop => json_object(json!({"drop": true})),
            Outcome::Close => json_object(json!({"close": true})),
        };
        if let Some(delay) = self.delay {
            out.insert("delay_ms".into(), json!(delay.as_millis()));
        }
        Value::Object(out)
    }
}

fn json_object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

impl ErrorSpec {
    /// The error `name` with the details beside it in `fields`.
    fn from_json(name: &str, fields: &Map<String, Value>) -> Result<ErrorSpec, ControlError> {
        let error = ErrorName::parse(name)?;
        let mut known = vec!["error", "message", "delay_ms"];
        known.extend_from_slice(error.entry().1);
        only_known(
            fields,
            &known,
            &format!("\"then\" of a {} error", error.name()),
        )?;
        let write_type = text_field(fields, "write_type")?
            .map(|w| w.to_ascii_uppercase())
            .map(|w| match WRITE_TYPES.contains(&w.as_str()) {
                true => Ok(w),
                false => Err(ControlError::BadRequest(format!(
                    "unknown write_type {w}: expected one of {}",
                    WRITE_TYPES.join(", ")
                ))),
            })
            .transpose()?;
        Ok(ErrorSpec {
            error,
            consistency: text_field(fields, "consistency")?
                .map(|c| consistency_code(&c))
                .transpose()?,
            required: count_field(fields, "required")?,
            alive: count_field(fields, "alive")?,
            received: count_field(fields, "received")?,
            block_for: count_field(fields, "block_for")?,
            data_present: flag_field(fields, "data_present")?,
            write_type,
            num_failures: count_field(fields, "num_failures")?,
            reason: reason_field(fields)?,
            message: text_field(fields, "message")?,
        })
    }

    /// The error and the details given, as JSON.
    fn to_json(&self) -> Map<String, Value> {
        let mut out = Map::new();
        out.insert("error".into(), json!(self.error.name()));
        let mut put = |name: &str, value: Option<Value>| {
            if let Some(value) = value {
                out.insert(name.into(), value);
            }
        };
        put(
            "consistency",
            self.consistency.map(|c| json!(consistency_name(c))),
        );
        put("required", self.required.map(|n| json!(n)));
        put("alive", self.alive.map(|n| json!(n)));
        put("received", self.received.map(|n| json!(n)));
        put("block_for", self.block_for.map(|n| json!(n)));
        put("data_present", self.data_present.map(|b| json!(b)));
        put("write_type", self.write_type.as_ref().map(|w| json!(w)));
        put("num_failures", self.num_failures.map(|n| json!(n)));
        put("reason", self.reason.map(|r| json!(failure_reason_name(r))));
        put("message", self.message.as_ref().map(|m| json!(m)));
        out
    }

    /// The error a request with `facts` is answered with: the details given, the others
    /// from the request (its consistency; as many replicas as that level needs at
    /// replication factor 1, none of them answering; the statement's write type).
    pub(crate) fn error_for(&self, facts: &Facts) -> CqlError {
        let consistency = self.consistency.or(facts.consistency).unwrap_or(1);
        let needed = replicas_needed(consistency);
        let block_for = self.block_for.unwrap_or(needed);
        let received = self.received.unwrap_or(0);
        let write_type = || {
            self.write_type
                .clone()
                .unwrap_or_else(|| facts.write_type.to_string())
        };
        let (num_failures, reason) = (self.num_failures.unwrap_or(1), self.reason.unwrap_or(0));
        let kind = match self.error {
            ErrorName::Unprepared => {
                let id = facts.prepared_id.clone().unwrap_or_default();
                return CqlError::Unprepared(id);
            }
            ErrorName::Unavailable => {
                let required = self.required.unwrap_or(needed);
                InjectedKind::Unavailable {
                    consistency,
                    required,
                    alive: self.alive.unwrap_or(required.saturating_sub(1)),
                }
            }
            ErrorName::ReadTimeout => InjectedKind::ReadTimeout {
                consistency,
                received,
                block_for,
                data_present: self.data_present.unwrap_or(false),
            },
            ErrorName::WriteTimeout => InjectedKind::WriteTimeout {
                consistency,
                received,
                block_for,
                write_type: write_type(),
            },
            ErrorName::ReadFailure => InjectedKind::ReadFailure {
                consistency,
                received,
                block_for,
                num_failures,
                reason,
                data_present: self.data_present.unwrap_or(false),
                node: facts.local,
            },
            ErrorName::WriteFailure => InjectedKind::WriteFailure {
                consistency,
                received,
                block_for,
                num_failures,
                reason,
                write_type: write_type(),
                node: facts.local,
            },
            ErrorName::Overloaded => InjectedKind::Overloaded,
            ErrorName::IsBootstrapping => InjectedKind::IsBootstrapping,
            ErrorName::ServerError => InjectedKind::ServerError,
        };
        let message = self
            .message
            .clone()
            .unwrap_or_else(|| kind.cassandra_message());
        InjectedError { kind, message }.into()
    }
}

/// Replicas a consistency level needs at replication factor 1 (TWO and THREE ask for more
/// than there are).
fn replicas_needed(consistency: u16) -> i32 {
    match consistency {
        0x0002 => 2,
        0x0003 => 3,
        _ => 1,
    }
}

/// `reason`: a `RequestFailureReason` name or code.
fn reason_field(fields: &Map<String, Value>) -> Result<Option<u16>, ControlError> {
    if let Some(Value::String(name)) = fields.get("reason") {
        if let Some((_, code)) = FAILURE_REASONS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            return Ok(Some(*code));
        }
    }
    Ok(int_field(fields, "reason", 0, i64::from(u16::MAX))?.and_then(|n| u16::try_from(n).ok()))
}

#[cfg(test)]
#[path = "then_tests.rs"]
mod tests;
