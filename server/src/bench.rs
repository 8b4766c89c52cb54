//! Hooks for the criterion benchmarks (feature `bench-internals`, off in every build that
//! serves clients): the request path's stages one at a time on an in-process node, so a
//! regression shows where it came from, without making the stages' types public.

use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use cql::frame::request::Request;
use cql::frame::FrameHeader;
use cql::statement::ast::Statement;

use crate::telemetry::metrics::StatementKind;
use crate::transport::session::Session;
use crate::{Config, Node, ServerError};

/// A node with one client session, driven without a socket.
pub struct BenchNode {
    node: Arc<Node>,
    session: Arc<Session>,
}

impl BenchNode {
    /// Opens a node with `config` and a session as a client at 127.0.0.1 would have.
    ///
    /// # Errors
    /// The node cannot be opened.
    pub fn open(config: Config) -> Result<BenchNode, ServerError> {
        let addr = SocketAddr::from(([127, 0, 0, 1], 9042));
        Ok(BenchNode {
            node: Arc::new(Node::open(config)?),
            session: Arc::new(Session::new(addr, addr)),
        })
    }

    /// One request frame's answer frame, as a connection writes it: decode, handle, encode.
    pub async fn answer(&self, header: &FrameHeader, body: Bytes) -> BytesMut {
        crate::transport::answer::answer(&self.node, &self.session, header, body)
            .await
            .frame
    }

    /// Handles a decoded request (no frame decoding or encoding); whether it succeeded.
    pub async fn handle(&self, request: Request) -> bool {
        let mut kind = StatementKind::None;
        let reply = crate::handler::handle(&self.node, &self.session, request, &mut kind).await;
        black_box(reply).is_ok()
    }

    /// Plans a SELECT or an INSERT against the current schema, as PREPARE does; whether it
    /// planned (other statements: `false`).
    pub fn plan(&self, statement: &Statement) -> bool {
        let schema = self.node.schema();
        match statement {
            Statement::Select(select) => {
                black_box(crate::planner::select::plan_select(&schema, select, None)).is_ok()
            }
            Statement::Insert(insert) => {
                black_box(crate::planner::modify::plan_insert(&schema, insert, None)).is_ok()
            }
            _ => false,
        }
    }

    /// Finds prepared statement `id` and its cached plan, as EXECUTE does; whether both were
    /// there.
    pub fn cached_plan(&self, id: &[u8]) -> bool {
        let Some(prepared) = self.node.prepared().get(id) else {
            return false;
        };
        black_box(prepared.plan_for(&self.node.schema())).is_ok()
    }

    /// Closes the node's storage.
    pub fn close(&self) {
        self.node.close();
    }
}
