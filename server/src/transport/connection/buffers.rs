//! A connection's stream halves and their buffers: bytes read and not yet parsed, frames
//! queued for the next write, and the in-flight bytes held until that write.

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tracing::debug;

use super::READ_BUFFER;
use crate::transport::framing::Framing;
use crate::transport::inflight::Allocation;

/// The largest output buffer kept from one write to the next: a connection answering small
/// requests reuses one buffer instead of growing a new one for each write, and an idle
/// connection holds at most this much (not charged to the in-flight limits).
const KEPT_OUTPUT: usize = 16 * 1024;

/// The stream's halves and their buffers.
pub(super) struct Io<R, W> {
    pub(super) reader: R,
    pub(super) writer: W,
    /// Bytes read and not yet parsed into envelopes.
    pub(super) input: BytesMut,
    /// Frames ready to go out in the next write.
    pub(super) output: BytesMut,
    /// In-flight bytes of the requests answered in `output` and of their answers, given back
    /// once written (so a slow reader's answers count against the limits).
    pub(super) held: Vec<Allocation>,
    /// Plain envelopes, or v5 segments after the handshake.
    pub(super) framing: Framing,
    /// Set when an answer asks for the connection to close (an injected fault).
    pub(super) close: bool,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Io<R, W> {
    /// Reads more bytes; `false` when the stream ended or failed.
    pub(super) async fn read(&mut self) -> bool {
        if self.input.capacity() - self.input.len() < READ_BUFFER / 4 {
            self.input.reserve(READ_BUFFER);
        }
        match self.reader.read_buf(&mut self.input).await {
            Ok(0) => false,
            Ok(_) => true,
            Err(err) => {
                debug!(cause = %err, "connection read failed");
                false
            }
        }
    }

    /// Writes every queued frame at once; `false` when the peer is gone.
    pub(super) async fn flush(&mut self) -> bool {
        if self.output.is_empty() {
            return true;
        }
        let mut output = self.framing.wrap(std::mem::take(&mut self.output));
        // A TLS stream may keep the last records in its buffer until flushed; a socket's
        // flush does nothing.
        let written = match self.writer.write_all(&output).await {
            Ok(()) => self.writer.flush().await,
            Err(err) => Err(err),
        };
        self.held.clear();
        if output.capacity() <= KEPT_OUTPUT {
            // Kept for the next answers, which then need no buffer of their own to grow.
            output.clear();
            self.output = output;
        }
        match written {
            Ok(()) => true,
            Err(err) => {
                debug!(cause = %err, "connection write failed");
                false
            }
        }
    }
}

impl<R, W> Io<R, W> {
    /// Queues a frame for the next write.
    pub(super) fn queue(&mut self, frame: BytesMut) {
        if self.output.is_empty() && self.output.capacity() < frame.len() {
            self.output = frame;
        } else {
            self.output.extend_from_slice(&frame);
        }
    }
}
