//! Roles (Cassandra's `system_auth.roles` and `role_members`): kept in the catalog, so a role
//! change is one durable commit like a schema change, and persisted as one JSON record per
//! role (`role/<name>`).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// A role: who may log in with which password, and which roles it was granted.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RoleDef {
    /// The role name, exactly as stored (case-sensitive).
    pub name: String,
    /// `SUPERUSER`.
    pub is_superuser: bool,
    /// `LOGIN`.
    pub can_login: bool,
    /// The salted bcrypt hash of the password (`salted_hash`), if the role has one.
    pub salted_hash: Option<String>,
    /// The roles granted to this role (`member_of`).
    pub member_of: BTreeSet<String>,
    /// `OPTIONS` (custom options; Cassandra's own role manager supports none).
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// Permissions granted to this role (`system_auth.role_permissions`): by resource name
    /// (`data`, `data/ks`, `data/ks/table`, `roles`, `roles/name`), the permission names.
    #[serde(default)]
    pub permissions: BTreeMap<String, BTreeSet<String>>,
}

const ROLE_PREFIX: &str = "role/";

/// The `schema` key of a role record.
pub(crate) fn role_key(name: &str) -> String {
    format!("{ROLE_PREFIX}{name}")
}

/// Whether a `schema` key is a role record.
pub(crate) fn is_role_key(key: &str) -> bool {
    key.starts_with(ROLE_PREFIX)
}

/// The JSON record of a role.
pub(crate) fn encode_role(role: &RoleDef) -> Vec<u8> {
    // A role holds strings, booleans and string maps only: serializing cannot fail.
    serde_json::to_vec(role).unwrap_or_default()
}

/// A role from its JSON record.
pub(crate) fn decode_role(bytes: &[u8]) -> Result<RoleDef, serde_json::Error> {
    serde_json::from_slice(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_record_round_trips() {
        let role = RoleDef {
            name: "Alice".into(),
            is_superuser: false,
            can_login: true,
            salted_hash: Some("$2a$10$abc".into()),
            member_of: BTreeSet::from(["reader".to_string()]),
            options: BTreeMap::new(),
            permissions: BTreeMap::from([(
                "data/ks".to_string(),
                BTreeSet::from(["SELECT".to_string()]),
            )]),
        };
        assert_eq!(decode_role(&encode_role(&role)).unwrap(), role);
        assert!(is_role_key(&role_key("Alice")));
        assert!(!is_role_key("keyspace/ks"));
    }
}
