//! CQL types and values: [`ColumnType`], [`CqlValue`], the value wire codec ([`codec`]) and
//! CQL's per-type ordering ([`ordering`]).

pub mod codec;
mod data_type;
pub mod ordering;
mod value;

pub use data_type::{maybe_quote, ColumnType};
pub use value::CqlValue;
