//! What a fault rule can match of a request ([`Facts`]), read off the decoded request with
//! one arm per opcode: QUERY (its text, parsed), EXECUTE (its prepared statement), BATCH
//! (each statement) and PREPARE (its text). Other opcodes, and statements on the
//! `test_control` keyspace (so both doors stay usable whatever the rules say), have none.

use std::net::IpAddr;

use bytes::Bytes;
use cql::frame::request::{BatchQuery, Request};
use cql::statement::ast::{BatchKind, QualifiedName, Statement};

use crate::node::Node;
use crate::transport::session::Session;

/// The request message a rule may fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Message {
    Query,
    Execute,
    Batch,
    Prepare,
}

/// The kind of statement a request runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Select,
    Insert,
    Update,
    Delete,
    Batch,
    /// DDL, USE, roles, ...: matched only by rules for any kind.
    Other,
    /// An EXECUTE of an id this node does not know.
    Unknown,
}

/// The keyspace and table a statement names (its keyspace resolved against the request's
/// or the session's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) keyspace: Option<String>,
    pub(crate) table: Option<String>,
}

/// What rules match against, and what an injected error's details default from.
#[derive(Debug, Clone)]
pub(crate) struct Facts {
    pub(crate) message: Message,
    pub(crate) kind: Kind,
    /// The statement texts (a batch's each; an EXECUTE's as prepared).
    pub(crate) texts: Vec<String>,
    /// What the statements name (a batch's each).
    pub(crate) targets: Vec<Target>,
    /// The request's consistency (none for PREPARE).
    pub(crate) consistency: Option<u16>,
    /// The client's address.
    pub(crate) client: IpAddr,
    /// The address the client reached (named by failure messages).
    pub(crate) local: IpAddr,
    /// The id an EXECUTE was sent with (what an injected UNPREPARED carries).
    pub(crate) prepared_id: Option<Bytes>,
    /// The write type a write timeout or failure defaults to.
    pub(crate) write_type: &'static str,
}

impl Facts {
    /// The facts of `request`; `None` when no fault applies to it.
    pub(crate) fn of(node: &Node, session: &Session, request: &Request) -> Option<Facts> {
        let session_keyspace = session.keyspace();
        let mut facts = Facts {
            message: Message::Query,
            kind: Kind::Unknown,
            texts: Vec::new(),
            targets: Vec::new(),
            consistency: None,
            client: session.peer.ip(),
            local: session.local.ip(),
            prepared_id: None,
            write_type: "SIMPLE",
        };
        match request {
            Request::Query(query) => {
                let keyspace = query.params.keyspace.clone().or(session_keyspace);
                facts.consistency = Some(query.params.consistency);
                facts.add_text(&query.query, keyspace.as_deref());
            }
            Request::Execute(execute) => {
                facts.message = Message::Execute;
                facts.consistency = Some(execute.params.consistency);
                facts.prepared_id = Some(execute.id.clone());
                if let Some(prepared) = node.prepared().get(&execute.id) {
                    facts.texts.push(prepared.query.clone());
                    facts.add_statement(&prepared.statement, prepared.keyspace.as_deref());
                }
            }
            Request::Batch(batch) => {
                facts.message = Message::Batch;
                facts.consistency = Some(batch.consistency);
                facts.add_batch(node, batch, session_keyspace);
            }
            Request::Prepare(prepare) => {
                facts.message = Message::Prepare;
                let keyspace = prepare.keyspace.clone().or(session_keyspace);
                facts.add_text(&prepare.query, keyspace.as_deref());
            }
            Request::Startup(_)
            | Request::Options
            | Request::Register(_)
            | Request::AuthResponse(_) => return None,
        }
        let controls = facts
            .targets
            .iter()
            .any(|t| t.keyspace.as_deref() == Some(crate::control::KEYSPACE));
        (!controls).then_some(facts)
    }

    /// A statement's text, parsed for its kind and target (a text that does not parse has
    /// kind `Other` and no target).
    fn add_text(&mut self, text: &str, keyspace: Option<&str>) {
        self.texts.push(text.to_string());
        match cql::statement::parse(text) {
            Ok(parsed) => self.add_statement(&parsed.statement, keyspace),
            Err(_) => self.kind = Kind::Other,
        }
    }

    /// A statement's kind, targets and write type.
    fn add_statement(&mut self, statement: &Statement, keyspace: Option<&str>) {
        self.kind = kind_of(statement);
        match statement {
            Statement::Batch(batch) => {
                self.write_type = batch_write_type(batch.kind);
                for inner in &batch.statements {
                    self.targets.push(target_of(inner, keyspace));
                }
            }
            other => {
                if is_conditional(other) {
                    self.write_type = "CAS";
                }
                self.targets.push(target_of(other, keyspace));
            }
        }
    }

    /// A BATCH message's statements.
    fn add_batch(
        &mut self,
        node: &Node,
        batch: &cql::frame::request::Batch,
        session_keyspace: Option<String>,
    ) {
        let keyspace = batch.keyspace.clone().or(session_keyspace);
        for item in &batch.statements {
            match &item.query {
                BatchQuery::Text(text) => self.add_text(text, keyspace.as_deref()),
                BatchQuery::Prepared(id) => {
                    if let Some(prepared) = node.prepared().get(id) {
                        self.texts.push(prepared.query.clone());
                        let keyspace = prepared.keyspace.as_deref().or(keyspace.as_deref());
                        self.targets.push(target_of(&prepared.statement, keyspace));
                    }
                }
            }
        }
        self.kind = Kind::Batch;
        self.write_type = batch_write_type(if batch.is_counter() {
            BatchKind::Counter
        } else if batch.is_logged() {
            BatchKind::Logged
        } else {
            BatchKind::Unlogged
        });
    }
}

/// A statement's kind.
fn kind_of(statement: &Statement) -> Kind {
    match statement {
        Statement::Select(_) => Kind::Select,
        Statement::Insert(_) => Kind::Insert,
        Statement::Update(_) => Kind::Update,
        Statement::Delete(_) => Kind::Delete,
        Statement::Batch(_) => Kind::Batch,
        _ => Kind::Other,
    }
}

/// The write type Cassandra reports for a batch of `kind`.
fn batch_write_type(kind: BatchKind) -> &'static str {
    match kind {
        BatchKind::Logged => "BATCH",
        BatchKind::Unlogged => "UNLOGGED_BATCH",
        BatchKind::Counter => "COUNTER",
    }
}

/// Whether a statement is a lightweight transaction (`IF ...`).
fn is_conditional(statement: &Statement) -> bool {
    match statement {
        Statement::Insert(insert) => insert.if_not_exists,
        Statement::Update(update) => update.condition.is_some(),
        Statement::Delete(delete) => delete.condition.is_some(),
        _ => false,
    }
}

/// The keyspace and table a statement names; `keyspace` is the one unqualified names are in.
fn target_of(statement: &Statement, keyspace: Option<&str>) -> Target {
    let table = |name: &QualifiedName| Target {
        keyspace: name
            .keyspace
            .as_ref()
            .map(|k| k.name.clone())
            .or_else(|| keyspace.map(str::to_string)),
        table: Some(name.name.name.clone()),
    };
    match statement {
        Statement::Select(s) => table(&s.table),
        Statement::Insert(s) => table(&s.table),
        Statement::Update(s) => table(&s.table),
        Statement::Delete(s) => table(&s.table),
        Statement::Truncate(name) => table(name),
        Statement::CreateTable(s) => table(&s.name),
        Statement::AlterTable(s) => table(&s.name),
        Statement::DropTable { name, .. } => table(name),
        Statement::Use(name)
        | Statement::DropKeyspace { name, .. }
        | Statement::CreateKeyspace(cql::statement::ast::CreateKeyspace { name, .. })
        | Statement::AlterKeyspace(cql::statement::ast::AlterKeyspace { name, .. }) => Target {
            keyspace: Some(name.name.clone()),
            table: None,
        },
        _ => Target {
            keyspace: keyspace.map(str::to_string),
            table: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cql::frame::request::{Batch, BatchStatement, Prepare, Query};

    fn session() -> Session {
        let peer = "10.0.0.7:5000".parse().expect("an address");
        let local = "127.0.0.1:9042".parse().expect("an address");
        Session::new(peer, local)
    }

    fn query(text: &str, consistency: u16) -> Request {
        let mut params = integration_params();
        params.consistency = consistency;
        Request::Query(Query {
            query: text.into(),
            params,
        })
    }

    fn integration_params() -> cql::frame::request::QueryParameters {
        cql::frame::request::QueryParameters {
            consistency: 1,
            values: Vec::new(),
            value_names: None,
            skip_metadata: false,
            page_size: None,
            paging_state: None,
            serial_consistency: None,
            default_timestamp: None,
            keyspace: None,
            now_in_seconds: None,
        }
    }

    fn node() -> Node {
        Node::open(crate::config::Config::default()).expect("node")
    }

    #[test]
    fn a_query_names_its_kind_keyspace_table_and_consistency() {
        let node = node();
        let facts = Facts::of(
            &node,
            &session(),
            &query("SELECT * FROM ks.t WHERE k = 1", 4),
        )
        .expect("facts");
        assert_eq!(facts.message, Message::Query);
        assert_eq!(facts.kind, Kind::Select);
        assert_eq!(
            facts.targets,
            [Target {
                keyspace: Some("ks".into()),
                table: Some("t".into())
            }]
        );
        assert_eq!(facts.consistency, Some(4));
        assert_eq!(facts.client, IpAddr::from([10, 0, 0, 7]));
        let cas = Facts::of(
            &node,
            &session(),
            &query("INSERT INTO t (k) VALUES (1) IF NOT EXISTS", 1),
        )
        .expect("facts");
        assert_eq!((cas.kind, cas.write_type), (Kind::Insert, "CAS"));
        assert_eq!(cas.targets[0].keyspace, None);
        node.close();
    }

    #[test]
    fn batches_and_prepares_are_their_own_messages() {
        let node = node();
        let batch = Request::Batch(Batch {
            kind: 1,
            statements: vec![BatchStatement {
                query: BatchQuery::Text("INSERT INTO ks.t (k) VALUES (1)".into()),
                values: Vec::new(),
            }],
            consistency: 6,
            serial_consistency: None,
            default_timestamp: None,
            value_names: false,
            keyspace: None,
            now_in_seconds: None,
        });
        let facts = Facts::of(&node, &session(), &batch).expect("facts");
        assert_eq!(
            (facts.message, facts.kind, facts.write_type),
            (Message::Batch, Kind::Batch, "UNLOGGED_BATCH")
        );
        assert_eq!(facts.texts, ["INSERT INTO ks.t (k) VALUES (1)"]);
        let prepare = Request::Prepare(Prepare {
            query: "UPDATE ks.t SET v = 1 WHERE k = 1".into(),
            keyspace: None,
        });
        let facts = Facts::of(&node, &session(), &prepare).expect("facts");
        assert_eq!(
            (facts.message, facts.kind, facts.consistency),
            (Message::Prepare, Kind::Update, None)
        );
        node.close();
    }

    #[test]
    fn control_statements_and_other_opcodes_are_never_faulted() {
        let node = node();
        let control = query("DELETE FROM test_control.faults WHERE id = 'a'", 1);
        assert!(Facts::of(&node, &session(), &control).is_none());
        assert!(Facts::of(&node, &session(), &Request::Options).is_none());
        node.close();
    }
}
