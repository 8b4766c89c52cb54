//! CQL without I/O: everything about the bytes and the text that clients send and receive.
//!
//! - [`frame`]: native protocol v4 frames (header, request and response bodies, compression,
//!   version negotiation), decoded with `nom` over `bytes`.
//! - [`types`]: CQL data types ([`types::ColumnType`]), values ([`types::CqlValue`]), the value
//!   wire codec, and CQL's ordering rules per type.
//! - [`statement`]: the CQL statement grammar: lexer, parser and AST.
//!
//! This crate neither logs nor does I/O; failures are typed errors carrying the detail.

pub mod frame;
mod ident;
pub mod statement;
pub mod types;
