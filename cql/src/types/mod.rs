//! CQL types and values: [`ColumnType`], [`CqlValue`], the value wire codec ([`codec`]),
//! CQL's per-type ordering ([`ordering`]) and `duration` literals ([`duration`]).

pub mod codec;
mod data_type;
pub mod duration;
pub mod ordering;
mod value;

pub use data_type::{maybe_quote, ColumnType};
pub use value::CqlValue;
