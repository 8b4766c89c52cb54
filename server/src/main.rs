//! `cqld`: starts the CQL server. Parses flags (and an optional YAML config with
//! Cassandra's setting names), installs the tracing subscriber, binds, and runs until Ctrl-C.

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use server::config::{parse_duration, parse_sync_mode, sync_mode_name, Config};
use tracing::{error, info, warn};

mod allocator;

/// cqld: a Cassandra-compatible CQL server in one process (native protocol v3, v4 and v5).
#[derive(Debug, Parser)]
#[command(name = "cqld", version = server::VERSION_LINE.as_str())]
struct Args {
    /// YAML configuration file using cassandra.yaml setting names.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Address to listen on for CQL clients.
    #[arg(long)]
    listen_address: Option<IpAddr>,
    /// CQL native transport port.
    #[arg(long)]
    port: Option<u16>,
    /// Data directory (default: ./data).
    #[arg(long, conflicts_with = "in_memory")]
    data_dir: Option<PathBuf>,
    /// Keep everything in memory: no data directory, no commit log, no file created anywhere;
    /// the data is gone when the server stops (a throwaway server for tests).
    #[arg(long)]
    in_memory: bool,
    /// `periodic` (commit log fsynced every commitlog_sync_period), `batch` (fsynced before
    /// every acknowledgement) or `group` (as batch, at most one fsync per window).
    #[arg(long, value_parser = parse_sync_flag)]
    commitlog_sync: Option<storage::SyncMode>,
    /// Serve HTTP at HOST:PORT: Prometheus metrics at /metrics, readiness at /ready, and
    /// the test controls when they are on (port 0: any free port).
    #[arg(long, value_name = "HOST:PORT", alias = "metrics-address")]
    http_address: Option<std::net::SocketAddr>,
    /// Turn the test controls (reset, snapshots, faults, query log, clock) on or off; on by
    /// default with --in-memory, off otherwise.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    test_controls: Option<bool>,
    /// Requests the test controls' query log keeps (default 10000).
    #[arg(long, value_name = "N")]
    query_log_size: Option<usize>,
    /// CQL run before the port opens: a file, or a directory whose *.cql files run in name
    /// order. A failing statement stops the start.
    #[arg(long, value_name = "PATH")]
    init_cql: Option<PathBuf>,
    /// Present a simulated cluster of many nodes from this one process, e.g. `dc1:3,dc2:2`:
    /// node N listens on the N-th address counted up from --listen-address.
    #[arg(long, value_name = "DC:NODES,...", value_parser = parse_cluster_flag)]
    simulated_cluster: Option<server::config::ClusterSpec>,
    /// Refuse, as a single Cassandra node does, the consistency levels a keyspace's
    /// replication factor cannot meet on one node (QUORUM on RF 3: Unavailable); off by
    /// default, where one node meets every level.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    strict_consistency: Option<bool>,
    /// Threads serving client connections, one runtime each (default: the cores available;
    /// 0 counts as 1).
    #[arg(long)]
    connection_threads: Option<usize>,
    /// `group` mode's least time from one fsync's start to the next's, e.g. `15ms`.
    #[arg(long, value_parser = parse_duration_flag)]
    commitlog_sync_group_window: Option<std::time::Duration>,
    /// A Cassandra system property, as `-Dname=value`. The one read is
    /// `-Dcassandra.commitlog.ignorereplayerrors=true`: start even when the commit log is
    /// damaged where Cassandra would refuse to, skipping what cannot be read.
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    system_properties: Vec<String>,
    /// `text` (the default; coloured only on a terminal) or `json` (one object a line, for
    /// log collectors).
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

/// Installs the log subscriber: `RUST_LOG` or INFO, to stderr, colour only when stderr is a
/// terminal (escape codes in a file or a pipe are noise). Stdout is kept for the lines
/// programs read: where the server listens.
fn init_logs(format: LogFormat) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Json => logs.json().init(),
        LogFormat::Text => logs.with_ansi(std::io::stderr().is_terminal()).init(),
    }
}

/// Says on stdout, one line each, where the server listens (the first line: CQL), for
/// programs that start it (`--port 0` takes any free port).
fn announce(cql: std::net::SocketAddr, http: Option<std::net::SocketAddr>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "listening for CQL clients on {cql}");
    if let Some(http) = http {
        let _ = writeln!(out, "serving HTTP on {http}");
    }
    let _ = out.flush();
}

/// Refuses the start: logs `what` and its `cause`, and says it on stderr too (the log may be
/// going to a file or a collector), then exits non-zero.
fn refuse(what: &str, cause: &dyn std::fmt::Display) -> ExitCode {
    error!(%cause, "{what}");
    eprintln!("cqld: {what}: {cause}");
    ExitCode::FAILURE
}

fn parse_sync_flag(text: &str) -> Result<storage::SyncMode, String> {
    parse_sync_mode(text).ok_or_else(|| format!("expected periodic, batch or group, got {text}"))
}

fn parse_cluster_flag(text: &str) -> Result<server::config::ClusterSpec, String> {
    server::config::ClusterSpec::parse(text).map_err(|err| err.to_string())
}

fn parse_duration_flag(text: &str) -> Result<std::time::Duration, String> {
    parse_duration(text).ok_or_else(|| format!("expected a duration such as 15ms, got {text}"))
}

/// Listens for Ctrl-C (SIGINT) and SIGTERM from now on; the future completes on either.
/// Called before the port is bound, so a signal sent once the port accepts connections always
/// finds its handler: registered lazily, at the future's first poll, a SIGINT in the window
/// between the bind and that poll took the default action and ended the process without the
/// orderly shutdown (final checkpoint, connections answered).
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}

/// Applies the command-line flags over the configuration file's settings.
fn apply_flags(config: &mut Config, args: Args) -> Result<(), String> {
    for property in &args.system_properties {
        config.apply_system_property(property)?;
    }
    if let Some(addr) = args.listen_address {
        config.listen_address = addr;
    }
    if let Some(port) = args.port {
        config.port = port;
    }
    if let Some(dir) = args.data_dir {
        config.data_dir = Some(dir);
    }
    if args.in_memory {
        config.data_dir = None;
    }
    if let Some(address) = args.http_address {
        config.http_address = Some(address);
    }
    if let Some(on) = args.test_controls {
        config.test_controls = Some(on);
    }
    if let Some(size) = args.query_log_size {
        config.query_log_size = size;
    }
    if let Some(path) = args.init_cql {
        config.init_cql = Some(path);
    }
    if let Some(spec) = args.simulated_cluster {
        config.simulated_cluster = Some(spec);
    }
    if let Some(strict) = args.strict_consistency {
        config.strict_consistency = strict;
    }
    if let Some(mode) = args.commitlog_sync {
        config.commitlog_sync = mode;
    }
    if let Some(threads) = args.connection_threads {
        config.connection_threads = threads.max(1);
    }
    if let Some(window) = args.commitlog_sync_group_window {
        config.commitlog_sync_group_window = Some(window);
    }
    Ok(())
}

/// Logs what the server starts with, and the file's Cassandra settings it does not act on.
fn log_startup(config: &Config, ignored: &[String]) {
    let data_dir = config.data_dir.as_ref().map_or_else(
        || "(in memory)".to_string(),
        |dir| dir.display().to_string(),
    );
    info!(
        version = env!("CARGO_PKG_VERSION"),
        data_dir = %data_dir,
        commitlog_sync = sync_mode_name(config.commitlog_sync),
        authenticator = config.authenticator.class_name(),
        authorizer = config.authorizer.class_name(),
        client_tls = config.client_encryption.policy_name(),
        client_certificates = config.client_encryption.client_auth_name(),
        "starting"
    );
    if config.user_defined_functions_requested {
        warn!(
            "user_defined_functions_enabled is true, but cqld does not run user-defined functions or aggregates: CREATE FUNCTION and CREATE AGGREGATE are refused"
        );
    }
    if !ignored.is_empty() {
        info!(
            settings = %ignored.join(", "),
            "cassandra.yaml settings accepted without acting on them"
        );
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    init_logs(args.log_format);
    allocator::return_memory_promptly();
    let mut config = Config {
        data_dir: Some(PathBuf::from("data")),
        ..Config::default()
    };
    let mut ignored = Vec::new();
    if let Some(path) = &args.config {
        match config.apply_yaml_file(path) {
            Ok(names) => ignored = names,
            Err(err) => {
                return refuse(&format!("invalid configuration {}", path.display()), &err);
            }
        }
    }
    if let Err(cause) = apply_flags(&mut config, args) {
        return refuse("invalid command line", &cause);
    }
    log_startup(&config, &ignored);
    // The key material is checked before the port is bound (the listener loads it again).
    if let Err(err) = server::check_client_tls(&config) {
        return refuse("invalid configuration", &err);
    }
    // The listener and the background tasks; connections run on threads of their own
    // (`connection_threads`).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => return refuse("cannot start the async runtime", &err),
    };
    let result = runtime.block_on(async {
        let signalled = shutdown_signal()?;
        // Storage first (replaying the commit log), as Cassandra opens its native transport
        // only after replay: a start refused for damage never opens the port.
        let address = (config.listen_address, config.port);
        let node = std::sync::Arc::new(server::Node::open(config)?);
        // `/ready` answers (503) while the init scripts run; the CQL port opens after them.
        let http = server::start_http(&node).await?;
        server::prepare(&node).await?;
        let listener = tokio::net::TcpListener::bind(address).await?;
        server::bind_simulated_nodes(&node, &listener).await?;
        let cql = listener.local_addr()?;
        info!(address = %cql, "listening for CQL clients");
        announce(cql, http);
        server::serve_node(listener, node, async {
            signalled.await;
            info!("shutting down");
        })
        .await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => refuse("server failed", &err),
    }
}
