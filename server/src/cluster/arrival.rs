//! A request arriving at a simulated node: counted for the node it came to (the routing the
//! tests check), and never answered when that node is paused.

use cql::frame::request::Request;

use super::state::{NodeState, SimulatedCluster};
use crate::transport::session::Session;

/// Counts `request` for the node `session` is connected to; whether it must go unanswered
/// (the node is paused).
pub(crate) fn arrive(cluster: &SimulatedCluster, session: &Session, request: &Request) -> bool {
    let Some(index) = cluster.index_at(session.local.ip()) else {
        return false;
    };
    if matches!(
        request,
        Request::Query(_) | Request::Execute(_) | Request::Batch(_)
    ) {
        cluster.count_request(index);
    }
    cluster.state(index) == NodeState::Paused
}
