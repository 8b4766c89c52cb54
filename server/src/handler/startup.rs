//! STARTUP → READY, with Cassandra's checks on CQL_VERSION and COMPRESSION.

use cql::frame::request::Startup;
use cql::frame::response::Response;
use cql::frame::Compression;

use super::Reply;
use crate::config::Authenticator;
use crate::error::{CqlResult, ProtocolError};
use crate::node::Node;
use crate::transport::session::Session;

/// The class name AUTHENTICATE announces for PasswordAuthenticator.
const PASSWORD_AUTHENTICATOR: &str = "org.apache.cassandra.auth.PasswordAuthenticator";

fn version_at_least_3(version: &str) -> bool {
    version
        .split('.')
        .next()
        .and_then(|major| major.trim().parse::<u32>().ok())
        .is_some_and(|m| m >= 3)
}

/// Completes the handshake, or asks for credentials when PasswordAuthenticator is in force.
pub(super) fn handle(node: &Node, session: &Session, startup: &Startup) -> CqlResult<Reply> {
    let option = |key: &str| {
        startup
            .options
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    };
    let Some(version) = option("CQL_VERSION") else {
        return Err(ProtocolError::MissingCqlVersion.into());
    };
    if !version_at_least_3(version) {
        return Err(ProtocolError::UnsupportedCqlVersion {
            version: version.to_string(),
        }
        .into());
    }
    let compression = match option("COMPRESSION") {
        None => None,
        Some(name) => match Compression::from_name(&name.to_ascii_lowercase()) {
            Some(c) => Some(c),
            None => {
                return Err(ProtocolError::UnknownCompression {
                    name: name.to_string(),
                }
                .into())
            }
        },
    };
    if compression == Some(Compression::Snappy) && session.protocol().is_v5() {
        return Err(ProtocolError::SnappyInV5.into());
    }
    // Cassandra's StartupMessage takes exactly "1" as set.
    let throw = option("THROW_ON_OVERLOAD") == Some("1");
    session.set_throw_on_overload(throw);
    session.set_startup_options(startup.options.clone());
    session.start(compression);
    if node.config().authenticator == Authenticator::Password {
        session.await_authentication();
        return Ok(Reply::new(Response::Authenticate {
            authenticator: PASSWORD_AUTHENTICATOR.into(),
        }));
    }
    Ok(Reply::new(Response::Ready))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_cql_3_and_4() {
        assert!(version_at_least_3("3.0.0"));
        assert!(version_at_least_3("4.0.0"));
        assert!(!version_at_least_3("2.0.0"));
        assert!(!version_at_least_3("x"));
    }
}
