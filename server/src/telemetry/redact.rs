//! Keeping secrets out of logs and traces: a statement whose text may carry a password
//! (`CREATE ROLE ... WITH PASSWORD`) is shown as [`HIDDEN_STATEMENT`] instead (and, in the
//! query log, each of its bound values as [`HIDDEN_VALUE`]).

/// What logs and traces show instead of a statement that may carry a password
/// (`CREATE ROLE ... WITH PASSWORD`), so secrets never leave the request.
pub(crate) const HIDDEN_STATEMENT: &str = "<a statement with a password>";

/// What the query log shows instead of each bound value of such a statement.
pub(crate) const HIDDEN_VALUE: &str = "<hidden>";

/// Whether a statement's text may carry a password and must not be logged or traced.
pub(crate) fn may_carry_password(text: &str) -> bool {
    // The first byte alone rules out nearly every window (the query log checks every
    // statement it records).
    text.as_bytes()
        .windows(8)
        .any(|w| w[0] | 0x20 == b'p' && w.eq_ignore_ascii_case(b"password"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_with_passwords_never_reach_logs_or_traces() {
        let create = "CREATE ROLE r WITH PassWord = 'secret' AND LOGIN = true";
        assert!(may_carry_password(create));
        assert!(!may_carry_password("SELECT * FROM t"));
        assert!(may_carry_password("password"));
        assert!(may_carry_password("x PASSWORD"));
        assert!(!may_carry_password("passwor"));
        assert!(!may_carry_password("p@ssword ppassw0rd"));
        assert_eq!(
            crate::telemetry::trace::log::truncate(create.to_string()),
            HIDDEN_STATEMENT
        );
        assert_eq!(
            crate::telemetry::trace::log::truncate(format!("Parsing {create}")),
            HIDDEN_STATEMENT
        );
    }
}
