//! Runs a pytest suite of the repository with the project's venv (`scripts/python-env.sh`),
//! as `integration_tests::run_pytest` does for the in-process tests; here for suites that
//! start the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The project's venv, created on first use.
pub(crate) fn venv() -> PathBuf {
    let env = Command::new("bash")
        .arg(root().join("scripts/python-env.sh"))
        .output()
        .expect("run python-env.sh");
    assert!(
        env.status.success(),
        "venv setup failed: {}",
        String::from_utf8_lossy(&env.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&env.stdout).trim())
}

/// Everything a process wrote, stdout then stderr.
pub(crate) fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs pytest on `path` (relative to the repository) with `envs`; fails unless pytest
/// passed and ran at least one test. Returns its output.
pub(crate) fn run_pytest(path: &str, envs: &[(&str, &str)]) -> String {
    let output = Command::new(venv().join("bin/python"))
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"])
        .arg(root().join(path))
        .envs(envs.iter().copied())
        .output()
        .expect("run pytest");
    let log = text(&output);
    assert!(output.status.success(), "pytest failed:\n{log}");
    assert!(log.contains(" passed"), "pytest ran no test:\n{log}");
    log
}
