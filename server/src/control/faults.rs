//! Injected faults: rules matched against each request, answering with an error, a delay,
//! no answer, or a closed connection. (Skeleton: the registry; matching comes next.)

use std::sync::Mutex;

use serde_json::Value;

/// One fault rule, as `POST /faults` takes it.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
pub(crate) struct FaultRule {
    /// The rule's body as given.
    pub(crate) body: Value,
}

impl FaultRule {
    /// A rule from the body of `POST /faults`.
    ///
    /// # Errors
    /// The body is not an object with a `then`.
    pub(crate) fn from_json(body: Value) -> Result<FaultRule, super::ControlError> {
        if body.get("then").is_none() {
            return Err(super::ControlError::BadRequest(
                "a fault needs \"then\"".into(),
            ));
        }
        Ok(FaultRule { body })
    }

    /// A rule from a row written to `test_control.faults`.
    ///
    /// # Errors
    /// The row sets no outcome (`error`, `delay_ms`, `drop` or `close`).
    pub(crate) fn from_row(row: &super::cql::ControlRow) -> Result<FaultRule, super::ControlError> {
        let body = serde_json::json!({
            "then": {
                "error": row.text("error"),
                "delay_ms": row.number("delay_ms"),
            },
        });
        FaultRule::from_json(body)
    }
}

/// The node's fault rules.
#[derive(Debug, Default)]
pub(crate) struct Faults {
    rules: Mutex<Vec<(String, FaultRule)>>,
    next_id: std::sync::atomic::AtomicU64,
}

impl Faults {
    /// Adds a rule; its id.
    pub(crate) fn add(&self, rule: FaultRule) -> String {
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            .to_string();
        self.lock().push((id.clone(), rule));
        id
    }

    /// Removes the rule `id`; whether there was one.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let mut rules = self.lock();
        let before = rules.len();
        rules.retain(|(rule_id, _)| rule_id != id);
        rules.len() != before
    }

    /// Removes every rule.
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    /// The rules, as `GET /faults` lists them.
    pub(crate) fn to_json(&self) -> Value {
        Value::Array(
            self.lock()
                .iter()
                .map(|(id, rule)| serde_json::json!({ "id": id, "rule": rule.body }))
                .collect(),
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, FaultRule)>> {
        self.rules.lock().unwrap_or_else(|p| p.into_inner())
    }
}
