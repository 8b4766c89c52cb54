//! A rule's `when`: which requests it applies to. Every filter given must match; none given
//! matches every QUERY, EXECUTE and BATCH (a PREPARE only when `kind` is `PREPARE`).

use std::net::IpAddr;

use regex::Regex;
use serde_json::{json, Map, Value};

use super::facts::{Facts, Kind, Message};
use super::spec::{consistency_code, text_field};
use crate::control::ControlError;
use crate::telemetry::trace::consistency_name;

/// The statement kinds a rule may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KindFilter {
    /// QUERY, EXECUTE and BATCH, whatever they run (not PREPARE).
    Any,
    Select,
    Insert,
    Update,
    Delete,
    /// BATCH messages and `BEGIN BATCH ... APPLY BATCH` texts.
    Batch,
    /// PREPARE messages.
    Prepare,
}

impl KindFilter {
    /// The filter a name means (any case).
    ///
    /// # Errors
    /// Not one of SELECT, INSERT, UPDATE, DELETE, BATCH, PREPARE or ANY.
    pub(crate) fn parse(name: &str) -> Result<KindFilter, ControlError> {
        Ok(match name.to_ascii_uppercase().as_str() {
            "ANY" => KindFilter::Any,
            "SELECT" => KindFilter::Select,
            "INSERT" => KindFilter::Insert,
            "UPDATE" => KindFilter::Update,
            "DELETE" => KindFilter::Delete,
            "BATCH" => KindFilter::Batch,
            "PREPARE" => KindFilter::Prepare,
            other => {
                return Err(ControlError::BadRequest(format!(
                    "unknown kind {other}: expected SELECT, INSERT, UPDATE, DELETE, BATCH, \
                     PREPARE or ANY"
                )))
            }
        })
    }

    /// The filter's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            KindFilter::Any => "ANY",
            KindFilter::Select => "SELECT",
            KindFilter::Insert => "INSERT",
            KindFilter::Update => "UPDATE",
            KindFilter::Delete => "DELETE",
            KindFilter::Batch => "BATCH",
            KindFilter::Prepare => "PREPARE",
        }
    }

    /// Whether a request of `message` running a statement of `kind` is one of these.
    fn matches(self, message: Message, kind: Kind) -> bool {
        let statement =
            |wanted: Kind| matches!(message, Message::Query | Message::Execute) && kind == wanted;
        match self {
            KindFilter::Any => message != Message::Prepare,
            KindFilter::Prepare => message == Message::Prepare,
            KindFilter::Batch => message != Message::Prepare && kind == Kind::Batch,
            KindFilter::Select => statement(Kind::Select),
            KindFilter::Insert => statement(Kind::Insert),
            KindFilter::Update => statement(Kind::Update),
            KindFilter::Delete => statement(Kind::Delete),
        }
    }
}

/// The filters of a rule.
#[derive(Debug, Clone)]
pub(crate) struct When {
    pub(crate) keyspace: Option<String>,
    pub(crate) table: Option<String>,
    pub(crate) kind: KindFilter,
    /// Matched anywhere in a statement's text (compiled once, here).
    pub(crate) query: Option<Regex>,
    pub(crate) consistency: Option<u16>,
    pub(crate) client: Option<IpAddr>,
}

/// The fields `when` takes.
const FIELDS: &[&str] = &[
    "keyspace",
    "table",
    "kind",
    "query",
    "consistency",
    "client",
];

impl When {
    /// The filters of a `when` object (absent: none).
    ///
    /// # Errors
    /// Not an object; an unknown field; a kind, consistency, regular expression or address
    /// that is not one.
    pub(crate) fn from_json(when: Option<&Value>) -> Result<When, ControlError> {
        let empty = Map::new();
        let fields = match when {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(fields)) => fields,
            Some(other) => {
                return Err(ControlError::BadRequest(format!(
                    "\"when\" must be an object, not {other}"
                )))
            }
        };
        if let Some(unknown) = fields.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(ControlError::BadRequest(format!(
                "unknown field \"{unknown}\" in \"when\": expected one of {}",
                FIELDS.join(", ")
            )));
        }
        let text = |name: &str| text_field(fields, name);
        Ok(When {
            keyspace: text("keyspace")?,
            table: text("table")?,
            kind: text("kind")?.map_or(Ok(KindFilter::Any), |k| KindFilter::parse(&k))?,
            query: text("query")?.map(|q| compile(&q)).transpose()?,
            consistency: text("consistency")?
                .map(|c| consistency_code(&c))
                .transpose()?,
            client: text("client")?.map(|c| parse_client(&c)).transpose()?,
        })
    }

    /// The filters as JSON (those given).
    pub(crate) fn to_json(&self) -> Value {
        let mut out = Map::new();
        let mut put = |name: &str, value: Option<String>| {
            if let Some(value) = value {
                out.insert(name.into(), json!(value));
            }
        };
        put("keyspace", self.keyspace.clone());
        put("table", self.table.clone());
        put("kind", Some(self.kind.name().into()));
        put("query", self.query.as_ref().map(|q| q.as_str().into()));
        put("consistency", self.consistency.map(consistency_name));
        put("client", self.client.map(|c| c.to_string()));
        Value::Object(out)
    }

    /// Whether a request with these facts is one the rule applies to.
    pub(crate) fn matches(&self, facts: &Facts) -> bool {
        self.kind.matches(facts.message, facts.kind)
            && self.client.is_none_or(|c| c == facts.client)
            && self
                .consistency
                .is_none_or(|c| facts.consistency == Some(c))
            && self.names_target(facts)
            && self
                .query
                .as_ref()
                .is_none_or(|q| facts.texts.iter().any(|t| q.is_match(t)))
    }

    /// Whether one of the request's statements is in the keyspace and table asked for.
    fn names_target(&self, facts: &Facts) -> bool {
        if self.keyspace.is_none() && self.table.is_none() {
            return true;
        }
        facts.targets.iter().any(|target| {
            let same =
                |wanted: &Option<String>, got: &Option<String>| wanted.is_none() || wanted == got;
            same(&self.keyspace, &target.keyspace) && same(&self.table, &target.table)
        })
    }
}

/// A rule's regular expression.
fn compile(pattern: &str) -> Result<Regex, ControlError> {
    Regex::new(pattern).map_err(|err| {
        ControlError::BadRequest(format!("invalid regular expression in \"query\": {err}"))
    })
}

/// A client's IP address.
fn parse_client(text: &str) -> Result<IpAddr, ControlError> {
    text.parse().map_err(|_| {
        ControlError::BadRequest(format!("\"client\" must be an IP address, not {text}"))
    })
}

#[cfg(test)]
mod tests {
    use super::super::facts::Target;
    use super::*;

    fn facts(message: Message, kind: Kind, text: &str) -> Facts {
        Facts {
            message,
            kind,
            texts: vec![text.into()],
            targets: vec![Target {
                keyspace: Some("ks".into()),
                table: Some("users".into()),
            }],
            consistency: Some(4),
            client: IpAddr::from([127, 0, 0, 1]),
            local: IpAddr::from([127, 0, 0, 1]),
            prepared_id: None,
            write_type: "SIMPLE",
        }
    }

    fn when(body: Value) -> When {
        When::from_json(Some(&body)).expect("a valid when")
    }

    #[test]
    fn every_filter_must_match() {
        let select = facts(Message::Query, Kind::Select, "SELECT * FROM users");
        assert!(when(json!({})).matches(&select));
        assert!(when(json!({"keyspace": "ks", "table": "users"})).matches(&select));
        assert!(!when(json!({"keyspace": "other"})).matches(&select));
        assert!(!when(json!({"keyspace": "ks", "table": "other"})).matches(&select));
        assert!(when(json!({"kind": "select"})).matches(&select));
        assert!(!when(json!({"kind": "INSERT"})).matches(&select));
        assert!(when(json!({"query": "^SELECT .* users$"})).matches(&select));
        assert!(!when(json!({"query": "^INSERT"})).matches(&select));
        assert!(when(json!({"consistency": "QUORUM"})).matches(&select));
        assert!(!when(json!({"consistency": "ONE"})).matches(&select));
        assert!(when(json!({"client": "127.0.0.1"})).matches(&select));
        assert!(!when(json!({"client": "127.0.0.2"})).matches(&select));
    }

    #[test]
    fn kinds_follow_the_message() {
        let execute = facts(Message::Execute, Kind::Insert, "INSERT ...");
        let batch = facts(Message::Batch, Kind::Batch, "INSERT ...");
        let prepare = facts(Message::Prepare, Kind::Insert, "INSERT ...");
        let any = when(json!({"kind": "any"}));
        assert!(any.matches(&execute) && any.matches(&batch) && !any.matches(&prepare));
        assert!(when(json!({"kind": "INSERT"})).matches(&execute));
        assert!(!when(json!({"kind": "INSERT"})).matches(&batch));
        assert!(when(json!({"kind": "BATCH"})).matches(&batch));
        assert!(when(json!({"kind": "PREPARE"})).matches(&prepare));
        assert!(!when(json!({"kind": "PREPARE"})).matches(&execute));
    }

    #[test]
    fn bad_filters_are_refused() {
        for (body, words) in [
            (json!({"query": "("}), "invalid regular expression"),
            (json!({"kind": "MERGE"}), "unknown kind MERGE"),
            (json!({"consistency": "MOST"}), "unknown consistency MOST"),
            (json!({"client": "nowhere"}), "must be an IP address"),
            (json!({"keyspaces": "ks"}), "unknown field \"keyspaces\""),
            (json!({"table": 3}), "\"table\" must be a string"),
        ] {
            let err = When::from_json(Some(&body)).expect_err("refused");
            assert!(err.to_string().contains(words), "{err}");
        }
    }

    #[test]
    fn filters_list_as_given() {
        let listed =
            when(json!({"kind": "update", "consistency": "local_quorum", "query": "x+"})).to_json();
        assert_eq!(
            listed,
            json!({"kind": "UPDATE", "consistency": "LOCAL_QUORUM", "query": "x+"})
        );
    }
}
