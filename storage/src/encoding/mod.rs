//! Every byte layout that reaches disk: partition tokens ([`token`]), memcomparable row keys
//! ([`key`]) and versioned row values ([`row`]). Nothing outside this module concatenates key
//! bytes or reads row bytes.

pub(crate) mod input;
pub mod key;
pub mod range_tombstone;
pub mod row;
pub mod token;
