//! Role passwords as Cassandra stores them: salted bcrypt hashes in jBCrypt's `$2a$` form,
//! made when a role statement is planned (`PASSWORD`) or checked (`HASHED PASSWORD`).
//! `auth` re-exports them for the authenticator and the default superuser.

use crate::error::{CqlResult, InternalError};

/// bcrypt's log2 rounds (`auth_bcrypt_gensalt_log2_rounds`, Cassandra's default 10).
const BCRYPT_ROUNDS: u32 = 10;

/// A salted bcrypt hash of `password`, in jBCrypt's `$2a$` form.
///
/// # Errors
/// [`InternalError::PasswordHash`] if hashing fails (it does not for any input bcrypt accepts).
pub(crate) fn hash_password(password: &str) -> CqlResult<String> {
    bcrypt::hash_with_result(password, BCRYPT_ROUNDS)
        .map(|parts| parts.format_for_version(bcrypt::Version::TwoA))
        .map_err(|err| InternalError::PasswordHash(err).into())
}

/// Whether `hash` is a bcrypt hash Cassandra would accept as `HASHED PASSWORD`.
pub(crate) fn is_bcrypt_hash(hash: &str) -> bool {
    bcrypt::verify("", hash).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_jbcrypt_2a_and_verify() {
        let hash = hash_password("p@ss").unwrap();
        assert!(hash.starts_with("$2a$10$"), "{hash}");
        assert!(is_bcrypt_hash(&hash));
        assert!(bcrypt::verify("p@ss", &hash).unwrap());
        assert!(!is_bcrypt_hash("not a hash"));
    }
}
