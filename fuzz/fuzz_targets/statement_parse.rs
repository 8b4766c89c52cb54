//! Fuzzes the CQL statement parser: it must never panic or overflow the stack.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = cql::statement::parse(text);
    }
});
