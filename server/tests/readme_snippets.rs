//! The README's "Using it in tests" snippets, tested as they stand: the README holds the
//! pytest fixture and the in-process Rust test verbatim (the fixture's suite runs here
//! against the real binary; the Rust test runs in `integration-tests`), and its shell
//! one-liner runs here, word for word but for the port.

mod support;

use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use support::free_port;
use support::pytest::{root, run_pytest, text, venv};
use support::snippets::{blocks, marked};

/// The README's text.
fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).expect("read README.md")
}

#[test]
fn the_readme_holds_the_tested_fixture_and_rust_test() {
    let readme = readme();
    let fixture = marked(
        "integration-tests/python_throwaway/conftest.py",
        "# README: pytest fixture",
        "# README end",
    );
    assert!(fixture.contains("--in-memory"), "{fixture}");
    assert!(
        blocks(&readme, "python").contains(&fixture),
        "the README's fixture differs"
    );
    let rust = marked(
        "integration-tests/tests/it/in_process.rs",
        "// README: in-process",
        "// README end",
    );
    assert!(rust.contains("server::spawn"), "{rust}");
    assert!(
        blocks(&readme, "rust").contains(&rust),
        "the README's Rust test differs"
    );
}

#[test]
fn the_readme_fixture_drives_the_real_binary() {
    let server = env!("CARGO_BIN_EXE_cqld");
    let log = run_pytest(
        "integration-tests/python_throwaway",
        &[("CQL_SERVER_BIN", server)],
    );
    assert!(log.contains("4 passed"), "{log}");
}

#[test]
fn the_readme_shell_one_liner_runs_a_suite_and_stops_the_server() {
    let readme = readme();
    let line = blocks(&readme, "sh")
        .into_iter()
        .find(|block| block.contains("--in-memory --port 9043"))
        .expect("the one-liner");
    let port = free_port().to_string();
    let line = line.replace("9043", &port);
    // The suite the one-liner runs: one test that reads through the server it started.
    let suite = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        suite.path().join("test_smoke.py"),
        "import os\nfrom cassandra.cluster import Cluster\n\n\ndef test_smoke():\n    \
         cluster = Cluster(['127.0.0.1'], port=int(os.environ['CQL_PORT']))\n    \
         row = cluster.connect().execute(\"SELECT cluster_name FROM system.local\").one()\n    \
         cluster.shutdown()\n    assert row.cluster_name == 'Test Cluster'\n",
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
        .args(["-c", &line])
        .current_dir(suite.path())
        .env("PATH", path)
        .output()
        .expect("run the one-liner");
    let log = text(&output);
    assert!(output.status.success(), "{log}");
    assert!(log.contains("1 passed"), "{log}");
    let left = entries_besides(suite.path(), "test_smoke.py");
    assert!(left.is_empty(), "the in-memory server left files: {left:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port.parse::<u16>().expect("a port"))).is_ok() {
        assert!(Instant::now() < deadline, "the server still runs");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What `dir` holds besides `kept` and pytest's own caches.
fn entries_besides(dir: &Path, kept: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read the directory")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name != kept && name != "__pycache__" && name != ".pytest_cache")
        .collect()
}
