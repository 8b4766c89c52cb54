//! `system_auth.roles` and `system_auth.role_members`, computed from the roles in the
//! catalog as Cassandra's `CassandraRoleManager` stores them.

use cql::types::CqlValue;

use super::NamedRow;
use crate::schema::Schema;

/// One row per role: `role`, `can_login`, `is_superuser`, `member_of`, `salted_hash`.
pub(crate) fn roles(schema: &Schema) -> Vec<NamedRow> {
    schema
        .catalog
        .roles
        .values()
        .map(|role| {
            let member_of = (!role.member_of.is_empty()).then(|| {
                CqlValue::Set(role.member_of.iter().cloned().map(CqlValue::Text).collect())
            });
            vec![
                ("role", Some(CqlValue::Text(role.name.clone()))),
                ("can_login", Some(CqlValue::Boolean(role.can_login))),
                ("is_superuser", Some(CqlValue::Boolean(role.is_superuser))),
                ("member_of", member_of),
                ("salted_hash", role.salted_hash.clone().map(CqlValue::Text)),
            ]
        })
        .collect()
}

/// One row per grant: `role` (the role granted) and `member` (who holds it).
pub(crate) fn role_members(schema: &Schema) -> Vec<NamedRow> {
    let roles = &schema.catalog.roles;
    roles
        .values()
        .flat_map(|member| {
            member.member_of.iter().map(move |role| {
                vec![
                    ("role", Some(CqlValue::Text(role.clone()))),
                    ("member", Some(CqlValue::Text(member.name.clone()))),
                ]
            })
        })
        .collect()
}

/// One row per role and resource: `role`, `resource`, `permissions`.
pub(crate) fn role_permissions(schema: &Schema) -> Vec<NamedRow> {
    schema
        .catalog
        .roles
        .values()
        .flat_map(|role| {
            role.permissions.iter().map(move |(resource, permissions)| {
                let set = permissions.iter().cloned().map(CqlValue::Text).collect();
                vec![
                    ("role", Some(CqlValue::Text(role.name.clone()))),
                    ("resource", Some(CqlValue::Text(resource.clone()))),
                    ("permissions", Some(CqlValue::Set(set))),
                ]
            })
        })
        .collect()
}
