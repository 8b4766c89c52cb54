//! Serde for a [`Uuid`] as its hyphenated text, as the catalog's JSON records store ids.

use serde::{Deserialize, Deserializer, Serializer};
use uuid::Uuid;

/// Writes `id` as its hyphenated text.
pub(crate) fn serialize<S: Serializer>(id: &Uuid, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&id.to_string())
}

/// Reads an id written by [`serialize`].
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Uuid, D::Error> {
    let text = String::deserialize(d)?;
    Uuid::parse_str(&text).map_err(serde::de::Error::custom)
}
