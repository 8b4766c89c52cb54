//! The control routes: a request's method and path (and body) as a [`Command`].

use std::time::Duration;

use serde_json::Value;

use super::Request;
use crate::cluster::control::NodeAction;
use crate::control::faults::FaultRule;
use crate::control::{Command, ControlError};

/// The command `request` asks for; `None` when no route matches.
///
/// # Errors
/// A body or parameter that is not what the route takes.
pub(crate) fn command(request: &Request) -> Result<Option<Command>, ControlError> {
    let segments: Vec<&str> = request
        .path
        .trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let name = |s: &str| s.to_string();
    Ok(Some(match (request.method.as_str(), segments.as_slice()) {
        ("POST", ["reset"]) => Command::Reset,
        ("GET", ["snapshots"]) => Command::ListSnapshots,
        ("PUT", ["snapshots", snapshot]) => Command::TakeSnapshot(name(snapshot)),
        ("POST", ["snapshots", snapshot, "restore"]) => Command::RestoreSnapshot(name(snapshot)),
        ("DELETE", ["snapshots", snapshot]) => Command::DeleteSnapshot(name(snapshot)),
        ("POST", ["faults"]) => Command::AddFault(Box::new(FaultRule::from_json(json(request)?)?)),
        ("GET", ["faults"]) => Command::ListFaults,
        ("DELETE", ["faults"]) => Command::ClearFaults,
        ("DELETE", ["faults", id]) => Command::RemoveFault(name(id)),
        ("GET", ["queries"]) => Command::Queries {
            limit: limit(request)?,
        },
        ("DELETE", ["queries"]) => Command::ClearQueries,
        ("GET", ["clock"]) => Command::Clock,
        ("POST", ["clock", "advance"]) => Command::AdvanceClock(advance(&json(request)?)?),
        ("GET", ["nodes"]) => Command::ListNodes,
        ("POST", ["nodes"]) => add_node(&json(request)?)?,
        ("POST", ["nodes", address, action]) => match NodeAction::named(action) {
            Some(action) => Command::NodeAction {
                address: name(address),
                action,
            },
            None => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

/// `POST /nodes` with `{"datacenter": "dc1", "rack": "rack1"}` (`rack` optional).
fn add_node(body: &Value) -> Result<Command, ControlError> {
    let text = |field: &str| body.get(field).and_then(Value::as_str).map(str::to_string);
    let datacenter = text("datacenter")
        .ok_or_else(|| ControlError::BadRequest("expected {\"datacenter\": NAME}".into()))?;
    Ok(Command::AddNode {
        datacenter,
        rack: text("rack"),
    })
}

/// The body as JSON.
fn json(request: &Request) -> Result<Value, ControlError> {
    serde_json::from_slice(&request.body)
        .map_err(|err| ControlError::BadRequest(format!("the body is not JSON: {err}")))
}

/// `?limit=N`.
fn limit(request: &Request) -> Result<Option<usize>, ControlError> {
    request
        .query("limit")
        .map(|text| {
            text.parse()
                .map_err(|_| ControlError::BadRequest(format!("invalid limit: {text}")))
        })
        .transpose()
}

/// `{"seconds": N}`: a duration forward (fractions allowed; never backwards).
pub(crate) fn advance(body: &Value) -> Result<Duration, ControlError> {
    let seconds = body
        .get("seconds")
        .and_then(Value::as_f64)
        .ok_or_else(|| ControlError::BadRequest("expected {\"seconds\": N}".into()))?;
    seconds_forward(seconds)
}

/// `seconds` as a duration forward.
///
/// # Errors
/// Negative, not finite, or past what the clock can hold.
pub(crate) fn seconds_forward(seconds: f64) -> Result<Duration, ControlError> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| d.as_secs() < 1 << 40)
        .ok_or_else(|| {
            ControlError::BadRequest(format!(
                "the clock only moves forward, by a finite number of seconds: {seconds}"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, path: &str, body: &str) -> Request {
        Request {
            method: method.into(),
            path: path.into(),
            query: vec![("limit".into(), "3".into())],
            body: body.as_bytes().to_vec(),
        }
    }

    fn routed(method: &str, path: &str, body: &str) -> String {
        match command(&request(method, path, body)) {
            Ok(Some(command)) => format!("{command:?}"),
            Ok(None) => "none".into(),
            Err(err) => format!("error: {err}"),
        }
    }

    #[test]
    fn every_route_is_a_command() {
        assert_eq!(routed("POST", "/reset", ""), "Reset");
        assert_eq!(routed("PUT", "/snapshots/a", ""), "TakeSnapshot(\"a\")");
        assert_eq!(
            routed("POST", "/snapshots/a/restore", ""),
            "RestoreSnapshot(\"a\")"
        );
        assert_eq!(routed("GET", "/snapshots", ""), "ListSnapshots");
        assert_eq!(
            routed("DELETE", "/snapshots/a", ""),
            "DeleteSnapshot(\"a\")"
        );
        assert_eq!(routed("GET", "/faults", ""), "ListFaults");
        assert_eq!(routed("DELETE", "/faults", ""), "ClearFaults");
        assert_eq!(routed("DELETE", "/faults/7", ""), "RemoveFault(\"7\")");
        assert_eq!(routed("GET", "/queries", ""), "Queries { limit: Some(3) }");
        assert_eq!(routed("DELETE", "/queries", ""), "ClearQueries");
        assert_eq!(routed("GET", "/clock", ""), "Clock");
        assert_eq!(
            routed("POST", "/clock/advance", "{\"seconds\": 86401}"),
            "AdvanceClock(86401s)"
        );
        assert!(routed("POST", "/faults", "{\"then\": {\"drop\": true}}").starts_with("AddFault"));
        assert_eq!(routed("GET", "/nodes", ""), "ListNodes");
        assert_eq!(
            routed("POST", "/nodes/127.0.0.2/stop", ""),
            "NodeAction { address: \"127.0.0.2\", action: Stop }"
        );
        assert_eq!(
            routed("POST", "/nodes", r#"{"datacenter": "dc2"}"#),
            "AddNode { datacenter: \"dc2\", rack: None }"
        );
        assert_eq!(routed("POST", "/nodes/127.0.0.2/explode", ""), "none");
        assert_eq!(routed("GET", "/nowhere", ""), "none");
        assert_eq!(routed("PUT", "/reset", ""), "none");
    }

    #[test]
    fn bad_bodies_are_refused() {
        assert!(routed("POST", "/clock/advance", "{\"seconds\": -1}").starts_with("error"));
        assert!(routed("POST", "/clock/advance", "{}").starts_with("error"));
        assert!(routed("POST", "/clock/advance", "nope").starts_with("error: the body"));
        assert!(routed("POST", "/faults", "{}").starts_with("error"));
    }
}
