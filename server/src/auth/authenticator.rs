//! PasswordAuthenticator: SASL PLAIN credentials checked against the roles' salted bcrypt
//! hashes (Cassandra stores jBCrypt `$2a$` hashes with 2^10 rounds), and the default
//! superuser `cassandra`/`cassandra` created on the first start, as Cassandra's
//! `CassandraRoleManager` does. Passwords never reach a log.

use crate::error::{CqlResult, CredentialsError};
use crate::node::Node;

pub(crate) use crate::planner::access::password::hash_password;

/// The default superuser's name and password.
pub(crate) const DEFAULT_ROLE: &str = "cassandra";

/// The username and password of a SASL PLAIN token (`[authzid] NUL authcid NUL passwd`),
/// with Cassandra's messages for a token without them.
///
/// # Errors
/// [`CredentialsError`] for a malformed token.
pub(crate) fn decode_plain(token: &[u8]) -> CqlResult<(String, String)> {
    let mut parts = token.rsplitn(3, |&b| b == 0);
    let password = parts.next().unwrap_or_default();
    let Some(username) = parts.next() else {
        return Err(CredentialsError::NullPassword.into());
    };
    if username.is_empty() {
        return Err(CredentialsError::NullAuthenticationId.into());
    }
    if password.is_empty() {
        return Err(CredentialsError::NullPassword.into());
    }
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    Ok((text(username), text(password)))
}

/// Checks `username`/`password` against the roles; the same message whether the role is
/// missing or the password wrong, so a failed attempt reveals nothing.
///
/// # Errors
/// [`CredentialsError`] with Cassandra's message.
pub(crate) fn authenticate(node: &Node, username: &str, password: &str) -> CqlResult<String> {
    let schema = node.schema();
    let role = schema.catalog.roles.get(username);
    let hash = role.and_then(|r| r.salted_hash.as_deref());
    let matches = hash.is_some_and(|hash| bcrypt::verify(password, hash).unwrap_or(false));
    let Some(role) = role.filter(|_| matches) else {
        return Err(CredentialsError::Incorrect {
            username: username.to_string(),
        }
        .into());
    };
    if !role.can_login {
        return Err(CredentialsError::LoginNotPermitted {
            username: username.to_string(),
        }
        .into());
    }
    Ok(role.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_tokens_decode_as_cassandra_reads_them() {
        assert_eq!(
            decode_plain(b"\0cassandra\0secret").unwrap(),
            ("cassandra".to_string(), "secret".to_string())
        );
        assert_eq!(
            decode_plain(b"authz\0bob\0pw").unwrap(),
            ("bob".to_string(), "pw".to_string())
        );
        assert_eq!(
            decode_plain(b"\0\0pw").unwrap_err().to_string(),
            "Authentication ID must not be null"
        );
        assert_eq!(
            decode_plain(b"\0bob\0").unwrap_err().to_string(),
            "Password must not be null"
        );
    }
}
