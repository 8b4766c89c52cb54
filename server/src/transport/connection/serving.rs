//! What a connection's loop does in each pass: start the requests whole in the read buffer,
//! queue the answers that are ready, batch the pass's writes, and wait for the next event.

use super::*;

/// What the steps of a connection's loop share: the node and session, the in-flight
/// budget, both ends of the event queue, the deadlines and the limits.
pub(super) struct Serving<'a> {
    pub(super) node: &'a Arc<Node>,
    pub(super) session: &'a Arc<Session>,
    pub(super) budget: Budget,
    pub(super) events_tx: mpsc::Sender<BytesMut>,
    pub(super) events_rx: mpsc::Receiver<BytesMut>,
    pub(super) timers: Timers,
    /// Requests in flight at most (`max_requests_per_connection`).
    pub(super) limit: usize,
    pub(super) max_frame: usize,
}

/// What the passes between two waits did.
pub(super) struct Passes {
    /// Whether parsing stopped at the in-flight limits: the read buffer may still hold
    /// whole requests, so the connection waits for the limits, not for the socket.
    pub(super) paused: bool,
    /// Requests started.
    pub(super) started: usize,
    /// Whether starting stopped because [`OUTPUT_BATCH`] bytes of answers were queued: the
    /// connection writes them, then starts the requests still buffered without waiting.
    pub(super) write_first: bool,
}

impl<'a> Serving<'a> {
    pub(super) fn new(node: &'a Arc<Node>, session: &'a Arc<Session>) -> Serving<'a> {
        let limit = node.config().max_requests_per_connection.max(1);
        let max_frame = node.config().max_frame_size;
        let (events_tx, events_rx) = mpsc::channel::<BytesMut>(EVENT_QUEUE);
        let budget = node.inflight().budget(session.peer.ip());
        let timers = Timers::new(node.config());
        Serving {
            node,
            session,
            budget,
            events_tx,
            events_rx,
            timers,
            limit,
            max_frame,
        }
    }

    /// Starts what was read and polls the requests (new ones included) once; answers free
    /// room for envelopes already buffered, so passes repeat until neither makes progress.
    /// `start` makes a request's future, answering with its allocation.
    pub(super) fn run_passes<R, W, F>(
        &self,
        io: &mut Io<R, W>,
        in_flight: &mut FuturesUnordered<F>,
        reading: &mut bool,
        start: &impl Fn(Envelope, Next, Allocation) -> F,
    ) -> Passes
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
        F: Future<Output = (Answer, Allocation)> + Unpin,
    {
        let mut passes = Passes {
            paused: false,
            started: 0,
            write_first: false,
        };
        loop {
            // The writes these requests make wait for the end of the pass and go to the
            // storage writer together, applied on this thread when it is free (one commit log
            // append, no hand-off between threads).
            let pass = self.node.write_pass();
            // Answers ready first: requests answered at once must not keep those waiting
            // while their answers fill every write.
            let mut progress = self.queue_ready(io, in_flight);
            progress |= self.start_requests(io, in_flight, reading, start, &mut passes);
            // Applied writes woke their requests: poll them again for the answers.
            progress |= pass.drive();
            drop(pass);
            if !progress {
                return passes;
            }
        }
    }

    /// Starts the requests whole in the read buffer, up to the in-flight limits and
    /// [`START_BATCH`] a pass, and until [`OUTPUT_BATCH`] bytes of answers wait to be written
    /// (then `write_first`); whether one was parsed.
    pub(super) fn start_requests<R, W, F>(
        &self,
        io: &mut Io<R, W>,
        in_flight: &mut FuturesUnordered<F>,
        reading: &mut bool,
        start: &impl Fn(Envelope, Next, Allocation) -> F,
        passes: &mut Passes,
    ) -> bool
    where
        F: Future<Output = (Answer, Allocation)> + Unpin,
    {
        let mut progress = false;
        while *reading && in_flight.len() < self.limit && passes.started < START_BATCH {
            if io.output.len() >= OUTPUT_BATCH {
                // Answers made here count too: write them before building more.
                passes.write_first = true;
                break;
            }
            if self.budget.must_pause() {
                passes.paused = true;
                break;
            }
            let Some(envelope) = next_envelope(self.session, io, self.max_frame, reading) else {
                break;
            };
            progress = true;
            passes.started += 1;
            let Some(allocation) = allocate(&self.budget, self.session, io, &envelope) else {
                continue;
            };
            // Most requests (reads of rows in memory, every failure) are answered here,
            // without a request future; a plain write goes to the writer here, leaving only
            // its acknowledgement to wait for.
            let next = match answer_now(self.node, self.session, &envelope) {
                Now::Answered(answer) => {
                    self.queue_answer(io, (answer, allocation));
                    continue;
                }
                Now::NotTried => Next::Serve(None),
                Now::Later(begun) => Next::Serve(Some(begun)),
                Now::Writing(pending) => Next::Await(pending),
            };
            let mut request = start(envelope, next, allocation);
            // A request answered on its first poll (a traced one that did not wait, a write
            // the writer already applied) needs no place in the set, nor its waker and queue.
            match Pin::new(&mut request).poll(&mut Context::from_waker(noop_waker_ref())) {
                Poll::Ready(answered) => self.queue_answer(io, answered),
                Poll::Pending => in_flight.push(request),
            }
        }
        progress
    }

    /// Queues the answers ready now; they go out together, in one write. Past a megabyte the
    /// write goes first, so a slow reader never has many large answers built at once.
    /// Whether one was ready.
    pub(super) fn queue_ready<R, W, F>(
        &self,
        io: &mut Io<R, W>,
        in_flight: &mut FuturesUnordered<F>,
    ) -> bool
    where
        F: Future<Output = (Answer, Allocation)>,
    {
        let mut progress = false;
        while io.output.len() < OUTPUT_BATCH {
            let Some(Some(answered)) = in_flight.next().now_or_never() else {
                break;
            };
            self.queue_answer(io, answered);
            progress = true;
        }
        progress
    }

    /// Queues an answer (see [`queue_answer`]).
    pub(super) fn queue_answer<R, W>(&self, io: &mut Io<R, W>, answered: (Answer, Allocation)) {
        queue_answer(self.node, self.session, io, &self.events_tx, answered);
    }

    /// Waits for the next thing to do: shutdown, an answer, bytes to read (or, when
    /// `paused`, room under the in-flight limits), an event, or a deadline.
    pub(super) async fn wait<R, W, F>(
        &mut self,
        shutdown: &mut Shutdown,
        io: &mut Io<R, W>,
        in_flight: &mut FuturesUnordered<F>,
        reading: bool,
        paused: bool,
    ) -> Wake
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin,
        F: Future<Output = (Answer, Allocation)>,
    {
        // A client still in the SASL exchange has not completed the handshake either.
        let started = self.session.is_started() && !self.session.is_authenticating();
        let (limit, timers) = (self.limit, &mut self.timers);
        tokio::select! {
            biased;
            () = shutdown.recv(), if reading => Wake::Shutdown,
            Some(answered) = in_flight.next(), if !in_flight.is_empty() => Wake::Answer(answered),
            more = io.read(), if reading && in_flight.len() < limit && !paused => Wake::Read(more),
            () = self.budget.below_limits(), if reading && paused => Wake::Read(true),
            Some(frame) = self.events_rx.recv() => Wake::Event(frame),
            () = timers.handshake.as_mut(), if reading && !started => {
                debug!("closing a connection that did not complete STARTUP in time");
                Wake::Shutdown
            }
            () = Timers::idle(&mut timers.idle), if reading => {
                debug!("closing an idle connection (native_transport_idle_timeout)");
                Wake::Shutdown
            }
            // Unreachable while `events_tx` lives; ends the connection rather than panicking.
            else => Wake::Read(false),
        }
    }
}
