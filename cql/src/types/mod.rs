//! CQL types and values: [`ColumnType`], [`CqlValue`], the value wire codec ([`codec`]),
//! types named by their Java class ([`marshal`]), composite values ([`composite`]),
//! CQL's per-type ordering ([`ordering`]), `duration` literals ([`duration`]) and the decimal
//! text of `varint` and `decimal` values ([`number_text`]).

pub mod codec;
pub mod composite;
mod data_type;
pub mod duration;
pub mod marshal;
pub mod number_text;
pub mod ordering;
mod value;
pub mod vector;

pub use crate::ident::maybe_quote;
pub use data_type::ColumnType;
pub use value::CqlValue;
