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
    Command::new(env!("CARGO_BIN_EXE_cqld"))
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

/// `user_defined_functions_enabled: true` is taken, and the start warns once that cqld runs
/// no user-defined functions (the 4.0 name too).
#[test]
fn asking_for_user_defined_functions_is_warned_about_at_start() {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    for key in [
        "user_defined_functions_enabled",
        "enable_user_defined_functions",
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let port = free_port();
        let mut child = start_with_config(dir.path(), &format!("{key}: true\n"), port);
        drop(Client::connect(port));
        child.kill().expect("stop the server");
        let log = text(&child.wait_with_output().expect("the server's output"));
        let warnings: Vec<&str> = log
            .lines()
            .filter(|line| line.contains("WARN"))
            .filter(|line| line.contains("does not run user-defined functions"))
            .collect();
        assert_eq!(warnings.len(), 1, "{key}: {log}");
        assert!(
            warnings[0].contains("CREATE FUNCTION and CREATE AGGREGATE are refused"),
            "{log}"
        );
    }
    // Left off (or false), nothing is said.
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let mut child = start_with_config(dir.path(), "user_defined_functions_enabled: false\n", port);
    drop(Client::connect(port));
    child.kill().expect("stop the server");
    let log = text(&child.wait_with_output().expect("the server's output"));
    assert!(!log.contains("user-defined functions"), "{log}");
}

/// A refused start says why on stderr (whatever the log goes to), and a log written to a pipe
/// holds no colour codes.
#[test]
fn a_refused_start_says_why_on_stderr_without_colour_codes() {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cassandra.yaml");
    std::fs::write(&path, "native_transport_prot: 1\n").expect("write the config file");
    let child = Command::new(env!("CARGO_BIN_EXE_cqld"))
        .arg("--config")
        .arg(&path)
        .args(["--port", &free_port().to_string(), "--in-memory"])
        .env_remove("NO_COLOR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start server");
    let output = wait_for_exit(child);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Please remove properties [native_transport_prot]"),
        "{stderr}"
    );
    assert!(stderr.contains("ERROR"), "{stderr}");
    assert!(
        !stderr.contains('\u{1b}'),
        "escape codes in a pipe: {stderr:?}"
    );
}

/// `--log-format json` writes one JSON object a line.
#[test]
fn json_logs_are_one_object_a_line() {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cqld"))
        .args([
            "--port",
            &port.to_string(),
            "--in-memory",
            "--log-format",
            "json",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start server");
    drop(Client::connect(port));
    let _ = child.kill();
    let output = child.wait_with_output().expect("the server's output");
    let logs = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = logs.lines().collect();
    assert!(lines.len() >= 2, "{logs}");
    for line in lines {
        let value: serde_json::Value = serde_json::from_str(line).expect(line);
        assert!(
            value["level"].is_string() && value["fields"].is_object(),
            "{line}"
        );
    }
    assert!(logs.contains("listening for CQL clients"), "{logs}");
}

/// A driver probing for a protocol version the server does not speak (or the beta v6 without
/// its flag) is answered and closed
/// without a WARN line (Cassandra logs those probes only at DEBUG).
#[test]
fn protocol_version_probes_are_not_warnings() {
    use std::io::{Read, Write};
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let port = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cqld"))
        .args(["--port", &port.to_string(), "--in-memory"])
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start server");
    drop(Client::connect(port));
    for version in [0x06u8, 0x42] {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
        // A STARTUP header of an unsupported version, as drivers send while negotiating.
        stream
            .write_all(&[version, 0, 0, 0, 0x01, 0, 0, 0, 0])
            .expect("send");
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        assert!(!answer.is_empty(), "the probe is answered");
    }
    let _ = child.kill();
    let output = child.wait_with_output().expect("the server's output");
    let logs = String::from_utf8_lossy(&output.stderr);
    assert!(!logs.contains("WARN"), "{logs}");
}

/// `cqld --version` names the program, its version and the Cassandra it answers as (what
/// `system.local` says to clients).
#[test]
fn version_names_the_program_and_the_cassandra_it_answers_as() {
    let output = Command::new(env!("CARGO_BIN_EXE_cqld"))
        .arg("--version")
        .output()
        .expect("run cqld --version");
    assert!(output.status.success(), "{}", text(&output));
    let line = String::from_utf8_lossy(&output.stdout);
    let expected = format!(
        "cqld {} (answers as Apache Cassandra 5.0.0, CQL 3.4.7, native protocol v3, v4 and v5)\n",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(line, expected);
}
