//! `CredentialsError`: Authentication that failed (code 0x0100).
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// Authentication that failed (code 0x0100).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CredentialsError {
    /// A SASL PLAIN token without a password.
    /// Origin: auth/PasswordAuthenticator.java PlainTextSaslAuthenticator.decodeCredentials
    #[error("Password must not be null")]
    NullPassword,
    /// A SASL PLAIN token with an empty username.
    /// Origin: auth/PasswordAuthenticator.java PlainTextSaslAuthenticator.decodeCredentials
    #[error("Authentication ID must not be null")]
    NullAuthenticationId,
    /// No such role, or a wrong password: the same message for both.
    /// Origin: auth/PasswordAuthenticator.java authenticate
    #[error("Provided username {username} and/or password are incorrect")]
    Incorrect { username: String },
    /// A role without LOGIN.
    /// Origin: service/ClientState.java login
    #[error("{username} is not permitted to log in")]
    LoginNotPermitted { username: String },
}
