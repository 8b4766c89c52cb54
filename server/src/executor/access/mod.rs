//! Roles and permissions: statements run and the catalog they change.

pub(crate) mod catalog;
pub(crate) mod permissions;
pub(crate) mod roles;
