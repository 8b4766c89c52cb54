//! Process-level tests of the configuration file: the real binary refuses a file with a key
//! that is no Cassandra setting, and starts with one that only has settings it ignores.

mod support;

use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::{free_port, Client, ONE_AT_A_TIME};

/// Starts the server with `yaml` as its configuration file, capturing its output.
fn start_with_config(dir: &std::path::Path, yaml: &str, port: u16) -> Child {
    let path = dir.join("cassandra.yaml");
    std::fs::write(&path, yaml).expect("write the config file");
    Command::new(env!("CARGO_BIN_EXE_server"))
        .arg("--config")
        .arg(&path)
        .args(["--port", &port.to_string(), "--data-dir"])
        .arg(dir.join("data"))
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start server")
}

/// Waits for the process to exit by itself; kills it and fails after 20 s.
fn wait_for_exit(mut child: Child) -> Output {
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("poll the server").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server did not exit: {:?}", child.wait_with_output());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("the server's output")
}

/// Everything the process wrote, stdout and stderr.
fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn unknown_key_refuses_the_start() {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml = "cluster_name: Prod\nnative_transport_prot: 19144\nnum_tokens: 16\n";
    let output = wait_for_exit(start_with_config(dir.path(), yaml, free_port()));
    let log = text(&output);
    assert!(!output.status.success(), "{log}");
    assert!(log.contains("ERROR"), "{log}");
    assert!(
        log.contains(
            "Invalid yaml. Please remove properties [native_transport_prot] from your cassandra.yaml"
        ),
        "{log}"
    );
}

#[test]
fn an_unknown_authenticator_refuses_the_start() {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml = "authenticator: com.example.LdapAuthenticator\n";
    let output = wait_for_exit(start_with_config(dir.path(), yaml, free_port()));
    let log = text(&output);
    assert!(!output.status.success(), "{log}");
    assert!(
        log.contains("authenticator: com.example.LdapAuthenticator is not supported yet"),
        "{log}"
    );
}

#[test]
fn ignored_cassandra_settings_are_reported_at_start() {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let yaml = "num_tokens: 16\nconcurrent_reads: 32\nauthenticator: AllowAllAuthenticator\n\
                client_encryption_options:\n  enabled: false\n";
    let mut child = start_with_config(dir.path(), yaml, port);
    drop(Client::connect(port));
    child.kill().expect("stop the server");
    let log = text(&child.wait_with_output().expect("the server's output"));
    let startup = log
        .lines()
        .find(|line| line.contains("starting"))
        .unwrap_or_else(|| panic!("no startup line: {log}"));
    for part in [
        env!("CARGO_PKG_VERSION"),
        "data_dir=",
        "commitlog_sync=\"periodic\"",
        "authenticator=\"AllowAllAuthenticator\"",
        "authorizer=\"AllowAllAuthorizer\"",
        "client_tls=\"off\"",
    ] {
        assert!(startup.contains(part), "{part} missing from {startup}");
    }
    assert!(
        log.lines()
            .any(|line| line.contains("concurrent_reads, num_tokens")),
        "{log}"
    );
}
