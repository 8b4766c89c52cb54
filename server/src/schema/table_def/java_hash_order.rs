//! The order in which a Java `HashMap<String, _>` copied from a map of `n` entries lists its
//! keys: Cassandra prints such key sets in its messages (`Properties specified [a, b] are not
//! understood by ...`, `Invalid caching sub-options [a, b]: ...`), so the same keys are listed
//! here in the same order.

/// `keys` in the iteration order of `new HashMap<>(m)` where `m` held `copied_from` entries:
/// by bucket of `String.hashCode()` (spread as `HashMap.hash` does) in a table sized as the
/// copy constructor sizes it; keys sharing a bucket keep their given order.
pub(crate) fn java_hash_order(keys: &[String], copied_from: usize) -> Vec<String> {
    let capacity = table_size_for(copied_from);
    let mut ordered: Vec<(usize, usize, &String)> = keys
        .iter()
        .enumerate()
        .map(|(position, key)| (bucket(key, capacity), position, key))
        .collect();
    ordered.sort();
    ordered.into_iter().map(|(_, _, key)| key.clone()).collect()
}

/// Java's `Set.toString()` of `keys` in that order: `[a, b]`.
pub(crate) fn java_key_set(keys: &[String], copied_from: usize) -> String {
    format!("[{}]", java_hash_order(keys, copied_from).join(", "))
}

/// `String.hashCode()`: over UTF-16 code units, wrapping.
fn string_hash(key: &str) -> i32 {
    key.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

fn bucket(key: &str, capacity: usize) -> usize {
    let h = string_hash(key) as u32;
    let spread = h ^ (h >> 16);
    spread as usize & (capacity - 1)
}

/// The table `new HashMap<>(m)` allocates for `entries` entries: the power of two at least
/// `entries / 0.75 + 1`.
fn table_size_for(entries: usize) -> usize {
    let wanted = (entries as f32 / 0.75 + 1.0) as usize;
    wanted.max(1).next_power_of_two()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn string_hash_is_javas() {
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("abc"), 96354);
        assert_eq!(string_hash("hello"), 99_162_322);
        assert_eq!(string_hash("polygenelubricants"), i32::MIN);
    }

    #[test]
    fn table_sizes_follow_the_copy_constructor() {
        assert_eq!(table_size_for(1), 2);
        assert_eq!(table_size_for(3), 8);
        assert_eq!(table_size_for(12), 32);
    }

    #[test]
    fn keys_come_out_by_bucket() {
        // "a" hashes to 97 and "b" to 98: buckets 1 and 2 of an 8-slot table.
        assert_eq!(java_key_set(&keys(&["b", "a"]), 3), "[a, b]");
        assert_eq!(java_key_set(&keys(&["dog"]), 3), "[dog]");
    }
}
