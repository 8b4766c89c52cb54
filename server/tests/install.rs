//! `cargo install --path server`, the documented install, installs the `cqld` binary: checked
//! on the package's metadata as cargo reads it (nothing is built).

use std::process::Command;

#[test]
fn cargo_install_of_the_server_package_installs_cqld() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .args(["--manifest-path", manifest])
        .output()
        .expect("run cargo metadata");
    assert!(output.status.success(), "{output:?}");
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let package = metadata["packages"]
        .as_array()
        .expect("a package list")
        .iter()
        .find(|package| package["name"] == "server")
        .expect("the server package");
    let binaries: Vec<&str> = package["targets"]
        .as_array()
        .expect("a target list")
        .iter()
        .filter(|target| {
            target["kind"]
                .as_array()
                .is_some_and(|k| k.contains(&"bin".into()))
        })
        .filter_map(|target| target["name"].as_str())
        .collect();
    // `cargo install` installs every binary target of the package: exactly cqld.
    assert_eq!(binaries, ["cqld"]);
}
