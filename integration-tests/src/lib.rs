//! Test harness: an in-process server per test.
