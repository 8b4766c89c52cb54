//! Injected faults: rules matched against each QUERY, EXECUTE, BATCH and PREPARE, answering
//! with an error (Cassandra's code and fields), no answer, a closed connection, or the real
//! answer late.
//!
//! A rule ([`FaultRule`]) has a `when` ([`when`]: keyspace, table, statement kind, a regular
//! expression over the statement text, consistency, client address), a `then` ([`then`]), and
//! optionally `times` (fire N times, then retire) and `probability`. A request fires the
//! first rule, in the order they were added, that matches it and whose dice roll passes.
//! Statements on `test_control` are never faulted, so both doors keep working.
//!
//! With no rule the request path pays one relaxed atomic load ([`Faults::check`]).

mod facts;
mod rule;
mod spec;
mod then;
mod when;

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use cql::frame::request::Request;
use cql::types::CqlValue;
use serde_json::{json, Value};

use facts::Facts;
pub(crate) use rule::FaultRule;
use then::Outcome;

use crate::error::CqlError;
use crate::node::Node;
use crate::system::NamedRow;
use crate::transport::session::Session;

/// What a fired rule does to its request.
#[derive(Debug)]
pub(crate) struct Injection {
    /// Waited before the action (the real answer, the error, or the close).
    pub(crate) delay: Option<Duration>,
    pub(crate) action: Action,
}

/// The part of an [`Injection`] after its delay.
#[derive(Debug)]
pub(crate) enum Action {
    /// Handle the request as usual.
    Answer,
    /// Answer with this error.
    Error(CqlError),
    /// Never answer the request.
    Drop,
    /// Close the connection.
    Close,
}

/// A rule in force, with its counts.
#[derive(Debug)]
struct Entry {
    id: String,
    rule: FaultRule,
    /// Fires left, when limited.
    left: Option<AtomicU32>,
    fired: AtomicU64,
}

impl Entry {
    /// Takes one fire; false when none is left (another request took the last).
    fn take_fire(&self) -> bool {
        let taken = match &self.left {
            None => true,
            Some(left) => left
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
                .is_ok(),
        };
        if taken {
            self.fired.fetch_add(1, Ordering::Relaxed);
        }
        taken
    }

    /// Whether every fire was taken.
    fn spent(&self) -> bool {
        self.left
            .as_ref()
            .is_some_and(|left| left.load(Ordering::Acquire) == 0)
    }

    fn times_left(&self) -> Option<u32> {
        self.left.as_ref().map(|left| left.load(Ordering::Acquire))
    }
}

/// The node's fault rules.
#[derive(Debug)]
pub(crate) struct Faults {
    rules: Mutex<Vec<Arc<Entry>>>,
    /// How many rules there are: what a request reads before anything else.
    count: AtomicUsize,
    next_id: AtomicU64,
    /// The state of the dice (splitmix64).
    dice: AtomicU64,
}

impl Default for Faults {
    fn default() -> Faults {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Faults {
            rules: Mutex::default(),
            count: AtomicUsize::new(0),
            next_id: AtomicU64::new(1),
            dice: AtomicU64::new(seed),
        }
    }
}

impl Faults {
    /// Adds a rule, replacing the one with its id if there is one; its id.
    pub(crate) fn add(&self, rule: FaultRule) -> String {
        let mut rules = self.lock();
        let id = match &rule.id {
            Some(id) => id.clone(),
            None => self.fresh_id(&rules),
        };
        let entry = Arc::new(Entry {
            id: id.clone(),
            left: rule.times.map(AtomicU32::new),
            fired: AtomicU64::new(0),
            rule,
        });
        match rules.iter_mut().find(|e| e.id == id) {
            Some(slot) => *slot = entry,
            None => rules.push(entry),
        }
        self.count.store(rules.len(), Ordering::Release);
        id
    }

    /// An id no rule has.
    fn fresh_id(&self, rules: &[Arc<Entry>]) -> String {
        loop {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed).to_string();
            if rules.iter().all(|e| e.id != id) {
                return id;
            }
        }
    }

    /// Removes the rule `id`; whether there was one.
    pub(crate) fn remove(&self, id: &str) -> bool {
        let mut rules = self.lock();
        let before = rules.len();
        rules.retain(|e| e.id != id);
        self.count.store(rules.len(), Ordering::Release);
        rules.len() != before
    }

    /// Removes every rule.
    pub(crate) fn clear(&self) {
        let mut rules = self.lock();
        rules.clear();
        self.count.store(0, Ordering::Release);
    }

    /// The rules, as `GET /faults` lists them: id, `when`, `then`, `times` as given,
    /// `times_left`, `probability` and how often each `fired`.
    pub(crate) fn to_json(&self) -> Value {
        Value::Array(
            self.lock()
                .iter()
                .map(|entry| {
                    let mut listed = entry.rule.to_json();
                    listed.insert("id".into(), json!(entry.id));
                    listed.insert("times_left".into(), json!(entry.times_left()));
                    listed.insert("fired".into(), json!(entry.fired.load(Ordering::Relaxed)));
                    Value::Object(listed)
                })
                .collect(),
        )
    }

    /// The rules as rows of `test_control.faults`.
    pub(crate) fn rows(&self) -> Vec<NamedRow> {
        self.lock().iter().map(|entry| row(entry)).collect()
    }

    /// What the rules do to `request`: `None` (the usual case) leaves it alone. With no
    /// rule this is one relaxed load.
    #[inline]
    pub(crate) fn check(
        &self,
        node: &Node,
        session: &Session,
        request: &Request,
    ) -> Option<Injection> {
        if self.count.load(Ordering::Relaxed) == 0 {
            return None;
        }
        self.fire(node, session, request)
    }

    /// [`Faults::check`] past its first look: the first rule that matches and fires.
    #[cold]
    fn fire(&self, node: &Node, session: &Session, request: &Request) -> Option<Injection> {
        let facts = Facts::of(node, session, request)?;
        let rules: Vec<Arc<Entry>> = self.lock().clone();
        let fired = rules.into_iter().find(|entry| {
            entry.rule.applies_to(&facts) && self.roll(entry.rule.probability) && entry.take_fire()
        })?;
        if fired.spent() {
            self.retire(&fired);
        }
        let then = &fired.rule.then;
        let action = match &then.outcome {
            Outcome::Answer => Action::Answer,
            Outcome::Error(spec) => Action::Error(spec.error_for(&facts)),
            Outcome::Drop => Action::Drop,
            Outcome::Close => Action::Close,
        };
        Some(Injection {
            delay: then.delay,
            action,
        })
    }

    /// Removes a rule that fired its last time (unless it was replaced meanwhile).
    fn retire(&self, spent: &Arc<Entry>) {
        let mut rules = self.lock();
        rules.retain(|e| !Arc::ptr_eq(e, spent));
        self.count.store(rules.len(), Ordering::Release);
    }

    /// Whether a roll of the dice passes `probability` (1 always, 0 never).
    fn roll(&self, probability: f64) -> bool {
        if probability >= 1.0 {
            return true;
        }
        if probability <= 0.0 {
            return false;
        }
        let state = self
            .dice
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        // The top 53 bits as a fraction in [0, 1).
        ((z >> 11) as f64 / (1u64 << 53) as f64) < probability
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Arc<Entry>>> {
        self.rules.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A rule as a row of `test_control.faults` (`times` is the fires left).
fn row(entry: &Entry) -> NamedRow {
    let text = |value: Option<&Value>| {
        value
            .and_then(Value::as_str)
            .map(|s| CqlValue::Text(s.to_string()))
    };
    let when = entry.rule.when.to_json();
    let then = entry.rule.then.to_json();
    let details: Vec<(CqlValue, CqlValue)> = then
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !matches!(k.as_str(), "error" | "delay_ms" | "drop" | "close"))
        .map(|(k, v)| {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            (CqlValue::Text(k.clone()), CqlValue::Text(v))
        })
        .collect();
    let int = |n: Option<u64>| n.map(|n| CqlValue::Int(i32::try_from(n).unwrap_or(i32::MAX)));
    vec![
        ("id", Some(CqlValue::Text(entry.id.clone()))),
        ("keyspace_name", text(when.get("keyspace"))),
        ("table_name", text(when.get("table"))),
        ("kind", text(when.get("kind"))),
        ("query", text(when.get("query"))),
        ("consistency", text(when.get("consistency"))),
        ("client", text(when.get("client"))),
        ("error", text(then.get("error"))),
        (
            "error_details",
            (!details.is_empty()).then_some(CqlValue::Map(details)),
        ),
        (
            "delay_ms",
            int(then.get("delay_ms").and_then(Value::as_u64)),
        ),
        (
            "no_answer",
            Some(CqlValue::Boolean(then.get("drop").is_some())),
        ),
        (
            "close_connection",
            Some(CqlValue::Boolean(then.get("close").is_some())),
        ),
        ("times", int(entry.times_left().map(u64::from))),
        (
            "probability",
            Some(CqlValue::Double(entry.rule.probability)),
        ),
        ("fired", int(Some(entry.fired.load(Ordering::Relaxed)))),
    ]
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
