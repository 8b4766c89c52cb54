//! Date and time in one place: calendar arithmetic ([`calendar`]), the text forms of `date`,
//! `time` and `timestamp` that Cassandra accepts ([`parse`]), and the forms it prints for
//! them and for `duration` ([`print`]). Duration text is parsed by `cql::types::duration`.

pub(crate) mod calendar;
pub(crate) mod parse;
pub(crate) mod print;
