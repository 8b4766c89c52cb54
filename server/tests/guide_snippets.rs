//! The testing guide's fixtures and examples (docs/testing.md, "Test controls"), tested as
//! they stand: the guide holds the pytest fixtures, the worked examples and the Rust fixture
//! verbatim (the pytest suite runs here against the real binary; the Rust fixture runs in
//! `integration-tests`), and its shell recipe runs here word for word but for the test
//! command.

mod support;

use std::path::Path;
use std::process::Command;

use support::pytest::{root, run_pytest, text, venv};
use support::snippets::{blocks, marked};

/// The guide's text.
fn guide() -> String {
    std::fs::read_to_string(root().join("docs/testing.md")).expect("read docs/testing.md")
}

#[test]
fn the_guide_holds_the_tested_fixtures_and_examples() {
    let guide = guide();
    let python = blocks(&guide, "python");
    for marker in [
        "pytest fixtures",
        "TTL example",
        "retry example",
        "failover example",
    ] {
        let file = if marker == "pytest fixtures" {
            "integration-tests/python_guide/conftest.py"
        } else {
            "integration-tests/python_guide/test_guide_examples.py"
        };
        let snippet = marked(file, &format!("# guide: {marker}"), "# guide end");
        assert!(
            python.contains(&snippet),
            "the guide's {marker} differ from {file}"
        );
    }
    let rust = marked(
        "integration-tests/tests/it/guide.rs",
        "// guide: Rust fixture",
        "// guide end",
    );
    assert!(
        blocks(&guide, "rust").contains(&rust),
        "the guide's Rust fixture differs"
    );
}

#[test]
fn the_guide_suite_drives_the_real_binary() {
    let server = env!("CARGO_BIN_EXE_cqld");
    let log = run_pytest(
        "integration-tests/python_guide",
        &[("CQL_SERVER_BIN", server)],
    );
    assert!(log.contains("3 passed"), "{log}");
}

#[test]
fn the_guide_shell_recipe_runs_a_suite_and_stops_the_server() {
    let guide = guide();
    let recipe = blocks(&guide, "sh")
        .into_iter()
        .find(|block| block.contains("coproc CQLD"))
        .expect("the recipe");
    let test_command = recipe
        .lines()
        .last()
        .expect("the recipe's last line")
        .to_string();
    assert!(test_command.starts_with("npm test"), "{test_command}");
    // The suite the recipe runs: reads through the server it started, over both doors.
    let recipe = recipe.replace(&test_command, "python3 smoke.py");
    let suite = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        suite.path().join("smoke.py"),
        "import json, os, urllib.request\nfrom cassandra.cluster import Cluster\n\
         cluster = Cluster(['127.0.0.1'], port=int(os.environ['CQL_PORT']))\n\
         row = cluster.connect().execute('SELECT cluster_name FROM system.local').one()\n\
         cluster.shutdown()\nassert row.cluster_name == 'Test Cluster'\n\
         ready = json.load(urllib.request.urlopen(os.environ['CQL_HTTP'] + '/ready'))\n\
         assert ready['ready'], ready\nprint('smoke passed')\n",
    )
    .expect("write the suite");
    let bin = Path::new(env!("CARGO_BIN_EXE_cqld"))
        .parent()
        .expect("the binary's directory")
        .to_path_buf();
    let path = format!(
        "{}:{}:{}",
        bin.display(),
        venv().join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("bash")
        .args(["-c", &recipe])
        .current_dir(suite.path())
        .env("PATH", path)
        .output()
        .expect("run the recipe");
    let log = text(&output);
    assert!(output.status.success(), "{log}");
    assert!(log.contains("smoke passed"), "{log}");
}
