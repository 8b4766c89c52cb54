//! Every message names where it comes from: each `#[error(...)]` variant of the error module
//! carries a `/// Origin:` doc line — the Java class and method of Cassandra 5.0 that raises
//! the same message (a path under `src/java/org/apache/cassandra/`), or `ours — <why>` for a
//! message with no Cassandra counterpart — so that drift from 5.0's wording is visible.

/// The error module's files, read at compile time.
const SOURCES: &[(&str, &str)] = &[
    ("access.rs", include_str!("access.rs")),
    ("already_exists.rs", include_str!("already_exists.rs")),
    ("credentials.rs", include_str!("credentials.rs")),
    ("ddl.rs", include_str!("ddl.rs")),
    ("describe.rs", include_str!("describe.rs")),
    ("failure.rs", include_str!("failure.rs")),
    ("function.rs", include_str!("function.rs")),
    ("index.rs", include_str!("index.rs")),
    ("injected.rs", include_str!("injected.rs")),
    ("internal.rs", include_str!("internal.rs")),
    ("mod.rs", include_str!("mod.rs")),
    ("modify.rs", include_str!("modify.rs")),
    ("options.rs", include_str!("options.rs")),
    ("protocol.rs", include_str!("protocol.rs")),
    ("request.rs", include_str!("request.rs")),
    ("restriction.rs", include_str!("restriction.rs")),
    ("schema.rs", include_str!("schema.rs")),
    ("select.rs", include_str!("select.rs")),
    ("syntax.rs", include_str!("syntax.rs")),
    ("table_option.rs", include_str!("table_option.rs")),
    ("unauthorized.rs", include_str!("unauthorized.rs")),
    ("user_type.rs", include_str!("user_type.rs")),
    ("value.rs", include_str!("value.rs")),
    ("view.rs", include_str!("view.rs")),
];

/// This file, which holds no messages.
const THIS_FILE: &str = "origin_tests.rs";

/// The line numbers (from 1) of the `#[error(...)]` attributes in `source` whose doc
/// comment has no non-empty `Origin:` line.
fn variants_without_origin(source: &str) -> Vec<usize> {
    let lines: Vec<&str> = source.lines().collect();
    let mut missing = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        if !line.trim_start().starts_with("#[error(") {
            continue;
        }
        let has_origin = lines[..n]
            .iter()
            .rev()
            .map(|l| l.trim_start())
            .take_while(|l| l.starts_with("///") || l.starts_with("#["))
            .any(|l| {
                l.strip_prefix("/// Origin:")
                    .is_some_and(|rest| !rest.trim().is_empty())
            });
        if !has_origin {
            missing.push(n + 1);
        }
    }
    missing
}

#[test]
fn every_error_variant_names_its_origin() {
    let missing: Vec<String> = SOURCES
        .iter()
        .flat_map(|(name, source)| {
            variants_without_origin(source)
                .into_iter()
                .map(move |line| format!("{name}:{line}"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "#[error] variants without an `/// Origin:` line: {missing:?}"
    );
}

#[test]
fn every_file_of_the_error_module_is_checked() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/error");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .expect("the error module's directory")
        .map(|entry| {
            entry
                .expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".rs") && name != THIS_FILE)
        .collect();
    on_disk.sort();
    let listed: Vec<String> = SOURCES.iter().map(|(name, _)| name.to_string()).collect();
    assert_eq!(on_disk, listed, "list every error file in SOURCES");
}

#[test]
fn a_variant_without_origin_is_found() {
    let source = "enum E {\n    /// A doc.\n    #[error(\"a\")]\n    A,\n    /// Origin: ours — b\n    #[error(\"b\")]\n    B,\n    /// Origin:\n    #[error(\"c\")]\n    C,\n}\n";
    assert_eq!(variants_without_origin(source), vec![3, 9]);
}
