//! Every byte layout that reaches disk: partition tokens ([`token`]), memcomparable row keys
//! ([`key`]), versioned row values ([`row`]) and the cell paths of multi-cell columns
//! ([`cell_path`]). Nothing outside this module and `range` (which joins encoded key parts
//! into the ranges reads ask for) concatenates key bytes or reads row bytes.

pub mod cell_path;
pub(crate) mod input;
pub(crate) mod key;
pub(crate) mod range_tombstone;
pub(crate) mod row;
pub(crate) mod token;
