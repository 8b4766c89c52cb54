//! What a request asks of the executor besides its statement and bound values: consistency,
//! paging, metadata and the write timestamp. The handler builds it from the wire message
//! (QUERY, EXECUTE or BATCH); the executor never sees the message itself.

use bytes::Bytes;

/// A request's execution options. They live with the bound statement, which may outlive the
/// request's message (a read finished on the blocking pool), so the paging state is shared
/// with the message rather than borrowed from it (cloning one copies no buffer).
#[derive(Debug, Clone, Default)]
pub(crate) struct ExecOptions {
    /// The consistency level, as the protocol's code ([`crate::executor::consistency`]): checked
    /// against the kind of statement (reads refuse `ANY`, plain writes the serial levels);
    /// one node honours every accepted level alike, unless `strict_consistency` asks it to
    /// count replicas as a single Cassandra node does (`executor::cluster_check`).
    pub consistency: u16,
    /// The consistency of a conditional update's Paxos phase, as the protocol's code;
    /// `None` when the request named none. Only the serial levels are accepted.
    pub serial_consistency: Option<u16>,
    /// The rows a SELECT answers per page; `None` reads everything in one page (the request
    /// asked no paging, or a page size of zero or less).
    pub page_size: Option<usize>,
    /// Where the previous page stopped ([`crate::executor::read::paging::PagingState`]); read
    /// only when the SELECT pages.
    pub paging_state: Option<Bytes>,
    /// Rows results are sent without their column specs (the client holds them).
    pub skip_metadata: bool,
    /// The write timestamp, in microseconds, of writes without `USING TIMESTAMP`; `None`
    /// takes one from the server's clock.
    pub timestamp: Option<i64>,
}
