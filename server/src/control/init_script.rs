//! `--init-cql PATH` (`init_cql`): CQL run before the port opens, as a database image's
//! `docker-entrypoint-initdb.d` does — a file, or every `*.cql` file of a directory in name
//! order. A statement that fails stops the start, naming the file, the line it starts on and
//! Cassandra's message. Scripts run as the default superuser, so they may create roles too.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::auth::authenticator::DEFAULT_ROLE;
use crate::executor::ExecOptions;
use crate::node::Node;
use crate::transport::session::Session;

/// Runs the node's `init_cql` scripts, unless they ran already.
///
/// # Errors
/// A file that cannot be read; a statement that does not parse or fails:
/// `<file>:<line>: <message>`.
pub(crate) async fn run_once(node: &Arc<Node>) -> Result<(), String> {
    let Some(path) = node.config().init_cql.clone() else {
        return Ok(());
    };
    if node.controls().mark_initialized() {
        return Ok(());
    }
    let session = internal_session(node);
    for file in script_files(&path)? {
        run_file(node, &session, &file).await?;
    }
    Ok(())
}

/// The files `path` names: itself, or a directory's `*.cql` files by name.
fn script_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    let meta = std::fs::metadata(path).map_err(|err| format!("{}: {err}", path.display()))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = std::fs::read_dir(path).map_err(|err| format!("{}: {err}", path.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| format!("{}: {err}", path.display()))?;
        let file = entry.path();
        if file.extension().is_some_and(|ext| ext == "cql") && file.is_file() {
            files.push(file);
        }
    }
    files.sort();
    Ok(files)
}

/// Runs every statement of `file` in order, on `session` (so `USE` carries over).
async fn run_file(node: &Arc<Node>, session: &Arc<Session>, file: &Path) -> Result<(), String> {
    let name = file.display();
    let text = std::fs::read_to_string(file).map_err(|err| format!("{name}: {err}"))?;
    let statements =
        cql::statement::parse_script(&text).map_err(|err| format!("{name}:{}: {err}", err.line))?;
    let count = statements.len();
    for (line, statement) in statements {
        let keyspace = session.keyspace();
        let outcome = crate::executor::run::execute_text(
            node,
            session,
            statement,
            keyspace.as_deref(),
            ExecOptions::default(),
        )
        .await;
        // `USE` switched the session's keyspace already.
        if let Err(err) = outcome {
            return Err(format!("{name}:{line}: {err}"));
        }
    }
    tracing::info!(file = %name, statements = count, "init_cql script ran");
    Ok(())
}

/// A session on no connection, logged in as the default superuser.
fn internal_session(node: &Node) -> Arc<Session> {
    let address = std::net::SocketAddr::from((node.config().listen_address, 0));
    let session = Session::new(address, address);
    session.log_in(DEFAULT_ROLE.to_string());
    Arc::new(session)
}
