//! Values and their evaluation: bound values, literals, native functions, JSON, dates and times, and Java's text forms.

pub(crate) mod datetime;
pub(crate) mod functions;
pub(crate) mod java_text;
pub(crate) mod json;
pub(crate) mod literals;
pub(crate) mod values;
