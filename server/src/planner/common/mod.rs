//! What every statement family plans with: WHERE restrictions, clustering and token ranges, bind markers.

pub(crate) mod bind;
pub(crate) mod bind_info;
pub(crate) mod clustering;
pub(crate) mod relation_order;
pub(crate) mod restrictions;
pub(crate) mod sai_terms;
pub(crate) mod selection_only;
pub(crate) mod token;
